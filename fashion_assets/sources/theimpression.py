"""theImpression site adapter: turns fetched pages into plain values, with no I/O.

theImpression is a WordPress site whose markup no public scraper documents, so the contract
is ``docs/theimpression.md``: listing pages (a fashion week's street style, a season's
runway galleries) and article pages (one album or gallery each). The parser reads every form
listed there and tolerates common WordPress variations beyond it (lazy-loading attributes,
classic gallery captions, archive-title prefixes). Like the Vogue adapter it skips and
reports single bad entries, and fails with a :class:`PageParseError` only when a page is not
the kind of page it claims to be, so a broken page is never mistaken for an empty one.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import SplitResult, urljoin, urlsplit, urlunsplit

from parsel import Selector

from fashion_assets.domain.hosts import HostPolicy, check_url
from fashion_assets.domain.names import normalize_name
from fashion_assets.domain.titles import (
    COLLECTION_TYPES,
    SEASONS,
    TitleParseError,
    parse_show_title,
    season_slug_for,
)
from fashion_assets.sources.errors import PageParseError

SOURCE = "theimpression"
PUBLIC_BASE_URL = "https://theimpression.com"
PUBLIC_HOSTS = frozenset({"theimpression.com", "www.theimpression.com"})

# Real pages weigh well under a MB; anything this large is not a page we know how to read.
MAX_HTML_CHARS = 20 * 1024 * 1024
# Free text is stored and shown, never parsed further: cap it so an absurd value stays cheap.
MAX_TEXT_CHARS = 500
# Anything quoted in an error or a note is cut so that logs never carry a page-sized dump.
MAX_QUOTE_CHARS = 200
# Real URLs are ~150 chars; a URL this long is garbage, not a page or an image to fetch.
MAX_URL_CHARS = 2048
# No photo is this wide; larger (or non-positive) sizes are noise and read as unknown.
MAX_DIMENSION = 100_000
# Notes explain a page to people; past this many, one more says how many were left out.
MAX_NOTES = 50

# The reason codes of this adapter's PageParseError.
ParseErrorReason = Literal["no_listing", "no_article", "bad_value"]

_SLUG_RE = re.compile(r"[a-z0-9-]{1,120}")
_DIGITS_RE = re.compile(r"[0-9]{1,9}")
_DENSITY_RE = re.compile(r"[0-9]{1,4}(?:\.[0-9]{1,4})?")
# Control characters and lone surrogates: no display text or URL needs them, PostgreSQL
# cannot store NUL and no driver can encode a lone surrogate.
_UNSTORABLE_RE = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")
_SURROGATE_RE = re.compile("[\ud800-\udfff]")
# Browsers drop these from anywhere in a URL (WHATWG URL parsing) before reading it.
_URL_IGNORED = str.maketrans("", "", "\t\n\r")
_DASHES = str.maketrans(dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212", "-"))
# What separates a designer from a show title, or trails a heading: "Chloé – Spring 2020".
_SEPARATORS = " -:|,\u2013\u2014"
_DEFAULT_PORTS = {"http": 80, "https": 443}
# Leading and trailing C0 controls and spaces are not part of a URL (WHATWG URL parsing).
_URL_EDGES = "".join(map(chr, range(0x21)))
# WordPress writes post- and term-derived classes on these ("tag-sponsored", "category-ads"):
# they name the post, not a block of the page, so they never exclude what is inside.
_CLASS_EXEMPT_TAGS = frozenset({"html", "body", "main", "article"})

# Where the listing's entries and headings are never found.
_NOT_CONTENT_TAGS = frozenset({"aside", "nav", "footer", "header", "template"})
# Blocks inside an article body whose images are not gallery photos. "ad" is matched as a
# whole dash/underscore-separated word ("ad-slot", "inline-ad", "ads") so that classes such
# as "lead-image" or "head-shot" keep their photos.
_NOT_GALLERY_CLASS_RE = re.compile(
    r"(?:^|[\s_-])ads?(?:$|[\s_-])|adsbygoogle|advert|sponsor|share|related"
)
_SIDEBAR_TAGS = frozenset({"aside"})
# SEO plugins announce the next page of an archive in the head too.
_HEAD_NEXT_XPATH = "//link[@href][contains(concat(' ', normalize-space(@rel), ' '), ' next ')]"
_NOT_GALLERY_TAGS = frozenset({"aside", "nav", "footer", "template"})
_NOT_PHOTO_IMG_CLASSES = frozenset({"avatar", "emoji", "wp-smiley"})
# WordPress writes sized copies of one upload as "<name>-640x960.jpg" and big originals as
# "<name>-scaled.jpg" (or "-rotated"); they are one photo.
_WP_SIZE_SUFFIX_RE = re.compile(r"-(?:[0-9]{1,5}x[0-9]{1,5}|scaled|rotated)$")

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


@dataclass(frozen=True)
class ListedArticle:
    """One entry of a listing: an article to read later, named by its site path."""

    title: str
    path: str
    designer: str | None


@dataclass(frozen=True)
class ListingPage:
    """One page of a street-style or runway listing."""

    heading: str
    articles: tuple[ListedArticle, ...]
    next_path: str | None
    skipped: tuple[str, ...]


@dataclass(frozen=True)
class ArticleImage:
    """One gallery photo of an article, at the largest size the page offers."""

    url: str
    width: int | None
    caption: str | None
    position: int


@dataclass(frozen=True)
class ArticlePage:
    """An article page (a street-style album or a runway gallery): its text and photos."""

    title: str
    published: str | None
    images: tuple[ArticleImage, ...]
    expected_images: int
    skipped: tuple[str, ...]


@dataclass(frozen=True)
class _Target:
    """A link or image address that passed the URL checks."""

    url: str
    parts: SplitResult
    netloc: str


@dataclass(frozen=True)
class _Candidate:
    """One address an ``img`` offers, with what the markup says about its width."""

    value: str
    width: int | None = None
    density: float | None = None


# --------------------------------------------------------------------------- paths


def street_listing_path(week_slug: str, page: int = 1) -> str:
    """Site path of one page of a fashion week's street style; checked as it ends up in a URL."""
    return _listing_path("street-style", week_slug, page)


def runway_listing_path(season_code: str, page: int = 1) -> str:
    """Site path of one page of a season's runway galleries (Vogue's season slug as code)."""
    return _listing_path("runway", season_code, page)


def _listing_path(section: str, slug: str, page: int) -> str:
    if not isinstance(slug, str) or not _SLUG_RE.fullmatch(slug):
        raise ValueError(f"not a {section} slug: {_quote(slug)}")
    if isinstance(page, bool) or not isinstance(page, int) or page < 1:
        raise ValueError(f"page must be an integer >= 1, not {_quote(page)}")
    return f"/{section}/{slug}/" if page == 1 else f"/{section}/{slug}/page/{page}/"


# --------------------------------------------------------------------------- listings


def parse_listing_page(html: str, *, page_url: str) -> ListingPage:
    """Read one listing page: its heading, its entries in page order, and the next page.

    Entries are the ``article`` elements of the page's main content; header, sidebar and
    footer links never are. A page with neither a main element nor any article, or the
    site's 404 page, is not a listing (``no_listing``): an empty week still has its heading.
    """
    page = _page_parts(page_url)
    selector = _selector(html)
    if _is_not_found_page(selector):
        raise PageParseError("no_listing", "the page is the site's 'not found' page")
    main = _first(selector.xpath("//main | //*[@role='main']"))
    scope = main if main is not None else selector
    stop = main if main is not None else _first(selector.xpath("//body"))
    articles = [
        article
        for article in scope.xpath(".//article[not(ancestor::article)]")
        if not _inside(article, _NOT_CONTENT_TAGS, _OTHER_POSTS_CLASSES, stop=stop)
    ]
    if main is None and not articles:
        raise PageParseError("no_listing", "the page has no main content and no article")
    heading = _listing_heading(scope) or _listing_heading(selector)
    if not articles and not heading:
        raise PageParseError("no_listing", "the main content has no article and no page title")
    notes = _Notes()
    entries: dict[str, ListedArticle] = {}
    for index, article in enumerate(articles, start=1):
        entry = _listed_article(article, page)
        if isinstance(entry, str):
            notes.add(f"article {index}: {entry}")
        else:
            entries.setdefault(entry.path.rstrip("/") or "/", entry)
    return ListingPage(
        heading=heading,
        articles=tuple(entries.values()),
        next_path=_next_path(selector, page, notes),
        skipped=notes.result(),
    )


# Sidebar widgets and related-post blocks list other posts in elements of their own.
_OTHER_POSTS_CLASSES = re.compile(r"(?:^|\s)(?:widget|\S*related\S*)(?:$|\s)")


def _listing_heading(scope: Selector) -> str:
    """The listing's title; a 'nothing found' block's own title is not a week's name."""
    for query in ("h1.page-title", ".page-header h1", "h1.archive-title", ".archive-title"):
        for node in scope.css(query):
            if node.xpath("ancestor::*[has-class('no-results')]"):
                continue
            text = _clean_text(_text_of(node))
            if text:
                return text
    return ""


def _is_not_found_page(selector: Selector) -> bool:
    """WordPress marks its 404 template with ``body.error404`` and ``section.error-404``."""
    return bool(selector.xpath("//body[has-class('error404')] | //*[has-class('error-404')]"))


def _listed_article(article: Selector, page: _Target) -> ListedArticle | str:
    """An entry, or the reason it is left out."""
    link = _first(
        article.css("h2.entry-title a[href]")
        or article.css(".entry-title a[href]")
        or article.css("a[rel~=bookmark][href]")
    )
    href = link.attrib.get("href", "") if link is not None else ""
    if link is None or not href.strip():
        return "no entry link"
    target = _link_target(href, page)
    if isinstance(target, str):
        return target
    path = target.parts.path
    if path in ("", "/"):
        return f"link {_quote(href)} points to the home page, not an article"
    title = (
        _clean_text(_text_of(link))
        or _clean_text(_text_of(_first(article.css(".entry-title"))))
        or _clean_text(link.attrib.get("title"))
        or ""
    )
    designer_tag = _first(article.css(".designer a[rel~=tag]"))
    return ListedArticle(title=title, path=path, designer=_clean_text(_text_of(designer_tag)))


def _link_target(href: str, page: _Target) -> _Target | str:
    """A page link on the site (public host or the host the page came from), or why not."""
    target = _absolute_url(href, page.url)
    if isinstance(target, str):
        return target
    if target.netloc not in PUBLIC_HOSTS and target.netloc != page.netloc:
        return f"link {_quote(href)} is off-site (host {_quote(target.netloc)})"
    if _UNSTORABLE_RE.search(target.parts.path) or " " in target.parts.path:
        return f"link {_quote(href)} has a path no page has"
    return target


def _next_path(selector: Selector, page: _Target, notes: _Notes) -> str | None:
    """The pagination's "next" link; the last page has none, and an off-site one is ignored."""
    links = [
        node
        for node in selector.xpath("//a[has-class('next')][@href] | //a[@rel][@href]")
        if (
            "next" in node.attrib.get("class", "").split()
            or "next" in node.attrib.get("rel", "").lower().split()
        )
        and not _inside(node, _SIDEBAR_TAGS, _OTHER_POSTS_CLASSES, stop=None)
    ] or selector.xpath(_HEAD_NEXT_XPATH)
    if not links:
        return None
    href = links[0].attrib.get("href", "")
    target = _link_target(href, page)
    if isinstance(target, str):
        notes.add(f"next page: {target}")
        return None
    path = target.parts.path
    return None if path in ("", page.parts.path) else path


# --------------------------------------------------------------------------- names


def week_city_name(heading: str, week_slug: str) -> str:
    """The city of a fashion week as the listing names it: "Kiev Fashion Week" -> "Kiev".

    The name is kept as the site spells it ("São Paolo", "NYFW"): matching spellings to
    cities is the catalog's job. Without a usable heading the slug's words are used
    ("mexico-city-fashion-week" -> "Mexico City"). ``ValueError`` when neither names a city.
    """
    text = _clean_text(heading) or ""
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
        raise ValueError(f"no city in heading {_quote(heading)} nor slug {_quote(week_slug)}")
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
    text = _COLLECTION_SUFFIX_RE.sub("", _clean_text(title) or "").strip(_SEPARATORS)
    name = _clean_text(designer)
    if not text:
        raise PageParseError("bad_value", f"runway title {_quote(title)} is empty")
    if name is not None:
        rest = _strip_prefix(text, name)
        if rest is not None:
            if not rest:
                raise PageParseError(
                    "bad_value", f"runway title {_quote(title)} has nothing after the designer"
                )
            found = None if _parses(rest) else _show_title_suffix(rest, allow_whole=True)
            return name, found[1] if found else rest
    found = _show_title_suffix(text, allow_whole=name is not None)
    if found is None:
        problem = "names no designer" if _parses(text) else "names no show title"
        raise PageParseError("bad_value", f"runway title {_quote(title)} {problem}")
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


# --------------------------------------------------------------------------- articles


def parse_article_page(html: str, *, page_url: str, image_hosts: Collection[str]) -> ArticlePage:
    """Read an article page: its title, date and gallery photos in document order.

    Photos are the images of the article body (``div.entry-content``, else the article),
    less ads, share buttons, related posts, avatars and emoji; each at its widest offered
    size, kept only on the site or an image host, and counted once however many sizes or
    ``noscript`` copies the page carries. A page with no article at all is ``no_article``.
    """
    if isinstance(image_hosts, str):  # a lone host would be read as its characters
        raise TypeError("image_hosts must be a collection of hosts, not one string")
    page = _page_parts(page_url)
    # The crawl's one host rule (domain/hosts.py), so a photo kept here is one the client
    # may fetch, with the same normalizing of names and ports.
    hosts = HostPolicy.from_config(page.url, image_hosts)
    selector = _selector(html)
    article = _first(
        selector.xpath("//main//article") or selector.xpath("//article[not(ancestor::aside)]")
    )
    content = _article_content(selector, article)
    if content is None:
        raise PageParseError("no_article", "the page has no entry content and no article")
    scope = article if article is not None else content
    notes = _Notes()
    images: list[ArticleImage] = []
    seen: set[tuple[str, str]] = set()
    for index, img in enumerate(content.xpath(".//img"), start=1):
        if _is_not_a_photo(img, content):
            continue
        found = _image_source(img, page.url)
        if isinstance(found, str):
            notes.add(f"img {index}: {found}")
            continue
        target, width = found
        if not check_url(hosts, target.url).allowed:
            notes.add(
                f"img {index}: {_quote(target.url)} is on host {_quote(target.netloc)}, "
                "neither the site nor an image host"
            )
            continue
        key = _photo_key(target)
        if key in seen:
            continue
        seen.add(key)
        images.append(
            ArticleImage(
                url=target.url, width=width, caption=_caption(img), position=len(images) + 1
            )
        )
    return ArticlePage(
        title=_article_title(selector, scope),
        published=_published(selector, scope),
        images=tuple(images),
        expected_images=len(images),
        skipped=notes.result(),
    )


def _article_content(selector: Selector, article: Selector | None) -> Selector | None:
    """The article body: ``.entry-content`` (of the article first), else the article."""
    if article is not None:
        for node in article.xpath(".//*[has-class('entry-content')]"):
            if not _inside(node, _SIDEBAR_TAGS, _NOT_GALLERY_CLASS_RE, stop=article):
                return node
    for node in selector.xpath("//*[has-class('entry-content')]"):
        if not _inside(node, _SIDEBAR_TAGS, _OTHER_POSTS_CLASSES, stop=None):
            return node
    return article


def _is_not_a_photo(img: Selector, content: Selector) -> bool:
    """Avatars, emoji, and images of ad, share or related-post blocks inside the body."""
    classes = set(img.attrib.get("class", "").lower().split())
    if classes & _NOT_PHOTO_IMG_CLASSES:
        return True
    return _inside(img, _NOT_GALLERY_TAGS, _NOT_GALLERY_CLASS_RE, stop=content, itself=True)


def _image_source(img: Selector, base: str) -> tuple[_Target, int | None] | str:
    """The address of an ``img`` at its widest size and that size, or why there is none.

    Lazy loaders keep the real address in ``data-*`` attributes and put a ``data:``
    placeholder in ``src``/``srcset``; placeholders are never photos.
    """
    attrs = img.attrib
    declared_width = _dimension(attrs.get("width"))
    srcset = [
        candidate
        for name in ("srcset", "data-srcset", "data-lazy-srcset")
        for candidate in _srcset_candidates(attrs.get(name, ""))
    ]
    choice = _widest(srcset, base)
    if choice is not None:
        candidate, target = choice
        width = candidate.width
        if width is None and declared_width is not None:
            density = candidate.density or 1.0
            width = _dimension(round(declared_width * density))
        return target, width
    reasons: list[str] = []
    for name in ("data-src", "data-lazy-src", "data-original", "src"):
        value = attrs.get(name)
        if value is None or not value.strip():
            continue
        target = _absolute_url(value, base)
        if isinstance(target, _Target):
            return target, declared_width
        reasons.append(target)
    if srcset or reasons:
        return reasons[-1] if reasons else "no usable url in srcset"
    return "no image url"


def _widest(candidates: list[_Candidate], base: str) -> tuple[_Candidate, _Target] | None:
    """The widest ``w`` candidate (first of equal widths), else the last usable one."""
    usable = [
        (candidate, target)
        for candidate in candidates
        if isinstance(target := _absolute_url(candidate.value, base), _Target)
    ]
    if not usable:
        return None
    with_width = [pair for pair in usable if pair[0].width is not None]
    if with_width:
        return max(with_width, key=lambda pair: pair[0].width or 0)
    return usable[-1]


def _srcset_candidates(value: str) -> Iterator[_Candidate]:
    """Split a ``srcset`` as the HTML standard does: URLs may hold commas ("w_640,c_limit").

    A URL is a run of non-space characters; its descriptors run to the next comma outside
    parentheses. Unknown or malformed descriptors leave the candidate without a size.
    """
    position, end = 0, len(value)
    while position < end:
        while position < end and (value[position].isspace() or value[position] == ","):
            position += 1
        start = position
        while position < end and not value[position].isspace():
            position += 1
        url = value[start:position]
        descriptors: list[str] = []
        if url.endswith(","):
            url = url.rstrip(",")
        else:
            depth, stop = 0, position
            while stop < end and (value[stop] != "," or depth):
                if value[stop] == "(":
                    depth += 1
                elif value[stop] == ")" and depth:
                    depth -= 1
                stop += 1
            descriptors = value[position:stop].split()
            position = stop + 1
        if url:
            yield _candidate(url, descriptors)


def _candidate(url: str, descriptors: list[str]) -> _Candidate:
    width = density = None
    for descriptor in descriptors:
        number, unit = descriptor[:-1], descriptor[-1:].lower()
        if unit == "w" and _DIGITS_RE.fullmatch(number):
            width = _dimension(int(number))
        elif unit == "x" and _DENSITY_RE.fullmatch(number) and float(number) > 0:
            density = float(number)
    return _Candidate(url, width, density)


def _photo_key(target: _Target) -> tuple[str, str]:
    """One key for every size of a photo: WordPress size suffixes and the query are dropped."""
    folder, _, name = target.parts.path.rpartition("/")
    stem, dot, extension = name.rpartition(".")
    if not dot:
        stem, extension = name, ""
    previous = None
    while previous != stem:
        previous, stem = stem, _WP_SIZE_SUFFIX_RE.sub("", stem)
    return target.netloc, f"{folder}/{stem}{dot}{extension}"


def _caption(img: Selector) -> str | None:
    """The caption of the photo's own figure (or classic WordPress caption block)."""
    figure = _first(img.xpath("ancestor::figure[1]"))
    if figure is not None:
        return _clean_text(_text_of(_first(figure.xpath("./figcaption"))))
    block = _first(
        img.xpath("ancestor::*[has-class('wp-caption') or has-class('gallery-item')][1]")
    )
    if block is not None:
        return _clean_text(
            _text_of(
                _first(
                    block.xpath(
                        ".//*[has-class('wp-caption-text') or has-class('gallery-caption')]"
                    )
                )
            )
        )
    return None


def _article_title(selector: Selector, scope: Selector) -> str:
    for node in (
        _first(scope.css("h1.entry-title") or scope.css(".entry-title") or scope.css("h1")),
        _first(selector.css("h1.entry-title") or selector.css("h1")),
    ):
        text = _clean_text(_text_of(node))
        if text:
            return text
    return (
        _clean_text(selector.xpath("//meta[@property='og:title']/@content").get())
        or _clean_text(_text_of(_first(selector.xpath("//title"))))
        or ""
    )


def _published(selector: Selector, scope: Selector) -> str | None:
    node = _first(
        scope.css("time.published[datetime]")
        or scope.css("time[datetime]")
        or selector.css("time[datetime]")
    )
    if node is not None:
        return _clean_text(node.attrib.get("datetime"))
    return _clean_text(selector.xpath("//meta[@property='article:published_time']/@content").get())


# --------------------------------------------------------------------------- shared


class _Notes:
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


def _selector(html: str) -> Selector:
    """Parse HTML; lone surrogates (unencodable, they crash lxml) become U+FFFD first."""
    if not isinstance(html, str):
        raise PageParseError("bad_value", f"page is {type(html).__name__}, not text")
    if len(html) > MAX_HTML_CHARS:
        raise PageParseError(
            "bad_value", f"page has {len(html)} characters, more than the {MAX_HTML_CHARS} allowed"
        )
    # The type is fixed: parsel would read a body that looks like JSON as JSON.
    return Selector(text=_SURROGATE_RE.sub("\ufffd", html), type="html")


def _page_parts(page_url: str) -> _Target:
    """The fetched page's own address: the base of relative links and an allowed host."""
    target = _absolute_url(page_url, None) if isinstance(page_url, str) else "not text"
    if isinstance(target, str):
        raise ValueError(f"page_url {_quote(page_url)} is not an absolute http(s) URL: {target}")
    return target


def _absolute_url(value: str, base: str | None) -> _Target | str:
    """An absolute http(s) URL resolved like a browser would, or the reason it is unusable."""
    text = value.translate(_URL_IGNORED).strip(_URL_EDGES)
    if not text:
        return "empty url"
    if len(text) > MAX_URL_CHARS:
        return f"url of {len(text)} characters, more than the {MAX_URL_CHARS} allowed"
    if text[:5].lower() == "data:":
        return "data: placeholder and no real url"
    if _UNSTORABLE_RE.search(text):
        return f"url {_quote(text)} holds control characters"
    try:
        url = urljoin(base, text) if base else text
        parts = urlsplit(url)
        port = parts.port
    except ValueError:  # a malformed IPv6 host or port
        return f"url {_quote(text)} is malformed"
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return f"url {_quote(text)} is not an http(s) url"
    if parts.username is not None or parts.password is not None:
        return f"url {_quote(text)} carries credentials"
    host = parts.hostname
    host = f"[{host}]" if ":" in host else host
    netloc = host if port in (None, _DEFAULT_PORTS[parts.scheme]) else f"{host}:{port}"
    clean = parts._replace(netloc=netloc, fragment="")
    return _Target(urlunsplit(clean), clean, netloc)


def _inside(
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


def _first(nodes: Any) -> Selector | None:
    return nodes[0] if nodes else None


def _text_of(node: Selector | None) -> str | None:
    """The text of an element, with line breaks read as spaces and scripts left out."""
    if node is None:
        return None
    pieces = node.xpath(
        ".//text()[not(ancestor::script or ancestor::style or ancestor::template)] | .//br"
    )
    return "".join(piece.root if isinstance(piece.root, str) else " " for piece in pieces)


def _dimension(value: Any) -> int | None:
    """A pixel size from an int or a digit string; nonsense reads as unknown, not as an error."""
    if isinstance(value, str) and _DIGITS_RE.fullmatch(value.strip()):
        value = int(value)
    if isinstance(value, int) and not isinstance(value, bool) and 0 < value <= MAX_DIMENSION:
        return value
    return None


def _clean_text(value: Any) -> str | None:
    """Display text in one canonical form: NFC, single spaces, capped; None if there is none.

    Control characters and lone surrogates become spaces: they are unstorable, not text.
    """
    if not isinstance(value, str):
        return None
    text = " ".join(_UNSTORABLE_RE.sub(" ", unicodedata.normalize("NFC", value)).split())
    return text[:MAX_TEXT_CHARS].rstrip() or None


def _quote(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= MAX_QUOTE_CHARS else text[: MAX_QUOTE_CHARS - 3] + "..."
