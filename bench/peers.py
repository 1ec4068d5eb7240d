"""What the two tools of ``python -m bench.run`` are held to, and what one measured crawl is:
the pace of a table (page delay, photo cap, concurrency) spelled in each tool's settings, and a
crawl's figures (stored photos, the replica's counts, the measurement)."""

from __future__ import annotations

import json
from dataclasses import dataclass

from bench.common import Measured
from bench.peer_slots import photo_slot
from fashion_assets.settings import setting

CONCURRENCY = 16  # requests in flight for either tool, in every table


@dataclass(frozen=True)
class Pace:
    """The politeness both tools are held to in one table, spelled in each tool's settings.

    The replica's origins are one host name (loopback), ports apart: the site serves the
    pages, the CDN the photos. fashion-assets keeps a budget per origin (``host:port``): the
    site's spaces the pages, the CDN's caps the photos in flight. Scrapy is given the same two
    with its host's download slot (the page delay) and a slot for the photos (their cap, no
    delay). Either way every page request waits for one page budget, so the bound is the
    pages times the delay.
    """

    name: str
    page_delay_s: float
    host_image_concurrency: int

    def fashion_assets_env(self) -> dict[str, str]:
        """``fashion-assets crawl``'s settings for this pace."""
        return {"FASHION_PAGE_DELAY": f"{self.page_delay_s:g}",
                "FASHION_HOST_IMAGE_CONCURRENCY": str(self.host_image_concurrency),
                "FASHION_HOST_CONCURRENCY": str(CONCURRENCY),
                "FASHION_IMAGE_CONCURRENCY": str(CONCURRENCY)}

    def scrapy_settings(self, photo_url: str) -> dict[str, str]:
        """Scrapy's settings for this pace: the page delay on the host's slot (every slot's
        default, no jitter so it is the delay itself, not 0.5-1.5x of it), the photos in a
        slot of their own with no delay and the photo cap as its concurrency."""
        slots = {photo_slot(photo_url): {"delay": 0, "concurrency": self.host_image_concurrency,
                                         "jitter": 0}}
        return {"CONCURRENT_REQUESTS": str(CONCURRENCY),
                "CONCURRENT_REQUESTS_PER_DOMAIN": str(CONCURRENCY),
                "DOWNLOAD_DELAY": f"{self.page_delay_s:g}",
                "DOWNLOAD_DELAY_JITTER": "0",
                "DOWNLOAD_SLOTS": json.dumps(slots)}


ENGINE = Pace("engine", 0.0, CONCURRENCY)
POLITE = Pace("equal politeness", float(setting({}, "FASHION_PAGE_DELAY")),
              int(setting({}, "FASHION_HOST_IMAGE_CONCURRENCY")))
# What every Scrapy run sets besides its pace and its store.
SCRAPY_COMMON = {"ITEM_PIPELINES": json.dumps({"bench.scrapy_peer.PhotoSlotFilesPipeline": 1}),
                 "ROBOTSTXT_OBEY": "True", "TELNETCONSOLE_ENABLED": "False",
                 "LOG_LEVEL": "WARNING"}


@dataclass(frozen=True)
class Crawl:
    """One measured crawl: what it stored and what it asked of the replica.

    ``pages`` counts every request that is not a photo (designer and show pages,
    robots.txt), the requests the page delay spaces.
    """

    tool: str
    pace: Pace
    photos: int
    measured: Measured
    pages: int
    requests: int
    image_requests: int
    bytes_received: int
    stored_bytes: int
    distinct_bytes: int

    @property
    def photos_per_s(self) -> float:
        return self.photos / self.measured.wall_s

    @property
    def bound_s(self) -> float:
        """The least wall time the page delay allows: every page request one delay after the
        previous one (all of them go to one host)."""
        return self.pages * self.pace.page_delay_s

    @property
    def wall_over_bound(self) -> float | None:
        return self.measured.wall_s / self.bound_s if self.bound_s else None
