"""Run every benchmark side by side with Scrapy and write BENCHMARKS.md.

    python -m bench.run            # the full sizes (a few minutes on 2 cores)
    python -m bench.run --quick    # small sizes, to check the harness

Each figure is measured here, in one run, against the project's replica served by its own
process: fashion-assets (catalog on PostgreSQL, the file store, then the S3 API server) and
Scrapy with its files pipeline, at the same concurrency (16 requests at a time).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import boto3
import botocore.config

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
from fashion_assets.settings import setting
from fashion_assets.storage import S3Store, open_store
from tests.catalog_db import query
from tests.s3server import start_moto_server

CONCURRENCY = 16
S3_BUCKET = "fa-bench"
TARGETS = {
    "speed": "at least 2x Scrapy's photos per second, end to end",
    "recrawl": "no photo request; requests at most 2% of the first crawl's",
    "storage": "bytes stored / bytes of distinct photos = 1.00",
    "memory": "peak under 400 MB; the 20,000-photo crawl within 10% of the 5,000-photo one",
}


@dataclass(frozen=True)
class Crawl:
    """One measured crawl: what it stored and what it asked of the replica."""

    tool: str
    photos: int
    measured: Measured
    requests: int
    image_requests: int
    bytes_received: int
    stored_bytes: int
    distinct_bytes: int

    @property
    def photos_per_s(self) -> float:
        return self.photos / self.measured.wall_s


def fashion_assets_crawl(server: Replica, database_url: str, home: Path, store_url: str = "",
                         extra_env: dict[str, str] | None = None,
                         label: str = "fashion-assets (file store)") -> Crawl:
    """``fashion-assets crawl`` of every brand of the replica, as a user runs it."""
    env = {"FASHION_HOME": str(home), "FASHION_DATABASE_URL": database_url,
           "FASHION_STORE_URL": store_url, "FASHION_IMAGE_CONCURRENCY": str(CONCURRENCY),
           "FASHION_HOST_CONCURRENCY": str(CONCURRENCY), **server.env(), **(extra_env or {})}
    server.reset()
    command = [str(BIN / "fashion-assets"), "crawl", "--json",
               *[arg for slug in server.brands for arg in ("--brand", slug)]]
    measured = measure(command, env)
    if measured.returncode != 0:
        raise RuntimeError(f"fashion-assets crawl failed:\n{measured.stderr_tail}")
    summary = json.loads(measured.stdout)["crawls"]
    stats = server.stats()
    [(distinct,)] = query(database_url, "SELECT COALESCE(sum(byte_size), 0) FROM (SELECT"
                          " DISTINCT object_key, byte_size FROM brand_runway_draft_images) d")
    stored = _store_bytes(store_url, home, env)
    return Crawl(label, sum(b["images_stored"] for b in summary), measured,
                 stats["page_requests"] + stats["image_requests"] + stats["robots_requests"],
                 stats["image_requests"], stats["bytes_sent"], stored, int(distinct))


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


def scrapy_crawl(server: Replica, workdir: Path, s3_endpoint: str | None = None) -> Crawl:
    """The peer: Scrapy's files pipeline over the same brands, same concurrency.

    With ``s3_endpoint``, its files go to the same S3 API server as fashion-assets' do.
    """
    files = workdir / "scrapy-files"
    store = f"s3://{S3_BUCKET}/scrapy/" if s3_endpoint else str(files)
    s3_settings = ["-s", f"AWS_ENDPOINT_URL={s3_endpoint}", "-s", "AWS_USE_SSL=False",
                   "-s", "AWS_REGION_NAME=us-east-1", "-s", "AWS_ACCESS_KEY_ID=bench",
                   "-s", "AWS_SECRET_ACCESS_KEY=bench"] if s3_endpoint else []
    server.reset()
    measured = measure(
        [str(BIN / "scrapy"), "runspider", str(ROOT / "bench" / "scrapy_peer.py"),
         "-a", f"base_url={server.base_url}", "-a", f"brands={','.join(server.brands)}",
         "-s", f"FILES_STORE={store}", *s3_settings,
         "-s", 'ITEM_PIPELINES={"scrapy.pipelines.files.FilesPipeline": 1}',
         "-s", f"CONCURRENT_REQUESTS={CONCURRENCY}",
         "-s", f"CONCURRENT_REQUESTS_PER_DOMAIN={CONCURRENCY}",
         "-s", "ROBOTSTXT_OBEY=True", "-s", "TELNETCONSOLE_ENABLED=False",
         "-s", "LOG_LEVEL=WARNING"],
        {"PYTHONPATH": str(ROOT)}, cwd=workdir)
    if measured.returncode != 0:
        raise RuntimeError(f"scrapy failed:\n{measured.stderr_tail}")
    stats = server.stats()
    blobs = _s3_objects(s3_endpoint, "scrapy/") if s3_endpoint else _files(files)
    distinct = {hashlib.sha1(data).hexdigest(): len(data) for data in blobs}
    return Crawl("Scrapy files pipeline" + (" (S3 API server)" if s3_endpoint else ""),
                 len(blobs), measured,
                 stats["page_requests"] + stats["image_requests"] + stats["robots_requests"],
                 stats["image_requests"], stats["bytes_sent"], sum(len(b) for b in blobs),
                 sum(distinct.values()))


def _files(folder: Path) -> list[bytes]:
    return [path.read_bytes() for path in folder.rglob("*") if path.is_file()]


def _s3_objects(endpoint: str, prefix: str) -> list[bytes]:
    client = boto3.client("s3", endpoint_url=endpoint)
    keys = [item["Key"] for page in client.get_paginator("list_objects_v2").paginate(
        Bucket=S3_BUCKET, Prefix=prefix) for item in page.get("Contents", [])]
    return [client.get_object(Bucket=S3_BUCKET, Key=key)["Body"].read() for key in keys]


def s3_ceiling(endpoint: str, count: int = 1500) -> float:
    """PUTs per second the S3 API server takes from 16 threads doing nothing else."""
    client = boto3.client("s3", endpoint_url=endpoint,
                          config=botocore.config.Config(max_pool_connections=CONCURRENCY))
    bodies = [os.urandom(5700) for _ in range(count)]
    started = time.perf_counter()
    with ThreadPoolExecutor(CONCURRENCY) as pool:
        list(pool.map(lambda body: client.put_object(
            Bucket=S3_BUCKET, Key=f"ceiling/{hashlib.sha1(body).hexdigest()}", Body=body,
            IfNoneMatch="*"), bodies))
    return count / (time.perf_counter() - started)


def s3_env(endpoint: str) -> dict[str, str]:
    return {"AWS_ACCESS_KEY_ID": "bench", "AWS_SECRET_ACCESS_KEY": "bench",
            "AWS_DEFAULT_REGION": "us-east-1", "AWS_ENDPOINT_URL_S3": endpoint}


def run(quick: bool) -> dict[str, Any]:
    size = (3, 5, 20) if quick else (20, 30, 40)
    memory_sizes = ((2, 5, 20), (4, 10, 20)) if quick else ((5, 25, 40), (20, 25, 40))
    results: dict[str, Any] = {"machine": machine(), "size": size}
    with tempfile.TemporaryDirectory() as tmp, replica(*size) as server:
        work = Path(tmp)
        print(f"replica {size[0]} brands x {size[1]} shows x {size[2]} photos", flush=True)
        with fresh_database() as database_url:
            first = fashion_assets_crawl(server, database_url, work / "fa-file")
            print(f"fashion-assets, file store: {first.photos_per_s:.0f} photos/s", flush=True)
            again = fashion_assets_crawl(server, database_url, work / "fa-file")
            print(f"re-crawl: {again.requests} requests", flush=True)
        peer = scrapy_crawl(server, work)
        print(f"Scrapy: {peer.photos_per_s:.0f} photos/s", flush=True)
        with start_moto_server() as s3, fresh_database() as database_url:
            os.environ.update(s3_env(s3.endpoint_url))  # for this process's own S3 calls
            S3Store(S3_BUCKET, endpoint_url=s3.endpoint_url).ensure_bucket()
            on_s3 = fashion_assets_crawl(server, database_url, work / "fa-s3",
                                         f"s3://{S3_BUCKET}/photos", s3_env(s3.endpoint_url),
                                         "fashion-assets (S3 API server)")
            print(f"fashion-assets, S3 store: {on_s3.photos_per_s:.0f} photos/s", flush=True)
            peer_on_s3 = scrapy_crawl(server, work, s3.endpoint_url)
            print(f"Scrapy, S3 store: {peer_on_s3.photos_per_s:.0f} photos/s", flush=True)
            ceiling = s3_ceiling(s3.endpoint_url)
            print(f"S3 API server alone: {ceiling:.0f} PUTs/s", flush=True)
        results.update(first=first, again=again, peer=peer, on_s3=on_s3, peer_on_s3=peer_on_s3,
                       s3_ceiling=ceiling)
    memory = []
    for brands, shows, photos in memory_sizes:
        with tempfile.TemporaryDirectory() as tmp, replica(brands, shows, photos) as server, \
                fresh_database() as database_url:
            crawl = fashion_assets_crawl(server, database_url, Path(tmp))
            memory.append(crawl)
            print(f"memory, {crawl.photos} photos: {crawl.measured.peak_mb:.0f} MB", flush=True)
    results["memory"] = memory
    return results


def report(results: dict[str, Any], command: str) -> str:
    first: Crawl = results["first"]
    again: Crawl = results["again"]
    peer: Crawl = results["peer"]
    on_s3: Crawl = results["on_s3"]
    peer_on_s3: Crawl = results["peer_on_s3"]
    small, large = results["memory"]
    ratio = first.photos_per_s / peer.photos_per_s
    share_requests = again.requests / first.requests
    growth = large.measured.peak_mb / small.measured.peak_mb - 1
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
        "width URLs. Catalog on PostgreSQL. "
        f"{CONCURRENCY} requests at a time for both tools. fashion-assets runs "
        "`fashion-assets crawl` with its default workers (one process per CPU); Scrapy is "
        "one process. Memory is the peak summed PSS of each tool's process tree. "
        "Politeness is not yet equal: fashion-assets runs with its setting "
        f"`FASHION_PAGE_DELAY={setting(os.environ, 'FASHION_PAGE_DELAY')}` (seconds at "
        "least between two page requests to one host, per client), Scrapy with no delay, "
        "so the first crawl compares a paced crawl with an unpaced one.",
        "",
        "## 1. First full crawl",
        "",
        "| tool | photos | wall s | photos/s | requests | MB received | peak MB | vs Scrapy |",
        "|---|---|---|---|---|---|---|---|",
        *[_crawl_row(c, peer) for c in (first, peer)],
        *[_crawl_row(c, peer_on_s3) for c in (on_s3, peer_on_s3)],
        "",
        "The ratio column compares each tool with Scrapy on the same store.",
        "",
        f"Target: {TARGETS['speed']}. File store: {ratio:.2f}x "
        f"({'met' if ratio >= 2 else 'NOT met'}). S3 API server: "
        f"{on_s3.photos_per_s / peer_on_s3.photos_per_s:.2f}x Scrapy on the same server. "
        "The server bounds both: moto's standalone server, a Python process on the same two "
        f"cores, takes {results['s3_ceiling']:.0f} PUTs per second from 16 threads that do "
        "nothing else (measured in the same run), so on it no crawler can store photos faster "
        f"than that; fashion-assets reaches {on_s3.photos_per_s / results['s3_ceiling']:.0%} of"
        " it.",
        "",
        "## 2. No-change re-crawl",
        "",
        "| | requests | photo requests | MB received | wall s |",
        "|---|---|---|---|---|",
        f"| first crawl | {first.requests} | {first.image_requests} | "
        f"{first.bytes_received / 1e6:.1f} | {first.measured.wall_s:.1f} |",
        f"| re-crawl | {again.requests} | {again.image_requests} | "
        f"{again.bytes_received / 1e6:.2f} | {again.measured.wall_s:.1f} |",
        f"| share | {share_requests:.2%} | | {again.bytes_received / first.bytes_received:.2%}"
        f" | {again.measured.wall_s / first.measured.wall_s:.0%} |",
        "",
        f"Target: {TARGETS['recrawl']}. "
        f"{'Met' if again.image_requests == 0 and share_requests <= 0.02 else 'NOT met'}.",
        "",
        "## 3. Storage",
        "",
        "| tool | bytes stored | bytes of distinct photos | ratio |",
        "|---|---|---|---|",
        *[f"| {c.tool} | {c.stored_bytes:,} | {c.distinct_bytes:,} | "
          f"{c.stored_bytes / c.distinct_bytes:.2f} |" for c in (first, peer)],
        "",
        f"Target: {TARGETS['storage']}. "
        f"{'Met' if first.stored_bytes == first.distinct_bytes else 'NOT met'}. fashion-assets "
        "names each object by the sha1 of its bytes; Scrapy names files by the sha1 of the "
        "URL, so a photo requested under two URLs is stored twice (here each crawler requests "
        "one URL per look, so Scrapy stores no duplicate either).",
        "",
        "## 4. Memory",
        "",
        "| photos | peak MB | wall s |",
        "|---|---|---|",
        *[f"| {c.photos:,} | {c.measured.peak_mb:.0f} | {c.measured.wall_s:.1f} |"
          for c in (small, large)],
        "",
        f"Target: {TARGETS['memory']}. Growth from the smaller to the larger crawl: "
        f"{growth:+.1%} "
        f"({'met' if large.measured.peak_mb < 400 and abs(growth) <= 0.10 else 'NOT met'}).",
        "",
    ]
    return "\n".join(lines)


def _crawl_row(crawl: Crawl, peer: Crawl) -> str:
    return (f"| {crawl.tool} | {crawl.photos:,} | {crawl.measured.wall_s:.1f} | "
            f"{crawl.photos_per_s:.0f} | {crawl.requests:,} | {crawl.bytes_received / 1e6:.1f} "
            f"| {crawl.measured.peak_mb:.0f} | {crawl.photos_per_s / peer.photos_per_s:.2f}x |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small sizes")
    parser.add_argument("--output", type=Path, default=ROOT / "BENCHMARKS.md")
    args = parser.parse_args()
    results = run(args.quick)
    command = "python -m bench.run" + (" --quick" if args.quick else "")
    args.output.write_text(report(results, command))
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
