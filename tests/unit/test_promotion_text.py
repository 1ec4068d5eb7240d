"""What the command line says about promotion (``domain/promotion_text.py``) and the demo's
closing list: a hint only while approved drafts wait, a run's figures in one line, and the
demo naming the commands that take approved drafts into the catalog."""

from __future__ import annotations

import pytest

from fashion_assets.demo import next_steps
from fashion_assets.domain.promotion_text import (
    empty_catalog,
    failed_line,
    promoted_counts,
    promoted_line,
    waiting_hint,
)

WAYS = ("for promotion into the catalog: .venv/bin/fashion-assets review promote promotes "
        "them now, or the approved_drafts_sensor within a minute while Dagster's daemon runs "
        "(.venv/bin/fashion-assets ui)")


@pytest.mark.parametrize(("waiting", "line"), [
    (0, ""),
    (1, f"1 approved draft waits {WAYS}"),
    (8, f"8 approved drafts wait {WAYS}"),
])
def test_the_hint_names_both_ways_and_only_while_drafts_wait(waiting: int, line: str) -> None:
    assert waiting_hint(waiting, ".venv/bin/fashion-assets") == line


def test_a_runs_figures_are_one_line_a_part_per_kind() -> None:
    metadata = {"runway_drafts_promoted": 8, "runway_entries_created": 7,
                "runway_entries_updated": 1, "runway_photos_added": 96,
                "runway_alternates": 0, "runway_uncertain_pairs": 0,
                "street_drafts_promoted": 0, "runway_preview": [{"title": "a show"}]}

    counts = promoted_counts(metadata, ["runway", "street"])

    assert counts["street"] == dict.fromkeys(counts["street"], 0)
    assert promoted_line(counts) == ("runway: 8 drafts promoted into 7 new and 1 updated "
                                     "entries, 96 photos added; street: nothing approved")


def test_alternates_and_pairs_left_for_an_editor_are_said_only_when_there_are_some() -> None:
    counts = promoted_counts({"street_drafts_promoted": 2, "street_entries_updated": 1,
                              "street_photos_added": 5, "street_alternates": 3,
                              "street_uncertain_pairs": 2}, ["street"])

    assert promoted_line(counts) == (
        "street: 2 drafts promoted into 0 new and 1 updated entry, 5 photos added, 3 "
        "photos kept as another source's alternate of a look, 2 pairs of photos left for an "
        "editor")


def test_one_of_a_kind_is_said_in_the_singular() -> None:
    counts = promoted_counts({"runway_drafts_promoted": 1, "runway_entries_created": 1,
                              "runway_photos_added": 1, "runway_alternates": 1}, ["runway"])

    assert promoted_line(counts) == (
        "runway: 1 draft promoted into 1 new and 0 updated entry, 1 photo added, 1 photo kept "
        "as another source's alternate of a look")


def test_an_empty_catalog_is_said_with_how_to_promote() -> None:
    assert empty_catalog("fashion-assets") == (
        "no match: the catalog has no promoted look yet; approved drafts become looks once "
        "promoted (fashion-assets review promote)")


def test_a_failure_is_one_line_however_many_lines_dagster_gave() -> None:
    assert failed_line("1 blocking asset check failed with ERROR severity:\n"
                       "approved_drafts: draft_photos_stored\n") == (
        "review promote: FAILED - 1 blocking asset check failed with ERROR severity: "
        "approved_drafts: draft_photos_stored")


def test_the_demo_says_to_approve_then_promote_then_find_a_look() -> None:
    text = next_steps("chloe", program="fa", dagster="dagster")
    commands = [line.split("  ")[1] for line in text.splitlines()[1:]
                if line.startswith("  fa ")]

    assert commands.index("fa review approve 1 2") + 1 == commands.index("fa review promote")
    assert "fa looks find photo.jpg" in commands
