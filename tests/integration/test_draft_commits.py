"""Drafts written together (``catalog/drafts.py: write_drafts``, ``crawl/ingest.py:
DraftCommits``), on SQLite and PostgreSQL: each draft gets its own photos and log entry, a
source key met twice is a skip, a burst goes in few transactions, an outage fails them all."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import Engine, text

from fashion_assets.catalog.drafts import DraftWrite, write_drafts
from fashion_assets.catalog.entities import RUNWAY
from fashion_assets.catalog.ingest_log import LogEntry
from fashion_assets.catalog.photos import MissingImage, StoredImage
from fashion_assets.catalog.runway import ShowRow, brand_shows, record_listing
from fashion_assets.crawl.infra import InfrastructureError
from fashion_assets.crawl.ingest import DraftCommits
from fashion_assets.domain.runway import RunwayEntityKey, RunwayShow, SourceKey

SOURCE = "vogue"


def _shows(engine: Engine, count: int) -> list[ShowRow]:
    record_listing(engine, [RunwayShow(
        SourceKey(SOURCE, f"https://www.vogue.com/fashion-shows/fall-{2000 + n}-ready-to-wear/"
                          "chloe"),
        RunwayEntityKey("chloe", f"fall-{2000 + n}-ready-to-wear"),
        f"/fashion-shows/fall-{2000 + n}-ready-to-wear/chloe", f"Chloé Fall {2000 + n}",
        "fall", 2000 + n, "ready-to-wear", None, n) for n in range(count)])
    return sorted(brand_shows(engine, "chloe", SOURCE), key=lambda s: s.source_url)


def _photo(show: ShowRow, position: int) -> StoredImage:
    return StoredImage(position, f"{show.id:04x}{position:036x}",
                       f"{show.source_url}photo-{position}.jpg", "image/jpeg", 10, 20, 300)


def _draft(show: ShowRow, photos: int, missing: int = 0) -> DraftWrite:
    return DraftWrite(
        show, show.title, photos + missing, [_photo(show, p) for p in range(photos)],
        [MissingImage(photos + p, f"{show.source_url}gone-{p}.jpg", "http_404", "")
         for p in range(missing)],
        LogEntry("run-1", show.brand_slug, show.source, show.source_url, "ingest", "created"))


def _rows(engine: Engine, sql: str) -> list[tuple[object, ...]]:
    with engine.connect() as conn:
        return [tuple(row) for row in conn.execute(text(sql))]


def test_each_draft_of_a_batch_gets_its_own_photos_and_log_entry(engine: Engine) -> None:
    first, second = _shows(engine, 2)
    ids = write_drafts(engine, RUNWAY, [_draft(first, 2), _draft(second, 1, missing=1),
                                        _draft(first, 3)])

    assert ids[0] is not None and ids[1] is not None and ids[2] is None
    photos = _rows(engine, "SELECT draft_id, position, source_image_url FROM"
                           " brand_runway_draft_images ORDER BY draft_id, position")
    assert photos == [(ids[0], 0, f"{first.source_url}photo-0.jpg"),
                      (ids[0], 1, f"{first.source_url}photo-1.jpg"),
                      (ids[1], 0, f"{second.source_url}photo-0.jpg")]
    assert _rows(engine, "SELECT show_id, position FROM runway_missing_images") == [
        (second.id, 1)]
    log = _rows(engine, "SELECT source_url, outcome, draft_id, images_stored, images_missing"
                        " FROM ingest_log ORDER BY id")
    assert log == [(first.source_url, "created", ids[0], 2, 0),
                   (second.source_url, "created", ids[1], 1, 1),
                   (first.source_url, "skipped_conflict", None, 0, 0)]


def test_a_burst_of_drafts_goes_in_few_transactions_each_answered_with_its_id(
        engine: Engine) -> None:
    shows = _shows(engine, 20)
    batches: list[int] = []

    async def write(drafts: list[DraftWrite]) -> list[int | None]:
        batches.append(len(drafts))
        return await asyncio.to_thread(write_drafts, engine, RUNWAY, drafts)

    async def burst() -> list[int | None]:
        commits = DraftCommits(write, most=8)
        try:
            return list(await asyncio.gather(*(commits.write(_draft(s, 1)) for s in shows)))
        finally:
            await commits.close()

    ids = asyncio.run(burst())
    assert batches == [8, 8, 4]  # all twenty were waiting when the first write began
    drafted = dict(_rows(engine, "SELECT source_url, id FROM brand_runway_drafts"))
    assert ids == [drafted[s.source_url] for s in shows]


def test_an_outage_fails_every_draft_waiting_and_writes_none(engine: Engine) -> None:
    shows = _shows(engine, 5)
    calls: list[int] = []

    async def down(drafts: list[DraftWrite]) -> list[int | None]:
        calls.append(len(drafts))
        raise InfrastructureError("the catalog database (draft write) kept failing")

    async def burst() -> list[int | BaseException | None]:
        commits = DraftCommits(down, most=2)
        try:
            return list(await asyncio.gather(*(commits.write(_draft(s, 1)) for s in shows),
                                             return_exceptions=True))
        finally:
            await commits.close()

    outcomes = asyncio.run(burst())
    assert calls == [2]  # the first batch failed: the others were not tried
    assert all(isinstance(o, InfrastructureError) for o in outcomes)
    assert _rows(engine, "SELECT count(*) FROM brand_runway_drafts") == [(0,)]


@pytest.mark.parametrize("most", [1, 3])
def test_a_lone_draft_is_written_at_once(engine: Engine, most: int) -> None:
    [show] = _shows(engine, 1)

    async def one() -> int | None:
        commits = DraftCommits(
            lambda drafts: asyncio.to_thread(write_drafts, engine, RUNWAY, drafts), most=most)
        try:
            return await commits.write(_draft(show, 2))
        finally:
            await commits.close()

    assert asyncio.run(one()) == _rows(engine, "SELECT id FROM brand_runway_drafts")[0][0]
