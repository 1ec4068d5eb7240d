"""The review page as a tool for thousands of drafts, through a real server on SQLite and
PostgreSQL (issue 17, point 3): a queue with column headers and orders, the next draft of
the queue after each approval or rejection, a whole queue approved at once with an audit
entry per draft, a draft's missing photos with their reasons, drafts without photos
flagged and approved only with a confirmation, readable values and long titles cut.
"""

from __future__ import annotations

import io
import random
import re
from urllib.parse import parse_qs, urlsplit

import httpx
from PIL import Image
from sqlalchemy import Engine, text

from fashion_assets.domain.review import QUEUE_SORTS
from fashion_assets.storage import ObjectStore, object_key
from tests.catalog_db import query
from tests.integration.test_review_app import (
    CODE,
    runway_draft,
    sign_in,
    status_of,
    token,
)

DRAFT_LINK = re.compile(r'<a class="open" href="/drafts/runway:(\d+)(?:\?([^"]*))?"')


def queue_ids(page: str) -> list[int]:
    return [int(i) for i, _ in DRAFT_LINK.findall(page)]


def draft_at(client: httpx.Client, queue: str, pos: int) -> tuple[int, str]:
    """Open the draft listed at ``pos`` of the queue ``queue``, as its link does."""
    page = client.get(f"/?{queue}").text
    draft_id, query_string = DRAFT_LINK.findall(page)[pos]
    return int(draft_id), query_string.replace("&amp;", "&")


def act(client: httpx.Client, draft_id: int, query_string: str, action: str,
        **fields: str) -> httpx.Response:
    """Send the draft page's form for ``action``, as the page opened from the queue has it."""
    page = client.get(f"/drafts/runway:{draft_id}?{query_string}")
    assert page.status_code == 200, page.text
    hidden = re.search(r'name="queue" value="([^"]*)"', page.text)
    assert hidden, "the draft page carries no queue"
    return client.post(f"/drafts/runway:{draft_id}/{action}",
                       data={"csrf_token": token(page.text),
                             "queue": hidden.group(1).replace("&amp;", "&"), **fields})


def opened(response: httpx.Response) -> int | None:
    """The draft a redirect opens, None for the queue."""
    assert response.status_code == 303, response.text
    match = re.fullmatch(r"/drafts/runway:(\d+)(\?.*)?", response.headers["location"])
    return int(match.group(1)) if match else None


def test_the_queue_has_headers_and_sorts_by_them(site: str, engine: Engine,
                                                store: ObjectStore) -> None:
    few = runway_draft(engine, store, title="B show", photos=1)
    many = runway_draft(engine, store, title="a show", photos=3)
    none = runway_draft(engine, None, title="C show")
    client = sign_in(site)

    page = client.get("/").text
    assert all(f">{label}" in page for label in ("Title", "Source", "Status", "Photos",
                                                 "Waiting since"))
    assert queue_ids(page) == [few, many, none]  # waiting longest first
    assert queue_ids(client.get("/?sort=photos").text) == [none, few, many]
    assert queue_ids(client.get("/?sort=-photos").text) == [many, few, none]
    assert queue_ids(client.get("/?sort=title").text) == [many, few, none]
    assert 'href="/?sort=-photos"' in client.get("/?sort=photos").text  # click again: reverse
    for sort in QUEUE_SORTS:  # every order the domain names, the catalog can list
        for order in (sort, f"-{sort}"):
            assert sorted(queue_ids(client.get(f"/?sort={order}").text)) == [few, many, none]
    assert "no photos" in page and "3 drafts" in page
    for bad in ("sort=size", "sort=--title", "kind=catwalk", "status=lost", "offset=-1"):
        assert client.get(f"/?{bad}").status_code == 400, bad


def test_approve_and_reject_open_the_next_draft_of_the_queue(
        site: str, engine: Engine, store: ObjectStore, database_url: str) -> None:
    first, second, third, fourth = (runway_draft(engine, store) for _ in range(4))
    client = sign_in(site)

    draft, where = draft_at(client, "", 0)
    assert draft == first
    assert opened(act(client, first, where, "approve")) == second
    draft, where = draft_at(client, "", 0)  # the pending queue: second is first now
    assert opened(act(client, second, where, "reject", reason="not this show")) == third
    # In a queue that shows every status, the draft stays and the next is one further on.
    draft, where = draft_at(client, "status=any", 2)
    assert draft == third
    assert opened(act(client, third, where, "approve")) == fourth
    draft, where = draft_at(client, "", 0)
    assert draft == fourth
    assert opened(act(client, fourth, where, "approve")) is None  # the queue is done
    assert [status_of(database_url, d)[0] for d in (first, second, third, fourth)] == [
        "approved", "rejected", "approved", "approved"]
    # A refusal stays on the draft and says why.
    refused = act(client, first, where, "approve")
    assert refused.headers["location"].startswith(f"/drafts/runway:{first}")
    assert "is approved already" in client.get(refused.headers["location"]).text


def test_skip_moves_on_without_acting(site: str, engine: Engine, store: ObjectStore,
                                      database_url: str) -> None:
    first, second = runway_draft(engine, store), runway_draft(engine, store)
    client = sign_in(site)
    _, where = draft_at(client, "", 0)
    page = client.get(f"/drafts/runway:{first}?{where}").text
    skip = re.search(r'href="([^"]+)" id="skip"', page).group(1).replace("&amp;", "&")
    assert urlsplit(skip).path == f"/drafts/runway:{second}"
    assert parse_qs(urlsplit(skip).query)["pos"] == ["1"]
    assert status_of(database_url, first)[0] == "pending"


def test_a_whole_queue_is_approved_at_once_with_an_entry_per_draft(
        site: str, engine: Engine, store: ObjectStore, database_url: str) -> None:
    clean = [runway_draft(engine, store) for _ in range(3)]
    empty = runway_draft(engine, None)
    other_brand = runway_draft(engine, store, code="fall-2020-ready-to-wear")
    with engine.begin() as conn:
        conn.execute(text("UPDATE brand_runway_drafts SET source = 'impression'"
                          " WHERE id = :id"), {"id": other_brand})
    client = sign_in(site)
    page = client.get("/?source=vogue").text
    assert 'id="bulk-form"' in page and "4 drafts" in page

    def bulk(count: str, confirm: str = "1") -> httpx.Response:
        return client.post("/bulk", data={"csrf_token": token(page), "queue": "source=vogue",
                                          "action": "approve", "count": count,
                                          "confirm": confirm})

    stale = bulk("5")  # the editor saw 5; the queue holds 4 now: nothing is done
    assert stale.status_code == 303
    assert "nothing done: the queue holds 4 drafts" in client.get("/").text
    unconfirmed = bulk("4", confirm="")
    assert unconfirmed.status_code == 303
    assert query(database_url, "SELECT count(*) FROM draft_reviews") == [(0,)]

    done = bulk("4")
    assert done.status_code == 303
    message = client.get("/").text
    assert "approved 3 of 4" in message and "has no photos" in message
    assert [status_of(database_url, d)[0] for d in clean] == ["approved"] * 3
    assert status_of(database_url, empty)[0] == "pending"
    assert status_of(database_url, other_brand)[0] == "pending"  # not in that queue
    assert sorted(query(database_url, "SELECT draft_id, action, editor FROM draft_reviews")
                  ) == sorted((d, "approve", "ana") for d in clean)
    forged = client.post("/bulk", data={"queue": "", "action": "approve", "count": "1",
                                        "confirm": "1"})
    assert forged.status_code == 403
    assert client.post("/bulk", data={"csrf_token": token(page), "queue": "",
                                      "action": "delete", "count": "1",
                                      "confirm": "1"}).status_code == 400


def test_a_complete_only_queue_leaves_out_drafts_short_of_photos(
        site: str, engine: Engine, store: ObjectStore) -> None:
    complete = runway_draft(engine, store, photos=3)
    short = runway_draft(engine, store, photos=1)
    with engine.begin() as conn:
        conn.execute(text("UPDATE brand_runway_drafts SET expected_images = :n WHERE id = :id"),
                     [{"n": 3, "id": complete}, {"n": 40, "id": short}])
    client = sign_in(site)
    assert queue_ids(client.get("/").text) == [complete, short]
    assert queue_ids(client.get("/?complete=1").text) == [complete]
    assert "1 of 40" in client.get("/").text


def test_a_draft_lists_its_missing_photos_and_one_without_photos_needs_a_confirmation(
        site: str, engine: Engine, store: ObjectStore, database_url: str) -> None:
    draft = runway_draft(engine, None, title="Fall 1990 Ready-to-Wear")
    [(url,)] = query(database_url, "SELECT source_url FROM brand_runway_drafts WHERE id = :id",
                     id=draft)
    with engine.begin() as conn:
        show = conn.execute(text(
            "INSERT INTO runway_shows (brand_slug, source, source_url, source_path, title,"
            " season_code) VALUES ('chloe', 'vogue', :u, '/x', 'Fall 1990', :c) RETURNING id"),
            {"u": url, "c": CODE}).scalar_one()
        conn.execute(text(
            "INSERT INTO runway_missing_images (show_id, position, url, reason, detail)"
            " VALUES (:s, :p, :u, :r, :d)"),
            [{"s": show, "p": 3, "u": "https://cdn.example/3.jpg", "r": "not_found",
              "d": "HTTP 404"},
             {"s": show, "p": 1, "u": "https://cdn.example/1.jpg", "r": "not_an_image",
              "d": "text/html"}])
    client = sign_in(site)
    page = client.get(f"/drafts/runway:{draft}").text
    missing = page[page.index('id="missing-photos"'):]
    rows = re.findall(r"<tr><td>(\d+)</td><td><a href=\"([^\"]+)\"[^>]*>[^<]*</a></td>"
                      r"<td>([a-z_]+)</td>", missing)
    assert rows == [("1", "https://cdn.example/1.jpg", "not_an_image"),
                    ("3", "https://cdn.example/3.jpg", "not_found")]
    assert 'id="no-photos"' in page and 'id="confirm-no-photos"' in page

    refused = client.post(f"/drafts/runway:{draft}/approve",
                          data={"csrf_token": token(page)})
    assert "has no photos" in client.get(refused.headers["location"]).text
    assert status_of(database_url, draft)[0] == "pending"
    client.post(f"/drafts/runway:{draft}/approve",
                data={"csrf_token": token(page), "confirm_no_photos": "1"})
    assert status_of(database_url, draft)[0] == "approved"


def test_values_read_as_words_long_titles_are_cut_and_the_city_is_editable(
        site: str, engine: Engine, store: ObjectStore, database_url: str) -> None:
    long_title = "Spring 2020 " + "very " * 140
    draft = runway_draft(engine, store, title=long_title.strip())
    client = sign_in(site)
    page = client.get(f"/drafts/runway:{draft}").text
    # The heading names the show (test_review_headings.py); the source's title is cut below it.
    title = re.search(r'<span id="source-title" title="([^"]*)">([^<]*)</span>', page)
    assert title.group(1) == long_title.strip() and title.group(2).endswith("…")
    assert len(title.group(2)) <= 120
    fields = page[page.index('class="fields"'):page.index("<h2>Review")]
    assert "None" not in fields and "False" not in fields
    assert "<th>city</th><td>—</td>" in fields and "<th>is_deleted</th><td>no</td>" in fields

    client.post(f"/drafts/runway:{draft}/edit",
                data={"csrf_token": token(page), "city": "paris", "reason": "from the page"})
    assert query(database_url, "SELECT city FROM brand_runway_drafts WHERE id = :id",
                 id=draft) == [("paris",)]
    unknown = client.post(f"/drafts/runway:{draft}/edit",
                          data={"csrf_token": token(page), "city": "atlantis"})
    assert "no city &#39;atlantis&#39;" in client.get(unknown.headers["location"]).text


def test_the_shortcuts_are_on_every_review_page_and_allowed_to_run(
        site: str, engine: Engine, store: ObjectStore) -> None:
    draft = runway_draft(engine, store)
    client = sign_in(site)
    for path in ("/", f"/drafts/runway:{draft}"):
        response = client.get(path)
        assert '<script src="/static/review.js"></script>' in response.text
        assert 'id="shortcuts"' in response.text
        policy = response.headers["content-security-policy"]
        assert "script-src 'self'" in policy and "unsafe-inline" not in policy
    script = client.get("/static/review.js")
    assert script.status_code == 200 and '"approve"' in script.text


def test_thumbnails_are_made_once_kept_and_made_again_when_lost(
        site: str, engine: Engine, store: ObjectStore, database_url: str) -> None:
    big = photo_bytes(1280, 1920)
    key = object_key(big)
    store.put(key, big, "image/jpeg")
    draft = runway_draft(engine, store, photos=1)
    with engine.begin() as conn:
        conn.execute(text("UPDATE brand_runway_draft_images SET object_key = :k"
                          " WHERE draft_id = :d"), {"k": key, "d": draft})
    client = sign_in(site)
    page = client.get(f"/drafts/runway:{draft}").text
    assert f'src="/thumbs/{key}"' in page and f'href="/photos/{key}"' in page
    assert f'src="/thumbs/{key}"' in client.get("/").text

    first = client.get(f"/thumbs/{key}")
    assert first.status_code == 200 and first.headers["content-type"] == "image/webp"
    assert len(first.content) < len(big) / 10
    [(thumb_key, size)] = query(database_url, "SELECT derivative_key, byte_size FROM"
                                " photo_derivatives WHERE photo_key = :k", k=key)
    assert thumb_key == object_key(first.content) and size == len(first.content)
    assert store.get(thumb_key) == first.content
    assert client.get(f"/thumbs/{key}").content == first.content

    store.delete(thumb_key)  # the store lost it: made again, same bytes, same key
    assert client.get(f"/thumbs/{key}").content == first.content
    assert store.get(thumb_key) == first.content

    html = b"<html>an error page stored by mistake</html>"
    store.put(object_key(html), html, "image/jpeg")
    assert client.get(f"/thumbs/{object_key(html)}").status_code == 404
    assert client.get("/thumbs/" + "0" * 40).status_code == 404
    assert client.get("/thumbs/../catalog.db").status_code == 404
    assert httpx.get(f"{site}/thumbs/{key}").status_code == 403  # not signed in


def photo_bytes(width: int, height: int) -> bytes:
    """A noisy JPEG of a real photo's size (noise compresses as badly as a photo)."""
    rng = random.Random(width * height)
    image = Image.frombytes("RGB", (width, height), rng.randbytes(width * height * 3))
    out = io.BytesIO()
    image.save(out, format="JPEG", quality=90)
    return out.getvalue()
