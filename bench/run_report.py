"""BENCHMARKS.md from the figures of one ``python -m bench.run``: the targets, the settings,
a table per question."""

from __future__ import annotations

import statistics
from typing import Any
from urllib.parse import urlparse

from bench.peer_slots import photo_slot
from bench.peers import CONCURRENCY, ENGINE, POLITE, SCRAPY_COMMON, Crawl

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
        "budget for the whole crawl. Catalog on PostgreSQL. fashion-assets crawls through "
        "the daemon's path, as a schedule's crawl goes: a `dagster dev` is started before "
        "each measured crawl with the crawl's settings (its code server's environment, which "
        "the run processes inherit) and a `DAGSTER_HOME` of its own, and stopped after it; "
        "the measured command, `fashion-assets crawl --json --brand ...`, submits to it "
        "(`FASHION_DAGSTER_URL`), its daemon launches the runs (a process per run spawned by "
        "the code server, as many at once as CPUs), and the wall time is the command's, from "
        "its start to its last run's end. Scrapy is one "
        "process, `scrapy runspider bench/scrapy_peer.py` with the files pipeline, its photo "
        f"requests in a download slot of their own (`{photo_slot(photo_url)}`) so that its "
        "page delay spaces pages only, as fashion-assets' does. Memory is the peak summed PSS "
        "of Scrapy's process tree, and of the fashion-assets command's process with the run "
        "processes it started (the webserver, daemon and code server, up whether a crawl "
        "runs or not, left out).",
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
