"""The peer: a small Scrapy spider with the files pipeline, over the same replica.

It crawls what fashion-assets crawls (designer pages, show pages, the largest size of each
Collection photo) with the same page parser (so the comparison is of fetching and storing),
and stores bytes as they come (the files pipeline; the images pipeline re-encodes and would
be an easier peer). Run by ``bench/run.py`` with ``scrapy runspider``; settings come from the
command line.

Photos go to a download slot of their own (``photo_slot``), pages and robots.txt to Scrapy's
default slot of their host. Scrapy applies ``DOWNLOAD_DELAY`` to every request of a slot, so
with one slot per host a page delay would space the photos too, a stricter pace than
fashion-assets' budget (pages spaced, photo downloads only capped in flight); with two slots
the bench gives each the budget's figure: the host's slot the page delay, the photos' slot
no delay and the per-host photo cap as its concurrency (``DOWNLOAD_SLOTS``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import scrapy
from itemadapter import ItemAdapter
from scrapy.http.request import NO_CALLBACK
from scrapy.pipelines.files import FilesPipeline
from scrapy.pipelines.media import MediaPipeline

from bench.peer_slots import photo_slot
from fashion_assets.sources import vogue


class PhotoSlotFilesPipeline(FilesPipeline):
    """The files pipeline, its requests in the photos' download slot."""

    def get_media_requests(self, item: Any, info: MediaPipeline.SpiderInfo
                           ) -> list[scrapy.Request]:
        urls = ItemAdapter(item).get(self.files_urls_field, [])
        return [scrapy.Request(url, callback=NO_CALLBACK,
                               meta={"download_slot": photo_slot(url)}) for url in urls]


class RunwaySpider(scrapy.Spider):
    name = "runway"

    def __init__(self, base_url: str, brands: str, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.base_url = base_url.rstrip("/")
        self.brands = brands.split(",")

    async def start(self) -> AsyncIterator[scrapy.Request]:
        for brand in self.brands:
            yield scrapy.Request(f"{self.base_url}/fashion-shows/designer/{brand}",
                                 callback=self.parse_designer)

    def parse_designer(self, response: scrapy.http.TextResponse) -> Iterator[scrapy.Request]:
        for show in vogue.parse_designer_page(response.text).shows:
            yield response.follow(show.path, callback=self.parse_show)

    def parse_show(self, response: scrapy.http.TextResponse) -> Iterator[dict[str, Any]]:
        page = vogue.parse_show_page(response.text)
        yield {"show": response.url, "file_urls": [image.url for image in page.images]}
