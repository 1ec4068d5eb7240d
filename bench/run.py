"""Run every benchmark side by side with Scrapy and write BENCHMARKS.md.

    python -m bench.run            # the full sizes (about 20 minutes on 2 cores)
    python -m bench.run --quick    # small sizes, to check the harness (written to a temp file)

Each figure is measured here, in one run, against the project's replica served by its own
process: fashion-assets (catalog on PostgreSQL, the file store, then the S3 API server) and
Scrapy with its files pipeline. Each comparison holds both tools to the same settings, and
the two questions get a table each, because one setting cannot answer both:

- the engine: no page delay and the same concurrency, so what is measured is fetching and
  storing; ``ENGINE_ROUNDS`` rounds, each tool once per round, alternating, compared by
  their medians (on a shared two-core machine one crawl of each tool varies by a fifth from
  run to run, more than the margin of the target);
- equal politeness: both tools held to fashion-assets' default budget per host (pages
  spaced ``FASHION_PAGE_DELAY`` apart, photo downloads in flight capped at
  ``FASHION_HOST_IMAGE_CONCURRENCY``). There the page delay bounds the crawl, so each run's
  wall time is set beside that bound (page requests x delay): how close a tool comes to it
  is what the table says, not photos per second.

The --quick figures are not meaningful (the sizes are too small); they are written to a temp
file so that they never replace the published ones.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import boto3

from bench.common import (
    BIN,
    ROOT,
    Measured,
    Replica,
    fresh_database,
    machine,
    measure,
    replica,
)
from bench.scrapy_peer import photo_slot
from fashion_assets.crawl import loop
from fashion_assets.settings import setting
from fashion_assets.storage import S3Store, object_key, open_store
from tests.catalog_db import query
from tests.s3server import start_moto_server

CONCURRENCY = 16  # requests in flight for either tool, in every table
ENGINE_ROUNDS = 3  # alternating crawls of each tool in the engine table
S3_BUCKET = "fa-bench"
ENGINE_RATIO = 2.5
BOUND_SLACK = 0.15
S3_SHARE = 0.70
RECRAWL_SHARE = 0.02
MEMORY_PEAK_MB = 400
MEMORY_GROWTH = 0.10
TARGETS = {
    "engine": f"no page delay, same concurrency: at least {ENGINE_RATIO}x Scrapy's photos per"
              " second",
    "politeness": f"equal politeness: fashion-assets' wall time within {BOUND_SLACK:.0%} of"
                  " the politeness bound, and below Scrapy's",
    "s3": f"S3 API server: at least {S3_SHARE:.0%} of the server's own PUT ceiling, measured"
          " in the same run",
    "recrawl": f"no photo request; requests at most {RECRAWL_SHARE:.0%} of the first crawl's",
    "storage": "bytes stored / bytes of distinct photos = 1.00",
    "memory": f"peak under {MEMORY_PEAK_MB} MB; the larger crawl's peak within"
              f" {MEMORY_GROWTH:.0%} of the smaller one's",
}


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


def _replica_counts(server: Replica) -> dict[str, int]:
    """What the replica served since its last reset, as ``Crawl``'s fields."""
    stats = server.stats()
    pages = stats["page_requests"] + stats["robots_requests"]
    return {"pages": pages, "requests": pages + stats["image_requests"],
            "image_requests": stats["image_requests"], "bytes_received": stats["bytes_sent"]}


def fashion_assets_crawl(server: Replica, database_url: str, home: Path, pace: Pace,
                         store_url: str = "", store_env: dict[str, str] | None = None,
                         label: str = "fashion-assets (file store)") -> Crawl:
    """``fashion-assets crawl`` of every brand of the replica, as a user runs it."""
    env = {"FASHION_HOME": str(home), "FASHION_DATABASE_URL": database_url,
           "FASHION_STORE_URL": store_url, **pace.fashion_assets_env(), **server.env(),
           **(store_env or {})}
    server.reset()
    command = [str(BIN / "fashion-assets"), "crawl", "--json",
               *[arg for slug in server.brands for arg in ("--brand", slug)]]
    measured = measure(command, env)
    if measured.returncode != 0:
        raise RuntimeError(f"fashion-assets crawl failed:\n{measured.stderr_tail}")
    summary = json.loads(measured.stdout)["crawls"]
    counts = _replica_counts(server)
    [(distinct,)] = query(database_url, "SELECT COALESCE(sum(byte_size), 0) FROM (SELECT"
                          " DISTINCT object_key, byte_size FROM brand_runway_draft_images) d")
    stored = _store_bytes(store_url, home, env)
    return Crawl(label, pace, sum(b["images_stored"] for b in summary), measured,
                 stored_bytes=stored, distinct_bytes=int(distinct), **counts)


def _store_bytes(store_url: str, home: Path, env: dict[str, str]) -> int:
    previous = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        return open_store(store_url, home=home).stats().bytes
    finally:
        for key, value in previous.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def scrapy_crawl(server: Replica, folder: Path, pace: Pace, s3_endpoint: str | None = None
                 ) -> Crawl:
    """The peer: Scrapy's files pipeline over the same brands, held to ``pace``.

    Each run gets a folder (and an S3 prefix) of its own: the files pipeline skips a URL whose
    file is already stored, so a second run into the same place would fetch no photo. With
    ``s3_endpoint``, its files go to the same S3 API server as fashion-assets' do.
    """
    folder.mkdir(parents=True)
    files = folder / "files"
    store = f"s3://{S3_BUCKET}/{folder.name}/" if s3_endpoint else str(files)
    s3_settings = {"AWS_ENDPOINT_URL": s3_endpoint, "AWS_USE_SSL": "False",
                   "AWS_REGION_NAME": "us-east-1", "AWS_ACCESS_KEY_ID": "bench",
                   "AWS_SECRET_ACCESS_KEY": "bench"} if s3_endpoint else {}
    settings = {"FILES_STORE": store, **s3_settings, **SCRAPY_COMMON,
                **pace.scrapy_settings(server.cdn_url)}
    server.reset()
    measured = measure(
        [str(BIN / "scrapy"), "runspider", str(ROOT / "bench" / "scrapy_peer.py"),
         "-a", f"base_url={server.base_url}", "-a", f"brands={','.join(server.brands)}",
         *[arg for key, value in settings.items() for arg in ("-s", f"{key}={value}")]],
        {}, cwd=folder)
    if measured.returncode != 0:
        raise RuntimeError(f"scrapy failed:\n{measured.stderr_tail}")
    counts = _replica_counts(server)
    blobs = _s3_objects(s3_endpoint, f"{folder.name}/") if s3_endpoint else _files(files)
    distinct = {hashlib.sha1(data).hexdigest(): len(data) for data in blobs}
    return Crawl("Scrapy files pipeline" + (" (S3 API server)" if s3_endpoint else ""), pace,
                 len(blobs), measured, stored_bytes=sum(len(b) for b in blobs),
                 distinct_bytes=sum(distinct.values()), **counts)


def _files(folder: Path) -> list[bytes]:
    return [path.read_bytes() for path in folder.rglob("*") if path.is_file()]


def _s3_objects(endpoint: str, prefix: str) -> list[bytes]:
    client = boto3.client("s3", endpoint_url=endpoint)
    keys = [item["Key"] for page in client.get_paginator("list_objects_v2").paginate(
        Bucket=S3_BUCKET, Prefix=prefix) for item in page.get("Contents", [])]
    return [client.get_object(Bucket=S3_BUCKET, Key=key)["Body"].read() for key in keys]


def s3_ceiling(endpoint: str, count: int = 1500) -> float:
    """PUTs per second the S3 API server takes from 16 requests in flight from a client that
    does nothing else, of new objects the size of the replica's photos (5.7 kB on average).

    The requests are the cheapest for the server that we know: the crawl's own
    (``S3Store.put_async``: signed, the body sent whole). boto3's ``put_object`` (Scrapy's
    files pipeline) costs the server more per PUT. A warm-up round of 100 comes first, so
    the server's first requests (its imports, the bucket's creation) are not counted.
    """
    store = S3Store(S3_BUCKET, "ceiling", endpoint_url=endpoint)

    async def put_all(bodies: list[bytes]) -> float:
        gate = asyncio.Semaphore(CONCURRENCY)

        async def one(body: bytes) -> None:
            async with gate:
                await store.put_async(object_key(body), body, "image/jpeg")

        started = time.perf_counter()
        await asyncio.gather(*(one(body) for body in bodies))
        return len(bodies) / (time.perf_counter() - started)

    loop.run(put_all([os.urandom(5700) for _ in range(100)]))
    return loop.run(put_all([os.urandom(5700) for _ in range(count)]))


def s3_env(endpoint: str) -> dict[str, str]:
    """The local S3 API server's endpoint and its fake credentials; the host's AWS files
    (a profile, a region) never reach a measured process."""
    return {"AWS_ACCESS_KEY_ID": "bench", "AWS_SECRET_ACCESS_KEY": "bench",
            "AWS_DEFAULT_REGION": "us-east-1", "AWS_ENDPOINT_URL_S3": endpoint,
            "AWS_CONFIG_FILE": "/nonexistent", "AWS_SHARED_CREDENTIALS_FILE": "/nonexistent"}


def _progress(crawl: Crawl) -> None:
    ratio = crawl.wall_over_bound
    print(f"{crawl.tool}, {crawl.pace.name}: {crawl.photos} photos, {crawl.pages} pages,"
          f" {crawl.measured.wall_s:.1f} s"
          + (f" = {ratio:.2f}x the bound of {crawl.bound_s:.1f} s" if ratio else "")
          + f", {crawl.photos_per_s:.0f} photos/s", flush=True)


def run(quick: bool) -> dict[str, Any]:
    size = (3, 5, 20) if quick else (20, 30, 40)
    memory_sizes = ((2, 5, 20), (4, 10, 20)) if quick else ((5, 25, 40), (20, 25, 40))
    results: dict[str, Any] = {"machine": machine(), "size": size}
    with tempfile.TemporaryDirectory() as tmp, replica(*size) as server:
        if urlparse(server.base_url).hostname != urlparse(server.cdn_url).hostname:
            raise RuntimeError("the politeness bound counts every page against one host;"
                               f" the replica serves {server.base_url} and {server.cdn_url}")
        work = Path(tmp)
        print(f"replica {size[0]} brands x {size[1]} shows x {size[2]} photos", flush=True)
        with fresh_database() as database_url:
            polite = fashion_assets_crawl(server, database_url, work / "fa-polite", POLITE)
            _progress(polite)
            again = fashion_assets_crawl(server, database_url, work / "fa-polite", POLITE)
            print(f"re-crawl: {again.requests} requests", flush=True)
        peer_polite = scrapy_crawl(server, work / "scrapy-polite", POLITE)
        _progress(peer_polite)
        engine, peer_engine = [], []
        for round_ in range(1, (1 if quick else ENGINE_ROUNDS) + 1):
            with fresh_database() as database_url:
                engine.append(fashion_assets_crawl(server, database_url,
                                                   work / f"fa-engine-{round_}", ENGINE))
                _progress(engine[-1])
            peer_engine.append(scrapy_crawl(server, work / f"scrapy-engine-{round_}", ENGINE))
            _progress(peer_engine[-1])
        with start_moto_server() as s3, fresh_database() as database_url:
            os.environ.update(s3_env(s3.endpoint_url))  # for this process's own S3 calls
            S3Store(S3_BUCKET, endpoint_url=s3.endpoint_url).ensure_bucket()
            # Before the crawls (an empty bucket) and after (a full one), the higher counts:
            # a server that slows as it fills must not flatter the crawl's share.
            ceilings = [s3_ceiling(s3.endpoint_url)]
            on_s3 = fashion_assets_crawl(server, database_url, work / "fa-s3", ENGINE,
                                         f"s3://{S3_BUCKET}/photos", s3_env(s3.endpoint_url),
                                         "fashion-assets (S3 API server)")
            _progress(on_s3)
            peer_on_s3 = scrapy_crawl(server, work / "scrapy-s3", ENGINE, s3.endpoint_url)
            _progress(peer_on_s3)
            ceilings.append(s3_ceiling(s3.endpoint_url))
            print(f"S3 API server alone: {ceilings[0]:.0f} then {ceilings[1]:.0f} PUTs/s",
                  flush=True)
        results.update(polite=polite, again=again, peer_polite=peer_polite, engine=engine,
                       peer_engine=peer_engine, on_s3=on_s3, peer_on_s3=peer_on_s3,
                       s3_ceilings=ceilings, photo_url=server.cdn_url)
    memory = []
    for brands, shows, photos in memory_sizes:
        with tempfile.TemporaryDirectory() as tmp, replica(brands, shows, photos) as server, \
                fresh_database() as database_url:
            crawl = fashion_assets_crawl(server, database_url, Path(tmp), POLITE)
            memory.append(crawl)
            print(f"memory, {crawl.photos} photos: {crawl.measured.peak_mb:.0f} MB", flush=True)
    results["memory"] = memory
    return results


def _met(met: bool) -> str:
    return "met" if met else "NOT met"


def _settings(settings: dict[str, str]) -> str:
    return ", ".join(f"`{key}={value}`" for key, value in settings.items())


def report(results: dict[str, Any], command: str) -> str:
    polite: Crawl = results["polite"]
    again: Crawl = results["again"]
    peer_polite: Crawl = results["peer_polite"]
    engine: list[Crawl] = results["engine"]
    peer_engine: list[Crawl] = results["peer_engine"]
    on_s3: Crawl = results["on_s3"]
    peer_on_s3: Crawl = results["peer_on_s3"]
    small, large = results["memory"]
    photo_url: str = results["photo_url"]
    ceiling = max(results["s3_ceilings"])
    engine_median = statistics.median(c.photos_per_s for c in engine)
    peer_median = statistics.median(c.photos_per_s for c in peer_engine)
    engine_ratio = engine_median / peer_median
    polite_ratio = polite.wall_over_bound or 0.0
    s3_share = on_s3.photos_per_s / ceiling
    share_requests = again.requests / polite.requests
    growth = large.measured.peak_mb / small.measured.peak_mb - 1
    peak = max(small.measured.peak_mb, large.measured.peak_mb)
    verdicts = {
        "engine": (f"{engine_ratio:.2f}x (medians of {len(engine)} rounds: "
                   f"{engine_median:.0f} against {peer_median:.0f} photos/s)",
                   engine_ratio >= ENGINE_RATIO),
        "politeness": (f"{polite_ratio:.2f}x the bound; {polite.measured.wall_s:.1f} s against"
                       f" Scrapy's {peer_polite.measured.wall_s:.1f} s",
                       polite_ratio <= 1 + BOUND_SLACK
                       and polite.measured.wall_s < peer_polite.measured.wall_s),
        "s3": (f"{s3_share:.0%} of {ceiling:.0f} PUTs/s", s3_share >= S3_SHARE),
        "recrawl": (f"{again.image_requests} photo requests, {share_requests:.2%} of the"
                    " requests", again.image_requests == 0 and share_requests <= RECRAWL_SHARE),
        "storage": (f"{polite.stored_bytes / polite.distinct_bytes:.2f}",
                    polite.stored_bytes == polite.distinct_bytes),
        "memory": (f"peak {peak:.0f} MB, growth {growth:+.1%}",
                   peak < MEMORY_PEAK_MB and abs(growth) <= MEMORY_GROWTH),
    }

    def target(key: str) -> str:
        figure, met = verdicts[key]
        return f"Target: {TARGETS[key]}. {figure}: {_met(met)}."

    brands, shows, photos = results["size"]
    lines = [
        "# Benchmarks",
        "",
        f"Measured by `{command}` (the scripts in `bench/`), all figures from one run.",
        "",
        "| machine | |",
        "|---|---|",
        *[f"| {k} | {v} |" for k, v in results["machine"].items()],
        "",
        f"Replica: {brands} brands x {shows} shows x {photos} photos, served by its own "
        "process (`fashion-assets replica serve --warm`), every photo reachable under several "
        "width URLs; its site and its photo CDN are two origins on one host "
        f"({urlparse(photo_url).hostname}, two ports), so each tool keeps one politeness "
        "budget for the whole crawl. Catalog on PostgreSQL. fashion-assets runs "
        "`fashion-assets crawl` with its default workers (one process per CPU); Scrapy is one "
        "process, `scrapy runspider bench/scrapy_peer.py` with the files pipeline, its photo "
        f"requests in a download slot of their own (`{photo_slot(photo_url)}`) so that its "
        "page delay spaces pages only, as fashion-assets' does. Memory is the peak summed PSS "
        "of each tool's process tree.",
        "",
        "Pages are every request that is not a photo (designer pages, show pages, robots.txt),"
        " counted by the replica. The politeness bound is pages x page delay: the least wall "
        "time a crawl that spaces its pages by the delay can take.",
        "",
        "## Targets",
        "",
        "| target | figure | |",
        "|---|---|---|",
        *[f"| {TARGETS[key]} | {figure} | {_met(met)} |"
          for key, (figure, met) in verdicts.items()],
        "",
        "## Settings",
        "",
        "| table | fashion-assets | Scrapy |",
        "|---|---|---|",
        f"| 1. Engine, 3. S3 API server | {_settings(ENGINE.fashion_assets_env())} | "
        f"{_settings(ENGINE.scrapy_settings(photo_url))} |",
        f"| 2. Equal politeness, 5. Storage (the crawls of table 2) | "
        f"{_settings(POLITE.fashion_assets_env())} | "
        f"{_settings(POLITE.scrapy_settings(photo_url))} |",
        "| 4. Re-crawl, 6. Memory | the same as table 2 | not run |",
        "",
        f"Every Scrapy run also sets {_settings(SCRAPY_COMMON)} and its own `FILES_STORE`. "
        f"The politeness is fashion-assets' default budget: `FASHION_PAGE_DELAY` "
        f"{POLITE.page_delay_s:g} s between two page requests to one host, "
        f"`FASHION_HOST_IMAGE_CONCURRENCY` {POLITE.host_image_concurrency} photo downloads in "
        f"flight to one host, `FASHION_HOST_CONCURRENCY` {CONCURRENCY} requests in flight to "
        "one host; Scrapy's `DOWNLOAD_DELAY` is applied per download slot to every request of "
        "the slot, hence the page delay on the host's slot and none on the photos' slot.",
        "",
        "## 1. Engine: no page delay, same concurrency",
        "",
        *_rounds_table(engine, peer_engine),
        "",
        f"{len(engine)} rounds, each a crawl of fashion-assets then one of Scrapy on the same "
        "replica; the target compares each tool's median photos per second. No page delay, "
        "so no politeness bound: the wall time is the engine's.",
        "",
        target("engine"),
        "",
        "## 2. Equal politeness",
        "",
        *_crawl_table((polite, peer_polite)),
        "",
        target("politeness"),
        "",
        "## 3. S3 API server (engine settings)",
        "",
        "| tool | photos | wall s | photos/s | share of the PUT ceiling | peak MB | vs Scrapy |",
        "|---|---|---|---|---|---|---|",
        *[f"| {c.tool} | {c.photos:,} | {c.measured.wall_s:.1f} | {c.photos_per_s:.0f} | "
          f"{c.photos_per_s / ceiling:.0%} | {c.measured.peak_mb:.0f} | "
          f"{c.photos_per_s / peer_on_s3.photos_per_s:.2f}x |" for c in (on_s3, peer_on_s3)],
        "",
        "The server bounds both: moto's standalone server, a Python process on the same cores, "
        f"takes {results['s3_ceilings'][0]:.0f} PUTs per second from {CONCURRENCY} requests "
        "in flight from a client that does nothing else (the crawl's own PUTs, the cheapest "
        "for the server: boto3's, Scrapy's, cost it more) before the crawls and "
        f"{results['s3_ceilings'][1]:.0f} after them (measured in this run); the higher, "
        f"{ceiling:.0f}, is the ceiling, as no crawler can store photos faster on it. "
        "No page delay, so the store, not politeness, is what bounds these crawls.",
        "",
        target("s3"),
        "",
        "## 4. No-change re-crawl",
        "",
        "| | requests | photo requests | MB received | wall s |",
        "|---|---|---|---|---|",
        f"| first crawl | {polite.requests} | {polite.image_requests} | "
        f"{polite.bytes_received / 1e6:.1f} | {polite.measured.wall_s:.1f} |",
        f"| re-crawl | {again.requests} | {again.image_requests} | "
        f"{again.bytes_received / 1e6:.2f} | {again.measured.wall_s:.1f} |",
        f"| share | {share_requests:.2%} | | "
        f"{again.bytes_received / polite.bytes_received:.2%} | "
        f"{again.measured.wall_s / polite.measured.wall_s:.0%} |",
        "",
        "The first crawl is fashion-assets' in table 2, the re-crawl the same command again "
        "on its catalog and store.",
        "",
        target("recrawl"),
        "",
        "## 5. Storage",
        "",
        "| tool | bytes stored | bytes of distinct photos | ratio |",
        "|---|---|---|---|",
        *[f"| {c.tool} | {c.stored_bytes:,} | {c.distinct_bytes:,} | "
          f"{c.stored_bytes / c.distinct_bytes:.2f} |" for c in (polite, peer_polite)],
        "",
        "The crawls of table 2. fashion-assets names each object by the sha1 of its bytes; "
        "Scrapy names files by the sha1 of the URL, so a photo requested under two URLs is "
        "stored twice (here each crawler requests one URL per look, so Scrapy stores no "
        "duplicate either).",
        "",
        target("storage"),
        "",
        "## 6. Memory",
        "",
        "| photos | peak MB | wall s |",
        "|---|---|---|",
        *[f"| {c.photos:,} | {c.measured.peak_mb:.0f} | {c.measured.wall_s:.1f} |"
          for c in (small, large)],
        "",
        f"fashion-assets alone, a replica of {small.photos:,} photos then one of "
        f"{large.photos:,}; growth from the smaller crawl's peak to the larger's: "
        f"{growth:+.1%}.",
        "",
        target("memory"),
        "",
    ]
    return "\n".join(lines)


def _rounds_table(crawls: list[Crawl], peers: list[Crawl]) -> list[str]:
    """The engine's rounds, each tool's median last."""
    def row(label: str, c: Crawl, ratio: str) -> str:
        return (f"| {label} | {c.tool} | {c.photos:,} | {c.pages:,} | {c.measured.wall_s:.1f} | "
                f"{c.photos_per_s:.0f} | {c.requests:,} | {c.bytes_received / 1e6:.1f} | "
                f"{c.measured.peak_mb:.0f} | {ratio} |")

    rows = []
    for n, (crawl, peer) in enumerate(zip(crawls, peers, strict=True), start=1):
        rows += [row(str(n), crawl, f"{crawl.photos_per_s / peer.photos_per_s:.2f}x"),
                 row(str(n), peer, "")]
    medians = [statistics.median(c.photos_per_s for c in of) for of in (crawls, peers)]
    walls = [statistics.median(c.measured.wall_s for c in of) for of in (crawls, peers)]
    return [
        "| round | tool | photos | pages | wall s | photos/s | requests | MB received | peak MB"
        " | fashion-assets / Scrapy |",
        "|---|---|---|---|---|---|---|---|---|---|",
        *rows,
        f"| median | {crawls[0].tool} | | | {walls[0]:.1f} | {medians[0]:.0f} | | | | "
        f"{medians[0] / medians[1]:.2f}x |",
        f"| median | {peers[0].tool} | | | {walls[1]:.1f} | {medians[1]:.0f} | | | | |",
    ]


def _crawl_table(crawls: tuple[Crawl, Crawl]) -> list[str]:
    """A table of crawls, the last one Scrapy's: the ratio column compares with it."""
    peer = crawls[-1]
    return [
        "| tool | photos | pages | politeness bound s | wall s | wall / bound | photos/s |"
        " requests | MB received | peak MB | vs Scrapy |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
        *[f"| {c.tool} | {c.photos:,} | {c.pages:,} | {c.bound_s:.1f} | "
          f"{c.measured.wall_s:.1f} | "
          f"{'-' if c.wall_over_bound is None else f'{c.wall_over_bound:.2f}'} | "
          f"{c.photos_per_s:.0f} | {c.requests:,} | {c.bytes_received / 1e6:.1f} | "
          f"{c.measured.peak_mb:.0f} | {c.photos_per_s / peer.photos_per_s:.2f}x |"
          for c in crawls],
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small sizes")
    parser.add_argument("--output", type=Path, help="default: BENCHMARKS.md, or with --quick"
                        " BENCHMARKS.quick.md in the temp folder")
    args = parser.parse_args()
    output = args.output or (Path(tempfile.gettempdir()) / "BENCHMARKS.quick.md" if args.quick
                             else ROOT / "BENCHMARKS.md")
    results = run(args.quick)
    command = "python -m bench.run" + (" --quick" if args.quick else "")
    output.write_text(report(results, command))
    print(f"wrote {output}")


if __name__ == "__main__":
    main()
