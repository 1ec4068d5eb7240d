"""Show titles and season codes: the rules that turn Vogue Runway labels into typed values.

A show is presented to people as a title ("Tokyo Fall 2015", "Fall 2019 Menswear") and addressed
by a URL slug ("tokyo-fall-2015", "fall-2019-menswear"). Both spell the same small grammar,
``[Place] [Collection] Season YYYY [Collection]``, so one parser serves both notations. The slug is
the stable season code (the entity key is brand + season code); titles are only display text,
which is why title parsing is tolerant and slug parsing is strict.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Self

from fashion_assets.domain.text import clean_text

SEASONS = ("pre-fall", "pre-spring", "spring", "summer", "fall", "winter", "resort")
COLLECTION_TYPES = ("ready-to-wear", "menswear", "couture", "bridal")
DEFAULT_COLLECTION_TYPE = "ready-to-wear"
MIN_YEAR, MAX_YEAR = 1900, 2100

# The title grammar reads titles up to this long; a longer one is no show title it knows.
MAX_TITLE_LENGTH = 300
# Any title the catalog stores (a show's, an article's, an editor's edit): the one cap a
# listing cuts at and an edit must fit in, so an editor can always re-save what is stored.
MAX_STORED_TITLE_CHARS = 500
MAX_SLUG_LENGTH = 120
_QUOTE_LIMIT = 200

# Vogue only spells "Ready-to-Wear" out for the main spring and fall shows without a place.
_SEASONS_NAMING_READY_TO_WEAR = frozenset({"spring", "fall"})
# Dashes people (and word processors) type where Vogue writes a hyphen.
_DASHES = str.maketrans(dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212", "-"))
# Whitespace is tolerated, so these control characters count as spacing rather than garbage.
_SPACING_CONTROLS = frozenset("\t\n\r")
_PLACE_PUNCTUATION = frozenset("-'’.")
_YEAR = re.compile(r"(?<![0-9])[0-9]{4}(?![0-9])")
_SLUG_CHARS = re.compile(r"[a-z0-9-]+")



def stored_title(title: str) -> str:
    """A title as the catalog stores it, whatever source sent it: cleaned by the one rule for
    kept text (``domain/text.py``), cut at ``MAX_STORED_TITLE_CHARS``."""
    return clean_text(title, MAX_STORED_TITLE_CHARS)


class TitleParseError(ValueError):
    """A show title (or season slug) that does not follow the show-naming grammar."""

    @classmethod
    def about(cls, reason: str, text: str) -> Self:
        """Build the error from a reason and the offending text.

        A classmethod rather than ``__init__`` keeps ``args == (message,)``, so the exception
        still pickles across process boundaries.
        """
        return cls(f"{reason}: {_excerpt(text)}")


class SeasonSlugError(TitleParseError):
    """A URL slug that is not a season code; a subclass so callers can catch either."""


@dataclass(frozen=True)
class ShowTitle:
    """What a show title says: which season, which year, which kind of show, and where."""

    season: str
    year: int
    collection_type: str
    city: str | None


@dataclass(frozen=True)
class SeasonCode:
    """A show's season as addressed in its URL; ``code`` is the stable key, kept verbatim."""

    code: str
    season: str
    year: int
    collection_type: str


@dataclass(frozen=True)
class _Grammar:
    """How one notation spells the shared ``[Place] Season YYYY [Collection]`` grammar."""

    separator: str
    season: re.Pattern[str]
    tail: re.Pattern[str]
    prefix_type: re.Pattern[str]
    error: type[TitleParseError]


@dataclass(frozen=True)
class _Parts:
    """What a title and a slug both say; only a title's place is worth keeping."""

    place: str | None
    season: str
    year: int
    collection_type: str


def _excerpt(text: str) -> str:
    """Quote the input with ``repr`` so stray control characters show, cut to stay loggable."""
    if len(text) <= _QUOTE_LIMIT:
        return repr(text)
    return f"{text[:_QUOTE_LIMIT]!r}… ({len(text)} chars)"


def _squash(term: str) -> str:
    """Reduce a spelling ("Pre Fall", "Ready-To-Wear") to a key shared by all its variants."""
    return re.sub(r"[-\s]", "", term.lower())


_CANONICAL = {_squash(term): term for term in SEASONS + COLLECTION_TYPES}


def _alternation(terms: tuple[str, ...], joiner: str) -> str:
    """A regex alternation of hyphenated terms, with ``joiner`` allowed between their words."""
    return "|".join(joiner.join(map(re.escape, term.split("-"))) for term in terms)


def _grammar(separator: str, joiner: str, flags: int, error: type[TitleParseError]) -> _Grammar:
    """Compile the grammar once per notation, so titles and slugs cannot drift apart."""
    seasons = _alternation(SEASONS, joiner)
    types = _alternation(COLLECTION_TYPES, joiner)
    sep = re.escape(separator)
    return _Grammar(
        separator=separator,
        season=re.compile(rf"(?<!\w)(?:{seasons})(?!\w)", flags),
        tail=re.compile(rf"{sep}(?P<year>[0-9]{{4}})(?:{sep}(?P<type>{types}))?", flags),
        prefix_type=re.compile(rf"(?:(?P<place>.+){sep})?(?P<type>{types})", flags),
        error=error,
    )


# Titles: any case, and "Pre Fall" / "Prefall" / "Ready to Wear" for the hyphenated words.
_TITLE_GRAMMAR = _grammar(" ", r"[-\s]?", re.IGNORECASE, TitleParseError)
# Slugs: exactly Vogue's lowercase, hyphen-joined spelling.
_SLUG_GRAMMAR = _grammar("-", "-", 0, SeasonSlugError)


def _is_place_name(place: str, separator: str) -> bool:
    """Place words are letters with a little punctuation ("St. Petersburg"), never digits."""
    return all(
        any(char.isalpha() for char in word)
        and all(char.isalpha() or char in _PLACE_PUNCTUATION for char in word)
        for word in place.split(separator)
    )


def _shape_problem(text: str) -> str:
    """Name the most useful thing wrong with text whose season word was found but not its tail."""
    if _YEAR.search(text) is None:
        return "no 4-digit year"
    return "not shaped like '[Place] Season YYYY [Collection]'"


def _split_prefix(head: str, grammar: _Grammar) -> tuple[str | None, str | None]:
    """Split the words before the season into (place, collection type), as in "Bridal Spring".

    A head that is only a separator ("-fall-2019") yields an empty place, which is rejected.
    """
    if not head:
        return None, None
    prefix = head.removesuffix(grammar.separator)
    typed = grammar.prefix_type.fullmatch(prefix)
    if typed is None:
        return prefix, None
    return typed["place"], typed["type"]


def _parse(text: str, source: str, grammar: _Grammar) -> _Parts:
    """Parse normalised ``text``; errors quote ``source``, the input exactly as the caller gave it.

    The prefix is everything before the first season word, so "Pre Fall" never reads as a
    place called "Pre".
    """
    season = grammar.season.search(text)
    if season is None:
        raise grammar.error.about(f"no season word (one of {', '.join(SEASONS)})", source)
    head, tail = text[: season.start()], text[season.end() :]
    rest = grammar.tail.fullmatch(tail)
    if rest is None or (head and not head.endswith(grammar.separator)):
        raise grammar.error.about(_shape_problem(text), source)
    year = int(rest["year"])
    if not MIN_YEAR <= year <= MAX_YEAR:
        raise grammar.error.about(f"year {year} is outside {MIN_YEAR}..{MAX_YEAR}", source)
    place, leading_type = _split_prefix(head, grammar)
    if leading_type and rest["type"]:
        raise grammar.error.about("names two collection types", source)
    if place is not None and not _is_place_name(place, grammar.separator):
        raise grammar.error.about(f"{place!r} before the season is not a place name", source)
    collection_type = leading_type or rest["type"] or DEFAULT_COLLECTION_TYPE
    return _Parts(place, _CANONICAL[_squash(season[0])], year, _CANONICAL[_squash(collection_type)])


def _check_raw_title(title: str) -> None:
    """Refuse inputs no real title looks like before spending any regex work on them."""
    if len(title) > MAX_TITLE_LENGTH:
        raise TitleParseError.about(f"longer than {MAX_TITLE_LENGTH} characters", title)
    if any(unicodedata.category(c) in ("Cc", "Cs") and c not in _SPACING_CONTROLS for c in title):
        raise TitleParseError.about("contains control characters", title)


def _normalise_title(title: str) -> str:
    """Compose accents (NFD "São" == NFC "São"), unify dashes, collapse and trim whitespace."""
    composed = unicodedata.normalize("NFC", title).translate(_DASHES)
    return " ".join(composed.split())


def parse_show_title(title: str) -> ShowTitle:
    """Read a Vogue Runway show title such as "Fall 2019 Menswear" or "São Paulo Resort 2018".

    The place is returned as written (whitespace collapsed, NFC): it is display text, and
    correcting spellings like "São Paolo" is not this function's call.
    """
    _check_raw_title(title)
    text = _normalise_title(title)
    if not text:
        raise TitleParseError.about("title is empty", title)
    parts = _parse(text, title, _TITLE_GRAMMAR)
    return ShowTitle(parts.season, parts.year, parts.collection_type, parts.place)


def parse_season_slug(slug: str) -> SeasonCode:
    """Read the season code from a show URL slug such as "spring-2020-ready-to-wear".

    Strict on purpose: the slug is an entity key, so anything outside Vogue's own alphabet is
    more likely a crawling bug than a spelling variant.
    """
    if len(slug) > MAX_SLUG_LENGTH:
        raise SeasonSlugError.about(f"longer than {MAX_SLUG_LENGTH} characters", slug)
    if not slug:
        raise SeasonSlugError.about("slug is empty", slug)
    code = slug.lower()
    if _SLUG_CHARS.fullmatch(code) is None:
        raise SeasonSlugError.about("slug may only contain a-z, 0-9 and '-'", slug)
    parts = _parse(code, slug, _SLUG_GRAMMAR)
    return SeasonCode(code, parts.season, parts.year, parts.collection_type)


def _ascii_words(text: str) -> list[str]:
    """Lowercase ASCII words for a slug; refuses letters that would silently vanish ("Ł")."""
    decomposed = unicodedata.normalize("NFKD", text)
    stripped = "".join(char for char in decomposed if not unicodedata.combining(char))
    if not stripped.isascii():
        raise ValueError(f"cannot spell {text!r} in a URL slug without losing letters")
    return re.findall(r"[a-z0-9]+", stripped.lower())


def _names_type_after_year(title: ShowTitle) -> bool:
    """Whether Vogue's slug ends with the collection type ("fall-2019-menswear")."""
    if title.collection_type == DEFAULT_COLLECTION_TYPE:
        return title.city is None and title.season in _SEASONS_NAMING_READY_TO_WEAR
    return title.collection_type != "bridal"


def season_slug_for(title: ShowTitle) -> str:
    """Write the slug Vogue uses for a show title, for the replica site to build show URLs.

    The result is read back with ``parse_season_slug`` so the replica can never publish a URL
    the crawler would reject.
    """
    words = _ascii_words(title.city) if title.city else []
    if title.collection_type == "bridal":
        words.append("bridal")
    words += [title.season, str(title.year)]
    if _names_type_after_year(title):
        words.append(title.collection_type)
    slug = "-".join(words)
    parse_season_slug(slug)
    return slug
