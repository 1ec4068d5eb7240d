"""The look merge: one look from two sources is one photo of the entry, with alternates."""

import pytest

from fashion_assets.domain.looks import (
    LookPhoto,
    LookRules,
    PairDecision,
    merge_looks,
    pair_key,
)
from fashion_assets.domain.perceptual_hash import PerceptualHash

RULES = LookRules(same_within=10, uncertain_within=24)


def hashed(bits: int) -> PerceptualHash:
    """A hash whose pHash has ``bits`` low bits set: n bits from ``hashed(0)``."""
    return PerceptualHash(f"{(1 << bits) - 1:016x}", "0" * 16)


def far(seed: int) -> PerceptualHash:
    """A hash about 32 bits from every other ``far`` hash and from ``hashed(n)``."""
    return PerceptualHash(f"{(0x5A5A5A5A5A5A5A5A * (seed + 3)) % (1 << 64):016x}",
                          f"{(0x3C3C3C3C3C3C3C3C * (seed + 5)) % (1 << 64):016x}")


def photo(key: str, source: str, hashes: PerceptualHash | None, size: int = 100
          ) -> LookPhoto:
    return LookPhoto(key, source, size, size, hashes)


def test_a_look_from_two_sources_is_kept_once_with_the_other_as_its_alternate() -> None:
    merge = merge_looks([photo("v1", "vogue", hashed(0), 1000), photo("v2", "vogue", far(1)),
                         photo("i1", "theimpression", hashed(3), 800)], RULES)
    assert merge.kept == ("v1", "v2")
    [alternate] = merge.alternates
    assert (alternate.kept_key, alternate.object_key, alternate.source, alternate.distance) \
        == ("v1", "i1", "theimpression", 3)
    assert merge.uncertain == ()


def test_the_higher_resolution_is_kept_at_the_place_of_the_looks_first_photo() -> None:
    merge = merge_looks([photo("v1", "vogue", far(1)), photo("v2", "vogue", hashed(0), 600),
                         photo("i1", "theimpression", hashed(2), 1200)], RULES)
    assert merge.kept == ("v1", "i1")
    assert [(a.kept_key, a.object_key) for a in merge.alternates] == [("i1", "v2")]


def test_on_equal_resolution_the_leading_source_is_kept() -> None:
    merge = merge_looks([photo("v1", "vogue", hashed(0)),
                         photo("i1", "theimpression", hashed(1))], RULES)
    assert merge.kept == ("v1",)


def test_photos_of_one_source_are_never_merged_however_alike() -> None:
    merge = merge_looks([photo("v1", "vogue", hashed(0)), photo("v2", "vogue", hashed(1))],
                        RULES)
    assert merge.kept == ("v1", "v2") and merge.alternates == () and merge.uncertain == ()


def test_each_photo_is_one_look_with_the_closest_photo_of_another_source() -> None:
    merge = merge_looks([photo("v1", "vogue", hashed(6)), photo("v2", "vogue", hashed(0)),
                         photo("i1", "theimpression", hashed(1))], RULES)
    assert merge.kept == ("v1", "v2")
    assert [(a.kept_key, a.object_key, a.distance) for a in merge.alternates] \
        == [("v2", "i1", 1)]


def test_between_the_thresholds_a_pair_is_left_for_an_editor() -> None:
    merge = merge_looks([photo("v1", "vogue", hashed(0)),
                         photo("i1", "theimpression", hashed(17))], RULES)
    assert merge.kept == ("v1", "i1") and merge.alternates == ()
    assert [(p.first_key, p.second_key, p.distance) for p in merge.uncertain] \
        == [("v1", "i1", 17)]


def test_beyond_the_uncertain_threshold_photos_are_different_looks() -> None:
    merge = merge_looks([photo("v1", "vogue", hashed(0)),
                         photo("i1", "theimpression", hashed(25))], RULES)
    assert merge.kept == ("v1", "i1") and merge.uncertain == ()


def test_an_editors_split_keeps_a_close_pair_apart() -> None:
    photos = [photo("v1", "vogue", hashed(0)), photo("i1", "theimpression", hashed(1))]
    split = {pair_key("i1", "v1"): PairDecision.DIFFERENT}
    merge = merge_looks(photos, RULES, split)
    assert merge.kept == ("v1", "i1") and merge.alternates == () and merge.uncertain == ()


def test_an_editors_same_merges_an_uncertain_or_unhashed_pair() -> None:
    for other in (hashed(17), None):
        photos = [photo("v1", "vogue", hashed(0)), photo("i1", "theimpression", other)]
        merge = merge_looks(photos, RULES, {pair_key("v1", "i1"): PairDecision.SAME})
        assert merge.kept == ("v1",)
        assert [(a.object_key, a.distance) for a in merge.alternates] \
            == [("i1", 17 if other else None)]


def test_an_unhashed_photo_is_never_merged_by_distance() -> None:
    merge = merge_looks([photo("v1", "vogue", hashed(0)),
                         photo("i1", "theimpression", None)], RULES)
    assert merge.kept == ("v1", "i1") and merge.uncertain == ()


def test_a_look_holds_one_photo_of_each_source_across_three_sources() -> None:
    merge = merge_looks([photo("v1", "vogue", hashed(0), 500),
                         photo("i1", "theimpression", hashed(1), 900),
                         photo("i2", "theimpression", hashed(2)),
                         photo("x1", "third", hashed(0))], RULES)
    assert merge.kept == ("i1", "i2")
    assert sorted((a.kept_key, a.object_key) for a in merge.alternates) \
        == [("i1", "v1"), ("i1", "x1")]


def test_pairs_are_named_in_one_order() -> None:
    assert pair_key("b", "a") == pair_key("a", "b") == ("a", "b")


def test_thresholds_must_be_ordered() -> None:
    with pytest.raises(ValueError):
        LookRules(same_within=12, uncertain_within=4)


def test_a_pair_at_the_same_threshold_is_one_look_and_one_bit_beyond_is_uncertain() -> None:
    at = merge_looks([photo("v1", "vogue", hashed(0)),
                      photo("i1", "theimpression", hashed(RULES.same_within))], RULES)
    beyond = merge_looks([photo("v1", "vogue", hashed(0)),
                          photo("i1", "theimpression", hashed(RULES.same_within + 1))], RULES)
    assert at.kept == ("v1",) and beyond.kept == ("v1", "i1")
    assert [p.distance for p in beyond.uncertain] == [RULES.same_within + 1]


def test_no_pair_of_one_source_is_left_for_an_editor() -> None:
    merge = merge_looks([photo("v1", "vogue", hashed(0)), photo("v2", "vogue", hashed(17))],
                        RULES)
    assert merge.uncertain == ()


def test_a_photo_merged_into_a_look_is_not_offered_again_as_uncertain() -> None:
    merge = merge_looks([photo("v1", "vogue", hashed(0)), photo("v2", "vogue", hashed(17)),
                         photo("i1", "theimpression", hashed(1))], RULES)
    assert merge.kept == ("v1", "v2")
    assert merge.uncertain == ()
