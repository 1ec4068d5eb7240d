"""The peer: a small Scrapy spider with the files pipeline, over the same replica.

It crawls what fashion-assets crawls (designer pages, show pages, the largest size of each
Collection photo) at the same concurrency, with the same page parser (so the comparison is
of fetching and storing), and stores bytes as they come (the files pipeline; the images
pipeline re-encodes and would be an easier peer). Run by
``bench/run.py`` with ``scrapy runspider``; settings come from the command line.
"""

from __future__ import annotations

import scrapy

from fashion_assets.sources import vogue


class RunwaySpider(scrapy.Spider):
    name = "runway"

    def __init__(self, base_url: str, brands: str, **kwargs: object) -> None:
        super().__init__(**kwargs)
        self.base_url = base_url.rstrip("/")
        self.brands = brands.split(",")

    async def start(self):
        for brand in self.brands:
            yield scrapy.Request(f"{self.base_url}/fashion-shows/designer/{brand}",
                                 callback=self.parse_designer)

    def parse_designer(self, response: scrapy.http.Response):
        for show in vogue.parse_designer_page(response.text).shows:
            yield response.follow(show.path, callback=self.parse_show)

    def parse_show(self, response: scrapy.http.Response):
        page = vogue.parse_show_page(response.text)
        yield {"show": response.url, "file_urls": [image.url for image in page.images]}
