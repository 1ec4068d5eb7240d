"""The replica's hostile table itself: it covers every item of the issue's list with named
cases, each case is wired into the replica exactly once, and docs/reliability.md holds the
table as generated. Where each case sits in the replica (its show, its photo) is found here
too, for test_hostile_input.py, which checks the crawl's outcome of each case.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from fashion_assets.replica import (
    HOSTILE_BRAND,
    ReplicaBrand,
    ReplicaPhoto,
    ReplicaShow,
    build_site,
    photo_body,
)
from fashion_assets.replica.hostile import HOSTILE_CASES, hostile_cases_markdown

REPO = Path(__file__).resolve().parents[2]


# -- where each case sits in the replica ---------------------------------------------------------


def sha1(data: bytes) -> str:
    return hashlib.sha1(data).hexdigest()


def case_photo(brand: ReplicaBrand, name: str) -> tuple[ReplicaShow, int, ReplicaPhoto]:
    """The show and Collection position of a photo case's photo."""
    [found] = [(show, position, photo) for show in brand.shows
               for position, photo in enumerate(show.photos, start=1) if photo.fault == name]
    return found


def case_show(brand: ReplicaBrand, name: str) -> ReplicaShow:
    """The show of a show-page or designer-page case."""
    [show] = [show for show in brand.shows if name in (show.page_fault, show.listing_fault)]
    return show


def refused_bodies(photo: ReplicaPhoto) -> list[bytes]:
    """What a refused photo's response could carry, whole or cut: none of it may be stored."""
    try:
        body = photo_body(photo)
    except ValueError:  # nothing to serve: a redirect, a 404 or a streamed body
        return []
    return [body, body[: len(body) // 2]] if body else []


def expected_keys(brand: ReplicaBrand) -> set[str]:
    """The photos that must be in the store: the looks of every drafted show, with the photo
    cases that expect to be stored, and nothing else."""
    drafted = {case.name for case in HOSTILE_CASES if case.expected_outcome.record == "drafted"}
    stored = {case.name for case in HOSTILE_CASES if case.expected_outcome.record == "stored"}
    keys = set()
    for show in brand.shows:
        if show.page_fault is None or show.page_fault in drafted:
            keys |= {sha1(photo_body(p)) for p in show.photos if p.fault in (None, *stored)}
    return keys


# -- the table and its docs ----------------------------------------------------------------------

# Each item of the issue's list of hostile input, and the cases that stand for it.
ISSUE_ITEMS = {
    "malformed page state": ("state_not_object", "deep_nesting", "raw_control_chars",
                             "galleries_not_list", "transformed_not_object", "json_page"),
    "truncated page state": ("truncated_state",),
    "missing keys": ("no_state", "no_galleries", "entry_missing_hed"),
    "negative counts": ("negative_counts", "absurd_sizes"),
    "titles of 100 KB": ("long_title",),
    "control characters": ("control_text", "entry_hed_control_chars", "path_raw_control"),
    "HTML or zero bytes as an image": ("html", "utf16_html", "svg_body", "empty"),
    "a decompression bomb": ("bomb", "jpeg_bomb", "gif_bomb", "webp_bomb"),
    "a 200 MB body": ("huge", "huge_chunked", "huge_page"),
    "redirect to a host that is not allowed": ("redirect_not_allowed", "page_redirect_offsite"),
    "redirect to private or metadata addresses": ("redirect_offsite", "redirect_private",
                                                  "redirect_metadata_ipv6",
                                                  "redirect_decimal_loopback"),
    "path tricks in file names": ("path_dotdot", "path_encoded_dotdot", "path_backslash",
                                  "path_absolute", "path_nul", "path_long_name"),
    "non-UTF-8 pages": ("cp1252_page",),
}


def test_the_table_covers_every_item_of_the_issue_with_30_named_cases() -> None:
    names = [case.name for case in HOSTILE_CASES]
    assert len(names) >= 30 and len(set(names)) == len(names)
    assert {case.level for case in HOSTILE_CASES} == {"photo", "show page", "designer page"}
    for item, cases in ISSUE_ITEMS.items():
        assert set(cases) <= set(names), item


def test_every_case_is_wired_into_the_replica_exactly_once() -> None:
    brand = build_site(brands=0).brand(HOSTILE_BRAND)
    assert brand is not None
    for case in HOSTILE_CASES:
        if case.level == "photo":
            case_photo(brand, case.name)
        elif case.expected_outcome.record == "entry skipped":
            assert brand.junk_entries.count(case.name) == 1, case.name
        else:
            case_show(brand, case.name)


def test_the_docs_hold_the_generated_table() -> None:
    docs = (REPO / "docs" / "reliability.md").read_text(encoding="utf-8")
    section = docs.partition("\n## Hostile input\n")[2].partition("\n## ")[0]
    assert hostile_cases_markdown() in section
