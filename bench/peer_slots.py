"""The download slot the Scrapy peer (``bench/scrapy_peer.py``) puts photos in, apart from
Scrapy itself: the benchmarks that only name the slot in the peer's settings and reports
(``bench/peers.py``, ``bench/run_report.py``) then import, and their ``--help`` prints,
without Scrapy installed."""

from __future__ import annotations

from urllib.parse import urlparse


def photo_slot(url: str) -> str:
    """The download slot of the photos of ``url``'s host: per host, as Scrapy's own slots
    (and fashion-assets' budget) are, apart from that host's pages."""
    return f"{urlparse(url).hostname} photos"
