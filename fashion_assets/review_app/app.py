"""The review page's routes: the queue, a draft, review actions, looks, photos, crawler
status.

Blocking work (the catalog, the object store, a password's hash) runs in Starlette's thread
pool, so one slow S3 read never stalls the other requests. Every route checks access first
(``access.py``) and every POST checks its CSRF token before touching the catalog, so a
refused request writes nothing.

The queue is a ``QueueView`` (``queue_view.py``): filters, order and place, carried in every
link, so that approving or rejecting a draft opens the next one of the same queue, and a
bulk action acts on exactly the drafts the editor saw listed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from sqlalchemy import Engine
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.middleware.sessions import SessionMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from fashion_assets.catalog.entities import ENTITIES
from fashion_assets.catalog.look_review import (
    DraftLooks,
    LookDecisionError,
    decide_look_pair,
    draft_looks,
)
from fashion_assets.catalog.progress import recent_outcomes
from fashion_assets.catalog.promotion import waiting_for_promotion
from fashion_assets.catalog.review import (
    ReviewError,
    count_drafts,
    get_draft,
    list_drafts,
    review,
)
from fashion_assets.domain.coverage import CoverageRules
from fashion_assets.domain.looks import PairDecision
from fashion_assets.domain.numbers import whole_number
from fashion_assets.domain.passwords import DEFAULT_COST, Argon2Cost
from fashion_assets.domain.progress import STUCK_THRESHOLD_S
from fashion_assets.domain.promotion_text import waiting_hint
from fashion_assets.domain.review import ACTIONS, EDITABLE, KINDS, STATUSES, DraftRef
from fashion_assets.domain.sessions import DEFAULT_SESSION_RULES, SessionRules
from fashion_assets.domain.sign_in_limits import DEFAULT_SIGN_IN_LIMITS, SignInLimits
from fashion_assets.domain.thumbnails import THUMBNAIL, NotAnImage
from fashion_assets.review_app.access import Access
from fashion_assets.review_app.admin import EditorAdmin
from fashion_assets.review_app.hosts import AllowedHosts
from fashion_assets.review_app.media import content_type, thumbnail
from fashion_assets.review_app.queue_view import (
    QueueView,
    QueueViewError,
    draft_link,
    draft_ref,
    form_query,
    page_url,
)
from fashion_assets.review_app.rendering import CRAWLER_HEADERS
from fashion_assets.review_app.request_text import RefuseControlCharacters as NoControls
from fashion_assets.review_app.request_text import RefusedText, refused_answer
from fashion_assets.review_app.rows import rows
from fashion_assets.review_app.security import EveryAnswerHeaders, form_cookie_key
from fashion_assets.status import crawler_status
from fashion_assets.storage import ObjectStore, StoreError, is_object_key

PAGE_SIZE = 50
DEFAULT_COVERAGE = CoverageRules()
BULK_MAX = 1000  # drafts one bulk action may take; a larger queue is narrowed first
FORM_COOKIE = "fashion_review"  # signed: the CSRF token and the flash messages
STATIC = Path(__file__).parent / "static"
_JSON_HEADERS = {"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff"}
_PHOTO_HEADERS = {"Cache-Control": "private, max-age=86400", "X-Content-Type-Options": "nosniff"}
# The status each action leaves a draft in, for the next draft of the queue.
_NEW_STATUS = {"approve": "approved", "reject": "rejected"}


def create_app(engine: Engine, store: ObjectStore, *, editor_name: str = "editor",
               instance: Any = None, crawler_refresh_s: float = 3.0,
               stuck_threshold_s: float = STUCK_THRESHOLD_S,
               sessions: SessionRules = DEFAULT_SESSION_RULES,
               password_cost: Argon2Cost = DEFAULT_COST,
               sign_in_limits: SignInLimits = DEFAULT_SIGN_IN_LIMITS,
               secure_cookies: bool = False,
               hosts: Sequence[str] | None = None,
               coverage: CoverageRules = DEFAULT_COVERAGE) -> Starlette:
    """The review page on ``engine`` and ``store``.

    ``editor_name`` is who actions are recorded as while the catalog has no editor account
    (the page then answers loopback clients only; ``review serve`` also refuses to bind
    elsewhere). ``instance`` (a DagsterInstance, optional) gives the /crawler page its run
    queue; the page refreshes itself every ``crawler_refresh_s`` seconds and marks a crawl
    stale past ``stuck_threshold_s`` without a heartbeat. ``sessions`` says when a sign-in
    ends; ``password_cost`` is the Argon2id cost a sign-in keeps a password's hash at;
    ``sign_in_limits`` how many failed sign-ins lock an account or an address out;
    ``secure_cookies`` marks both cookies ``Secure`` (the sign-in cookie is, whatever it
    says, when the request came over HTTPS). ``hosts``: the host names the page answers
    to (any other ``Host`` header gets 400); None answers any, for a caller that checks.
    ``coverage``: when a draft is complete, for the queue's "complete only" filter.
    """
    access = Access(engine, editor_name, sessions=sessions, password_cost=password_cost,
                    sign_in_limits=sign_in_limits, secure_cookies=secure_cookies)
    admin = EditorAdmin(access)
    pages = _Pages(engine, store, access, instance=instance,
                   crawler_refresh_s=crawler_refresh_s, stuck_threshold_s=stuck_threshold_s,
                   coverage=coverage)
    routes = [
        Route("/", pages.queue),
        Route("/login", access.login, methods=["GET", "POST"]),
        Route("/logout", access.logout, methods=["POST"]),
        Route("/bulk", pages.bulk, methods=["POST"]),
        Route("/editors", admin.page),
        Route("/editors/add", admin.add, methods=["POST"]),
        Route("/editors/{name}/{action}", admin.act, methods=["POST"]),
        Route("/drafts/{ref}", pages.draft),
        Route("/drafts/{ref}/looks", pages.decide_looks, methods=["POST"]),
        Route("/drafts/{ref}/{action}", pages.act, methods=["POST"]),
        Route("/photos/{key}", pages.photo),
        Route("/thumbs/{key}", pages.thumb),
        Route("/crawler", pages.crawler),
        Route("/crawler.json", pages.crawler_json),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    middleware = [Middleware(SessionMiddleware, secret_key=form_cookie_key(),
                             session_cookie=FORM_COOKIE, max_age=int(sessions.absolute_s),
                             same_site="lax", https_only=secure_cookies)]
    if hosts is not None:
        middleware.insert(0, Middleware(AllowedHosts, allowed=list(hosts)))
    app = Starlette(routes=routes, exception_handlers={RefusedText: refused_answer},
                    middleware=[Middleware(EveryAnswerHeaders),
                                Middleware(NoControls), *middleware])
    # No redirect to the same path with or without a trailing slash: Starlette builds its
    # Location from the request's Host header, which the client chooses.
    app.router.redirect_slashes = False
    return app


class _Pages:
    def __init__(self, engine: Engine, store: ObjectStore, access: Access, *,
                 instance: Any = None, crawler_refresh_s: float = 3.0,
                 stuck_threshold_s: float = STUCK_THRESHOLD_S,
                 coverage: CoverageRules = DEFAULT_COVERAGE) -> None:
        self.engine, self.store, self.access, self.coverage = engine, store, access, coverage
        self.instance, self.crawler_refresh_s = instance, crawler_refresh_s
        self.stuck_threshold_s = stuck_threshold_s
        self.render, self.flash = access.renderer.render, access.renderer.flash

    def _list(self, view: QueueView, *, limit: int, offset: int) -> list[Any]:
        return list_drafts(self.engine, **self._filters(view), limit=limit, offset=offset,
                           sort=view.sort)

    def _filters(self, view: QueueView) -> dict[str, Any]:
        """``view``'s filters as ``list_drafts`` and ``count_drafts`` take them."""
        return {"kind": view.kind or None, "status": view.status_filter,
                "brand": view.brand or None, "city": view.city or None,
                "source": view.source or None, "include_deleted": view.deleted,
                "complete": self.coverage if view.complete else None}

    async def queue(self, request: Request) -> Response:
        refused = await self.access.refused(request, writes=False)
        if refused:
            return refused
        try:
            view = QueueView.from_query(request.query_params)
        except QueueViewError as exc:
            return PlainTextResponse(str(exc), 400)
        drafts = await run_in_threadpool(self._list, view, limit=PAGE_SIZE, offset=view.pos)
        total = await run_in_threadpool(lambda: count_drafts(self.engine, **self._filters(view)))
        shown = await run_in_threadpool(rows, self.engine, drafts)
        waiting = await run_in_threadpool(waiting_for_promotion, self.engine)
        page = {"next": view.query(pos=view.pos + PAGE_SIZE)
                if view.pos + PAGE_SIZE < total else None,
                "previous": view.query(pos=max(0, view.pos - PAGE_SIZE)) if view.pos else None}
        return self.render(request, "queue.html", drafts=drafts, shown=shown, view=view,
                           kinds=KINDS, statuses=STATUSES, page=page, total=total,
                           bulk_max=BULK_MAX, queue=view.query(pos=0),
                           promotion=waiting_hint(sum(waiting.values()), "fashion-assets"))

    async def draft(self, request: Request) -> Response:
        refused = await self.access.refused(request, writes=False)
        if refused:
            return refused
        try:
            view = QueueView.from_query(request.query_params, position="pos")
        except QueueViewError as exc:
            return PlainTextResponse(str(exc), 400)
        ref = draft_ref(request.path_params["ref"])
        try:
            detail = (await run_in_threadpool(get_draft, self.engine, ref.kind, ref.id)
                      if ref is not None else None)
        except ReviewError:
            detail = None
        if ref is None or detail is None:
            return self.render(request, "missing.html", 404, what=request.path_params["ref"])
        shown = await run_in_threadpool(rows, self.engine, [detail.summary, *detail.siblings])
        try:
            looks = await run_in_threadpool(draft_looks, self.engine, self.store,
                                            ENTITIES[ref.kind], ref.id)
        except StoreError:  # photos to hash unreadable now: the page without its looks
            looks = DraftLooks((), ())
        editable = [(name, detail.fields.get(name)) for name in EDITABLE[ref.kind]]
        return self.render(request, "draft.html", d=detail, ref=draft_link(ref), shown=shown,
                           looks=looks, editable=editable, queue=view.query(position="pos"),
                           skip=await self._at(view, view.pos + 1),
                           back=view.query(pos=view.pos - view.pos % PAGE_SIZE))

    async def act(self, request: Request) -> Response:
        form = await self.access.checked_form(request)
        if isinstance(form, Response):
            return form
        editor = await self.access.editor(request)
        assert editor is not None  # checked_form let the request through
        ref, action = draft_ref(request.path_params["ref"]), request.path_params["action"]
        if ref is None or action not in ACTIONS:
            return PlainTextResponse("no such draft or action", 404)
        try:
            view = QueueView.from_query(form_query(form.get("queue", "")), position="pos")
        except QueueViewError as exc:
            return PlainTextResponse(str(exc), 400)
        here = page_url(f"/drafts/{draft_link(ref)}", view.query(position="pos"))
        try:
            changes = await run_in_threadpool(self._changes, ref, form) if action == "edit" else {}
        except ReviewError as exc:
            self.flash(request, False, f"refused: {exc}")
            return RedirectResponse(here, 303)
        [result] = await run_in_threadpool(
            lambda: review(self.engine, ref.kind, [ref.id], action, editor=editor,
                           reason=form.get("reason", ""), changes=changes,
                           confirm_no_photos=form.get("confirm_no_photos") == "1"))
        self.flash(request, result.ok, result.message if result.ok
                   else f"refused: {result.message}")
        if not result.ok or action not in _NEW_STATUS:
            return RedirectResponse(here, 303)
        return RedirectResponse(await self._at(view, view.next_pos(_NEW_STATUS[action])), 303)

    async def decide_looks(self, request: Request) -> Response:
        """An editor's word on two photos of a draft's show or album, shown on its page as
        merged or as maybe one look: the same look, or different looks (a wrong merge
        split). The catalog entry follows at once, and every later promotion."""
        form = await self.access.checked_form(request)
        if isinstance(form, Response):
            return form
        editor = await self.access.editor(request)
        assert editor is not None  # checked_form let the request through
        ref = draft_ref(request.path_params["ref"])
        if ref is None:
            return PlainTextResponse("no such draft", 404)
        first, second = form.get("first", ""), form.get("second", "")
        decision = form.get("decision", "")
        if decision not in set(PairDecision) or not (is_object_key(first)
                                                     and is_object_key(second)):
            return PlainTextResponse("a look decision is 'same' or 'different', on two photo"
                                     " keys", 400)
        try:
            view = QueueView.from_query(form_query(form.get("queue", "")), position="pos")
        except QueueViewError as exc:
            return PlainTextResponse(str(exc), 400)
        try:
            said = await run_in_threadpool(decide_look_pair, self.engine, ENTITIES[ref.kind],
                                           ref.id, first, second, PairDecision(decision), editor)
            self.flash(request, True, said)
        except LookDecisionError as exc:
            self.flash(request, False, f"refused: {exc}")
        return RedirectResponse(page_url(f"/drafts/{draft_link(ref)}", view.query(position="pos"))
                                + "#looks", 303)

    async def _at(self, view: QueueView, pos: int) -> str:
        """The page of the draft at ``pos`` in ``view``'s queue, or the queue's first page
        when the queue has no draft there (its end)."""
        found = await run_in_threadpool(self._list, view, limit=1, offset=pos)
        if not found:
            return page_url("/", view.query(pos=0))
        return page_url(f"/drafts/{found[0].kind}:{found[0].id}",
                        view.query(position="pos", pos=pos))

    async def bulk(self, request: Request) -> Response:
        """Approve or reject every draft of a queue at once: the drafts the queue lists now
        (all its pages, up to ``BULK_MAX``), each in its own transaction with its own audit
        entry, as if reviewed one by one. The form carries how many drafts the editor was
        shown; if the queue has changed since, nothing is done and the editor looks again."""
        form = await self.access.checked_form(request)
        if isinstance(form, Response):
            return form
        editor = await self.access.editor(request)
        assert editor is not None  # checked_form let the request through
        try:
            view = QueueView.from_query(form_query(form.get("queue", "")))
        except QueueViewError as exc:
            return PlainTextResponse(str(exc), 400)
        action, shown = form.get("action", ""), whole_number(form.get("count", ""), high=999_999)
        if action not in _NEW_STATUS or shown is None:
            return PlainTextResponse("a bulk action is approve or reject, with the count of"
                                     " drafts it was confirmed for", 400)
        queue = page_url("/", view.query(pos=0))
        if form.get("confirm") != "1":
            self.flash(request, False, f"nothing done: tick the box to {action} all of them")
            return RedirectResponse(queue, 303)
        drafts = await run_in_threadpool(self._list, replace(view, pos=0),
                                         limit=BULK_MAX + 1, offset=0)
        if len(drafts) != shown or len(drafts) > BULK_MAX:
            self.flash(request, False, f"nothing done: the queue holds {len(drafts)} drafts"
                       f" now, not the {shown} you confirmed; look at it again"
                       if len(drafts) <= BULK_MAX else
                       f"nothing done: more than {BULK_MAX} drafts; narrow the queue")
            return RedirectResponse(queue, 303)
        results = []
        for kind in KINDS:
            ids = [d.id for d in drafts if d.kind == kind]
            if ids:
                results += await run_in_threadpool(
                    lambda k=kind, i=ids: review(self.engine, k, i, action, editor=editor,
                                                 reason=form.get("reason", "")))
        refused = [r for r in results if not r.ok]
        done = len(results) - len(refused)
        self.flash(request, not refused, f"{_NEW_STATUS[action]} {done} of {len(results)}"
                   + (f"; refused {len(refused)}: " + "; ".join(r.message for r in refused[:5])
                      + (" ..." if len(refused) > 5 else "") if refused else ""))
        return RedirectResponse(queue, 303)

    def _changes(self, ref: DraftRef, form: dict[str, str]) -> dict[str, str]:
        """The edit form's fields that differ from the draft's: only those are edited.

        A changed season code alone then derives season, year and type (domain rule) instead
        of being contradicted by the unchanged fields shown next to it.
        """
        current = get_draft(self.engine, ref.kind, ref.id).fields
        changes = {}
        for name in EDITABLE[ref.kind]:
            value = form.get(name, "").strip()
            now = "" if current.get(name) is None else str(current.get(name))
            if value and value != now:
                changes[name] = value
        return changes

    async def photo(self, request: Request) -> Response:
        refused = await self.access.refused(request, writes=False)
        if refused:
            return refused
        key = request.path_params["key"]
        if not is_object_key(key):  # the only gate to the store: 40 lowercase hex, no path
            return PlainTextResponse("not found", 404)
        try:
            data = await run_in_threadpool(self.store.get, key)
        except KeyError:
            return PlainTextResponse("not found", 404)
        except StoreError:
            return PlainTextResponse("the object store is unavailable", 503)
        kind = await run_in_threadpool(content_type, self.engine, key, data)
        return Response(data, media_type=kind, headers=_PHOTO_HEADERS)

    async def thumb(self, request: Request) -> Response:
        """A photo's thumbnail (320 px WebP), made the first time it is asked for."""
        refused = await self.access.refused(request, writes=False)
        if refused:
            return refused
        key = request.path_params["key"]
        if not is_object_key(key):  # the same gate as /photos
            return PlainTextResponse("not found", 404)
        try:
            data = await run_in_threadpool(thumbnail, self.engine, self.store, key)
        except KeyError:
            return PlainTextResponse("not found", 404)
        except NotAnImage:
            return PlainTextResponse("this object makes no thumbnail", 404)
        except StoreError:
            return PlainTextResponse("the object store is unavailable", 503)
        return Response(data, media_type=THUMBNAIL.content_type, headers=_PHOTO_HEADERS)

    def _crawler_data(self) -> dict[str, Any]:
        """The crawler's status and the latest ingest outcomes: what /crawler shows."""
        data = crawler_status(self.engine, self.instance, threshold_s=self.stuck_threshold_s)
        data["outcomes"] = [{**o.as_dict(), "time": o.recorded_at.strftime("%Y-%m-%d %H:%M:%S")}
                            for o in recent_outcomes(self.engine)]
        return data

    async def crawler(self, request: Request) -> Response:
        """Read-only: what runs, the queue, the backlog, the latest outcomes; refreshes itself."""
        refused = await self.access.refused(request, writes=False)
        if refused:
            return refused
        data = await run_in_threadpool(self._crawler_data)
        return self.render(request, "crawler.html", page_headers=CRAWLER_HEADERS, c=data,
                            refresh_ms=int(self.crawler_refresh_s * 1000))

    async def crawler_json(self, request: Request) -> Response:
        refused = await self.access.refused(request, writes=False)
        if refused:
            return refused
        return JSONResponse(await run_in_threadpool(self._crawler_data),
                            headers=_JSON_HEADERS)
