"""Vogue's listing pages: designer pages, the designer directory, season pages and the landing.

Discovery and the crawl learn from these which designers and shows exist before any show page
is read, so they are kept apart from the show page reader. What the real pages taught:

- A designer page (``/fashion-shows/designer/<brand>``) lists the brand's shows at
  ``runwayDesignerContent.designerCollections[]``, newest first.
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

import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from fashion_assets.sources.errors import PageParseError
from fashion_assets.sources.fields import MAX_URL_CHARS, SLUG_RE, clean_text, quote
from fashion_assets.sources.vogue_state import (
    best_image_source,
    capped,
    extract_preloaded_state,
    mappings,
    markup_text,
    optional_mapping,
    require_list,
    require_mapping,
)

DIRECTORY_PATH = "/fashion-shows/designers"
# The landing page names the current seasons: where discovery learns what is new.
LANDING_PATH = "/fashion-shows"

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
class Landing:
    """The ``/fashion-shows`` landing page as discovery needs it.

    ``seasons`` are the slugs of the seasons its shows belong to, the curated (current)
    season first, then the others of the latest shows in page order, each once;
    ``designers`` are (display name, brand slug) of every show it lists, first name of a
    slug winning.
    """

    seasons: tuple[str, ...]
    designers: tuple[tuple[str, str], ...]


def designer_path(brand_slug: str) -> str:
    """Site path of a designer page; the slug is checked because it ends up in a URL."""
    if not SLUG_RE.fullmatch(brand_slug):
        raise ValueError(f"not a brand slug: {quote(brand_slug)}")
    return f"/fashion-shows/designer/{brand_slug}"


def season_path(season_slug: str) -> str:
    """Site path of a season page; the slug is checked because it ends up in a URL, and
    ``designer``/``designers`` are refused since they would name other pages."""
    if not SLUG_RE.fullmatch(season_slug) or season_slug in _NOT_SEASON_SLUGS:
        raise ValueError(f"not a season slug: {quote(season_slug)}")
    return f"{LANDING_PATH}/{season_slug}"


def parse_designer_page(html: str) -> DesignerPage:
    """Read a designer page: its display name and every show it lists."""
    content = require_mapping(
        extract_preloaded_state(html), ("transformed", "runwayDesignerContent")
    )
    entries = require_list(content, "designerCollections", "runwayDesignerContent")
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
        name=clean_text(content.get("name"), trim_cut=False) or "",
        shows=tuple(shows),
        skipped=tuple(skipped),
    )


def parse_designer_directory(html: str) -> tuple[tuple[str, str], ...]:
    """Read the directory of all designers as (display name, brand slug), first one wins.

    Links that do not point to a designer page are dropped: the slug is what the crawl needs.
    """
    directory = require_mapping(
        extract_preloaded_state(html), ("transformed", "allRunwayDesigners")
    )
    groups = require_list(directory, "groupedLinks", "allRunwayDesigners")
    return _named_designers(groups, _designer_slug)


def parse_season_page(html: str) -> tuple[tuple[str, str], ...]:
    """Read a season page (``/fashion-shows/<season>``) as the designers that showed in it,
    (display name, brand slug), in page order, first one wins.

    ``allShows[].links[]`` lists every show of the season (``curatedShows[]`` only repeats a
    few of them with a cover): a designer new to the season's shows is found here even before
    the directory lists it. Links that are not show paths are dropped.
    """
    content = require_mapping(
        extract_preloaded_state(html), ("transformed", "runwaySeasonContent")
    )
    groups = require_list(content, "allShows", "runwaySeasonContent")
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
        for item in mappings(container.get("items")):
            groups = item.get("allShows")
            groups = groups if isinstance(groups, list) else []
            urls = [show.get("url") for show in mappings(item.get("curatedShows"))]
            urls += [link.get("url") for link in _directory_links(groups)]
            for url in urls:
                _add_season(seasons, _show_path_match(url))
            for name, slug in _named_designers(groups, _show_brand_slug):
                designers.setdefault(slug, name)
    for container in containers:
        if container.get("template") != _RIVER_TEMPLATE:
            continue
        for item in mappings(container.get("items")):
            match = _show_path_match(item.get("url"))
            if item.get("contentType") != _SHOW_CONTENT_TYPE or match is None:
                continue
            _add_season(seasons, match)
            name = capped(markup_text(item.get("dangerousHed")))
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
    return list(mappings(node))


def _add_season(seasons: dict[str, None], match: re.Match[str] | None) -> None:
    """Keep a show's season once, in order, only if ``season_path`` would accept it."""
    if match is None:
        return
    season = match.group("season").lower()
    if SLUG_RE.fullmatch(season) and season not in _NOT_SEASON_SLUGS:
        seasons.setdefault(season)


def _named_designers(groups: Iterable[Any], slug_of: Callable[[Any], str | None]
                     ) -> tuple[tuple[str, str], ...]:
    """(display name, brand slug) of every grouped link ``slug_of`` finds a brand in, in page
    order, the first name of a slug winning; links without one or without text dropped."""
    designers: dict[str, str] = {}
    for link in _directory_links(groups):
        slug = slug_of(link.get("url"))
        name = clean_text(link.get("text"), trim_cut=False)
        if slug is not None and name is not None:
            designers.setdefault(slug, name)
    return tuple((name, slug) for slug, name in designers.items())


def _show_brand_slug(url: Any) -> str | None:
    match = _show_path_match(url)
    return match.group("brand") if match else None


def _listed_show(entry: Any) -> ListedShow | str:
    """A show entry, or the reason it is skipped."""
    if not isinstance(entry, Mapping):
        return f"not an object but {type(entry).__name__}"
    url = entry.get("url")
    match = _show_path_match(url)
    if match is None:
        return f"url {quote(url)} is not a show url"
    source = best_image_source(entry.get("image"))
    return ListedShow(
        title=clean_text(entry.get("hed"), trim_cut=False) or "",
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
        links = optional_mapping(group).get("links")
        if isinstance(links, list):
            yield from (link for link in links if isinstance(link, Mapping))
