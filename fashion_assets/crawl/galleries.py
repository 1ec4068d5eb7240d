"""Gallery readers: each source adapter's page parser, as the crawl's ``GalleryReader``."""

from __future__ import annotations

from collections.abc import Collection
from functools import partial

from fashion_assets.catalog.runway import ManifestImage
from fashion_assets.crawl.base import Gallery, GalleryReader
from fashion_assets.sources import theimpression, vogue


def vogue_gallery(html: str, page_url: str) -> Gallery:
    """A Vogue show page's Collection gallery (the page state holds every look)."""
    page = vogue.parse_show_page(html)
    return Gallery(page.title,
                   tuple(ManifestImage(i.position, i.url, i.caption) for i in page.images),
                   page.expected_images, page.skipped)


def impression_gallery(image_hosts: Collection[str]) -> GalleryReader:
    """theImpression's article reader, keeping photos on the site and its image hosts only."""
    return partial(_impression_gallery, image_hosts=frozenset(image_hosts))


def _impression_gallery(html: str, page_url: str, *, image_hosts: frozenset[str]) -> Gallery:
    page = theimpression.parse_article_page(html, page_url=page_url, image_hosts=image_hosts)
    return Gallery(page.title,
                   tuple(ManifestImage(i.position, i.url, i.caption) for i in page.images),
                   page.expected_images, page.skipped)
