"""The review page's routes: queue, draft, review actions, photos, sign-in, crawler status.

Blocking work (the catalog, the object store, a password's hash) runs in Starlette's thread
pool, so one slow S3 read never stalls the other requests. Every route checks access first
and every POST checks its CSRF token before touching the catalog, so a refused request
writes nothing.

Access: once the catalog has an editor account (``fashion-assets editors add``), every page
but ``/login`` needs a signed-in editor, and each action is recorded under that editor's
name. Before the first account exists the page is open, but to this machine only (loopback
clients), and actions are recorded as ``editor_name``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from jinja2 import Environment, PackageLoader
from sqlalchemy import Engine
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.middleware.sessions import SessionMiddleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import (
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
)
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from fashion_assets.catalog.editors import (
    authenticate,
    end_session,
    has_editors,
    session_editor,
    start_session,
)
from fashion_assets.catalog.progress import recent_outcomes
from fashion_assets.catalog.review import ReviewError, get_draft, list_drafts, review
from fashion_assets.catalog.sign_ins import (
    account_subject,
    address_subject,
    clear_failures,
    locked_seconds,
    record_failure,
)
from fashion_assets.domain.passwords import DEFAULT_COST, ScryptCost
from fashion_assets.domain.progress import STUCK_THRESHOLD_S
from fashion_assets.domain.review import (
    ACTIONS,
    EDITABLE,
    KINDS,
    STATUSES,
    DraftRef,
    DraftRefError,
    parse_draft_ref,
)
from fashion_assets.domain.sessions import DEFAULT_SESSION_RULES, SessionRules
from fashion_assets.domain.sign_in_limits import DEFAULT_SIGN_IN_LIMITS, SignInLimits
from fashion_assets.review_app.media import content_type, first_photos
from fashion_assets.review_app.security import (
    CSRF_FIELD,
    EveryAnswerHeaders,
    csrf_ok,
    csrf_token,
    form_cookie_key,
    is_loopback,
    read_form,
)
from fashion_assets.status import crawler_status
from fashion_assets.storage import ObjectStore, StoreError, is_object_key

PAGE_SIZE = 50
MAX_OFFSET = 10 ** 9  # far beyond any archive; larger offsets overflow the database's integers
SIGN_IN_COOKIE = "fashion_review_session"  # the random token of an editor's session
FORM_COOKIE = "fashion_review"  # signed: the CSRF token and the flash messages
_UNKNOWN = object()
STATIC = Path(__file__).parent / "static"
# Pages only load their own stylesheet and photos, and may not be framed (clickjacking).
_HTML_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; img-src 'self'; style-src 'self';"
                               " form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}
# The crawler page alone runs a script (its own, from /static) that fetches /crawler.json.
_CRAWLER_HEADERS = {
    **_HTML_HEADERS,
    "Content-Security-Policy": _HTML_HEADERS["Content-Security-Policy"]
    + "; script-src 'self'; connect-src 'self'",
}
_JSON_HEADERS = {"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff"}
_PHOTO_HEADERS = {"Cache-Control": "private, max-age=86400", "X-Content-Type-Options": "nosniff"}
_QUEUE_FILTERS = ("kind", "brand", "city", "source")


def create_app(engine: Engine, store: ObjectStore, *, editor_name: str = "editor",
               instance: Any = None, crawler_refresh_s: float = 3.0,
               stuck_threshold_s: float = STUCK_THRESHOLD_S,
               sessions: SessionRules = DEFAULT_SESSION_RULES,
               password_cost: ScryptCost = DEFAULT_COST,
               sign_in_limits: SignInLimits = DEFAULT_SIGN_IN_LIMITS,
               secure_cookies: bool = False,
               hosts: Sequence[str] | None = None) -> Starlette:
    """The review page on ``engine`` and ``store``.

    ``editor_name`` is who actions are recorded as while the catalog has no editor account
    (the page then answers loopback clients only; ``review serve`` also refuses to bind
    elsewhere). ``instance`` (a DagsterInstance, optional) gives the /crawler page its run
    queue; the page refreshes itself every ``crawler_refresh_s`` seconds and marks a crawl
    stale past ``stuck_threshold_s`` without a heartbeat. ``sessions`` says when a sign-in
    ends; ``password_cost`` is the scrypt cost a sign-in keeps a password's hash at;
    ``sign_in_limits`` how many failed sign-ins lock an account or an address out;
    ``secure_cookies`` marks both cookies ``Secure`` (the sign-in cookie is, whatever it
    says, when the request came over HTTPS). ``hosts``: the host names the page answers
    to (any other ``Host`` header gets 400); None answers any, for a caller that checks.
    """
    pages = _Pages(engine, store, editor_name, instance=instance,
                   crawler_refresh_s=crawler_refresh_s, stuck_threshold_s=stuck_threshold_s,
                   sessions=sessions, password_cost=password_cost,
                   sign_in_limits=sign_in_limits, secure_cookies=secure_cookies)
    routes = [
        Route("/", pages.queue),
        Route("/login", pages.login, methods=["GET", "POST"]),
        Route("/logout", pages.logout, methods=["POST"]),
        Route("/drafts/{ref}", pages.draft),
        Route("/drafts/{ref}/{action}", pages.act, methods=["POST"]),
        Route("/photos/{key}", pages.photo),
        Route("/crawler", pages.crawler),
        Route("/crawler.json", pages.crawler_json),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    middleware = [Middleware(SessionMiddleware, secret_key=form_cookie_key(),
                             session_cookie=FORM_COOKIE, max_age=int(sessions.absolute_s),
                             same_site="lax", https_only=secure_cookies)]
    if hosts is not None:
        middleware.insert(0, Middleware(TrustedHostMiddleware, allowed_hosts=list(hosts),
                                        www_redirect=False))
    app = Starlette(routes=routes, middleware=[Middleware(EveryAnswerHeaders), *middleware])
    # No redirect to the same path with or without a trailing slash: Starlette builds its
    # Location from the request's Host header, which the client chooses.
    app.router.redirect_slashes = False
    return app


class _Pages:
    def __init__(self, engine: Engine, store: ObjectStore, editor_name: str, *,
                 instance: Any = None, crawler_refresh_s: float = 3.0,
                 stuck_threshold_s: float = STUCK_THRESHOLD_S,
                 sessions: SessionRules = DEFAULT_SESSION_RULES,
                 password_cost: ScryptCost = DEFAULT_COST,
                 sign_in_limits: SignInLimits = DEFAULT_SIGN_IN_LIMITS,
                 secure_cookies: bool = False) -> None:
        self.engine, self.store, self.open_editor = engine, store, editor_name
        self.instance, self.crawler_refresh_s = instance, crawler_refresh_s
        self.stuck_threshold_s = stuck_threshold_s
        self.sessions, self.password_cost = sessions, password_cost
        self.limits, self.secure_cookies = sign_in_limits, secure_cookies
        self._accounts = False  # once the catalog has an editor, it always has one
        self.templates = Environment(loader=PackageLoader("fashion_assets.review_app"),
                                     autoescape=True)

    # -- access ------------------------------------------------------------------------

    async def _open(self) -> bool:
        """Whether the page is still open: the catalog has no editor account yet."""
        if not self._accounts:
            self._accounts = await run_in_threadpool(has_editors, self.engine)
        return not self._accounts

    async def _editor(self, request: Request) -> str | None:
        """Who makes this request: the signed-in editor, everyone while the page is open,
        None for someone not signed in. Kept on the request for the page it renders."""
        known = getattr(request.state, "editor", _UNKNOWN)
        if known is not _UNKNOWN:
            return known
        if await self._open():
            name: str | None = self.open_editor
        else:
            token = request.cookies.get(SIGN_IN_COOKIE, "")
            editor = await run_in_threadpool(session_editor, self.engine, token,
                                             self.sessions) if token else None
            name = None if editor is None else editor.name
        request.state.editor = name
        return name

    async def _refused(self, request: Request, *, writes: bool) -> Response | None:
        """Why this request may not go on (a response), or None when it may."""
        if await self._open() and not is_loopback(request.client.host if request.client
                                                  else ""):
            return PlainTextResponse("this page has no editor accounts yet: local only", 403)
        if await self._editor(request) is not None:
            return None
        # No redirect where a page would not follow one: photos, and the JSON a script reads.
        if writes or request.url.path.startswith(("/photos/", "/crawler.json")):
            return PlainTextResponse("sign in first", 403)
        return RedirectResponse("/login", 303)

    async def _checked_form(self, request: Request) -> dict[str, str] | Response:
        """The POSTed form once access and CSRF token are checked, else the refusal."""
        refused = await self._refused(request, writes=True)
        if refused:
            return refused
        form = await read_form(request)
        if form is None or not csrf_ok(request.session, form):
            return PlainTextResponse("missing or wrong CSRF token: reload the page", 403)
        return form

    # -- rendering ---------------------------------------------------------------------

    def _render(self, request: Request, name: str, status_code: int = 200, *,
                page_headers: dict[str, str] = _HTML_HEADERS, **context: Any) -> HTMLResponse:
        editor = getattr(request.state, "editor", None)
        html = self.templates.get_template(name).render(
            csrf_field=CSRF_FIELD, csrf_token=csrf_token(request.session),
            flashes=request.session.pop("flash", []), signed_in=editor is not None,
            open_mode=not self._accounts, editor=editor, **context)
        return HTMLResponse(html, status_code, headers=page_headers)

    @staticmethod
    def _flash(request: Request, ok: bool, text: str) -> None:
        request.session["flash"] = [*request.session.get("flash", []), {"ok": ok, "text": text}]

    # -- routes ------------------------------------------------------------------------

    async def queue(self, request: Request) -> Response:
        refused = await self._refused(request, writes=False)
        if refused:
            return refused
        query = request.query_params
        filters = {name: query.get(name, "").strip() for name in _QUEUE_FILTERS}
        status = query.get("status", "pending").strip()
        deleted = query.get("deleted", "") == "1"
        offset = _offset(query.get("offset", "0"))
        if offset is None:
            return PlainTextResponse(f"offset must be a whole number from 0 to {MAX_OFFSET}",
                                     400)
        drafts = await run_in_threadpool(
            list_drafts, self.engine, kind=filters["kind"] or None,
            status=status if status in STATUSES else None, brand=filters["brand"] or None,
            city=filters["city"] or None, source=filters["source"] or None,
            include_deleted=deleted, limit=PAGE_SIZE + 1, offset=offset)
        more, drafts = len(drafts) > PAGE_SIZE, drafts[:PAGE_SIZE]
        thumbs = await run_in_threadpool(first_photos, self.engine, drafts)
        kept = {k: v for k, v in {**filters, "status": status,
                                  "deleted": "1" if deleted else ""}.items() if v}
        page = {"next": urlencode({**kept, "offset": offset + PAGE_SIZE}) if more else None,
                "previous": urlencode({**kept, "offset": max(0, offset - PAGE_SIZE)})
                if offset else None}
        return self._render(request, "queue.html", drafts=drafts, thumbs=thumbs,
                            filters=filters, status=status, deleted=deleted, kinds=KINDS,
                            statuses=STATUSES, page=page, offset=offset)

    async def draft(self, request: Request) -> Response:
        refused = await self._refused(request, writes=False)
        if refused:
            return refused
        ref = _ref(request.path_params["ref"])
        detail = None
        if ref is not None:
            try:
                detail = await run_in_threadpool(get_draft, self.engine, ref.kind, ref.id)
            except ReviewError:
                detail = None
        if ref is None or detail is None:
            return self._render(request, "missing.html", 404, what=request.path_params["ref"])
        thumbs = await run_in_threadpool(first_photos, self.engine, detail.siblings)
        editable = [(name, detail.fields.get(name)) for name in EDITABLE[ref.kind]]
        return self._render(request, "draft.html", d=detail, ref=_link(ref), thumbs=thumbs,
                            editable=editable)

    async def act(self, request: Request) -> Response:
        form = await self._checked_form(request)
        if isinstance(form, Response):
            return form
        editor = await self._editor(request)
        assert editor is not None  # _checked_form let the request through
        ref, action = _ref(request.path_params["ref"]), request.path_params["action"]
        if ref is None or action not in ACTIONS:
            return PlainTextResponse("no such draft or action", 404)
        try:
            changes = await run_in_threadpool(self._changes, ref, form) if action == "edit" else {}
        except ReviewError as exc:
            self._flash(request, False, f"refused: {exc}")
            return RedirectResponse(f"/drafts/{_link(ref)}", 303)
        [result] = await run_in_threadpool(
            lambda: review(self.engine, ref.kind, [ref.id], action, editor=editor,
                           reason=form.get("reason", ""), changes=changes))
        self._flash(request, result.ok, result.message if result.ok
                    else f"refused: {result.message}")
        return RedirectResponse(f"/drafts/{_link(ref)}", 303)

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
        refused = await self._refused(request, writes=False)
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

    def _crawler_data(self) -> dict[str, Any]:
        """The crawler's status and the latest ingest outcomes: what /crawler shows."""
        data = crawler_status(self.engine, self.instance, threshold_s=self.stuck_threshold_s)
        data["outcomes"] = [{**o.as_dict(), "time": o.recorded_at.strftime("%Y-%m-%d %H:%M:%S")}
                            for o in recent_outcomes(self.engine)]
        return data

    async def crawler(self, request: Request) -> Response:
        """Read-only: what runs, the queue, the backlog, the latest outcomes; refreshes itself."""
        refused = await self._refused(request, writes=False)
        if refused:
            return refused
        data = await run_in_threadpool(self._crawler_data)
        return self._render(request, "crawler.html", page_headers=_CRAWLER_HEADERS, c=data,
                            refresh_ms=int(self.crawler_refresh_s * 1000))

    async def crawler_json(self, request: Request) -> Response:
        refused = await self._refused(request, writes=False)
        if refused:
            return refused
        return JSONResponse(await run_in_threadpool(self._crawler_data),
                            headers=_JSON_HEADERS)

    async def login(self, request: Request) -> Response:
        if await self._open():
            return RedirectResponse("/", 303)
        if request.method == "GET":
            return self._render(request, "login.html", error="")
        form = await read_form(request)
        if form is None or not csrf_ok(request.session, form):
            return PlainTextResponse("missing or wrong CSRF token: reload the page", 403)
        name = form.get("name", "")
        subjects = (account_subject(name),
                    address_subject(request.client.host if request.client else ""))
        wait = await run_in_threadpool(locked_seconds, self.engine, subjects)
        if wait > 0:  # refused before any password is checked: a locked guesser costs no hash
            minutes = max(1, round(wait / 60))
            response = self._render(
                request, "login.html", 429, error="too many failed sign-ins: try again in "
                f"{minutes} minute{'s' if minutes > 1 else ''}, or ask an admin to unlock"
                " the account")
            response.headers["Retry-After"] = str(int(wait) + 1)
            return response
        editor = await run_in_threadpool(authenticate, self.engine, name,
                                         form.get("password", ""), cost=self.password_cost)
        if editor is None:
            await run_in_threadpool(self._failed, *subjects)
            return self._render(request, "login.html", 401, error="wrong name or password")
        await run_in_threadpool(clear_failures, self.engine, subjects[0])
        token = await run_in_threadpool(start_session, self.engine, editor)
        request.session.clear()  # a fresh CSRF token for the signed-in editor
        csrf_token(request.session)
        response = RedirectResponse("/", 303)
        response.set_cookie(SIGN_IN_COOKIE, token, max_age=int(self.sessions.absolute_s),
                            httponly=True, samesite="lax",
                            secure=self.secure_cookies or request.url.scheme == "https")
        return response

    def _failed(self, account: str, address: str) -> None:
        record_failure(self.engine, account, self.limits.per_account, self.limits)
        record_failure(self.engine, address, self.limits.per_address, self.limits)

    async def logout(self, request: Request) -> Response:
        form = await read_form(request)
        if form is None or not csrf_ok(request.session, form):
            return PlainTextResponse("missing or wrong CSRF token: reload the page", 403)
        token = request.cookies.get(SIGN_IN_COOKIE, "")
        if token:
            await run_in_threadpool(end_session, self.engine, token)
        request.session.clear()
        response = RedirectResponse("/" if await self._open() else "/login", 303)
        response.delete_cookie(SIGN_IN_COOKIE, httponly=True, samesite="lax")
        return response


def _offset(text: str) -> int | None:
    """The queue's ``offset`` parameter, or None when it is no number in range."""
    text = text.strip() or "0"
    if not text.isdigit() or len(text) > len(str(MAX_OFFSET)) or int(text) > MAX_OFFSET:
        return None
    return int(text)


def _ref(text: str) -> DraftRef | None:
    try:
        return parse_draft_ref(text)
    except DraftRefError:
        return None


def _link(ref: DraftRef) -> str:
    """Always ``kind:id`` in URLs, so a link says which sequence its number is from."""
    return f"{ref.kind}:{ref.id}"
