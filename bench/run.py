"""Run every benchmark side by side with Scrapy and write BENCHMARKS.md.

    python -m bench.run            # the full sizes (about half an hour on 2 idle cores)
    python -m bench.run --quick    # small sizes, to check the harness (written to a temp file)

Each figure is measured here, in one run, against the project's replica served by its own
process: fashion-assets (catalog on PostgreSQL, the file store, then the S3 API server) and
Scrapy with its files pipeline. fashion-assets crawls through the daemon's path, as a
schedule's crawl goes (``bench/deployed.py``): a ``dagster dev`` started before each measured
crawl with its settings, the command submitting to it, the runs launched by its daemon; the
wall time is the command's, the memory and CPU the command's and its run processes'.
Each comparison holds both tools to the same settings, and the two questions get a table
each, because one setting cannot answer both:

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
import tempfile
import time
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
from bench.deployed import deployment_up, environment, measure_runs, warm_bytecode
from bench.peers import CONCURRENCY, ENGINE, POLITE, SCRAPY_COMMON, Crawl, Pace
from bench.run_report import report
from fashion_assets.crawl import loop
from fashion_assets.storage import S3Store, object_key, open_store
from tests.catalog_db import query
from tests.s3server import start_moto_server

ENGINE_ROUNDS = 3  # alternating crawls of each tool in the engine table
S3_BUCKET = "fa-bench"


def _replica_counts(server: Replica) -> dict[str, int]:
    """What the replica served since its last reset, as ``Crawl``'s fields."""
    stats = server.stats()
    pages = stats["page_requests"] + stats["robots_requests"]
    return {"pages": pages, "requests": pages + stats["image_requests"],
            "image_requests": stats["image_requests"], "bytes_received": stats["bytes_sent"]}


def fashion_assets_crawl(server: Replica, database_url: str, home: Path, pace: Pace,
                         store_url: str = "", store_env: dict[str, str] | None = None,
                         label: str = "fashion-assets (file store)") -> Crawl:
    """``fashion-assets crawl`` of every brand of the replica, through the daemon's path as
    a schedule's crawl goes: a deployment up before the crawl (``bench.deployed``), whose
    code server has the crawl's settings, and the command submitting to it
    (``FASHION_DAGSTER_URL``); measured: the command, and the run processes it started.
    ``home`` holds the instance (``home/dagster``), kept from one crawl to the next."""
    env = {"FASHION_HOME": str(home), "FASHION_DATABASE_URL": database_url,
           "FASHION_STORE_URL": store_url, **pace.fashion_assets_env(), **server.env(),
           **(store_env or {})}
    command = [str(BIN / "fashion-assets"), "crawl", "--json",
               *[arg for slug in server.brands for arg in ("--brand", slug)]]
    with deployment_up(env, home / "dagster") as deployed:
        server.reset()
        measured = measure_runs(command, env, deployed)
        counts = _replica_counts(server)
    if measured.returncode != 0:
        raise RuntimeError(f"fashion-assets crawl failed:\n{measured.stderr_tail}")
    summary = json.loads(measured.stdout)["crawls"]
    [(distinct,)] = query(database_url, "SELECT COALESCE(sum(byte_size), 0) FROM (SELECT"
                          " DISTINCT object_key, byte_size FROM brand_runway_draft_images) d")
    stored = _store_bytes(store_url, home, env)
    return Crawl(label, pace, sum(b["images_stored"] for b in summary), measured,
                 stored_bytes=stored, distinct_bytes=int(distinct), **counts)


def _store_bytes(store_url: str, home: Path, env: dict[str, str]) -> int:
    with environment(env):
        return open_store(store_url, home=home).stats().bytes


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
          + f", {crawl.photos_per_s:.0f} photos/s, " + _memory(crawl.measured), flush=True)


def _memory(measured: Measured) -> str:
    """The peak memory of a measured crawl, and over which processes."""
    runs = (f" over the command and its {measured.run_processes} run processes (the runs"
            f" alone {measured.peak_runs_mb:.0f} MB)" if measured.run_processes else "")
    return (f"peak {measured.peak_mb:.0f} MB PSS ({measured.peak_rss_mb:.0f} MB RSS){runs},"
            f" {measured.cpu_s:.1f} CPU s")


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
            print(f"memory, {crawl.photos} photos, {crawl.measured.wall_s:.1f} s: "
                  + _memory(crawl.measured), flush=True)
    results["memory"] = memory
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small sizes")
    parser.add_argument("--output", type=Path, help="default: BENCHMARKS.md, or with --quick"
                        " BENCHMARKS.quick.md in the temp folder")
    args = parser.parse_args()
    output = args.output or (Path(tempfile.gettempdir()) / "BENCHMARKS.quick.md" if args.quick
                             else ROOT / "BENCHMARKS.md")
    with tempfile.TemporaryDirectory(prefix="fa-bench-pycache-") as cache:
        warm_bytecode(Path(cache))
        results = run(args.quick)
    command = "python -m bench.run" + (" --quick" if args.quick else "")
    output.write_text(report(results, command))
    print(f"wrote {output}")


if __name__ == "__main__":
    main()
