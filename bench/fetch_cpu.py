"""What one photo fetch costs the crawl's process: the crawl's client (``Fetcher`` with its
own transport and every check of its policy) against bare httpx and bare aiohttp clients
that check nothing, all against the replica served by its own process.

    python -m bench.fetch_cpu [--brands 4]

Every client fetches the same photos (the largest width of each, about 5.7 KB), 16 in
flight on kept-alive connections, on uvloop; twice each, alternating, so that a warming
server favours none. Prints the client's CPU time per photo (``time.process_time``: this
process only, not the replica) and its photos per second. A second ``Fetcher`` row has every
origin serve rules that Protego must judge each photo's URL against (``JUDGED_ROBOTS``):
what robots.txt costs a photo on a host that has rules. docs/performance.md quotes it.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from collections.abc import Awaitable, Callable

import aiohttp
import httpx

from bench.common import replica
from fashion_assets.crawl import loop
from fashion_assets.crawl.http import Fetcher, HttpPolicy
from fashion_assets.domain.hosts import HostPolicy
from fashion_assets.replica.build import build_site
from fashion_assets.replica.vogue_frame import image_url

IN_FLIGHT = 16
SHOWS, PHOTOS = 30, 40
# A robots.txt every origin serves for the second Fetcher row: rules of the shapes real sites
# write, none refusing a photo, so that each photo's URL is judged (the replica's CDN has no
# robots.txt of its own, and a file with no rule is never asked about: crawl/robots.py).
JUDGED_ROBOTS = ("User-agent: *\nDisallow: /*.pdf$\nDisallow: /photos/*/master/pass/\n"
                 "Disallow: /api/\nAllow: /api/public/\nDisallow: /*?*utm_\n"
                 "\nUser-agent: googlebot\nDisallow:\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--brands", type=int, default=4, help="brands of 30 x 40 photos")
    brands = parser.parse_args().brands
    site = build_site(brands=brands, shows_per_brand=SHOWS, photos_per_show=PHOTOS,
                      hostile=False)
    with replica(brands, SHOWS, PHOTOS) as server:
        urls = [image_url(server.cdn_url, photo, photo.widths[-1])
                for brand in site.brands for show in brand.shows for photo in show.photos]
        hosts = HostPolicy.from_config(server.base_url, [server.cdn_url.split("://")[1]])
        policy = HttpPolicy(user_agent="fashion-assets-bench", page_delay_s=0,
                            host_image_concurrency=IN_FLIGHT, host_concurrency=IN_FLIGHT)

        async def with_fetcher() -> list[int]:
            async with Fetcher(policy, hosts) as fetcher:
                return await _all(urls, lambda url: _fetcher_size(fetcher, url))

        async def with_httpx() -> list[int]:
            limits = httpx.Limits(max_connections=IN_FLIGHT)
            async with httpx.AsyncClient(limits=limits) as client:
                return await _all(urls, lambda url: _httpx_size(client, url))

        async def with_aiohttp() -> list[int]:
            async with aiohttp.ClientSession() as session:
                return await _all(urls, lambda url: _aiohttp_size(session, url))

        print(f"{len(urls)} photos, {IN_FLIGHT} in flight", flush=True)
        for _ in range(2):
            for label, run, robots in (
                    ("fashion-assets Fetcher", with_fetcher, ""),
                    ("fashion-assets Fetcher, each URL judged by robots.txt", with_fetcher,
                     JUDGED_ROBOTS),
                    ("httpx AsyncClient (default transport)", with_httpx, ""),
                    ("aiohttp ClientSession", with_aiohttp, "")):
                server.control("faults", {"robots_txt": robots} if robots else {})
                cpu, wall = time.process_time(), time.perf_counter()
                sizes = loop.run(run())
                cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
                if len(sizes) != len(urls) or not all(sizes):
                    raise RuntimeError(f"{label}: {sizes.count(0)} photos not fetched")
                print(f"{label}: {cpu / len(urls) * 1000:.3f} ms of CPU per photo, "
                      f"{len(urls) / wall:.0f} photos/s", flush=True)


async def _all(urls: list[str], fetch: Callable[[str], Awaitable[int]]) -> list[int]:
    slots = asyncio.Semaphore(IN_FLIGHT)

    async def one(url: str) -> int:
        async with slots:
            return await fetch(url)

    return list(await asyncio.gather(*(one(url) for url in urls)))


async def _fetcher_size(fetcher: Fetcher, url: str) -> int:
    fetched = await fetcher.fetch(url, max_bytes=5 * 1024 * 1024, kind="image")
    return len(fetched.body) if fetched.ok else 0


async def _httpx_size(client: httpx.AsyncClient, url: str) -> int:
    response = await client.get(url)
    return len(response.content) if response.status_code == 200 else 0


async def _aiohttp_size(session: aiohttp.ClientSession, url: str) -> int:
    async with session.get(url) as response:
        return len(await response.read()) if response.status == 200 else 0


if __name__ == "__main__":
    main()
