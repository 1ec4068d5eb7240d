"""Reading theImpression's WordPress markup, shared by its listing and article readers.

Both page kinds need the same things from a page: parsing it safely, resolving its links
and image addresses as a browser would, telling content blocks from sidebars and ads, and
collecting notes on what was left out. They live here once so the two readers agree.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import SplitResult, urljoin, urlsplit, urlunsplit

from fashion_assets.sources.errors import PageParseError
from fashion_assets.sources.fields import MAX_URL_CHARS, UNSTORABLE_RE, check_page_size, quote

if TYPE_CHECKING:
    from parsel import Selector

PUBLIC_HOSTS = frozenset({"theimpression.com", "www.theimpression.com"})

# Notes explain a page to people; past this many, one more says how many were left out.
MAX_NOTES = 50

# The reason codes of this adapter's PageParseError.
ParseErrorReason = Literal["no_listing", "no_article", "bad_value"]

# Sidebar widgets and related-post blocks list other posts in elements of their own.
OTHER_POSTS_CLASSES = re.compile(r"(?:^|\s)(?:widget|\S*related\S*)(?:$|\s)")
SIDEBAR_TAGS = frozenset({"aside"})

_SURROGATE_RE = re.compile("[\ud800-\udfff]")
# The C0 controls XML forbids (all but tab and line breaks): lxml keeps one in an attribute's
# name, then raises a ValueError when the attribute is read (the fuzz's find, issue 36). Each
# becomes DEL, a control XML allows: still a control to every rule that looks for one
# (``fields.UNSTORABLE_RE``: an address holding one is unusable, text keeps a space).
_XML_CONTROL_RE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f]")
# Browsers drop these from anywhere in a URL (WHATWG URL parsing) before reading it.
_URL_IGNORED = str.maketrans("", "", "\t\n\r")
_DEFAULT_PORTS = {"http": 80, "https": 443}
# Leading and trailing C0 controls and spaces are not part of a URL (WHATWG URL parsing).
_URL_EDGES = "".join(map(chr, range(0x21)))
# WordPress writes post- and term-derived classes on these ("tag-sponsored", "category-ads"):
# they name the post, not a block of the page, so they never exclude what is inside.
_CLASS_EXEMPT_TAGS = frozenset({"html", "body", "main", "article"})


@dataclass(frozen=True)
class Target:
    """A link or image address that passed the URL checks."""

    url: str
    parts: SplitResult
    netloc: str


class Notes:
    """Notes on skipped entries, capped so a hostile page cannot flood the log."""

    def __init__(self) -> None:
        self._notes: list[str] = []
        self._left_out = 0

    def add(self, note: str) -> None:
        if len(self._notes) < MAX_NOTES:
            self._notes.append(note)
        else:
            self._left_out += 1

    def result(self) -> tuple[str, ...]:
        more = (f"{self._left_out} more notes left out",) if self._left_out else ()
        return (*self._notes, *more)


def page_selector(html: str) -> Selector:
    """Parse HTML; lone surrogates (unencodable, they crash lxml) become U+FFFD first, and
    the controls XML forbids DEL (``_XML_CONTROL_RE``). The parser is imported here, by the
    page that needs it: the settings table reads this source's declaration, and every
    command would otherwise import lxml for nothing."""
    from parsel import Selector

    if not isinstance(html, str):
        raise PageParseError("bad_value", f"page is {type(html).__name__}, not text")
    check_page_size(html)
    # The type is fixed: parsel would read a body that looks like JSON as JSON.
    return Selector(text=_XML_CONTROL_RE.sub("\x7f", _SURROGATE_RE.sub("\ufffd", html)),
                    type="html")


def page_parts(page_url: str) -> Target:
    """The fetched page's own address: the base of relative links and an allowed host."""
    target = absolute_url(page_url, None) if isinstance(page_url, str) else "not text"
    if isinstance(target, str):
        raise ValueError(f"page_url {quote(page_url)} is not an absolute http(s) URL: {target}")
    return target


def absolute_url(value: str, base: str | None) -> Target | str:
    """An absolute http(s) URL resolved like a browser would, or the reason it is unusable."""
    text = value.translate(_URL_IGNORED).strip(_URL_EDGES)
    if not text:
        return "empty url"
    if len(text) > MAX_URL_CHARS:
        return f"url of {len(text)} characters, more than the {MAX_URL_CHARS} allowed"
    if text[:5].lower() == "data:":
        return "data: placeholder and no real url"
    if UNSTORABLE_RE.search(text):
        return f"url {quote(text)} holds control characters"
    try:
        url = urljoin(base, text) if base else text
        parts = urlsplit(url)
        port = parts.port
    except ValueError:  # a malformed IPv6 host or port
        return f"url {quote(text)} is malformed"
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return f"url {quote(text)} is not an http(s) url"
    if parts.username is not None or parts.password is not None:
        return f"url {quote(text)} carries credentials"
    host = parts.hostname
    host = f"[{host}]" if ":" in host else host
    netloc = host if port in (None, _DEFAULT_PORTS[parts.scheme]) else f"{host}:{port}"
    clean = parts._replace(netloc=netloc, fragment="")
    return Target(urlunsplit(clean), clean, netloc)


def inside(
    node: Selector,
    tags: frozenset[str],
    classes: re.Pattern[str],
    *,
    stop: Selector | None,
    itself: bool = False,
) -> bool:
    """Whether ``node`` (or, with ``itself``, the node too) sits in one of those blocks.

    Only ancestors below ``stop`` count, and the classes of the page, main and article
    elements never do: an article's "tag-sponsored" says nothing about the blocks inside it.
    """
    boundary = stop.root if stop is not None else None
    element = node.root if itself else node.root.getparent()
    while element is not None and element is not boundary:
        tag = element.tag.lower() if isinstance(element.tag, str) else ""
        if tag in tags:
            return True
        if tag not in _CLASS_EXEMPT_TAGS and classes.search(
            str(element.get("class") or "").lower()
        ):
            return True
        element = element.getparent()
    return False


def first(nodes: Any) -> Selector | None:
    """The first of a selection, None when it is empty."""
    return nodes[0] if nodes else None


def text_of(node: Selector | None) -> str | None:
    """The text of an element, with line breaks read as spaces and scripts left out."""
    if node is None:
        return None
    pieces = node.xpath(
        ".//text()[not(ancestor::script or ancestor::style or ancestor::template)] | .//br"
    )
    return "".join(piece.root if isinstance(piece.root, str) else " " for piece in pieces)
