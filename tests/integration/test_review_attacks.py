"""The review page's security suite: every attack issue 17 found on what a page reads and
serves, replayed against the real server (uvicorn on loopback, SQLite and PostgreSQL, file
store and S3 API server), each refused; the attacks on signing in and sessions are
test_review_sign_in_attacks.py. The issue's findings, in its order, and the test that
replays each:

- the open page answered any Host (a rebound DNS name read it and its CSRF token):
  test_a_host_name_not_on_the_list_is_refused_before_anything_is_read;
- /photos/{key} followed a symlink planted in the store:
  test_a_link_planted_in_the_store_is_never_served;
- a huge offset or draft id gave 500: test_every_bad_parameter_is_a_400_or_a_404;
- /photos with S3 unreachable gave 500:
  test_photos_answer_503_while_the_s3_server_is_unreachable;
- a trailing-slash redirect built its Location from Host; HTML answers lacked nosniff:
  test_every_answer_carries_the_safety_headers_and_no_redirect_names_a_host;
- no header-read timeout (30 slow connections held for 60 s):
  tests/integration/test_review_server.py;
- a title with a terminal escape was shown as is: test_a_terminal_escape_never_reaches_a_page.
Issue 36's on the same page: a superscript digit as a position or a bulk count gave 500
(test_every_bad_parameter_is_a_400_or_a_404); a NUL in a filter, a sign-in name or a reason
gave 500 on PostgreSQL, an escape in a reason reached the terminal
(test_a_control_character_anywhere_in_a_request_is_a_400_and_no_reason_keeps_one).

And what any page must refuse besides: nothing read or written without a session, no form
without its CSRF token, no path outside the store, cookies `Secure` when asked.
"""

from __future__ import annotations

import http.client
import os
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest
from sqlalchemy import Engine

from fashion_assets.review_app import create_app
from fashion_assets.storage import ObjectStore, object_key, open_store
from tests.integration.test_review_app import (
    CHEAP,
    EDITOR,
    PASSWORD,
    cookie_header,
    draft_state,
    photo_keys,
    review_app,
    runway_draft,
    serve,
    sign_in,
    status_of,
    token,
    trail,
)


def raw_get(base_url: str, path: str, cookie: str) -> http.client.HTTPResponse:
    """GET ``path`` exactly as written: httpx would normalize '..' away before sending it."""
    address = urlsplit(base_url)
    connection = http.client.HTTPConnection(address.hostname, address.port, timeout=30)
    connection.request("GET", path, headers={"Cookie": cookie})
    response = connection.getresponse()
    response.body = response.read()  # type: ignore[attr-defined]
    connection.close()
    return response


def test_without_a_session_nothing_is_read_or_written(site: str, engine: Engine,
                                                      store: ObjectStore,
                                                      database_url: str) -> None:
    draft = runway_draft(engine, store)
    [key, _] = photo_keys(database_url, draft)
    before = draft_state(database_url)
    anonymous = httpx.Client(base_url=site, timeout=30)
    login_page = anonymous.get("/login")
    assert login_page.status_code == 200 and 'type="password"' in login_page.text
    csrf = token(login_page.text)  # a token of a session that never signed in

    for page in ("/", f"/drafts/runway:{draft}", "/?status=any"):
        response = anonymous.get(page)
        assert (response.status_code, response.headers["location"]) == (303, "/login"), page
    assert anonymous.get(f"/photos/{key}").status_code == 403
    for action in ("approve", "reject", "edit", "delete", "restore"):
        response = anonymous.post(f"/drafts/runway:{draft}/{action}",
                                  data={"csrf_token": csrf, "reason": "x", "title": "New"})
        assert response.status_code == 403, action

    for name, password in ((EDITOR, PASSWORD + "x"), ("nobody", PASSWORD), ("", "")):
        wrong = anonymous.post("/login", data={"csrf_token": csrf, "name": name,
                                               "password": password})
        assert wrong.status_code == 401 and "wrong name or password" in wrong.text
    no_token = anonymous.post("/login", data={"name": EDITOR, "password": PASSWORD})
    assert no_token.status_code == 403
    assert anonymous.get("/").status_code == 303  # still signed out
    assert draft_state(database_url) == before


def test_every_form_needs_the_sessions_csrf_token(site: str, engine: Engine,
                                                 store: ObjectStore, database_url: str) -> None:
    draft = runway_draft(engine, store)
    review_delete = runway_draft(engine, store)
    client, other = sign_in(site), sign_in(site)
    assert client.cookies["fashion_review"] != other.cookies["fashion_review"]
    assert client.cookies["fashion_review_session"] != other.cookies["fashion_review_session"]
    cookie = httpx.get(f"{site}/login").headers["set-cookie"]
    other_token = token(other.get(f"/drafts/runway:{draft}").text)
    before = draft_state(database_url)

    forms = {"approve": {}, "reject": {"reason": "blurry"}, "edit": {"title": "New title"},
             "delete": {}, "restore": {}}
    for action, fields in forms.items():
        for bad in ({}, {"csrf_token": ""}, {"csrf_token": "forged"},
                    {"csrf_token": other_token}):
            for target in (draft, review_delete):
                response = client.post(f"/drafts/runway:{target}/{action}",
                                       data={**fields, **bad})
                assert response.status_code == 403, (action, bad)
    # A body that is not a form (JSON) carries no token either.
    assert client.post(f"/drafts/runway:{draft}/approve",
                       json={"csrf_token": token(client.get("/login").text)}).status_code == 403
    assert client.post("/logout", data={"csrf_token": "forged"}).status_code == 403
    assert client.get("/").status_code == 200  # still signed in
    assert draft_state(database_url) == before
    assert "httponly" in cookie.lower() and "samesite=lax" in cookie.lower()

    response = client.post("/logout", data={"csrf_token": token(client.get("/").text)})
    assert (response.status_code, response.headers["location"]) == (303, "/login")
    assert client.get("/").status_code == 303


def test_the_photo_route_serves_stored_bytes_by_key_only(site: str, engine: Engine,
                                                         store: ObjectStore,
                                                         database_url: str) -> None:
    draft = runway_draft(engine, store)
    keys = photo_keys(database_url, draft)
    client = sign_in(site)

    for key in keys:
        response = client.get(f"/photos/{key}")
        assert response.status_code == 200
        assert response.content == store.get(key)
        assert response.headers["content-type"] == "image/png"
        assert response.headers["cache-control"] == "private, max-age=86400"
        assert response.headers["x-content-type-options"] == "nosniff"

    cookie = cookie_header(client)
    absent = object_key(b"never stored")
    for path in ("/photos/..%2F..%2Fetc%2Fpasswd", "/photos/../../etc/passwd",
                 "/photos/%2e%2e/%2e%2e/etc/passwd", f"/photos/{keys[0]}0",
                 f"/photos/{keys[0].upper()}", f"/photos/{keys[0][:39]}", f"/photos/{absent}",
                 f"/photos/{keys[0][:2]}%2F{keys[0]}", "/photos/", "/photos/%00"):
        response = raw_get(site, path, cookie)
        # A NUL is refused before any route (request_text.py), the rest find no photo.
        assert response.status == (400 if "%00" in path else 404), path
        assert b"root:" not in response.body and response.body != store.get(keys[0]), path


def test_every_answer_carries_the_safety_headers_and_no_redirect_names_a_host(
        site: str) -> None:
    """Static files, errors and redirects too; a path with a trailing slash is not
    redirected to an address built from the Host header the client sent."""
    client = sign_in(site)
    answers = [client.get(path) for path in ("/static/style.css", "/", "/no-such-page",
                                             "/photos/nope", "/crawler.json")]
    answers.append(httpx.get(f"{site}/"))  # a redirect to /login
    for answer in answers:
        assert answer.headers["x-content-type-options"] == "nosniff", answer.url
        assert answer.headers["x-frame-options"] == "DENY", answer.url
        assert answer.headers["referrer-policy"] == "same-origin", answer.url
    for path in ("/login/", "/crawler/", "/drafts/runway:1/"):
        answer = client.get(path, headers={"Host": "evil.example"})
        assert "evil.example" not in answer.headers.get("location", ""), path
        assert answer.status_code in (400, 404), path


def test_with_secure_cookies_both_cookies_are_sent_over_https_only(
        engine: Engine, store: ObjectStore) -> None:
    """FASHION_REVIEW_SECURE_COOKIES, for a page reached over HTTPS through a proxy. (The
    test client speaks HTTP to the server itself, so it reads the Set-Cookie headers.)"""
    with serve(review_app(engine, store, secure_cookies=True)) as secure, \
            serve(create_app(engine, store, password_cost=CHEAP)) as plain:
        for url, flagged in ((secure, True), (plain, False)):
            login = httpx.get(f"{url}/login")
            [form_cookie] = login.headers.get_list("set-cookie")
            # Sent back by hand: a client on plain HTTP rightly keeps no Secure cookie.
            response = httpx.post(f"{url}/login", headers={
                "Cookie": form_cookie.split(";")[0]}, data={
                "csrf_token": token(login.text), "name": EDITOR, "password": PASSWORD})
            assert response.status_code == 303, response.text
            cookies = [form_cookie, *response.headers.get_list("set-cookie")]
            assert {c.split("=")[0] for c in cookies} == {"fashion_review",
                                                           "fashion_review_session"}
            assert all(("; secure" in c.lower()) is flagged for c in cookies), cookies


def test_a_host_name_not_on_the_list_is_refused_before_anything_is_read(
        engine: Engine, store: ObjectStore) -> None:
    """The issue's DNS rebinding: a web page whose name now points at 127.0.0.1 sends its
    own name as Host. On the open page (no accounts) that would read drafts and tokens."""
    with serve(review_app(engine, store, editors=(), hosts=["127.0.0.1", "localhost"])) as url:
        rebound = httpx.get(f"{url}/", headers={"Host": "attacker.example"})
        assert rebound.status_code == 400 and "csrf" not in rebound.text
        assert httpx.get(f"{url}/").status_code == 200
        port = urlsplit(url).port
        assert httpx.get(f"{url}/", headers={"Host": f"localhost:{port}"}).status_code == 200


def test_photos_answer_503_while_the_s3_server_is_unreachable(
        engine: Engine, database_url: str, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """An outage of our own store is 503 (try again), never a 500 nor a 404."""
    from tests.s3server import start_moto_server

    with start_moto_server() as server:
        monkeypatch.setenv("AWS_ENDPOINT_URL_S3", server.endpoint_url)
        store = open_store("s3://review-outage/photos", home=tmp_path)
        store.ensure_bucket()  # type: ignore[attr-defined]
        draft = runway_draft(engine, store)
        [key, _] = photo_keys(database_url, draft)
    # The server is gone: connections to it are refused.
    with serve(review_app(engine, store)) as url:
        client = sign_in(url)
        response = client.get(f"/photos/{key}")
    assert response.status_code == 503, response.text
    assert "unavailable" in response.text



def test_every_bad_parameter_is_a_400_or_a_404(site: str, engine: Engine,
                                               store: ObjectStore) -> None:
    """The client's error (400) or an unknown draft (404), never a 500."""
    runway_draft(engine, store)
    client = sign_in(site)
    for bad in ("status=bogus", "kind=catwalk", "sort=size", "sort=--title", "complete=1&sort=x"):
        assert client.get(f"/?{bad}").status_code == 400, bad
    # A superscript (str.isdigit says yes, int no), another script's digit, an underscore.
    for offset in ("bogus", "-1", "1.5", "99999999999999999999999", str(10 ** 9 + 1),
                   "\u00b2", "\u0663", "1_0"):
        assert client.get(f"/?offset={offset}").status_code == 400, offset
        assert client.get(f"/drafts/runway:1?pos={offset}").status_code == 400, offset
    assert client.get(f"/?offset={10 ** 9}").status_code == 200
    for ref in ("99999999999999999999999", f"runway:{2 ** 63}", "street:0", "x:1"):
        assert client.get(f"/drafts/{ref}").status_code == 404, ref
    form = {"csrf_token": token(client.get("/").text)}
    assert client.post(f"/drafts/runway:{2 ** 63}/approve", data=form).status_code == 404
    assert client.post("/drafts/runway:1/approve",
                       data={**form, "queue": "pos=-5"}).status_code == 400
    for count in ("9" * 40, "\u00b2", "\u0663"):
        assert client.post("/bulk", data={**form, "queue": "", "action": "approve",
                                          "count": count, "confirm": "1"}).status_code == 400


def test_a_control_character_anywhere_in_a_request_is_a_400_and_no_reason_keeps_one(
        site: str, engine: Engine, database_url: str) -> None:
    """A NUL reached PostgreSQL from a filter, a sign-in name or a reason (a 500 there), and
    an escape sequence in a reason reached `review show`'s terminal: refused where the
    request is read, and a reason is kept by the rule for kept text."""
    draft = runway_draft(engine, None, title="Plain")
    client = sign_in(site)
    before = draft_state(database_url)
    for url in ("/?brand=x%00", "/?city=%1b%5b2J", f"/drafts/runway:{draft}?brand=%00",
                "/drafts/runway:1%00", "/%00", "/?x%00=1"):
        answer = client.get(url)
        assert answer.status_code == 400 and "control character U+00" in answer.text, url
    form = {"csrf_token": token(client.get("/").text)}
    for data in ({"reason": "bad\x00"}, {"reason": "bad \x1b[2J light"},
                 {"queue": "brand=%00"}, {"reason\x00": "x"}):
        answer = client.post(f"/drafts/runway:{draft}/reject", data={**form, **data})
        assert answer.status_code == 400 and "control character" in answer.text, data
    assert draft_state(database_url) == before
    anonymous = httpx.Client(base_url=site, timeout=30)
    login = token(anonymous.get("/login").text)
    answer = anonymous.post("/login", data={"csrf_token": login, "name": "editor\x00",
                                            "password": "x" * 12})
    assert answer.status_code == 400
    # A reordering mark is no control character: the page takes it, the catalog drops it.
    answer = client.post(f"/drafts/runway:{draft}/reject",
                         data={**form, "reason": "blurry \u202e photos\n"})
    assert answer.status_code == 303
    assert trail(database_url)[-1][1:] == ("reject", EDITOR, "blurry photos")


def test_a_link_planted_in_the_store_is_never_served(
        engine: Engine, tmp_path: Path) -> None:
    """A symbolic link under a key's name (to /etc/passwd, to the catalog) is refused:
    404, its target never read; the same key's thumbnail is no way around it."""
    store = open_store("", home=tmp_path)
    runway_draft(engine, store, photos=1)
    planted = object_key(b"planted")
    target = store.root / planted[:2] / planted  # type: ignore[attr-defined]
    target.parent.mkdir(parents=True, exist_ok=True)
    os.symlink("/etc/passwd", target)
    with serve(review_app(engine, store)) as url:
        client = sign_in(url)
        for path in (f"/photos/{planted}", f"/thumbs/{planted}"):
            response = client.get(path)
            assert response.status_code == 404, path
            assert b"root:" not in response.content


def test_a_terminal_escape_never_reaches_a_page(site: str, engine: Engine,
                                                store: ObjectStore, database_url: str) -> None:
    """Titles are cleaned by one rule wherever they come from: a source (stored_title, unit
    tested for every source) or an editor's edit, replayed here through the page. An escape
    in a form is refused outright (a control character no request may carry); a reordering
    mark is no control character: the edit goes through, cleaned."""
    draft = runway_draft(engine, store)
    client = sign_in(site)
    page = client.get(f"/drafts/runway:{draft}").text
    title = status_of(database_url, draft)[3]
    refused = client.post(f"/drafts/runway:{draft}/edit", data={
        "csrf_token": token(page), "title": "Fall 1990 Ready-to-Wear \x1b[0m"})
    assert refused.status_code == 400 and status_of(database_url, draft)[3] == title
    client.post(f"/drafts/runway:{draft}/edit",
                data={"csrf_token": token(page), "title": "Fall 1990 Ready-to-Wear \u202e"})
    assert status_of(database_url, draft)[3] == "Fall 1990 Ready-to-Wear"
    assert "\x1b" not in client.get(f"/drafts/runway:{draft}").text
