"""The rule for text a request may carry (``domain/text.py: refused_character``) and for a
reason the catalog keeps (``domain/review.py: kept_reason``), against generated text."""

from __future__ import annotations

import unicodedata

from hypothesis import example, given
from hypothesis import strategies as st

from fashion_assets.domain.review import MAX_REASON_CHARS, kept_reason
from fashion_assets.domain.text import refused_character

CONTROLS = st.characters(categories=["Cc"])
TEXTS = st.one_of(st.text(), st.lists(st.one_of(st.characters(), CONTROLS)).map("".join))


@given(TEXTS)
@example("brand\x00")
@example("\x1b[2J")
@example("line\nbreak\ttab\r")
def test_the_refused_character_is_the_first_control_but_tab_and_line_breaks(text: str) -> None:
    controls = [c for c in text if unicodedata.category(c) == "Cc" and c not in "\t\n\r"]
    assert refused_character(text) == (controls[0] if controls else None)


@given(TEXTS)
@example("blurry \x1b[2J\u202e photos\n")
def test_a_kept_reason_holds_no_control_format_or_line_break(text: str) -> None:
    kept = kept_reason(text)
    assert len(kept) <= MAX_REASON_CHARS
    assert all(unicodedata.category(c)[0] != "C" or c in "\u200c\u200d" for c in kept)
    assert kept == kept.strip() and "  " not in kept
