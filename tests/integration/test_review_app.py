"""The review page through a real server (uvicorn on loopback), on SQLite and PostgreSQL, with
photos on disk and on a real S3 API server.

What must hold: nothing is written without a signed-in session and the session's CSRF token;
the forms change the draft and its audit trail exactly as the CLI does; photos come from the
store by object key only; every draft field is escaped.
"""

from __future__ import annotations

import asyncio
import io
import os
import re
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import uvicorn
from click.testing import CliRunner
from PIL import Image
from sqlalchemy import Engine, text

from fashion_assets.catalog.editors import add_editor
from fashion_assets.cli import main
from fashion_assets.domain.passwords import Argon2Cost
from fashion_assets.review_app import create_app
from fashion_assets.storage import ObjectStore, object_key
from tests.catalog_db import query
from tests.looks_catalog import promote_approved

PASSWORD = "correct horse battery staple"
EDITOR = "ana"
# Passwords hashed at a low cost (1 MiB, one pass): the rule is the same, and the suite
# signs in often.
CHEAP = Argon2Cost(time_cost=1, memory_kib=1024)
CODE = "spring-2020-ready-to-wear"
XSS = "<script>alert(1)</script>"
CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')
STARTUP_TIMEOUT_S = 30


class _Server(uvicorn.Server):
    """uvicorn that says when it listens: readiness is an event, not a guess."""

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self.ready = threading.Event()

    async def startup(self, sockets: Any = None) -> None:
        await super().startup(sockets=sockets)
        self.ready.set()


@contextmanager
def serve(app: Any, config: Callable[..., uvicorn.Config] = uvicorn.Config,
          **options: Any) -> Iterator[str]:
    """Serve ``app`` on a free loopback port in a background thread; yields its base URL.
    ``config`` makes the server's config from the app and uvicorn's ``options``."""
    server = _Server(config(app, host="127.0.0.1", port=0, log_level="warning",
                            lifespan="off", **options))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        assert server.ready.wait(STARTUP_TIMEOUT_S), "the review page did not start"
        port = server.servers[0].sockets[0].getsockname()[1]
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(STARTUP_TIMEOUT_S)


def png(seed: int) -> bytes:
    """A small real PNG, different for every seed (so every photo is its own object)."""
    image = Image.new("RGB", (8, 12), (seed * 37 % 256, seed * 91 % 256, seed * 13 % 256))
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


_seeds = iter(range(1, 1_000_000))


def runway_draft(engine: Engine, store: ObjectStore | None, *, title: str = "Spring 2020",
                 source: str = "vogue", code: str = CODE, photos: int = 2,
                 status: str = "pending") -> int:
    """A runway draft whose photos are real images in ``store`` (None: no photos)."""
    with engine.begin() as conn:
        draft_id = int(conn.execute(text(
            "INSERT INTO brand_runway_drafts (source, source_url, brand_slug, season_code,"
            " title, season, year, collection_type, status) VALUES (:s, :u, 'chloe', :c, :t,"
            " 'spring', 2020, 'ready-to-wear', :st) RETURNING id"),
            {"s": source, "u": f"https://{source}.example/chloe/{code}/{next(_seeds)}",
             "c": code, "t": title, "st": status}).scalar_one())
        for n in range(photos if store is not None else 0):
            draft_photo(conn, store, draft_id, n + 1, png(next(_seeds)), (8, 12))
    return draft_id


def draft_photo(conn: Any, store: ObjectStore, draft_id: int, position: int, data: bytes,
                size: tuple[int, int]) -> None:
    """``data``, a PNG of ``size``, put in ``store`` as the runway draft's photo at
    ``position``."""
    key = object_key(data)
    store.put(key, data, "image/png")
    conn.execute(text(
        "INSERT INTO brand_runway_draft_images (draft_id, position, object_key,"
        " source_image_url, content_type, width, height, byte_size)"
        " VALUES (:d, :p, :k, :u, 'image/png', :w, :h, :b)"),
        {"d": draft_id, "p": position, "k": key, "b": len(data), "w": size[0], "h": size[1],
         "u": f"https://cdn.example/{draft_id}/{position}.png"})


def photo_keys(database_url: str, draft_id: int) -> list[str]:
    return [k for (k,) in query(database_url, "SELECT object_key FROM brand_runway_draft_images"
                                              " WHERE draft_id = :d ORDER BY position",
                                d=draft_id)]


def draft_state(database_url: str) -> list[tuple[Any, ...]]:
    """Every draft and audit row: equal before and after, nothing was written."""
    return (query(database_url, "SELECT * FROM brand_runway_drafts ORDER BY id")
            + query(database_url, "SELECT * FROM draft_reviews ORDER BY id"))


def trail(database_url: str) -> list[tuple[Any, ...]]:
    return query(database_url, "SELECT draft_id, action, editor, reason FROM draft_reviews"
                               " ORDER BY id")


def status_of(database_url: str, draft_id: int) -> tuple[Any, ...]:
    [row] = query(database_url, "SELECT status, is_deleted, reject_reason, title FROM"
                                " brand_runway_drafts WHERE id = :id", id=draft_id)
    return row[0], bool(row[1]), row[2], row[3]


def token(html: str) -> str:
    match = CSRF.search(html)
    assert match, "no CSRF field on the page"
    return match.group(1)


def add_editors(engine: Engine, *names: str) -> None:
    """Editor accounts (password ``PASSWORD``): from the first one on, the page needs a
    sign-in."""
    for name in names or (EDITOR,):
        add_editor(engine, name, PASSWORD, cost=CHEAP)


def review_app(engine: Engine, store: ObjectStore, *, editors: tuple[str, ...] = (EDITOR,),
               **options: Any) -> Any:
    """The review page with editor accounts ``editors`` (none: the open page)."""
    if editors:
        add_editors(engine, *editors)
    return create_app(engine, store, password_cost=CHEAP, **options)


def sign_in(base_url: str, name: str = EDITOR, password: str = PASSWORD) -> httpx.Client:
    """A client signed in through the login form, as a browser would be."""
    client = httpx.Client(base_url=base_url, timeout=30)
    form = client.get("/login")
    response = client.post("/login", data={"csrf_token": token(form.text), "name": name,
                                           "password": password})
    assert response.status_code == 303 and response.headers["location"] == "/", response.text
    return client


def browser_sign_in(browser: Any, name: str = EDITOR, password: str = PASSWORD) -> None:
    """Fill and send the login form of the page the browser shows."""
    from selenium.webdriver.common.by import By

    browser.find_element(By.ID, "name").send_keys(name)
    browser.find_element(By.ID, "password").send_keys(password)
    browser.find_element(By.ID, "sign-in").click()


def cookie_header(client: httpx.Client) -> str:
    return "; ".join(f"{name}={value}" for name, value in client.cookies.items())


def test_the_forms_change_the_draft_and_its_audit_trail(site: str, engine: Engine,
                                                        store: ObjectStore,
                                                        database_url: str) -> None:
    draft = runway_draft(engine, store)
    client = sign_in(site)
    page = f"/drafts/runway:{draft}"

    def submit(action: str, then: str = page, **fields: str) -> httpx.Response:
        """Send the form; ``then`` is where it leads: the draft again, or after an
        approval or a rejection the queue's next draft (here none: the queue)."""
        csrf = token(client.get(page).text)
        response = client.post(f"{page}/{action}", data={"csrf_token": csrf, **fields})
        assert (response.status_code, response.headers["location"]) == (303, then)
        return client.get(page)

    refused = submit("reject", reason=" ")
    assert f"refused: draft {draft}: a rejection needs a reason" in refused.text
    assert trail(database_url) == []

    assert f"draft {draft}: rejected" in submit("reject", "/", reason="blurry").text
    assert status_of(database_url, draft)[:3] == ("rejected", False, "blurry")
    assert submit("approve", "/").status_code == 200
    assert status_of(database_url, draft)[:3] == ("approved", False, "")
    again = submit("approve")
    assert again.status_code == 200 and "approved already" in again.text

    edited = submit("edit", brand_slug="chloe", season_code=CODE, title="Spring 2020 RTW",
                    season="spring", year="2020", collection_type="ready-to-wear",
                    reason="typo")
    assert f"draft {draft}: edited title" in edited.text
    assert status_of(database_url, draft) == ("approved", False, "", "Spring 2020 RTW")
    assert "refused" in submit("edit", brand_slug="atlantis").text  # no such brand: a message

    submit("delete")
    assert status_of(database_url, draft)[1] is True
    restored = submit("restore")
    assert status_of(database_url, draft)[1] is False
    assert trail(database_url) == [(draft, "reject", EDITOR, "blurry"),
                                   (draft, "approve", EDITOR, ""),
                                   (draft, "edit", EDITOR, "typo"),
                                   (draft, "delete", EDITOR, ""),
                                   (draft, "restore", EDITOR, "")]
    for shown in ("reject", "blurry", "edit", "typo", "restore", EDITOR):
        assert shown in restored.text
    missing = client.get("/drafts/runway:999999")
    assert missing.status_code == 404
    assert client.post("/drafts/nonsense/approve",
                       data={"csrf_token": token(client.get("/").text)}).status_code == 404


def test_draft_fields_are_escaped_and_siblings_shown(site: str, engine: Engine,
                                                     store: ObjectStore,
                                                     database_url: str) -> None:
    draft = runway_draft(engine, store, title=XSS)
    sibling = runway_draft(engine, store, title="Second source", source="theimpression")
    client = sign_in(site)

    escaped = "&lt;script&gt;alert(1)&lt;/script&gt;"
    queue = client.get("/")
    page = client.get(f"/drafts/runway:{draft}")
    for html in (queue.text, page.text):
        assert XSS not in html and escaped in html
    assert "default-src 'none'" in page.headers["content-security-policy"]

    attack = '"><img src=x onerror=alert(1)>'
    csrf = token(page.text)
    client.post(f"/drafts/runway:{draft}/edit", data={"csrf_token": csrf, "title": attack})
    assert status_of(database_url, draft)[3] == attack
    edited = client.get(f"/drafts/runway:{draft}").text
    assert attack not in edited and "&#34;&gt;&lt;img src=x onerror=alert(1)&gt;" in edited

    for key in photo_keys(database_url, draft):  # thumbnails, each opening its full photo
        assert f'href="/photos/{key}" class="full"><img class="photo" src="/thumbs/{key}"' in (
            edited)
    sibling_thumb = photo_keys(database_url, sibling)[0]
    assert f'href="/drafts/runway:{sibling}"' in edited
    assert f'src="/thumbs/{sibling_thumb}"' in edited
    assert f'src="/thumbs/{photo_keys(database_url, draft)[0]}"' in queue.text


def test_the_queue_filters_and_pages(site: str, engine: Engine, store: ObjectStore,
                                     database_url: str) -> None:
    first = runway_draft(engine, store, title="First pending")
    runway_draft(engine, None, title="Approved one", status="approved")
    runway_draft(engine, None, title="From theImpression", source="theimpression")
    for n in range(50):
        runway_draft(engine, None, title=f"Filler {n:02d}", code="fall-2019-menswear")
    client = sign_in(site)

    queue = client.get("/").text
    assert "First pending" in queue and "Approved one" not in queue
    assert 'id="next-page"' in queue and "Filler 47" in queue and "Filler 48" not in queue
    second = client.get("/?offset=50").text
    assert "Filler 48" in second and "Filler 49" in second and "First pending" not in second
    assert 'id="next-page"' not in second
    approved = client.get("/?status=approved").text
    assert "Approved one" in approved and "First pending" not in approved
    by_source = client.get("/?source=theimpression").text
    assert "From theImpression" in by_source and "First pending" not in by_source
    assert "First pending" not in client.get("/?kind=street").text
    assert "First pending" not in client.get("/?brand=someone-else").text
    assert "First pending" in client.get("/?brand=chloe&status=any").text
    assert f'href="/drafts/runway:{first}"' in queue


def test_without_editor_accounts_the_page_is_local_and_still_checks_csrf(
        engine: Engine, store: ObjectStore, database_url: str) -> None:
    draft = runway_draft(engine, store)
    app = review_app(engine, store, editors=())
    with serve(app) as url:
        client = httpx.Client(base_url=url, timeout=30)
        queue = client.get("/")
        assert queue.status_code == 200
        assert "no editor accounts yet" in queue.text
        assert client.get("/login").headers["location"] == "/"
        before = draft_state(database_url)
        assert client.post(f"/drafts/runway:{draft}/approve").status_code == 403
        assert client.post(f"/drafts/runway:{draft}/approve",
                           data={"csrf_token": "forged"}).status_code == 403
        assert draft_state(database_url) == before
        page = client.get(f"/drafts/runway:{draft}").text
        response = client.post(f"/drafts/runway:{draft}/approve",
                               data={"csrf_token": token(page)})
        assert response.status_code == 303
        assert status_of(database_url, draft)[0] == "approved"
        assert trail(database_url) == [(draft, "approve", "editor", "")]
    # A client that is not on this machine is refused, whatever address the server is on.
    assert asyncio.run(_status_from(app, ("192.0.2.10", 40000))) == 403
    assert asyncio.run(_status_from(app, ("127.0.0.1", 40000))) == 200


async def _status_from(app: Any, client: tuple[str, int]) -> int:
    """The status of ``GET /`` for a client at ``client`` (httpx calls the app in-process)."""
    transport = httpx.ASGITransport(app=app, client=client)
    async with httpx.AsyncClient(transport=transport, base_url="http://review") as http:
        return (await http.get("/")).status_code


def test_serve_refuses_a_public_host_without_editor_accounts(tmp_path: Path) -> None:
    runner = CliRunner()
    env = {"FASHION_HOME": str(tmp_path)}
    for host in ("0.0.0.0", "192.0.2.10", "::"):
        # Port 0: were the refusal ever to fail, the server must not take the default 8810.
        result = runner.invoke(main, ["review", "serve", "--host", host, "--port", "0"],
                               env=env)
        assert result.exit_code != 0, result.output
        assert f"refusing to serve on {host}: there is no editor account yet" in result.output


def test_every_format_the_crawl_stores_is_served_as_its_own_type(engine: Engine) -> None:
    """The page sniffs with the crawl's sniffer (domain/media.py), so an AVIF the crawl
    stored is served as image/avif even when no draft row names its type; bytes of no
    image format stay an opaque download."""
    from fashion_assets.review_app.media import content_type
    from tests.unit.test_media import REAL_IMAGES, _avif_skeleton

    samples = [(data, kind) for data, kind in REAL_IMAGES.values()]
    samples.append((_avif_skeleton(640), "image/avif"))
    for data, kind in samples:
        assert content_type(engine, object_key(data), data) == kind
    html = b"<!doctype html><script>alert(1)</script>"
    assert content_type(engine, object_key(html), html) == "application/octet-stream"


def test_serve_on_any_free_port_announces_the_port_it_got(tmp_path: Path) -> None:
    """``--port 0``: the address printed is the one the page answers on."""
    env = {**os.environ, "FASHION_HOME": str(tmp_path),
           "FASHION_DATABASE_URL": f"sqlite:///{tmp_path / 'catalog.db'}"}
    server = subprocess.Popen([sys.executable, "-m", "fashion_assets", "review", "serve",
                               "--port", "0"], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True)
    try:
        line = server.stdout.readline() if server.stdout else ""
        found = re.match(r"review page on (http://127\.0\.0\.1:(\d+)/)", line)
        assert found and found.group(2) != "0", line
        # Listening before the line is printed: the request waits for uvicorn to accept it.
        assert httpx.get(found.group(1), timeout=30).status_code == 200
    finally:
        server.terminate()
        server.wait(30)


def test_the_queue_says_how_approved_drafts_get_promoted_while_they_wait(
        site: str, engine: Engine, store: ObjectStore) -> None:
    """Approving is not promoting: until a run of promote_approved_drafts (its sensor starts
    stopped), the queue says how many wait and how they get promoted."""
    draft = runway_draft(engine, store)
    client = sign_in(site)
    assert 'id="promotion-waiting"' not in client.get("/").text
    page = f"/drafts/runway:{draft}"
    client.post(f"{page}/approve", data={"csrf_token": token(client.get(page).text)})
    assert ("1 approved draft waits for promotion into the catalog: fashion-assets review "
            "promote promotes them now") in client.get("/").text
    promote_approved(engine, store)
    assert 'id="promotion-waiting"' not in client.get("/").text
