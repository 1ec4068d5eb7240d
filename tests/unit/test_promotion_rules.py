"""The promotion merge, as a pure rule: union by object key, stable order, who contributes."""

from __future__ import annotations

import pytest

from fashion_assets.domain.promotion import (
    DraftForPromotion,
    DraftPhoto,
    EntryPhoto,
    lead_draft,
    merge_photos,
    source_rank,
)


def draft(draft_id: int, source: str, keys: str, status: str = "approved",
          deleted: bool = False) -> DraftForPromotion:
    return DraftForPromotion(draft_id, source, status, deleted,
                             tuple(DraftPhoto(n, k) for n, k in enumerate(keys, start=1)))


def keys(photos: list[EntryPhoto]) -> str:
    return "".join(p.object_key for p in photos)


def test_vogue_leads_then_theimpression_adds_what_vogue_lacks() -> None:
    merged = merge_photos([draft(9, "theimpression", "cxd"), draft(4, "vogue", "abc")])

    assert keys(merged) == "abcxd"
    assert [p.position for p in merged] == [1, 2, 3, 4, 5]
    assert merged[3] == EntryPhoto(4, "x", 9, 2)


@pytest.mark.parametrize(("status", "deleted", "contributes"), [
    ("approved", False, True), ("promoted", False, True), ("pending", False, False),
    ("rejected", False, False), ("approved", True, False), ("promoted", True, False),
])
def test_only_approved_or_promoted_drafts_that_are_not_deleted_contribute(
        status: str, deleted: bool, contributes: bool) -> None:
    merged = merge_photos([draft(1, "vogue", "ab"), draft(2, "theimpression", "cd", status,
                                                           deleted)])

    assert keys(merged) == ("abcd" if contributes else "ab")


def test_two_drafts_of_one_source_go_in_draft_order_and_positions_not_list_order() -> None:
    shuffled = DraftForPromotion(3, "vogue", "approved", False,
                                 (DraftPhoto(2, "q"), DraftPhoto(1, "p")))

    assert keys(merge_photos([shuffled, draft(2, "vogue", "pz")])) == "pzq"


def test_an_unknown_source_comes_after_the_known_ones() -> None:
    assert source_rank("vogue") < source_rank("theimpression") < source_rank("elsewhere")
    assert keys(merge_photos([draft(1, "elsewhere", "e"), draft(2, "theimpression", "t")])) == "te"


def test_merging_the_merge_again_changes_nothing() -> None:
    drafts = [draft(1, "theimpression", "bcd"), draft(2, "vogue", "ab", status="promoted")]

    assert merge_photos(drafts) == merge_photos(list(reversed(drafts)))


def test_the_lead_draft_gives_the_entry_its_text() -> None:
    drafts = [draft(5, "theimpression", "a"), draft(7, "vogue", "b", status="rejected"),
              draft(8, "vogue", "c")]

    assert lead_draft(drafts) == drafts[2]
    assert lead_draft([draft(1, "vogue", "a", status="pending")]) is None
