"""The source registry: every site the pipeline crawls, each declared once.

A declaration (``Source``) says all the rest of the pipeline needs to know of a site: its
adapter's gallery reader, where its pages are fetched from and which hosts its photos may
come from (with their ``FASHION_<NAME>_*`` settings), the public address its drafts record,
how its runway shows are listed and partitioned, and the replica origins that serve it
offline. The settings table, the Dagster resources, the runway assets and their crawl and
repair jobs, coverage's partition mapping, promotion's source order, the CLI's crawl kinds
and the replica's environment are all derived from ``SOURCES``: adding a site is one adapter
module, one declaration and its tests (docs/architecture.md, "How to add a source").

Plain data and the adapters' pure functions only: the Dagster shell imports this, never the
reverse.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from fashion_assets.sources import theimpression, vogue
from fashion_assets.sources.pages import ListingPage


class GalleryImage(Protocol):
    @property
    def position(self) -> int: ...
    @property
    def url(self) -> str: ...
    @property
    def caption(self) -> str | None: ...


class GalleryPage(Protocol):
    """What an adapter reads off a gallery page (a show, an article): its title, its ordered
    photos, how many the page announces, and what it could not read."""

    @property
    def title(self) -> str: ...
    @property
    def images(self) -> Sequence[GalleryImage]: ...
    @property
    def expected_images(self) -> int: ...
    @property
    def skipped(self) -> Sequence[str]: ...


# (page HTML, the URL it was fetched from, the hosts photos may come from) -> the gallery;
# raises the adapter's PageParseError (a ValueError with a ``reason``) when there is none.
GalleryParser = Callable[[str, str, Collection[str]], GalleryPage]

# "brand": one partition per brand, its shows read off the designer's page (Vogue);
# "season": one partition per season code, its galleries read off a season listing and each
# designer's name resolved to a brand (theImpression).
RunwayPartitioning = Literal["brand", "season"]

# The name of the Dagster dynamic partitions of each way (``partitions.py`` builds them; the
# CLI's parent process reads the names without importing Dagster).
RUNWAY_PARTITION_NAMES: dict[str, str] = {"brand": "brands", "season": "runway_seasons"}


@dataclass(frozen=True)
class BrandListings:
    """Runway shows listed per brand, on the designer's page (Vogue): one partition per
    brand, and the page names the brand's shows with their seasons."""

    designer_path: Callable[[str], str]  # brand slug -> the designer page's path
    parse_designer_page: Callable[[str], object]  # HTML -> the adapter's DesignerPage


@dataclass(frozen=True)
class SeasonListings:
    """Runway galleries listed per season (theImpression): one partition per season code;
    each entry's designer name is resolved to a brand before its show is recorded."""

    listing_path: Callable[[str, int], str]  # (season code, page number) -> path
    parse_listing_page: Callable[[str, str], ListingPage]  # (HTML, page URL) -> the page
    # (entry title, designer named by the markup or None) -> (designer, show title, season
    # code); raises ValueError when the entry cannot be read (it is skipped with the reason).
    read_entry: Callable[[str, str | None], tuple[str, str, str]]


@dataclass(frozen=True)
class RunwayNames:
    """The names of a source's runway assets, group and jobs in Dagster.

    Kept explicit because they are asset keys: a materialization history is keyed by them,
    so the first two sources keep the names they were deployed with. A new source takes
    ``RunwayNames.of(name)``.
    """

    listings: str
    manifests: str
    drafts: str
    group: str
    crawl_job: str
    repair_job: str

    @classmethod
    def of(cls, source: str) -> RunwayNames:
        return cls(f"{source}_runway_listings", f"{source}_runway_manifests",
                   f"{source}_runway_drafts", f"{source}_runway", f"{source}_runway_crawl",
                   f"{source}_coverage_repair")


@dataclass(frozen=True)
class Source:
    """One site: its adapter, settings, runway partitioning and replica origins."""

    name: str  # the ``source`` of its rows and source keys
    label: str
    public_base_url: str  # what its drafts record, whatever mirror the pages came from
    base_url: str  # the default of FASHION_<NAME>_BASE_URL
    image_hosts: str  # the default of FASHION_<NAME>_IMAGE_HOSTS
    read_gallery: GalleryParser
    runway_listing: BrandListings | SeasonListings | None  # None: no runway shows
    runway_names: RunwayNames | None
    # The replica's origins (``ReplicaServer.origin_url``) of its pages and of its photos.
    replica_pages: str
    replica_images: tuple[str, ...]
    image_hosts_note: str = ""  # what the default hosts are, for the settings table

    @property
    def runway_partitioning(self) -> RunwayPartitioning | None:
        """How the source's runway shows are partitioned: as they are listed."""
        if self.runway_listing is None:
            return None
        return "brand" if isinstance(self.runway_listing, BrandListings) else "season"

    @property
    def setting_prefix(self) -> str:
        return f"FASHION_{self.name.upper()}"

    @property
    def base_url_setting(self) -> str:
        return f"{self.setting_prefix}_BASE_URL"

    @property
    def image_hosts_setting(self) -> str:
        return f"{self.setting_prefix}_IMAGE_HOSTS"

    def setting_rows(self) -> tuple[tuple[str, str, str], ...]:
        """(variable, default, help) of the source's own settings, for the settings table."""
        return (
            (self.base_url_setting, self.base_url,
             f"Where {self.label} pages are fetched from. Drafts always record the public "
             "address."),
            (self.image_hosts_setting, self.image_hosts,
             f"Comma-separated hosts (host or host:port) that {self.label} photos may be "
             f"fetched from{self.image_hosts_note}."),
        )

    def replica_env(self, origin_url: Callable[[str], str]) -> dict[str, str]:
        """The source's settings pointing at a running replica (``origin_url``: the
        server's ``ReplicaServer.origin_url``)."""
        return {self.base_url_setting: origin_url(self.replica_pages),
                self.image_hosts_setting: ",".join(origin_url(name).split("://", 1)[1]
                                                   for name in self.replica_images)}


def _vogue_gallery(html: str, page_url: str, image_hosts: Collection[str]) -> GalleryPage:
    """A Vogue show page's Collection gallery (the page state holds every look; its photo
    URLs are the CDN's, checked by the host policy when fetched)."""
    return vogue.parse_show_page(html)


def _impression_gallery(html: str, page_url: str, image_hosts: Collection[str]
                        ) -> GalleryPage:
    """theImpression's article, keeping photos on the site and its image hosts only."""
    return theimpression.parse_article_page(html, page_url=page_url,
                                            image_hosts=frozenset(image_hosts))


def impression_listing_page(html: str, page_url: str) -> ListingPage:
    """theImpression's listing pages (runway seasons, street-style weeks)."""
    return theimpression.parse_listing_page(html, page_url=page_url)


def _impression_runway_entry(title: str, designer: str | None) -> tuple[str, str, str]:
    """A runway gallery's designer, show title and season code, read off its title."""
    name, show_title = theimpression.split_runway_title(title, designer)
    return name, show_title, theimpression.runway_season_code(show_title)


VOGUE = Source(
    name=vogue.SOURCE, label="Vogue", public_base_url=vogue.PUBLIC_BASE_URL,
    base_url="https://www.vogue.com", image_hosts="assets.vogue.com",
    read_gallery=_vogue_gallery,
    runway_listing=BrandListings(vogue.designer_path, vogue.parse_designer_page),
    runway_names=RunwayNames("runway_show_listings", "runway_image_manifests", "runway_drafts",
                             "runway", "runway_crawl", "runway_coverage_repair"),
    replica_pages="site", replica_images=("cdn",))

THEIMPRESSION = Source(
    name=theimpression.SOURCE, label="theImpression",
    public_base_url=theimpression.PUBLIC_BASE_URL, base_url="https://theimpression.com",
    image_hosts="img.theimpression.com,theimpression.com",
    read_gallery=_impression_gallery,
    runway_listing=SeasonListings(theimpression.runway_listing_path, impression_listing_page,
                                  _impression_runway_entry),
    runway_names=RunwayNames("impression_runway_listings", "impression_runway_manifests",
                             "impression_runway_drafts", "impression_runway",
                             "impression_runway_crawl", "impression_coverage_repair"),
    replica_pages="impression", replica_images=("impression_cdn", "impression"),
    image_hosts_note=": its CDN and the site's WordPress uploads")

# Every source, in the order promotion ranks them: the first one's photos and text lead an
# entry (Vogue's looks are a show's reference gallery; theImpression's add what Vogue lacks).
SOURCES: tuple[Source, ...] = (VOGUE, THEIMPRESSION)


def runway_sources(sources: Sequence[Source] = SOURCES) -> tuple[Source, ...]:
    """The sources that list runway shows."""
    return tuple(s for s in sources if s.runway_partitioning is not None)


def by_name(name: str, sources: Sequence[Source] = SOURCES) -> Source:
    for source in sources:
        if source.name == name:
            return source
    raise KeyError(f"no source named {name!r}")
