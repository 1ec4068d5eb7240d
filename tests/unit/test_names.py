"""Name resolution: normalization, aliases, and pending names."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fashion_assets.domain.names import (
    MAX_NAME_CHARS,
    Resolution,
    clean_name,
    name_slug,
    named_by,
    normalize_name,
    resolve_name,
)

DESIGNERS = Path(__file__).parents[1] / "data" / "vogue_designers.txt"

BRANDS = {
    "celine": ["Celine", "Céline"],
    "saint-laurent": ["Saint Laurent", "Yves Saint Laurent"],
    "dolce-gabbana": ["Dolce & Gabbana"],
    "agnes-b-": ["agnès b."],
}


@pytest.mark.parametrize(("left", "right"), [
    ("Céline", "CELINE"),
    ("Dolce & Gabbana", "dolce and gabbana"),
    ("Agnès b.", "agnes b"),
    ("  Comme   des Garçons ", "COMME DES GARCONS"),
    ("Viktor&Rolf", "Viktor & Rolf"),
    ("3.1 Phillip Lim", "3.1 phillip lim"),
    ("A DÉTACHER", "a detacher"),
])
def test_spellings_that_normalize_alike(left: str, right: str) -> None:
    assert normalize_name(left) == normalize_name(right)


@pytest.mark.parametrize(("left", "right"), [
    ("Saint Laurent", "Yves Saint Laurent"),
    ("Kenzo", "Kenzo Takada"),
    ("3.1 Phillip Lim", "31 Phillip Lim"),
])
def test_different_names_stay_different(left: str, right: str) -> None:
    assert normalize_name(left) != normalize_name(right)


def test_an_exact_spelling_resolves_without_a_new_alias() -> None:
    assert resolve_name("Yves Saint Laurent", BRANDS) == Resolution("saint-laurent")
    assert resolve_name("Céline", BRANDS) == Resolution("celine")


def test_a_new_spelling_resolves_through_normalization_and_is_returned_as_alias() -> None:
    assert resolve_name("CÉLINE ", BRANDS) == Resolution("celine", new_alias="CÉLINE")
    assert resolve_name("Agnes B", BRANDS) == Resolution("agnes-b-", new_alias="Agnes B")


def test_an_unknown_name_is_pending_not_invented() -> None:
    assert resolve_name("Maison Inconnue", BRANDS).pending
    assert resolve_name("...", BRANDS).pending


def test_a_name_shared_by_two_entities_is_pending_with_both_as_candidates() -> None:
    clash = {**BRANDS, "celine-2": ["CELINE"], "celine-3": ["Céline"]}

    assert resolve_name("celine", clash) == Resolution(
        None, candidates=("celine", "celine-2", "celine-3"))
    assert resolve_name("Céline", clash) == Resolution(None, candidates=("celine", "celine-3"))
    assert resolve_name("CELINE", clash) == Resolution("celine-2")


def test_control_characters_and_spacing_are_cleaned_before_matching() -> None:
    assert resolve_name(" Dolce\x00 &  Gabbana\n", BRANDS) == Resolution("dolce-gabbana")
    assert clean_name("a" * 500) == "a" * MAX_NAME_CHARS


@pytest.mark.parametrize(("name", "slug"), [
    ("São Paulo", "sao-paulo"),
    ("Maison Inconnue", "maison-inconnue"),
    ("Dolce & Gabbana", "dolce-and-gabbana"),
    ("A.P.C.", "a-p-c"),
])
def test_an_approved_name_gets_a_slug(name: str, slug: str) -> None:
    assert name_slug(name) == slug


def test_a_name_without_letters_has_no_slug() -> None:
    with pytest.raises(ValueError, match="no letters"):
        name_slug("...")


def test_every_real_designer_name_normalizes_to_something() -> None:
    names = [line.strip() for line in DESIGNERS.read_text("utf-8").splitlines() if line.strip()]

    empty = [name for name in names if not normalize_name(name)]

    assert len(names) > 1800 and not empty
    assert len({normalize_name(n) for n in names}) > 0.98 * len(set(names))



@given(st.text(max_size=30), st.sampled_from([str.upper, str.lower, str.title, str.strip]))
def test_a_pending_name_is_found_however_the_editor_cases_it(name: str, spell: object) -> None:
    """``names merge stokholm ...`` finds the pending ``Stokholm``: what a source's spelling
    would resolve to, an editor's finds; a name with nothing to match finds nothing."""
    written = spell(name)  # type: ignore[operator]
    found = named_by(written, [(7, name)])
    if normalize_name(written) and normalize_name(written) == normalize_name(name):
        assert found == [7]
    else:
        assert found == [] or normalize_name(written) == normalize_name(name)


def test_a_name_as_written_matches_in_any_case_and_accent() -> None:
    pending = [(1, "Maison Inconnue"), (2, "Lagos"), (3, "Stokholm"), (4, "lagos")]
    assert named_by("stokholm", pending) == [3]
    assert named_by("MAISON  inconnue", pending) == [1]
    assert named_by("Lagos", pending) == [2, 4]  # a brand and a city: the id decides
    assert named_by("Kyiv", pending) == [] and named_by("", pending) == []
