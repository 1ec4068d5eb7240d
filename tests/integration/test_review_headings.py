"""The review page names whose show a draft is, through the real page (uvicorn on loopback,
SQLite and PostgreSQL): the queue's rows, a draft's heading and its ``<title>`` say the
designer by the name the catalog knows, the season and the city, not the source's title;
a street-style draft says its city and month. The source's title is still on the page."""

from __future__ import annotations

import re
from dataclasses import dataclass
from html import unescape

from sqlalchemy import Engine, text

from fashion_assets.storage import ObjectStore
from tests.integration.test_review_app import runway_draft, sign_in

TOKYO = "Anrealage, Fall 2015 Ready-to-Wear, Tokyo"
MAIN_SHOW = "Chloé, Fall 2026 Ready-to-Wear"
ALBUM = "Street style, Copenhagen, February 2024"


@dataclass(frozen=True)
class Drafts:
    tokyo: int
    main_show: int
    album: int


def headed_drafts(engine: Engine, store: ObjectStore, *, photos: int = 2) -> Drafts:
    """A Tokyo show titled "Tokyo Fall 2015" by a designer the catalog names "Anrealage", a
    main show titled "Fall 2026 Ready-to-Wear" by Chloé (no city), and a street album."""
    with engine.begin() as conn:
        conn.execute(text("INSERT INTO brands (slug, display_name) VALUES"
                          " ('anrealage', 'Anrealage')"))
    tokyo = runway_draft(engine, store, title="Tokyo Fall 2015", code="tokyo-fall-2015",
                         photos=photos)
    main_show = runway_draft(engine, store, title="Fall 2026 Ready-to-Wear",
                             code="fall-2026-ready-to-wear", photos=photos)
    with engine.begin() as conn:
        conn.execute(text("UPDATE brand_runway_drafts SET brand_slug = 'anrealage',"
                          " season = 'fall', year = 2015, city = 'tokyo', city_name = 'Tokyo'"
                          " WHERE id = :id"), {"id": tokyo})
        conn.execute(text("UPDATE brand_runway_drafts SET season = 'fall', year = 2026"
                          " WHERE id = :id"), {"id": main_show})
        album = int(conn.execute(text(
            "INSERT INTO street_snap_drafts (source, source_url, city, year, month, title)"
            " VALUES ('theimpression', 'https://theimpression.example/cph-2024', 'copenhagen',"
            " 2024, 2, 'CPHFW AW24 Street Style') RETURNING id")).scalar_one())
    return Drafts(tokyo, main_show, album)


def _text(html: str) -> str:
    """An element's HTML as its text reads."""
    return " ".join(unescape(re.sub(r"<[^>]+>", "", html)).split())


def _row(queue: str, kind: str, draft_id: int) -> str:
    match = re.search(rf'<tr class="draft[^"]*" id="draft-{kind}-{draft_id}">(.*?)</tr>',
                      queue, re.S)
    assert match, f"no row for {kind} draft {draft_id}"
    return match.group(1)


def _cell(row: str, column: str) -> str:
    match = re.search(rf'<td class="[^"]*col-{column}[^"]*"[^>]*>(.*?)</td>', row, re.S)
    assert match, f"no {column} cell"
    return _text(match.group(1))


def test_the_queue_names_the_designer_the_season_and_the_city(
        site: str, engine: Engine, store: ObjectStore) -> None:
    drafts = headed_drafts(engine, store)
    queue = sign_in(site).get("/").text

    tokyo = _row(queue, "runway", drafts.tokyo)
    assert _cell(tokyo, "show") == TOKYO
    assert '<span class="designer">Anrealage</span>' in tokyo  # the name, not the slug
    assert _cell(tokyo, "title") == "Tokyo Fall 2015"  # the source's title, beside it
    assert _cell(_row(queue, "runway", drafts.main_show), "show") == MAIN_SHOW
    assert _cell(_row(queue, "street", drafts.album), "show") == ALBUM
    assert ">Show<" in queue


def test_a_drafts_heading_and_title_name_whose_show_it_is(
        site: str, engine: Engine, store: ObjectStore) -> None:
    drafts = headed_drafts(engine, store)
    client = sign_in(site)
    for kind, draft_id, heading, source_title in (
            ("runway", drafts.tokyo, TOKYO, "Tokyo Fall 2015"),
            ("runway", drafts.main_show, MAIN_SHOW, "Fall 2026 Ready-to-Wear"),
            ("street", drafts.album, ALBUM, "CPHFW AW24 Street Style")):
        page = client.get(f"/drafts/{kind}:{draft_id}").text
        h1 = re.search(r'<h1 id="draft-title"[^>]*>(.*?)</h1>', page, re.S)
        assert h1 and _text(h1.group(1)) == heading
        title = re.search(r"<title>(.*?)</title>", page, re.S)
        assert title and unescape(title.group(1)) == f"{heading} · fashion-assets"
        source = re.search(r'<span id="source-title" title="[^"]*">(.*?)</span>', page)
        assert source and unescape(source.group(1)) == source_title
        if kind == "runway":  # every photo says whose look it is to a screen reader
            assert f'alt="{heading}, photo 1"' in unescape(page)
