"""Vogue Runway site adapter: turns fetched pages into plain values, with no I/O.

Every page of the site carries its data as JSON in a ``window.__PRELOADED_STATE__ = {...};``
script. The rendered HTML shows only a few teasers, so everything is read from that state.
The parser is written against the variations listed in ``shared/sources.md``: it finds the
state script by content, decodes it with a real JSON decoder, tolerates unknown keys and
missing optional fields, and skips (and reports) malformed entries instead of failing a whole
page. It fails loudly, with a :class:`PageParseError`, only when the page does not have the
structure it claims to have, so a broken page is never mistaken for an empty one.

What real show pages taught (``shared/real_pages/``, a 2011 show saved in 2024):

- ``runwayShowContent.sectionHeader.hed`` is HTML, a link to the designer page holding the
  **designer** name; ``subHed`` is a link holding the **season** in capitals (``SPRING 2012
  READY-TO-WEAR``); ``reviewTitle`` is designer and season in the house's case. The show
  title is therefore the season at the end of ``reviewTitle`` (``Spring 2012
  Ready-to-Wear``), else the text of ``subHed``; tags are stripped and entities decoded, so
  no HTML is ever stored. The designer in ``reviewTitle`` is the house's name at the time
  (``Paco Rabanne`` in a recommendation whose ``designerName`` is ``Rabanne``), so it is
  not cut off by the name in ``hed``. Pages of the older shape (a plain ``hed`` holding the
  season, no ``subHed``) are still read: ``hed`` is the title there.
- There is no ``runwayShowContent.brand``: the designer is the text of ``hed``.
- There is no ``eventDate``, only ``pubDate`` (``September 23, 2011``), the day the review
  went out: ``event_date`` falls back to it, as the page gives it, since nothing better is
  on the page. Nothing reads or stores this date today.
- Image sources carry ``aspectRatio``, ``width``, ``url`` and ``srcset`` but no ``height``;
  widths decide the largest size (xl and lg are both 1280 wide, xxl is 2560).
- Galleries carry ids (``gallery-collection``, ``gallery-detail``...) besides their titles;
  the Collection is still found by title. Captions read ``Look N`` (``Detail Look N`` in
  Details) and give the order; ``lookNumber`` may be absent.
- ``runwayRecommendations`` lists other houses' shows: nothing here reads it, so its links
  are never taken for the page's own looks or for the brand's shows.

What the real season and landing pages taught (designer discovery reads them):

- A season page (``/fashion-shows/<season>``) lists every show of the season at
  ``runwaySeasonContent.allShows[].links[]{text,url}`` by designer initial (349 for Spring
  2012 Ready-to-Wear); ``curatedShows[]`` only repeats a few with a cover.
- The landing page (``/fashion-shows``) has no page-specific content key: its data is
  ``bundle.containers[]``, told apart by ``template``. ``verso-curated-shows`` is the
  current season (its ``allShows`` shaped like a season page's), ``verso-river`` ("Latest in
  Runway") the latest items, shows (``contentType: "fashionshow"``, designer in
  ``dangerousHed``) mixed with articles and slideshows; names can carry stray spaces.
"""

from __future__ import annotations

import html as html_entities
import json
import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import urljoin, urlsplit

from parsel import Selector

from fashion_assets.sources.errors import PageParseError

SOURCE = "vogue"
PUBLIC_BASE_URL = "https://www.vogue.com"
DIRECTORY_PATH = "/fashion-shows/designers"
# The landing page names the current seasons: where discovery learns what is new.
LANDING_PATH = "/fashion-shows"

# Real pages weigh a few MB; anything this large is not a page we know how to read.
MAX_HTML_CHARS = 20 * 1024 * 1024
# Free text is stored and shown, never parsed further: cap it so an absurd value stays cheap.
MAX_TEXT_CHARS = 500
# Anything quoted in an error or a note is cut so that logs never carry a page-sized dump.
MAX_QUOTE_CHARS = 200
# Real image URLs are ~150 chars; a URL this long is garbage, not an image to fetch.
MAX_URL_CHARS = 2048
# No photo is this wide; larger (or non-positive) dimensions are noise and read as unknown.
MAX_DIMENSION = 100_000

# Smallest to largest: the order decides when widths are not all given.
IMAGE_SIZES = ("sm", "md", "lg", "xl", "xxl")
COLLECTION_GALLERY_TITLE = "collection"

_SLUG_RE = re.compile(r"[a-z0-9-]{1,120}")
# Bounded so a digit string of absurd length never reaches int().
_DIGITS_RE = re.compile(r"[0-9]{1,9}")
# Control characters and lone surrogates (what a JSON "\u0000" or "\ud800" escape decodes
# to): no display text or URL needs them, PostgreSQL cannot store NUL and no database driver
# can encode a lone surrogate, so one of them in a title would fail the whole write.
_UNSTORABLE_RE = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")
_STATE_ASSIGNMENT_RE = re.compile(r"window\.__PRELOADED_STATE__\s*=(?!=)\s*")
_SHOW_PATH_RE = re.compile(r"/fashion-shows/(?P<season>[A-Za-z0-9-]+)/(?P<brand>[A-Za-z0-9-]+)")
_DESIGNER_PATH_RE = re.compile(r"/fashion-shows/designer/(?P<brand>[a-z0-9-]{1,120})")
# `/fashion-shows/designer/<slug>` has the shape of a show path but is a designer page.
_NOT_A_SEASON = "designer"
# Segments after `/fashion-shows/` that name other pages: a season path built from one of
# them would fetch the directory or a designer page instead of a season.
_NOT_SEASON_SLUGS = frozenset({_NOT_A_SEASON, "designers"})
# Landing-page containers that list shows, by template (their heds are editorial copy and
# change; the template is the data's own marker). Every other container (tickers, ads,
# articles, street-style slideshows) is editorial and ignored.
_CURATED_SHOWS_TEMPLATE = "verso-curated-shows"
_RIVER_TEMPLATE = "verso-river"
# The river mixes articles and slideshows among the shows; only items of this type are shows.
_SHOW_CONTENT_TYPE = "fashionshow"
# Markup inside text fields (a real `hed` is `<a href="...">Jil Sander</a>`); bounded so a
# stray `<` in a long title cannot make the scan quadratic.
_TAG_RE = re.compile(r"<[^<>]{0,2000}>")
_DESIGNER_LINK_RE = re.compile(r"""<a\b[^<>]{0,2000}href=["']?[^"'<>]*/fashion-shows/designer/""")

# The reason codes of this adapter's PageParseError.
ParseErrorReason = Literal["no_state", "bad_state_json", "missing_key", "bad_value"]


@dataclass(frozen=True)
class ListedShow:
    """One show as listed on a designer page."""

    title: str
    path: str
    season_slug: str
    brand_slug: str
    cover_url: str | None


@dataclass(frozen=True)
class DesignerPage:
    """A designer page: the brand's whole show history, newest first."""

    name: str
    shows: tuple[ListedShow, ...]
    skipped: tuple[str, ...]


@dataclass(frozen=True)
class ShowImage:
    """One look of a show's Collection gallery, at the largest size the page offers."""

    url: str
    width: int | None
    height: int | None
    caption: str | None
    position: int


@dataclass(frozen=True)
class ShowPage:
    """A show page: its text and the looks of its Collection gallery.

    ``title`` is the season title (``Spring 2012 Ready-to-Wear``), ``brand`` the designer's
    display name and ``event_date`` the page's ``eventDate``, else its ``pubDate``, as written.
    """

    title: str
    brand: str | None
    event_date: str | None
    images: tuple[ShowImage, ...]
    expected_images: int
    skipped: tuple[str, ...]


@dataclass(frozen=True)
class Landing:
    """The ``/fashion-shows`` landing page as discovery needs it.

    ``seasons`` are the slugs of the seasons its shows belong to, the curated (current)
    season first, then the others of the latest shows in page order, each once;
    ``designers`` are (display name, brand slug) of every show it lists, first name of a
    slug winning.
    """

    seasons: tuple[str, ...]
    designers: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class _ImageSource:
    url: str
    width: int | None
    height: int | None


def designer_path(brand_slug: str) -> str:
    """Site path of a designer page; the slug is checked because it ends up in a URL."""
    if not _SLUG_RE.fullmatch(brand_slug):
        raise ValueError(f"not a brand slug: {_quote(brand_slug)}")
    return f"/fashion-shows/designer/{brand_slug}"


def season_path(season_slug: str) -> str:
    """Site path of a season page; the slug is checked because it ends up in a URL, and
    ``designer``/``designers`` are refused since they would name other pages."""
    if not _SLUG_RE.fullmatch(season_slug) or season_slug in _NOT_SEASON_SLUGS:
        raise ValueError(f"not a season slug: {_quote(season_slug)}")
    return f"{LANDING_PATH}/{season_slug}"


def extract_preloaded_state(html: str) -> dict[str, Any]:
    """Decode the ``window.__PRELOADED_STATE__`` object of a page.

    The script is found by its content because its position varies, and the JSON is decoded
    with ``raw_decode`` from the ``{`` after the ``=`` because free text inside the state holds
    braces and semicolons that defeat any regex. Only the first assignment of a script counts:
    later occurrences can only be text inside the state itself.
    """
    if len(html) > MAX_HTML_CHARS:
        raise PageParseError(
            "bad_value", f"page has {len(html)} characters, more than the {MAX_HTML_CHARS} allowed"
        )
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


def parse_designer_page(html: str) -> DesignerPage:
    """Read a designer page: its display name and every show it lists."""
    content = _require_mapping(
        extract_preloaded_state(html), ("transformed", "runwayDesignerContent")
    )
    entries = _require_list(content, "designerCollections", "runwayDesignerContent")
    shows: list[ListedShow] = []
    skipped: list[str] = []
    seen_paths: set[str] = set()
    for index, entry in enumerate(entries, start=1):
        show = _listed_show(entry)
        if isinstance(show, str):
            skipped.append(f"designerCollections entry {index}: {show}")
        elif show.path not in seen_paths:
            seen_paths.add(show.path)
            shows.append(show)
    return DesignerPage(
        name=_clean_text(content.get("name")) or "", shows=tuple(shows), skipped=tuple(skipped)
    )


def parse_show_page(html: str) -> ShowPage:
    """Read a show page: its title, brand, date and the looks of its Collection gallery.

    Galleries are required (a page without them is not a show page), but an empty or absent
    Collection gallery is a valid video-only show with zero expected images.
    """
    state = extract_preloaded_state(html)
    galleries_parent = _require_mapping(state, ("transformed", "runwayShowGalleries"))
    galleries = _require_list(galleries_parent, "galleries", "runwayShowGalleries")
    items, skipped = _collection_items(galleries)
    images: list[ShowImage] = []
    for position, item in enumerate(items, start=1):
        image = _show_image(item, position)
        if image is None:
            skipped.append(f"Collection item {position}: no usable image url")
        else:
            images.append(image)
    content = _optional_mapping(state["transformed"].get("runwayShowContent"))
    title, designer = _show_title_and_designer(content)
    return ShowPage(
        title=title,
        brand=_brand_name(content.get("brand")) or designer,
        event_date=_clean_text(content.get("eventDate")) or _clean_text(content.get("pubDate")),
        images=tuple(images),
        expected_images=len(items),
        skipped=tuple(skipped),
    )


def parse_designer_directory(html: str) -> tuple[tuple[str, str], ...]:
    """Read the directory of all designers as (display name, brand slug), first one wins.

    Links that do not point to a designer page are dropped: the slug is what the crawl needs.
    """
    directory = _require_mapping(
        extract_preloaded_state(html), ("transformed", "allRunwayDesigners")
    )
    groups = _require_list(directory, "groupedLinks", "allRunwayDesigners")
    return _named_designers(groups, _designer_slug)


def parse_season_page(html: str) -> tuple[tuple[str, str], ...]:
    """Read a season page (``/fashion-shows/<season>``) as the designers that showed in it,
    (display name, brand slug), in page order, first one wins.

    ``allShows[].links[]`` lists every show of the season (``curatedShows[]`` only repeats a
    few of them with a cover): a designer new to the season's shows is found here even before
    the directory lists it. Links that are not show paths are dropped.
    """
    content = _require_mapping(
        extract_preloaded_state(html), ("transformed", "runwaySeasonContent")
    )
    groups = _require_list(content, "allShows", "runwaySeasonContent")
    return _named_designers(groups, _show_brand_slug)


def parse_landing_page(html: str) -> Landing:
    """Read the ``/fashion-shows`` landing page as its seasons and designers.

    The state holds ``transformed.bundle.containers[]``: the ``verso-curated-shows`` one
    lists every show of the current season (``items[].allShows[].links[]``, grouped like a
    season page, plus a few ``curatedShows``), and the ``verso-river`` one ("Latest in
    Runway") the latest shows of any season as ``contentType: "fashionshow"`` items, named
    by ``dangerousHed`` (HTML: tags stripped, entities decoded) and mixed with articles and
    slideshows. Curated containers are read before rivers so that the current season comes
    first whatever the page order. Links that are not show paths are dropped.

    Only a page without a state fails for lack of data: a landing that shows no runway
    containers (between seasons, or after a redesign) reads as empty, which callers can see
    and report. What is there but of the wrong type (``transformed`` or ``bundle`` not an
    object, ``containers`` not a list) is a broken page and fails as ``bad_value``.
    """
    containers = _landing_containers(extract_preloaded_state(html))
    seasons: dict[str, None] = {}
    designers: dict[str, str] = {}
    for container in containers:
        if container.get("template") != _CURATED_SHOWS_TEMPLATE:
            continue
        for item in _mappings(container.get("items")):
            groups = item.get("allShows")
            groups = groups if isinstance(groups, list) else []
            urls = [show.get("url") for show in _mappings(item.get("curatedShows"))]
            urls += [link.get("url") for link in _directory_links(groups)]
            for url in urls:
                _add_season(seasons, _show_path_match(url))
            for name, slug in _named_designers(groups, _show_brand_slug):
                designers.setdefault(slug, name)
    for container in containers:
        if container.get("template") != _RIVER_TEMPLATE:
            continue
        for item in _mappings(container.get("items")):
            match = _show_path_match(item.get("url"))
            if item.get("contentType") != _SHOW_CONTENT_TYPE or match is None:
                continue
            _add_season(seasons, match)
            name = _capped(_markup_text(item.get("dangerousHed")))
            if name is not None:
                designers.setdefault(match.group("brand"), name)
    return Landing(
        seasons=tuple(seasons), designers=tuple((name, slug) for slug, name in designers.items())
    )


def _landing_containers(state: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The landing's containers that are objects; none when the state has no bundle."""
    node: Any = state
    keys = ("transformed", "bundle", "containers")
    for depth, key in enumerate(keys, start=1):
        if not isinstance(node, Mapping):
            where = ".".join(keys[: depth - 1])
            raise PageParseError("bad_value", f"{where} is {type(node).__name__}, not an object")
        node = node.get(key)
        if node is None:
            return []
    if not isinstance(node, list):
        raise PageParseError(
            "bad_value", f"transformed.bundle.containers is {type(node).__name__}, not a list"
        )
    return list(_mappings(node))


def _mappings(value: Any) -> Iterator[Mapping[str, Any]]:
    """The objects of an optional list; anything else in it (or instead of it) is skipped."""
    if isinstance(value, list):
        yield from (entry for entry in value if isinstance(entry, Mapping))


def _add_season(seasons: dict[str, None], match: re.Match[str] | None) -> None:
    """Keep a show's season once, in order, only if ``season_path`` would accept it."""
    if match is None:
        return
    season = match.group("season").lower()
    if _SLUG_RE.fullmatch(season) and season not in _NOT_SEASON_SLUGS:
        seasons.setdefault(season)


def _named_designers(groups: Iterable[Any], slug_of: Callable[[Any], str | None]
                     ) -> tuple[tuple[str, str], ...]:
    """(display name, brand slug) of every grouped link ``slug_of`` finds a brand in, in page
    order, the first name of a slug winning; links without one or without text dropped."""
    designers: dict[str, str] = {}
    for link in _directory_links(groups):
        slug = slug_of(link.get("url"))
        name = _clean_text(link.get("text"))
        if slug is not None and name is not None:
            designers.setdefault(slug, name)
    return tuple((name, slug) for slug, name in designers.items())


def _show_brand_slug(url: Any) -> str | None:
    match = _show_path_match(url)
    return match.group("brand") if match else None


def _state_scripts(html: str) -> list[str]:
    # The type is fixed: parsel would read a body that looks like JSON as JSON, on which XPath
    # raises instead of finding no state.
    selector = Selector(text=html, type="html")
    return selector.xpath('//script[contains(., "window.__PRELOADED_STATE__")]/text()').getall()


def _require_mapping(state: Mapping[str, Any], keys: Sequence[str]) -> Mapping[str, Any]:
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


def _require_list(parent: Mapping[str, Any], key: str, parent_name: str) -> list[Any]:
    """A required list; ``null`` counts as missing, since the page then lacks the data."""
    value = parent.get(key)
    if value is None:
        raise PageParseError("missing_key", f"{parent_name} has no {key}")
    if not isinstance(value, list):
        raise PageParseError(
            "bad_value", f"{parent_name}.{key} is {type(value).__name__}, not a list"
        )
    return value


def _optional_mapping(value: Any) -> Mapping[str, Any]:
    """Optional objects read as empty when absent or of the wrong type."""
    return value if isinstance(value, Mapping) else {}


def _listed_show(entry: Any) -> ListedShow | str:
    """A show entry, or the reason it is skipped."""
    if not isinstance(entry, Mapping):
        return f"not an object but {type(entry).__name__}"
    url = entry.get("url")
    match = _show_path_match(url)
    if match is None:
        return f"url {_quote(url)} is not a show url"
    source = _best_image_source(entry.get("image"))
    return ListedShow(
        title=_clean_text(entry.get("hed")) or "",
        path=match.group(0),
        season_slug=match.group("season").lower(),
        brand_slug=match.group("brand"),
        cover_url=source.url if source else None,
    )


def _show_path_match(url: Any) -> re.Match[str] | None:
    """Match the site path of a show URL, absolute or relative.

    The host of an absolute URL is not checked: the offline replica serves the same paths
    under its own host. Query, fragment and a trailing slash are not part of the show.
    """
    path = _site_path(url)
    if path is None:
        return None
    match = _SHOW_PATH_RE.fullmatch(path)
    if match is None or match.group("season").lower() == _NOT_A_SEASON:
        return None
    return match


def _site_path(url: Any) -> str | None:
    if not isinstance(url, str) or not url.strip() or len(url) > MAX_URL_CHARS:
        return None
    try:
        parts = urlsplit(url.strip())
    except ValueError:  # e.g. a malformed IPv6 host
        return None
    if parts.scheme not in ("", "http", "https"):
        return None
    path = parts.path.rstrip("/")
    return path or None


def _designer_slug(url: Any) -> str | None:
    path = _site_path(url)
    match = _DESIGNER_PATH_RE.fullmatch(path) if path else None
    return match.group("brand") if match else None


def _directory_links(groups: Iterable[Any]) -> Iterator[Mapping[str, Any]]:
    for group in groups:
        links = _optional_mapping(group).get("links")
        if isinstance(links, list):
            yield from (link for link in links if isinstance(link, Mapping))


def _collection_items(galleries: Iterable[Any]) -> tuple[list[Any], list[str]]:
    """The items of the first Collection gallery, and a note for each further one ignored.

    Galleries are matched by title because their order varies from page to page.
    """
    collections = [gallery for gallery in galleries if _is_collection_gallery(gallery)]
    if not collections:
        return [], []
    notes = [f"ignored extra Collection gallery {n}" for n in range(2, len(collections) + 1)]
    return _gallery_items(collections[0]), notes


def _is_collection_gallery(gallery: Any) -> bool:
    title = _optional_mapping(gallery).get("title")
    return isinstance(title, str) and title.strip().casefold() == COLLECTION_GALLERY_TITLE


def _gallery_items(gallery: Mapping[str, Any]) -> list[Any]:
    """The items of a gallery; ``null`` or absent items mean an empty (video-only) gallery."""
    items = gallery.get("items")
    if items is None:
        return []
    if not isinstance(items, list):
        raise PageParseError(
            "bad_value", f"Collection gallery items is {type(items).__name__}, not a list"
        )
    return items


def _show_image(item: Any, position: int) -> ShowImage | None:
    item = _optional_mapping(item)
    source = _best_image_source(item.get("image"))
    if source is None:
        return None
    return ShowImage(
        url=source.url,
        width=source.width,
        height=source.height,
        caption=_clean_text(item.get("caption")),
        position=position,
    )


def _best_image_source(image: Any) -> _ImageSource | None:
    """The largest usable size of ``image.sources``.

    Widths decide when every candidate states one, since they are what "largest" means;
    otherwise the size names decide, because a missing width says nothing about the size.
    """
    sources = _optional_mapping(_optional_mapping(image).get("sources"))
    candidates = [
        candidate
        for candidate in (_image_source(sources.get(size)) for size in IMAGE_SIZES)
        if candidate is not None
    ]
    if not candidates:
        return None
    if all(candidate.width is not None for candidate in candidates):
        # max() keeps the first of equal widths; reversing makes that the larger size name.
        return max(reversed(candidates), key=lambda candidate: candidate.width or 0)
    return candidates[-1]


def _image_source(size: Any) -> _ImageSource | None:
    size = _optional_mapping(size)
    url = _image_url(size.get("url"))
    if url is None:
        return None
    return _ImageSource(
        url=url, width=_dimension(size.get("width")), height=_dimension(size.get("height"))
    )


def _image_url(value: Any) -> str | None:
    """An absolute http(s) URL; relative ones are joined to the public site like a browser."""
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_URL_CHARS:
        return None
    if _UNSTORABLE_RE.search(value.strip()):
        return None
    try:
        url = urljoin(PUBLIC_BASE_URL + "/", value.strip())
        parts = urlsplit(url)
    except ValueError:  # e.g. a malformed IPv6 host
        return None
    return url if parts.scheme in ("http", "https") and parts.netloc else None


def _dimension(value: Any) -> int | None:
    """A pixel size from an int or a digit string; nonsense reads as unknown, not as an error."""
    if isinstance(value, bool):
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, str) and _DIGITS_RE.fullmatch(value.strip()):
        value = int(value)
    if isinstance(value, int) and 0 < value <= MAX_DIMENSION:
        return value
    return None


def _show_title_and_designer(content: Mapping[str, Any]) -> tuple[str, str | None]:
    """The season title and the designer name of a show page's header.

    On real pages ``hed`` is the designer (a link to the designer page) and ``subHed`` the
    season in capitals; ``reviewTitle`` ends with the season in the house's case, so that
    tail is taken. It is matched at its end because its front holds the house's name of the
    day, which need not be today's (``Paco Rabanne`` on a show of the house now ``Rabanne``);
    without ``subHed`` the designer is cut off its front instead. On pages without
    ``subHed`` or a designer link, ``hed`` is the season.
    """
    header = _optional_mapping(content.get("sectionHeader"))
    hed, sub_hed = header.get("hed"), header.get("subHed")
    hed_text, season = _markup_text(hed), _markup_text(sub_hed)
    if season is None and not (isinstance(hed, str) and _DESIGNER_LINK_RE.search(hed)):
        return _capped(hed_text) or "", None
    review_title = _markup_text(content.get("reviewTitle")) or ""
    if season and review_title[-len(season):].casefold() == season.casefold():
        season = review_title[-len(season):]
    elif hed_text and review_title[: len(hed_text)].casefold() == hed_text.casefold():
        season = review_title[len(hed_text):].strip() or season
    return _capped(season) or "", _capped(hed_text)


def _markup_text(value: Any) -> str | None:
    """The text of a field that may hold HTML: tags stripped, then entities decoded.

    Entities are decoded after the tags are gone, so an escaped ``&lt;b&gt;`` stays text.
    The result is not capped yet: a prefix is cut off it first.
    """
    if not isinstance(value, str):
        return None
    text = html_entities.unescape(_TAG_RE.sub(" ", value))
    return _clean_text(text, limit=None)


def _capped(text: str | None) -> str | None:
    return text[:MAX_TEXT_CHARS] if text else None


def _brand_name(brand: Any) -> str | None:
    """``brand`` is a plain string on some pages and an object with a ``name`` on others."""
    if isinstance(brand, Mapping):
        brand = brand.get("name")
    return _clean_text(brand)


def _clean_text(value: Any, limit: int | None = MAX_TEXT_CHARS) -> str | None:
    """Display text in one canonical form: NFC, single spaces, capped; None if there is none.

    NFC makes composed and decomposed accents compare equal to the names in the corpus.
    Control characters and lone surrogates become spaces: they are unstorable, not text.
    """
    if not isinstance(value, str):
        return None
    text = " ".join(_UNSTORABLE_RE.sub(" ", unicodedata.normalize("NFC", value)).split())
    return text[:limit] or None


def _quote(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= MAX_QUOTE_CHARS else text[: MAX_QUOTE_CHARS - 3] + "..."
