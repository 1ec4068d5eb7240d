"""The caps and clean-ups every site adapter applies to what it reads off a page.

Vogue and theImpression read different markup, but the text, slugs and pixel sizes they take
from it land in the same catalog columns and log lines. Writing these rules once keeps the
adapters from drifting apart: a value one adapter would store, the other stores the same way.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from fashion_assets.domain.numbers import whole_number
from fashion_assets.sources.errors import PageParseError

# Real pages weigh a few MB at most; anything this large is not a page we know how to read.
MAX_HTML_CHARS = 20 * 1024 * 1024
# Free text is stored and shown, never parsed further: cap it so an absurd value stays cheap.
MAX_TEXT_CHARS = 500
# Anything quoted in an error or a note is cut so that logs never carry a page-sized dump.
MAX_QUOTE_CHARS = 200
# Real URLs are ~150 chars; a URL this long is garbage, not a page or an image to fetch.
MAX_URL_CHARS = 2048
# No photo is this wide; larger (or non-positive) dimensions are noise and read as unknown.
MAX_DIMENSION = 100_000

# A site slug as it may go into a URL path.
SLUG_RE = re.compile(r"[a-z0-9-]{1,120}")
# Bounded so a digit string of absurd length never reaches int().
# Control characters and lone surrogates (what a JSON "\u0000" or "\ud800" escape decodes
# to): no display text or URL needs them, PostgreSQL cannot store NUL and no database driver
# can encode a lone surrogate, so one of them in a title would fail the whole write.
UNSTORABLE_RE = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")


def check_page_size(html: str) -> None:
    """Refuse a page too large to be one the adapters know, before any parser sees it."""
    if len(html) > MAX_HTML_CHARS:
        raise PageParseError(
            "bad_value", f"page has {len(html)} characters, more than the {MAX_HTML_CHARS} allowed"
        )


def clean_text(
    value: Any, limit: int | None = MAX_TEXT_CHARS, *, trim_cut: bool = True
) -> str | None:
    """Display text in one canonical form: NFC, single spaces, capped; None if there is none.

    NFC makes composed and decomposed accents compare equal to the names in the corpus.
    Control characters and lone surrogates become spaces: they are unstorable, not text.
    ``trim_cut`` drops the space the cap can leave at the end; Vogue's text has always kept
    it, so its adapter passes False and its parse results stay what they were.
    """
    if not isinstance(value, str):
        return None
    text = " ".join(UNSTORABLE_RE.sub(" ", unicodedata.normalize("NFC", value)).split())
    text = text[:limit]
    return (text.rstrip() if trim_cut else text) or None


def dimension(value: Any) -> int | None:
    """A pixel size from an int or a digit string; nonsense reads as unknown, not as an error."""
    if isinstance(value, bool):
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, str):
        value = whole_number(value.strip(), high=MAX_DIMENSION)
    if isinstance(value, int) and 0 < value <= MAX_DIMENSION:
        return value
    return None


def quote(value: Any) -> str:
    """``repr`` of a value for an error or a note, cut to ``MAX_QUOTE_CHARS``."""
    text = repr(value)
    return text if len(text) <= MAX_QUOTE_CHARS else text[: MAX_QUOTE_CHARS - 3] + "..."
