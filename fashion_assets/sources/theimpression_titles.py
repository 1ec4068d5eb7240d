"""Names in theImpression's headings and titles: a week's city, a gallery's designer and show.

The site writes these as free text ("Street Style: Kiev Fashion Week", "Chloé Spring 2020
Collection"), while the crawl needs a week's city and a gallery's designer and season code.
Taking the text apart involves no markup and follows the title rules of ``domain/titles.py``,
so it is kept apart from the page readers.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from fashion_assets.domain.names import normalize_name
from fashion_assets.domain.titles import (
    COLLECTION_TYPES,
    SEASONS,
    TitleParseError,
    parse_show_title,
    season_slug_for,
)
from fashion_assets.sources.errors import PageParseError
from fashion_assets.sources.fields import clean_text, quote

_DASHES = str.maketrans(dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212", "-"))
# What separates a designer from a show title, or trails a heading: "Chloé – Spring 2020".
_SEPARATORS = " -:|,\u2013\u2014"

_ARCHIVE_PREFIX_RE = re.compile(r"^(?:category|archives?|tag|topic)\s*:\s*", re.IGNORECASE)
_STREET_PREFIX_RE = re.compile(
    r"^street[\s-]*style\b\s*(?:[:|,\u2013\u2014-]\s*)?(?:(?:from|at|of|in)\s+)?", re.IGNORECASE
)
_STREET_SUFFIX_RE = re.compile(r"\s*(?:[:|,\u2013\u2014-]\s*)?\bstreet[\s-]*style$", re.IGNORECASE)
_FASHION_WEEK_RE = re.compile(r"\s*\bfashion\s+week$", re.IGNORECASE)
_COLLECTION_SUFFIX_RE = re.compile(r"[\s:|,\u2013\u2014-]*\bcollection$", re.IGNORECASE)


def _alternation(terms: Iterable[str]) -> str:
    """A case-free alternation of hyphenated terms, spelt as titles.py reads them in titles."""
    return "|".join(r"[-\s]?".join(map(re.escape, term.split("-"))) for term in terms)


# Same spellings as titles.py accepts in titles ("Pre Fall", "Prefall", "Ready to Wear").
_SEASON_WORD_RE = re.compile(rf"(?<!\w)(?:{_alternation(SEASONS)})(?!\w)", re.IGNORECASE)
_TYPE_BEFORE_RE = re.compile(rf"(?<!\w)(?:{_alternation(COLLECTION_TYPES)})\s+$", re.IGNORECASE)


def week_city_name(heading: str, week_slug: str) -> str:
    """The city of a fashion week as the listing names it: "Kiev Fashion Week" -> "Kiev".

    The name is kept as the site spells it ("São Paolo", "NYFW"): matching spellings to
    cities is the catalog's job. Without a usable heading the slug's words are used
    ("mexico-city-fashion-week" -> "Mexico City"). ``ValueError`` when neither names a city.
    """
    text = clean_text(heading) or ""
    text = _ARCHIVE_PREFIX_RE.sub("", text)
    text = _STREET_PREFIX_RE.sub("", text)
    text = _STREET_SUFFIX_RE.sub("", text).strip(_SEPARATORS)
    text = _FASHION_WEEK_RE.sub("", text).strip(_SEPARATORS)
    if text:
        return text
    words = re.findall(r"[a-z0-9]+", str(week_slug).lower())
    if words[-2:] == ["fashion", "week"] and len(words) > 2:
        words = words[:-2]
    if not words:
        raise ValueError(f"no city in heading {quote(heading)} nor slug {quote(week_slug)}")
    return " ".join(word[:1].upper() + word[1:] for word in words)


def split_runway_title(title: str, designer: str | None) -> tuple[str, str]:
    """Split a runway gallery title into (designer, show title).

    Titles read ``<Designer> <show title>[ Collection]``. The listing's designer tag, when
    given, is the authority for the name: it is stripped from the front of the title when it
    is there (compared without case and accents). Otherwise the show title starts at the
    first season word (with a collection type right before it, as in "Bridal Spring 2019")
    from which the rest parses as a show title, and the designer is whatever precedes it.
    A place before the season ("Chloé Tokyo Fall 2015") is then read as part of the
    designer's name: without the tag the title cannot tell the two apart.
    """
    text = _COLLECTION_SUFFIX_RE.sub("", clean_text(title) or "").strip(_SEPARATORS)
    name = clean_text(designer)
    if not text:
        raise PageParseError("bad_value", f"runway title {quote(title)} is empty")
    if name is not None:
        rest = _strip_prefix(text, name)
        if rest is not None:
            if not rest:
                raise PageParseError(
                    "bad_value", f"runway title {quote(title)} has nothing after the designer"
                )
            found = None if _parses(rest) else _show_title_suffix(rest, allow_whole=True)
            return name, found[1] if found else rest
    found = _show_title_suffix(text, allow_whole=name is not None)
    if found is None:
        problem = "names no designer" if _parses(text) else "names no show title"
        raise PageParseError("bad_value", f"runway title {quote(title)} {problem}")
    return (name or found[0]), found[1]


def runway_season_code(show_title: str) -> str:
    """Vogue's season slug for a theImpression show title ("Spring 2020" -> "spring-2020-...").

    theImpression's runway listings are keyed by that slug, so a gallery is checked against
    the listing it was found in. Raises ``TitleParseError`` when the title does not parse,
    including the rare place name no URL slug can spell.
    """
    parsed = parse_show_title(show_title)
    try:
        return season_slug_for(parsed)
    except TitleParseError:
        raise
    except ValueError as error:
        raise TitleParseError.about(f"no season slug ({error})", show_title) from error


def _strip_prefix(text: str, name: str) -> str | None:
    """The text after ``name`` when the text starts with it as whole words, else None.

    Compared in name resolution's form (``domain/names.py: normalize_name``), the one way
    names are folded: "Chloé", "CHLOE" and "chloe" agree, and so do "Dolce & Gabbana" and
    "Dolce and Gabbana".
    """
    wanted = normalize_name(name)
    if not wanted:
        return None
    matched = None  # the longest match: it takes the name's own trailing dot ("Agnès B.")
    for end in range(1, len(text) + 1):
        if end < len(text) and text[end].isalnum():
            continue
        folded = normalize_name(text[:end])
        if folded == wanted:
            matched = end
        elif not wanted.startswith(folded):
            break
    return None if matched is None else text[matched:].strip(_SEPARATORS)


def _show_title_suffix(text: str, *, allow_whole: bool) -> tuple[str, str] | None:
    """(prefix, show title) at the first season word from which the rest parses."""
    dashed = text.translate(_DASHES)
    for season in _SEASON_WORD_RE.finditer(dashed):
        start = season.start()
        typed = _TYPE_BEFORE_RE.search(dashed, 0, start)
        if typed is not None:
            start = typed.start()
        prefix, show = text[:start].strip(_SEPARATORS), text[start:].strip(_SEPARATORS)
        if (prefix or allow_whole) and _parses(show):
            return prefix, show
    return None


def _parses(show_title: str) -> bool:
    try:
        parse_show_title(show_title)
    except TitleParseError:
        return False
    return True
