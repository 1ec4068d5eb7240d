"""What the review page believes of a client, replayed from issue 36 against the real server
(uvicorn on loopback with the command's own configuration, SQLite and PostgreSQL):

- uvicorn believed `X-Forwarded-For` from loopback, so 25 wrong sign-ins from 127.0.0.1,
  each claiming a new address, locked nothing out:
  test_a_client_claiming_a_new_address_each_time_is_still_one_address;
- a form cookie planted in an editor's browser (one the attacker got for themselves, with
  its CSRF token) was accepted with the editor's sign-in:
  test_a_planted_form_cookie_does_not_go_with_another_editors_sign_in;
- `review serve --host ::1` answered every request 400 and printed `http://::1:PORT/`:
  test_serve_on_ipv6_loopback_answers_and_prints_a_url_with_brackets;
- every name and address ever tried kept a row of sign-in counters:
  test_spent_sign_in_counters_are_forgotten_and_running_ones_kept.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from datetime import datetime, timedelta
from pathlib import Path

import httpx
from sqlalchemy import Engine

from fashion_assets.catalog.sign_ins import (
    account_subject,
    address_subject,
    forget_spent,
    locked_each,
    take_attempt,
)
from fashion_assets.domain.sign_in_limits import SignInLimits
from fashion_assets.review_app.server import timed_config
from fashion_assets.storage import ObjectStore
from tests.integration.test_review_app import (
    PASSWORD,
    cookie_header,
    draft_state,
    review_app,
    runway_draft,
    serve,
    sign_in,
    status_of,
    token,
)

LIMITS = SignInLimits(per_account=100, per_address=3, window_s=900, lockout_s=900)


def guess(client: httpx.Client, n: int) -> int:
    """A wrong password for a name of its own, from a client claiming a new address."""
    forwarded = {"X-Forwarded-For": f"203.0.113.{n}"}
    login = client.get("/login", headers=forwarded)
    return client.post("/login", headers=forwarded, data={
        "csrf_token": token(login.text), "name": f"nobody{n}", "password": "wrong"}
    ).status_code


def test_a_client_claiming_a_new_address_each_time_is_still_one_address(
        engine: Engine, store: ObjectStore) -> None:
    """The page served as ``review serve`` serves it (``timed_config``): with no trusted
    proxy, `X-Forwarded-For` is not believed, and the address limit holds; with loopback
    named as the proxy, each forwarded address is counted as its own."""
    app = review_app(engine, store, sign_in_limits=LIMITS)
    with serve(app, config=timed_config) as url, httpx.Client(base_url=url) as client:
        assert [guess(client, n) for n in range(5)] == [401] * 3 + [429] * 2
    with serve(app, config=lambda *a, **o: timed_config(*a, proxies=["127.0.0.1"], **o)
               ) as url, httpx.Client(base_url=url) as client:
        assert [guess(client, n) for n in range(10, 15)] == [401] * 5


def test_a_planted_form_cookie_does_not_go_with_another_editors_sign_in(
        engine: Engine, store: ObjectStore, database_url: str) -> None:
    """The attacker (an editor too, or anyone who reached /login) keeps its own form cookie
    and token and plants the cookie in the victim's browser: the victim's sign-in does not
    make the attacker's token good. The victim's own forms still work, and a form cookie
    from before a restart of the sign-in is made again on the next page."""
    draft = runway_draft(engine, store)
    with serve(review_app(engine, store, editors=("ana", "mallory"))) as url:
        attacker = sign_in(url, "mallory", PASSWORD)
        planted_token = token(attacker.get(f"/drafts/runway:{draft}").text)
        planted_cookie = attacker.cookies["fashion_review"]
        victim = sign_in(url, "ana", PASSWORD)
        before = draft_state(database_url)
        forged = httpx.post(f"{url}/drafts/runway:{draft}/approve", headers={
            "Cookie": f"fashion_review={planted_cookie}; "
                      f"fashion_review_session={victim.cookies['fashion_review_session']}"},
            data={"csrf_token": planted_token})
        assert forged.status_code == 403, forged.text
        assert draft_state(database_url) == before

        # A form cookie of nobody signed in (the login page's) is no better.
        anonymous = httpx.get(f"{url}/login")
        forged = httpx.post(f"{url}/drafts/runway:{draft}/approve", headers={
            "Cookie": f"{anonymous.headers['set-cookie'].split(';')[0]}; "
                      f"fashion_review_session={victim.cookies['fashion_review_session']}"},
            data={"csrf_token": token(anonymous.text)})
        assert forged.status_code == 403 and draft_state(database_url) == before

        # Planted in the victim's own jar, in place of its cookie: the next page mends it.
        [jar_cookie] = [c for c in victim.cookies.jar if c.name == "fashion_review"]
        victim.cookies.set("fashion_review", planted_cookie, domain=jar_cookie.domain)
        own = token(victim.get(f"/drafts/runway:{draft}").text)
        assert own != planted_token
        answer = victim.post(f"/drafts/runway:{draft}/approve", data={"csrf_token": own})
        assert answer.status_code == 303, answer.text
        assert status_of(database_url, draft)[0] == "approved"
        assert cookie_header(victim)  # still signed in


def test_serve_on_ipv6_loopback_answers_and_prints_a_url_with_brackets(
        tmp_path: Path) -> None:
    env = {**os.environ, "FASHION_HOME": str(tmp_path),
           "FASHION_DATABASE_URL": f"sqlite:///{tmp_path / 'catalog.db'}"}
    for command, pattern, path in (
            (["review", "serve"], r"review page on (http://\[::1\]:(\d+)/)", ""),
            (["api", "serve"], r"read API on (http://\[::1\]:(\d+)/api/v1/), catalog pages on "
                               r"(http://\[::1\]:\d+/catalog/) ", "brands")):
        server = subprocess.Popen([sys.executable, "-m", "fashion_assets", *command,
                                   "--host", "::1", "--port", "0"], env=env,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        try:
            line = server.stdout.readline() if server.stdout else ""
            found = re.match(pattern, line)
            assert found and found.group(2) != "0", line
            answer = httpx.get(found.group(1) + path, timeout=30)
            assert answer.status_code == 200, (command, answer.text)
            assert httpx.get(found.group(1) + path, timeout=30,
                             headers={"Host": "rebound.example"}).status_code == 400
            pages = found.groups()[2:]  # the browse pages the API's line names too
            assert all(httpx.get(url, timeout=30).status_code == 200 for url in pages), line
        finally:
            server.terminate()
            server.wait(30)


def test_spent_sign_in_counters_are_forgotten_and_running_ones_kept(engine: Engine) -> None:
    """30 invented names from 30 addresses, and one account guessed to its lockout: once
    the window is over the invented names' rows go, the lockout's row stays until it ends,
    and the account is still locked out in between."""
    rules = SignInLimits(per_account=5, per_address=20, window_s=900, lockout_s=1800)
    start = datetime(2026, 12, 7, 9, 0)
    for n in range(30):
        assert take_attempt(engine, [(account_subject(f"invented{n}"), 5),
                                     (address_subject(f"198.51.100.{n}"), 20)], rules,
                            start) == 0
    ana = account_subject("ana")
    for n in range(6):
        take_attempt(engine, [(ana, 5)], rules, start + timedelta(seconds=n))
    assert forget_spent(engine, rules, start + timedelta(seconds=899)) == 0
    assert forget_spent(engine, rules, start + timedelta(seconds=900)) == 60
    assert locked_each(engine, [ana], start + timedelta(seconds=900))[ana] > 0
    assert forget_spent(engine, rules, start + timedelta(seconds=1804)) == 1
    assert take_attempt(engine, [(ana, 5)], rules, start + timedelta(seconds=1804)) == 0
