"""Reading the state every Vogue page carries, shared by its listing and show page readers.

Every page of the site carries its data as JSON in a ``window.__PRELOADED_STATE__ = {...};``
script; the rendered HTML shows only a few teasers. This module finds and decodes that state,
walks it with errors that say what is missing, and reads the values every page kind holds
the same way: HTML in text fields and images offered at several sizes.
"""

from __future__ import annotations

import html as html_entities
import json
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import urljoin, urlsplit

from fashion_assets.sources.errors import PageParseError
from fashion_assets.sources.fields import (
    MAX_TEXT_CHARS,
    MAX_URL_CHARS,
    UNSTORABLE_RE,
    check_page_size,
    clean_text,
    dimension,
)

PUBLIC_BASE_URL = "https://www.vogue.com"

# Smallest to largest: the order decides when widths are not all given.
IMAGE_SIZES = ("sm", "md", "lg", "xl", "xxl")

# The reason codes of this adapter's PageParseError.
ParseErrorReason = Literal["no_state", "bad_state_json", "missing_key", "bad_value"]

_STATE_ASSIGNMENT_RE = re.compile(r"window\.__PRELOADED_STATE__\s*=(?!=)\s*")
# Markup inside text fields (a real `hed` is `<a href="...">Jil Sander</a>`); bounded so a
# stray `<` in a long title cannot make the scan quadratic.
_TAG_RE = re.compile(r"<[^<>]{0,2000}>")


@dataclass(frozen=True)
class ImageSource:
    """One size of an image: its absolute URL and the pixel sizes the page states."""

    url: str
    width: int | None
    height: int | None


def extract_preloaded_state(html: str) -> dict[str, Any]:
    """Decode the ``window.__PRELOADED_STATE__`` object of a page.

    The script is found by its content because its position varies, and the JSON is decoded
    with ``raw_decode`` from the ``{`` after the ``=`` because free text inside the state holds
    braces and semicolons that defeat any regex. Only the first assignment of a script counts:
    later occurrences can only be text inside the state itself.
    """
    check_page_size(html)
    for script in _state_scripts(html):
        assignment = _STATE_ASSIGNMENT_RE.search(script)
        if assignment is None or not script.startswith("{", assignment.end()):
            continue
        try:
            state, _ = json.JSONDecoder().raw_decode(script, assignment.end())
        except (json.JSONDecodeError, RecursionError) as error:  # too deep nesting recurses
            raise PageParseError(
                "bad_state_json", f"window.__PRELOADED_STATE__ is not decodable JSON: {error}"
            ) from error
        return state
    raise PageParseError("no_state", "no script assigns window.__PRELOADED_STATE__ an object")


def _state_scripts(html: str) -> list[str]:
    from parsel import Selector  # imported by the page reading it (theimpression_markup.py)

    # The type is fixed: parsel would read a body that looks like JSON as JSON, on which XPath
    # raises instead of finding no state.
    selector = Selector(text=html, type="html")
    return selector.xpath('//script[contains(., "window.__PRELOADED_STATE__")]/text()').getall()


def require_mapping(state: Mapping[str, Any], keys: Sequence[str]) -> Mapping[str, Any]:
    """Walk ``keys`` down from the state, failing with a code that says what is wrong."""
    node: Any = state
    for depth, key in enumerate(keys, start=1):
        where = ".".join(keys[:depth])
        node = node.get(key)
        if node is None:
            raise PageParseError("missing_key", f"state has no {where}")
        if not isinstance(node, Mapping):
            raise PageParseError("bad_value", f"{where} is {type(node).__name__}, not an object")
    return node


def require_list(parent: Mapping[str, Any], key: str, parent_name: str) -> list[Any]:
    """A required list; ``null`` counts as missing, since the page then lacks the data."""
    value = parent.get(key)
    if value is None:
        raise PageParseError("missing_key", f"{parent_name} has no {key}")
    if not isinstance(value, list):
        raise PageParseError(
            "bad_value", f"{parent_name}.{key} is {type(value).__name__}, not a list"
        )
    return value


def optional_mapping(value: Any) -> Mapping[str, Any]:
    """Optional objects read as empty when absent or of the wrong type."""
    return value if isinstance(value, Mapping) else {}


def mappings(value: Any) -> Iterator[Mapping[str, Any]]:
    """The objects of an optional list; anything else in it (or instead of it) is skipped."""
    if isinstance(value, list):
        yield from (entry for entry in value if isinstance(entry, Mapping))


def markup_text(value: Any) -> str | None:
    """The text of a field that may hold HTML: tags stripped, then entities decoded.

    Entities are decoded after the tags are gone, so an escaped ``&lt;b&gt;`` stays text.
    The result is not capped yet: a prefix is cut off it first.
    """
    if not isinstance(value, str):
        return None
    text = html_entities.unescape(_TAG_RE.sub(" ", value))
    return clean_text(text, limit=None)


def capped(text: str | None) -> str | None:
    """Text from ``markup_text`` cut to the cap, once whatever had to go is cut off it."""
    return text[:MAX_TEXT_CHARS] if text else None


def best_image_source(image: Any) -> ImageSource | None:
    """The largest usable size of ``image.sources``.

    The candidates are the sizes with a usable URL. Widths decide when every candidate states
    one, since they are what "largest" means, and equal widths go to the larger size name;
    otherwise the size names decide, because a missing width says nothing about the size.

    Checking a URL (a join, a split and a regex) is what costs here, and a show page offers
    each of its photos at five sizes. So the widths are read first, and URLs are checked only
    in the order the sizes could win, up to the first usable one: one URL check per photo
    instead of five when the page states widths, as Vogue's pages do.
    """
    sources = optional_mapping(optional_mapping(image).get("sources"))
    sizes = [optional_mapping(sources.get(name)) for name in IMAGE_SIZES]
    widths = [dimension(size.get("width")) for size in sizes]
    largest_first = range(len(sizes) - 1, -1, -1)
    for index in largest_first:
        if widths[index] is not None:
            continue
        url = _image_url(sizes[index].get("url"))
        if url is not None:
            # A candidate without a width: the size names decide, so the last candidate wins,
            # this one or a larger size with a width (larger ones without were refused above).
            larger = (i for i in range(len(sizes) - 1, index, -1) if widths[i] is not None)
            return _first_usable(sizes, widths, larger) or _source(sizes[index], url, None)
    # Every candidate states a width.
    widest_first = sorted((i for i in largest_first if widths[i] is not None),
                          key=lambda i: (widths[i], i), reverse=True)
    return _first_usable(sizes, widths, widest_first)


def _first_usable(sizes: Sequence[Mapping[str, Any]], widths: Sequence[int | None],
                  indexes: Iterable[int]) -> ImageSource | None:
    """The first of the sizes at ``indexes`` whose URL is usable."""
    for index in indexes:
        url = _image_url(sizes[index].get("url"))
        if url is not None:
            return _source(sizes[index], url, widths[index])
    return None


def _source(size: Mapping[str, Any], url: str, width: int | None) -> ImageSource:
    return ImageSource(url=url, width=width, height=dimension(size.get("height")))


def _image_url(value: Any) -> str | None:
    """An absolute http(s) URL; relative ones are joined to the public site like a browser."""
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_URL_CHARS:
        return None
    if UNSTORABLE_RE.search(value.strip()):
        return None
    try:
        url = urljoin(PUBLIC_BASE_URL + "/", value.strip())
        parts = urlsplit(url)
    except ValueError:  # e.g. a malformed IPv6 host
        return None
    return url if parts.scheme in ("http", "https") and parts.netloc else None
