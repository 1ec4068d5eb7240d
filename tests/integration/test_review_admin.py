"""Editor administration in the review page (``/editors``, issue 17 point 1: "the same in
the page for an admin role"), through the real server on SQLite and PostgreSQL: an admin
adds, disables, enables, unlocks and re-passwords editors with the rules of the CLI; an
editor who is no admin can do none of it; every change of access takes effect on the
affected editor's next request.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import httpx
import pytest
from sqlalchemy import Engine, text

from fashion_assets.catalog.editors import add_editor, get_editor
from fashion_assets.domain.sign_in_limits import SignInLimits
from fashion_assets.review_app import create_app
from fashion_assets.storage import ObjectStore
from tests.integration.test_review_app import CHEAP, PASSWORD, serve, sign_in, token

ADMIN, EDITOR = "ada", "ben"
NEW_PASSWORD = "a brand new passphrase"
# PASSWORD as an earlier release kept it: scrypt, N = 2^10, r = 8, p = 1.
SCRYPT_HASH = ("scrypt$10$8$1$emZI7tEXtLMNXTcbzLfOdA==$"
               "nN2KDcyCXKy6SBOdMKnTOY6lJAQdK4uZrxJo1AahTh4=")


@pytest.fixture
def site(engine: Engine, store: ObjectStore) -> Iterator[str]:
    add_editor(engine, ADMIN, PASSWORD, role="admin", cost=CHEAP)
    add_editor(engine, EDITOR, PASSWORD, cost=CHEAP)
    limits = SignInLimits(per_account=3, per_address=50, window_s=900, lockout_s=900)
    with serve(create_app(engine, store, password_cost=CHEAP, sign_in_limits=limits)) as url:
        yield url


def post(client: httpx.Client, path: str, **fields: str) -> str:
    """Send an admin form from the editors page; the message the next page shows."""
    csrf = token(client.get("/editors").text)
    response = client.post(path, data={"csrf_token": csrf, **fields})
    assert (response.status_code, response.headers["location"]) == (303, "/editors"), (
        response.text)
    page = client.get("/editors").text
    flashes = re.findall(r'<p class="flash (?:ok|refused)">([^<]*)</p>', page)
    assert flashes, "no message"
    return flashes[-1].replace("&#39;", "'")


def test_an_admin_adds_an_editor_with_the_rules_of_the_cli(site: str, engine: Engine) -> None:
    admin = sign_in(site, ADMIN)
    page = admin.get("/")
    assert 'id="editors-link"' in page.text
    listing = admin.get("/editors").text
    assert f'id="editor-{ADMIN}"' in listing and f'id="editor-{EDITOR}"' in listing

    assert "at least 12 characters" in post(admin, "/editors/add", name="cy", password="short")
    assert "exists already" in post(admin, "/editors/add", name=EDITOR, password=NEW_PASSWORD)
    assert "is not an editor name" in post(admin, "/editors/add", name="c y",
                                           password=NEW_PASSWORD)
    assert post(admin, "/editors/add", name="cy", password=NEW_PASSWORD,
                admin="1") == "added admin cy"
    assert get_editor(engine, "cy").role == "admin"
    sign_in(site, "cy", NEW_PASSWORD)  # the new account signs in


def test_an_editor_who_is_no_admin_can_change_nothing(site: str, engine: Engine) -> None:
    editor = sign_in(site, EDITOR)
    assert 'id="editors-link"' not in editor.get("/").text
    assert editor.get("/editors").status_code == 403
    csrf = token(editor.get("/").text)
    for path, fields in (("/editors/add", {"name": "eve", "password": NEW_PASSWORD}),
                         (f"/editors/{ADMIN}/disable", {}),
                         (f"/editors/{ADMIN}/passwd", {"password": NEW_PASSWORD})):
        assert editor.post(path, data={"csrf_token": csrf, **fields}).status_code == 403, path
    assert get_editor(engine, "eve") is None and get_editor(engine, ADMIN).active
    sign_in(site, ADMIN)  # its password unchanged
    anonymous = httpx.Client(base_url=site)
    assert anonymous.get("/editors").headers["location"] == "/login"


def test_disable_and_a_new_password_end_the_editors_session_at_once(site: str) -> None:
    admin, editor = sign_in(site, ADMIN), sign_in(site, EDITOR)
    assert editor.get("/").status_code == 200

    assert post(admin, f"/editors/{EDITOR}/disable") == f"{EDITOR} disabled"
    assert editor.get("/").status_code == 303  # signed out on the next request
    assert post(admin, f"/editors/{EDITOR}/enable") == f"{EDITOR} enabled"
    editor = sign_in(site, EDITOR)

    assert "at least 12 characters" in post(admin, f"/editors/{EDITOR}/passwd",
                                            password="short")
    assert post(admin, f"/editors/{EDITOR}/passwd", password=NEW_PASSWORD) == (
        f"{EDITOR} has a new password; their sessions ended")
    assert editor.get("/").status_code == 303
    sign_in(site, EDITOR, NEW_PASSWORD)

    assert post(admin, f"/editors/{ADMIN}/disable") == "you cannot disable your own account"
    assert "no editor named" in post(admin, "/editors/nobody/disable")
    assert admin.post(f"/editors/{EDITOR}/disable", data={}).status_code == 403  # no token


def test_an_admin_lifts_a_lockout(site: str) -> None:
    admin = sign_in(site, ADMIN)
    guesser = httpx.Client(base_url=site)
    csrf = token(guesser.get("/login").text)
    for _ in range(3):
        guesser.post("/login", data={"csrf_token": csrf, "name": EDITOR, "password": "nope"})
    locked = guesser.post("/login", data={"csrf_token": csrf, "name": EDITOR,
                                          "password": PASSWORD})
    assert locked.status_code == 429
    assert "locked out" in admin.get("/editors").text

    assert post(admin, f"/editors/{EDITOR}/unlock") == f"{EDITOR} may sign in again"
    sign_in(site, EDITOR)


def test_an_account_kept_with_scrypt_signs_in_and_gets_an_argon2id_hash(
        site: str, engine: Engine) -> None:
    """Issue 38: a hash of an earlier release still lets its editor in, once with it: the
    sign-in stores an Argon2id hash in its place. A wrong password changes nothing."""
    def stored() -> str:
        with engine.connect() as conn:
            return conn.execute(text("SELECT password_hash FROM editors WHERE name = :n"),
                                {"n": EDITOR}).scalar_one()

    with engine.begin() as conn:
        conn.execute(text("UPDATE editors SET password_hash = :h WHERE name = :n"),
                     {"h": SCRYPT_HASH, "n": EDITOR})
    guesser = httpx.Client(base_url=site)
    wrong = guesser.post("/login", data={"csrf_token": token(guesser.get("/login").text),
                                         "name": EDITOR, "password": PASSWORD + "!"})
    assert wrong.status_code == 401 and stored() == SCRYPT_HASH

    sign_in(site, EDITOR)
    assert stored().startswith("$argon2id$v=19$m=1024,t=1,p=1$")
    sign_in(site, EDITOR)


def test_the_open_page_has_no_editor_administration(engine: Engine, store: ObjectStore) -> None:
    with serve(create_app(engine, store, password_cost=CHEAP)) as url:
        page = httpx.get(f"{url}/editors")
    assert page.status_code == 403 and "fashion-assets editors add" in page.text
