"""Hostile input end to end: every case of the replica's hostile table, crawled through Dagster.

The ``hostile-house`` brand of a replica of its own is crawled twice through the runway job,
on SQLite and on PostgreSQL, into a file store. The crawls are run once per database (a
module-scoped fixture) and every case of ``fashion_assets.replica.hostile.HOSTILE_CASES`` is
then a test of its own that checks the outcome the table promises against what the catalog,
the store and the Dagster event log recorded. The global tests check the promises that hold
for the whole brand: the runs succeed and finish, nothing is written outside the store, every
object is a photo under the sha1 of its bytes, the store holds exactly the photos that should
be stored, and a second crawl changes no object and no draft. What the crawls leave behind
is read by tests/hostile_crawl.py; the table itself, and where each case sits in the
replica, are test_hostile_table.py.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from fashion_assets.domain.media import inspect_image
from fashion_assets.domain.titles import parse_season_slug
from fashion_assets.replica import (
    ReplicaServer,
    ReplicaShow,
    build_site,
    photo_body,
    start_replica,
)
from fashion_assets.replica.hostile import HOSTILE_CASES, HostileCase
from fashion_assets.replica.site import JUNK_ENTRIES
from fashion_assets.replica.vogue_frame import image_url
from fashion_assets.replica.vogue_show import JUNK_ITEMS
from tests.catalog_db import fresh_postgres_database
from tests.conftest import PG_ENV
from tests.hostile_crawl import Crawl, crawl_twice
from tests.integration.test_hostile_table import (
    case_photo,
    case_show,
    expected_keys,
    refused_bodies,
    sha1,
)

# A hang anywhere (a body that never ends, a redirect that never stops) fails the test here.
pytestmark = pytest.mark.timeout(120)

PUBLIC = "https://www.vogue.com"
# Every table of the catalog but the log, which a second crawl appends to.
# What no text recorded from a page may hold: control characters and lone surrogates.
UNSTORABLE = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")


# -- the crawl, once per database --------------------------------------------------------------


@pytest.fixture(scope="module")
def hostile_replica() -> Iterator[ReplicaServer]:
    """A replica of its own, so its request counters hold this module's crawls only."""
    with start_replica(build_site(brands=0, photos_per_show=3)) as server:
        yield server


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def crawl(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
          hostile_replica: ReplicaServer) -> Iterator[Crawl]:
    """The brand crawled twice on one database; module-scoped, so every case reads one crawl."""
    home = tmp_path_factory.mktemp(f"hostile-{request.param}")
    if request.param == "sqlite":
        yield crawl_twice(home, f"sqlite:///{home / 'catalog.db'}", hostile_replica)
        return
    with fresh_postgres_database(os.environ[PG_ENV]) as url:
        yield crawl_twice(home, url, hostile_replica)


# -- one check per kind of recorded outcome ------------------------------------------------------


def check_missing(crawl: Crawl, case: HostileCase) -> None:
    show, position, photo = case_photo(crawl.brand, case.name)
    url = PUBLIC + show.path
    assert url in crawl.drafts, "the show of a refused photo is drafted with the rest"
    assert crawl.missing.get((url, position)) == case.expected_outcome.reason
    assert (url, position) not in crawl.images
    assert not {sha1(body) for body in refused_bodies(photo)} & set(crawl.objects)


def check_stored(crawl: Crawl, case: HostileCase) -> None:
    show, position, photo = case_photo(crawl.brand, case.name)
    url = PUBLIC + show.path
    key, content_type, _ = crawl.images[(url, position)]
    assert (key, content_type) == (sha1(photo_body(photo)), case.expected_outcome.reason)
    assert key in crawl.objects
    assert (url, position) not in crawl.missing


def check_not_fetched(crawl: Crawl, case: HostileCase) -> None:
    show, position, photo = case_photo(crawl.brand, case.name)
    url = PUBLIC + show.path
    assert (url, position) not in crawl.images and (url, position) not in crawl.missing
    [(outcome, note)] = crawl.log_of(url, "manifest", crawl.first["run_id"])
    assert outcome == "fetched"
    assert f"Collection item {position}: {case.expected_outcome.reason}" in note.split("; ")
    assert not any(photo.photo_id in path for path in crawl.requested)


def check_manifest_failed(crawl: Crawl, case: HostileCase) -> None:
    url = PUBLIC + case_show(crawl.brand, case.name).path
    reason = case.expected_outcome.reason
    manifests = crawl.log_of(url, "manifest")
    assert len(manifests) == 2, "each crawl tries the page again, and records it again"
    assert all(outcome == "failed" and note.startswith(f"{reason}: ")
               for outcome, note in manifests), manifests
    # The drafts step says why there is no manifest: the page's own failure, whole.
    assert crawl.log_of(url, "ingest") == [("failed", f"no manifest: {note}")
                                           for _, note in manifests]
    assert url not in crawl.manifests and url not in crawl.drafts


# Drafted shows the coverage rule finds incomplete: a video-only show stores no photo (an
# unknown count asks for 10), and junk items count in the page's total but are no photo.
INCOMPLETE_BY_RULE = frozenset({"video_only", "junk_items"})


def check_drafted(crawl: Crawl, case: HostileCase) -> None:
    show = case_show(crawl.brand, case.name)
    url = PUBLIC + show.path
    assert url in crawl.drafts
    drafted = sorted((position, key) for (image_url, position), (key, _, _) in crawl.images.items()
                     if image_url == url)
    first = 1 + (len(JUNK_ITEMS) if case.name == "junk_items" else 0)
    assert drafted == [(position, sha1(photo_body(photo)))
                       for position, photo in enumerate(show.photos, start=first)]
    assert not any(missing_url == url for missing_url, _ in crawl.missing)
    assert crawl.log_of(url, "ingest", crawl.first["run_id"]) == [("created", "")]
    if case.name in INCOMPLETE_BY_RULE:
        # Incomplete by the coverage rule, so fetched again and repaired, with nothing to add.
        assert crawl.log_of(url, "ingest", crawl.second["run_id"]) == [("unrepaired", "")]
        return
    assert crawl.log_of(url, "ingest", crawl.second["run_id"]) == [
        ("skipped_already_ingested", "a draft with this source key exists")]


def check_entry_skipped(crawl: Crawl, case: HostileCase) -> None:
    assert [note for note in crawl.skip_notes if case.expected_outcome.reason in note], (
        crawl.skip_notes)


CHECKS: dict[str, Callable[[Crawl, HostileCase], None]] = {
    "missing": check_missing,
    "stored": check_stored,
    "not fetched": check_not_fetched,
    "manifest failed": check_manifest_failed,
    "drafted": check_drafted,
    "entry skipped": check_entry_skipped,
}


# -- what a drafted case's note states -----------------------------------------------------------


def draft_of(crawl: Crawl, name: str) -> tuple[ReplicaShow, str, tuple[str, str, int, str, int]]:
    show = case_show(crawl.brand, name)
    url = PUBLIC + show.path
    return show, url, crawl.drafts[url]


def note_long_title(crawl: Crawl) -> None:
    show, url, (title, *_) = draft_of(crawl, "long_title")
    assert title == " ".join(show.title.split())[:500] and len(title) == 500
    assert len(crawl.manifests[url][0]) == 500


def note_video_only(crawl: Crawl) -> None:
    show, url, draft = draft_of(crawl, "video_only")
    assert not show.photos and draft[-1] == 0 and crawl.manifests[url][1] == 0


def note_cp1252_page(crawl: Crawl) -> None:
    show, url, (title, *_) = draft_of(crawl, "cp1252_page")
    page_title = crawl.manifests[url][0]
    assert "\ufffd" in page_title
    assert page_title == show.title.encode("cp1252").decode("utf-8", "replace")
    assert title == show.title  # the listing was UTF-8: the draft keeps the real title


def note_control_text(crawl: Crawl) -> None:
    show, url, _ = draft_of(crawl, "control_text")
    page_title = crawl.manifests[url][0]
    assert page_title.startswith(show.title) and not UNSTORABLE.search(page_title)
    assert crawl.captions[url] == [f"Look {n}" for n in range(1, len(show.photos) + 1)]


def note_absurd_sizes(crawl: Crawl) -> None:
    show, url, _ = draft_of(crawl, "absurd_sizes")
    cdn = crawl.replica.cdn_url
    assert [crawl.images[(url, n)][2] for n in range(1, len(show.photos) + 1)] == [
        image_url(cdn, photo, photo.widths[-1]) for photo in show.photos]


def note_negative_counts(crawl: Crawl) -> None:
    show, url, draft = draft_of(crawl, "negative_counts")
    assert draft[-1] == crawl.manifests[url][1] == len(show.photos)


def note_junk_items(crawl: Crawl) -> None:
    show, url, draft = draft_of(crawl, "junk_items")
    assert draft[-1] == len(show.photos) + len(JUNK_ITEMS)
    [(_, note)] = crawl.log_of(url, "manifest", crawl.first["run_id"])
    assert note.split("; ") == [f"Collection item {n}: no usable image url"
                                for n in range(1, len(JUNK_ITEMS) + 1)]


def note_duplicate_collection(crawl: Crawl) -> None:
    _, url, _ = draft_of(crawl, "duplicate_collection")
    assert crawl.log_of(url, "manifest") == [("fetched", "ignored extra Collection gallery 2")]


def note_entry_missing_hed(crawl: Crawl) -> None:
    show, _, (title, season, year, collection_type, _) = draft_of(crawl, "entry_missing_hed")
    code = parse_season_slug(show.season_slug)
    assert (title, season, year, collection_type) == ("", code.season, code.year,
                                                      code.collection_type)


def note_entry_duplicate(crawl: Crawl) -> None:
    show, url, (title, *_) = draft_of(crawl, "entry_duplicate")
    assert title == crawl.shows[url] == show.title
    assert [u for u in crawl.shows if show.path in u] == [url]


def note_entry_offsite_url(crawl: Crawl) -> None:
    show, url, _ = draft_of(crawl, "entry_offsite_url")
    assert show.path in crawl.requested and url in crawl.shows
    assert not [u for u in crawl.shows if "evil.example" in u]


def note_entry_hed_control_chars(crawl: Crawl) -> None:
    show, url, (title, *_) = draft_of(crawl, "entry_hed_control_chars")
    assert title.startswith(show.title) and not UNSTORABLE.search(title)
    assert crawl.shows[url] == title


NOTE_CHECKS: dict[str, Callable[[Crawl], None]] = {
    "long_title": note_long_title,
    "video_only": note_video_only,
    "cp1252_page": note_cp1252_page,
    "control_text": note_control_text,
    "absurd_sizes": note_absurd_sizes,
    "negative_counts": note_negative_counts,
    "junk_items": note_junk_items,
    "duplicate_collection": note_duplicate_collection,
    "entry_missing_hed": note_entry_missing_hed,
    "entry_duplicate": note_entry_duplicate,
    "entry_offsite_url": note_entry_offsite_url,
    "entry_hed_control_chars": note_entry_hed_control_chars,
}


# -- the cases -----------------------------------------------------------------------------------


@pytest.mark.parametrize("case", HOSTILE_CASES, ids=[case.name for case in HOSTILE_CASES])
def test_the_recorded_outcome_is_the_expected_one(crawl: Crawl, case: HostileCase) -> None:
    CHECKS[case.expected_outcome.record](crawl, case)
    if case.name in NOTE_CHECKS:
        NOTE_CHECKS[case.name](crawl)


# -- the whole brand -----------------------------------------------------------------------------


def test_both_crawls_succeed(crawl: Crawl) -> None:
    assert crawl.first["success"], crawl.first
    assert crawl.second["success"], crawl.second


def test_the_listing_records_every_show_once_and_skips_the_junk(crawl: Crawl) -> None:
    assert set(crawl.shows) == {PUBLIC + show.path for show in crawl.brand.shows}
    assert len(crawl.skip_notes) == crawl.skipped_entries == len(JUNK_ENTRIES)


def test_nothing_is_written_outside_the_store(crawl: Crawl) -> None:
    allowed = (crawl.objects_dir, crawl.home / "dagster")
    stray = [path for path in crawl.home.rglob("*") if path.is_file()
             and not path.name.startswith("catalog.db")
             and not any(path.is_relative_to(folder) for folder in allowed)]
    assert not stray


def test_every_object_is_a_photo_stored_under_the_sha1_of_its_bytes(crawl: Crawl) -> None:
    assert crawl.objects
    for path in crawl.objects_dir.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            key = sha1(data)
            assert path.relative_to(crawl.objects_dir).as_posix() == f"{key[:2]}/{key}"
            assert inspect_image(data).ok, path


def test_the_store_holds_exactly_the_photos_to_store(crawl: Crawl) -> None:
    assert set(crawl.objects) == expected_keys(crawl.brand)
    assert set(crawl.objects) == {key for key, _, _ in crawl.images.values()}


def without_fetch_times(tables: dict[str, list[tuple[Any, ...]]]
                        ) -> dict[str, list[tuple[Any, ...]]]:
    """The tables but for when a page was last fetched and a missing photo last tried: a
    second crawl fetches incomplete shows again, and records that it did."""
    volatile = {"runway_show_manifests": 3, "runway_missing_images": 5}
    return {table: sorted(([*row[:volatile[table]], *row[volatile[table] + 1:]]
                           for row in rows), key=repr) if table in volatile else rows
            for table, rows in tables.items()}


def test_a_second_crawl_changes_no_object_and_no_draft(crawl: Crawl) -> None:
    assert crawl.objects_again == crawl.objects
    assert without_fetch_times(crawl.tables_again) == without_fetch_times(crawl.tables)
    assert crawl.second["shows"]["created"] == 0
    assert crawl.second["images_stored"] == 0


def test_every_note_of_the_table_is_checked() -> None:
    noted = {case.name for case in HOSTILE_CASES if case.expected_outcome.note}
    assert noted == set(NOTE_CHECKS)
