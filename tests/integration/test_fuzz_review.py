"""Fuzzing the review page (issue 36): hostile values in every query parameter, path segment
and form field of every route, sent byte for byte to the real server (uvicorn on loopback)
on SQLite and PostgreSQL, by a signed-in editor, an admin and someone not signed in.

Every answer is below 500 and carries no traceback; a request refused (4xx) leaves the
catalog as it was, and so does every GET. The forms carry the session's CSRF token (or a
hostile one, or none), so the handlers behind the token check are reached. How many
examples: ``tests/fuzz.py``; the long run: docs/reliability.md, "Fuzzing".
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

import httpx
import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from sqlalchemy import Engine

from fashion_assets.catalog.editors import add_editor
from fashion_assets.domain.review import ACTIONS, EDITABLE, KINDS, QUEUE_SORTS, STATUSES
from fashion_assets.domain.sign_in_limits import SignInLimits
from fashion_assets.storage import ObjectStore, open_store
from tests.fuzz import (
    check_answer,
    encoded,
    example_done,
    fuzz_log,
    fuzzed,
    hostile_text,
    path_segment,
    query_string,
    send,
    snapshot,
)
from tests.integration.test_review import street_draft
from tests.integration.test_review_app import (
    CHEAP,
    EDITOR,
    PASSWORD,
    cookie_header,
    photo_keys,
    review_app,
    runway_draft,
    serve,
    sign_in,
    token,
)

pytestmark = pytest.mark.usefixtures("fuzz_log")
__all__ = ["fuzz_log"]  # the fixture, imported for pytest to find

ADMIN, SPARE = "boss", "spare"
FORM = "application/x-www-form-urlencoded"
# What a request may change: drafts and their photos, the audit trail, editors and their
# look decisions, catalog entries. Not sign-in failures (a refused sign-in is counted: its
# point), sessions (each request is their last sight) nor photos' hashes and thumbnails
# (made on first sight of a draft's page).
TABLES = ("brand_runway_drafts", "brand_runway_draft_images", "street_snap_drafts",
          "street_snap_draft_images", "draft_reviews", "editors", "look_decisions",
          "brand_runways", "brand_runway_images", "street_snaps", "street_snap_images",
          "brands", "cities")
QUEUE = ("kind", "status", "brand", "city", "source", "deleted", "complete", "sort", "offset",
         "pos")
QUEUE_WORDS = (*KINDS, *STATUSES, *QUEUE_SORTS, *(f"-{s}" for s in QUEUE_SORTS), "any", "1",
               "0", "50", "chloe", "vogue", "copenhagen")


@pytest.fixture
def store(tmp_path: Path) -> ObjectStore:
    """Photos on disk: the store's backends have tests of their own, the fuzz is the page's."""
    return open_store(f"file://{tmp_path / 'objects'}", home=tmp_path)


@dataclass
class Site:
    """The served page, its catalog and the signed-in sessions the fuzz sends requests as."""

    url: str
    engine: Engine
    headers: dict[str, dict[str, str]]  # who -> the Cookie header of their session
    csrf: dict[str, str]  # who -> their session's CSRF token
    refs: tuple[str, ...]  # the drafts' "kind:id"
    keys: tuple[str, ...]  # their photos' object keys

    def snapshot(self) -> dict[str, list[tuple[Any, ...]]]:
        return snapshot(self.engine, TABLES)

    def exchange(self, method: str, target: bytes | str, who: str, *, body: bytes = b"",
                 content_type: str | None = None) -> int:
        """Send one request as ``who``; check its answer and, refused, the catalog."""
        headers = dict(self.headers[who])
        if content_type is not None:
            headers["Content-Type"] = content_type
        before = self.snapshot()
        status, answer = send(self.url, method, target, headers, body)
        shown = target if isinstance(target, str) else target.decode("latin-1")
        check_answer(status, answer, f"{method} {shown[:300]} as {who}: {body[:300]!r}")
        if 400 <= status < 500 or method == "GET":
            assert self.snapshot() == before, f"{method} {shown[:300]}: HTTP {status} wrote"
        return status


@pytest.fixture
def site(engine: Engine, store: ObjectStore) -> Iterator[Site]:
    """Three runway drafts with photos and a street draft; an editor, an admin and a spare
    account; sign-in limits out of the way (a locked-out fuzz would only see 429s)."""
    runway = [runway_draft(engine, store) for _ in range(3)]
    street = street_draft(engine)
    add_editor(engine, ADMIN, PASSWORD, role="admin", cost=CHEAP)
    add_editor(engine, SPARE, PASSWORD, cost=CHEAP)
    app = review_app(engine, store, sign_in_limits=SignInLimits(per_account=10 ** 6,
                                                                 per_address=10 ** 6))
    with serve(app) as url:
        clients = {"editor": sign_in(url), "admin": sign_in(url, ADMIN),
                   "anonymous": httpx.Client(base_url=url, timeout=30)}
        pages = {who: client.get("/login" if who == "anonymous" else "/").text
                 for who, client in clients.items()}
        database_url = engine.url.render_as_string(hide_password=False)
        yield Site(url, engine,
                   {who: {"Cookie": cookie_header(c)} for who, c in clients.items()},
                   {who: token(page) for who, page in pages.items()},
                   (*(f"runway:{d}" for d in runway), f"street:{street}"),
                   tuple(k for d in runway for k in photo_keys(database_url, d)))
        for client in clients.values():
            client.close()


def raw_path(text: str) -> bytes:
    """A path segment sent as raw UTF-8, not percent-encoded (what no browser sends), with
    only what would end the request line or its path left out."""
    return "".join(c for c in text if c > " " and c not in "\x7f?#/").encode("utf-8",
                                                                              "surrogatepass")


def target(path: str, query: str) -> str:
    return f"{path}?{query}" if query else path


GET_ROUTES = ("/", "/drafts/{0}", "/drafts/{0}/{1}", "/photos/{0}", "/thumbs/{0}", "/crawler",
              "/crawler.json", "/editors", "/login", "/static/{0}", "/{0}", "/{0}/{1}")


def test_every_page_takes_any_query_and_path_segment(site: Site) -> None:
    @fuzzed
    @given(route=st.sampled_from(GET_ROUTES),
           first=path_segment(*site.refs, *site.keys, "style.css", "..", "%2e%2e"),
           second=path_segment(*ACTIONS, "looks", ".."),
           query=query_string(QUEUE, QUEUE_WORDS), who=st.sampled_from(sorted(site.headers)),
           raw=st.one_of(st.none(), hostile_text()))
    @example(route="/", first="", second="", query="offset=%C2%B2", who="editor", raw=None)
    @example(route="/drafts/{0}", first="runway:1%00", second="", query="pos=%D9%A3",
             who="editor", raw=None)
    @example(route="/drafts/{0}", first="runway%3A1", second="", query="", who="editor",
             raw="runway:\u0663")
    # The fuzz's find: a draft id of 4,300 digits and more was a 500 (``int``'s limit).
    @example(route="/drafts/{0}", first="runway:" + "1" * 10_000, second="", query="",
             who="editor", raw=None)
    def check(route: str, first: str, second: str, query: str, who: str,
              raw: str | None) -> None:
        path = route.format(first, second)
        if raw is None:
            site.exchange("GET", target(path, query), who)
        else:  # the first segment as raw bytes: uvicorn refuses them (400) before the page
            site.exchange("GET", path.replace(first, "", 1).encode() + raw_path(raw)
                          if "{0}" in route else path.encode(), who)
        example_done()

    check()


DRAFT_FIELDS = ("reason", "queue", "confirm_no_photos", "first", "second", "decision",
                *dict.fromkeys(EDITABLE["runway"] + EDITABLE["street"]))


def form_values(site: Site) -> tuple[str, ...]:
    """Words the forms know, among the hostile values: the handlers past parsing are
    reached too (a real decision on two real photos, an edit to a real brand)."""
    return ("1", "same", "different", *site.keys, "chloe", "spring-2021-ready-to-wear",
            "2021", "Fall 1990", "status=any&pos=1", "pos=99999999999999999999", "copenhagen",
            "approve", "reject", EDITOR, ADMIN, SPARE, PASSWORD, "correct horse battery")


@st.composite
def form_body(draw: st.DrawFn, site: Site, who: str, names: tuple[str, ...]
              ) -> tuple[str | None, bytes]:
    """A form's content type and body: hostile fields, repeated or not, with the CSRF token
    of ``who``'s session first (mostly), and bodies no form is: raw bytes that are no UTF-8,
    more than the page reads, another content type."""
    fields = draw(query_string(names, form_values(site)))
    csrf = draw(st.sampled_from(("session",) * 8 + ("none", "hostile")))
    if csrf == "session":
        fields = f"csrf_token={quote(site.csrf[who], safe='')}&{fields}"
    elif csrf == "hostile":
        fields = f"csrf_token={draw(encoded(site.csrf[who]))}&{fields}"
    shape = draw(st.sampled_from(("form",) * 7 + ("bytes", "huge", "type")))
    body = fields.encode("ascii")
    if shape == "bytes":
        body += b"&reason=" + draw(st.binary(min_size=1, max_size=64))
    elif shape == "huge":
        body += b"&reason=" + b"x" * draw(st.integers(60 * 1024, 200 * 1024))
    content_type: str | None = FORM
    if shape == "type":
        content_type = draw(st.sampled_from((None, "text/plain", "multipart/form-data",
                                             "application/json", f"{FORM}; charset=latin-1",
                                             "APPLICATION/X-WWW-FORM-URLENCODED")))
    return content_type, body


def test_every_draft_form_takes_any_field(site: Site) -> None:
    @fuzzed
    @given(data=st.data(), ref=path_segment(*site.refs), action=path_segment(*ACTIONS, "looks"),
           query=query_string(QUEUE, QUEUE_WORDS),
           who=st.sampled_from(("editor", "editor", "editor", "admin", "anonymous")))
    def check(data: st.DataObject, ref: str, action: str, query: str, who: str) -> None:
        content_type, body = data.draw(form_body(site, who, DRAFT_FIELDS))
        site.exchange("POST", target(f"/drafts/{ref}/{action}", query), who, body=body,
                      content_type=content_type)
        example_done()

    check()


OTHER_FORMS = {  # route -> who posts it, and its fields
    "/bulk": ("editor", ("action", "count", "confirm", "reason", "queue")),
    "/login": ("anonymous", ("name", "password")),
    "/logout": ("anonymous", ()),
    "/editors/add": ("admin", ("name", "password", "admin")),
    "/editors/{0}/{1}": ("admin", ("password",)),
}


def test_the_bulk_sign_in_and_editor_forms_take_any_field(site: Site) -> None:
    """The admin's own account and the editor's are never named in a path, and only a
    session of no one signs out: a new password, a disabled account or a sign-out would end
    the sessions the fuzz goes on with."""
    @fuzzed
    @given(data=st.data(), route=st.sampled_from(sorted(OTHER_FORMS)),
           name=path_segment(SPARE, "nobody").filter(
               lambda n: unquote(n).strip().lower() not in (ADMIN, EDITOR)),
           action=path_segment("disable", "enable", "unlock", "passwd"),
           stranger=st.integers(0, 5))
    def check(data: st.DataObject, route: str, name: str, action: str, stranger: int) -> None:
        who, names = OTHER_FORMS[route]
        if stranger == 0 and route != "/logout":  # now and then, someone else posts it
            who = data.draw(st.sampled_from(sorted(set(site.headers) - {who})))
        content_type, body = data.draw(form_body(site, who, names or ("csrf_token",)))
        site.exchange("POST", route.format(name, action), who, body=body,
                      content_type=content_type)
        example_done()

    check()
