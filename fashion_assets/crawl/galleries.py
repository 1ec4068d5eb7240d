"""Where a crawl reads a source: its address, and its adapter's gallery parser as the
crawl's ``GalleryReader``, both from the source's declaration (``sources/registry.py``)."""

from __future__ import annotations

from collections.abc import Collection

from fashion_assets.catalog.photos import ManifestImage
from fashion_assets.crawl.base import Gallery, GalleryReader, SourceSite
from fashion_assets.sources.registry import Source


def gallery_reader(source: Source, image_hosts: Collection[str]) -> GalleryReader:
    """The source's gallery pages read into ``Gallery``, photos kept to ``image_hosts`` where
    the adapter checks hosts at parse time."""
    hosts = frozenset(image_hosts)

    def read(html: str, page_url: str) -> Gallery:
        page = source.read_gallery(html, page_url, hosts)
        return Gallery(page.title,
                       tuple(ManifestImage(i.position, i.url, i.caption) for i in page.images),
                       page.expected_images, tuple(page.skipped))

    return read


def source_site(source: Source, base_url: str, image_hosts: Collection[str]) -> SourceSite:
    """The source fetched from ``base_url`` (the site, a mirror or the replica)."""
    return SourceSite(source.name, base_url.rstrip("/"), source.public_base_url,
                      gallery_reader(source, image_hosts), tuple(image_hosts), source.label)
