"""Discovery's extraction: the Vogue pages that list designers, fetched and read.

Three kinds of page name designers: the directory of every designer
(``/fashion-shows/designers``), the runway landing page (``/fashion-shows``: the current
season's shows and the latest ones, and so the seasons worth a look) and each of those
seasons' pages (``/fashion-shows/<season>``: every show of the season). A page that cannot
be fetched or read is recorded and the others still count; only when neither the directory
nor the landing page could be read is there nothing to go on, and the run fails.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fashion_assets.crawl.base import SourceSite
from fashion_assets.crawl.http import Fetcher
from fashion_assets.crawl.runway import ListingError
from fashion_assets.domain.ingest import is_transient
from fashion_assets.sources import vogue


class DiscoveryError(ListingError):
    """Neither the directory nor the landing page could be read: a listing failure like a
    brand's, ``transient`` (worth a retry) only when the source could not answer."""


@dataclass(frozen=True)
class ListingPage:
    """One page discovery read: its path, the designers it named, or why it failed."""

    path: str
    designers: int
    error: str = ""


@dataclass(frozen=True)
class DesignerListings:
    """Every (display name, brand slug) the pages named, the directory's first (its names
    win), then the landing page's, then the season pages'; and each page's outcome."""

    designers: tuple[tuple[str, str], ...]
    pages: tuple[ListingPage, ...]

    @property
    def failed(self) -> tuple[ListingPage, ...]:
        return tuple(page for page in self.pages if page.error)


def most_pages(seasons: int) -> int:
    """The pages a discovery reads at most: the directory, the landing page and the first
    ``seasons`` of the seasons the landing page names."""
    return 2 + seasons


async def read_designer_listings(
        fetcher: Fetcher, site: SourceSite, *, seasons: int, max_page_bytes: int,
        on_page: Callable[[ListingPage, int], None] = lambda page, pages: None
) -> DesignerListings:
    """Fetch the directory, the landing page and its first ``seasons`` season pages;
    ``on_page`` hears of each page as it is read or fails, with the pages the discovery
    reads as known by then (``most_pages`` until the landing page named its seasons)."""
    pages: list[ListingPage] = []
    designers: list[tuple[str, str]] = []
    transient: list[bool] = []
    planned = most_pages(seasons)

    async def read(path: str, parse: Callable[[str], Any]) -> Any:
        """The page read by ``parse``, or None with its failure recorded."""
        fetched = await fetcher.fetch(site.url(path), max_bytes=max_page_bytes)
        if not fetched.ok:
            transient.append(is_transient(str(fetched.error)))
            record(ListingPage(path, 0, f"{fetched.error}: {fetched.detail}"))
            return None
        try:
            return parse(fetched.body.decode("utf-8", "replace"))
        except vogue.PageParseError as exc:
            transient.append(False)
            record(ListingPage(path, 0, f"{exc.reason}: {exc}"))
            return None

    def record(page: ListingPage) -> None:
        pages.append(page)
        on_page(page, planned)

    def found(path: str, named: tuple[tuple[str, str], ...]) -> None:
        designers.extend(named)
        record(ListingPage(path, len(named)))

    directory = await read(vogue.DIRECTORY_PATH, vogue.parse_designer_directory)
    if directory is not None:
        found(vogue.DIRECTORY_PATH, directory)
    # The landing page says how many season pages follow: none when it cannot be read.
    planned = most_pages(0)
    landing = await read(vogue.LANDING_PATH, vogue.parse_landing_page)
    if landing is not None:
        planned = most_pages(len(landing.seasons[:seasons]))
        found(vogue.LANDING_PATH, landing.designers)
    if directory is None and landing is None:
        raise DiscoveryError(
            "neither the designers directory nor the runway landing page could be read: "
            + "; ".join(f"{page.path}: {page.error}" for page in pages),
            transient=all(transient))
    for season in (landing.seasons[:seasons] if landing is not None else ()):
        path = vogue.season_path(season)
        named = await read(path, vogue.parse_season_page)
        if named is not None:
            found(path, named)
    return DesignerListings(tuple(designers), tuple(pages))
