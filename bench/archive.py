"""The pipeline at the archive's size: Vogue Runway's shape, crawled and re-crawled (issue 19).

    python -m bench.archive [--fraction 0.05] [--photos 40] [--recrawl-batches N,N]
                            [--write] [--save FILE]
    python -m bench.archive --report FILE [--write]

The archive-shaped replica (``fashion-assets replica serve --archive tests/data``: every
designer and show of the real listings, ``--photos`` small looks a show) serves in its own
process; ``--fraction`` takes that part of its designers (0.05 runs in under ten minutes;
1.0, the whole archive, is for release checks). On a fresh PostgreSQL catalog and the file
store, as a team would start:

1. ``fashion-assets brands discover`` registers the designers the directory lists;
2. ``fashion-assets crawl --all`` crawls every one (the first crawl): wall time, photos/s,
   CPU seconds per 1,000 photos, the peak memory of every minute, every show of the replica
   drafted or recorded with a reason, the catalog's and the store's size;
3. beside it, Scrapy's files pipeline on a 5% sample of the same replica's designers, with
   the same politeness (``bench/run.py``'s equal pace): its CPU seconds per 1,000 photos;
4. ``fashion-assets crawl --all`` again (the no-change re-crawl): its requests against the
   first crawl's, its wall time, and what of it lies beyond the page delay's floor per run;
   with ``--recrawl-batches 1,100``, again at each of those ``FASHION_CRAWL_BATCH_BRANDS``
   (what batching does to Dagster's per-run overhead);
5. with every show in the catalog: the coverage sensor's tick, the review queue's first
   page, the ``/crawler`` page and ``fashion-assets status``; then every draft approved, the
   promotion sensor's tick, the promotion of every draft, and the coverage tick again.

The figures go to the terminal, and with ``--write`` to docs/archive-benchmarks.md (a section
per fraction). ``--save`` keeps the measurements (a pickle, rewritten after every phase) so
that a two-hour run of the whole archive is not lost to a later phase's failure, and
``--report`` writes the figures again from them without crawling.
"""

from __future__ import annotations

import argparse
import json
import pickle
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC
from pathlib import Path
from typing import Any

from bench.archive_report import report
from bench.common import (
    BIN,
    Measured,
    Replica,
    fresh_database,
    machine,
    measure,
    median_ms,
    replica,
)
from bench.reliability import publish
from bench.run import POLITE, scrapy_crawl
from fashion_assets import settings
from fashion_assets.replica.archive import in_fraction
from fashion_assets.storage import open_store
from tests.catalog_db import query

DOC = Path(__file__).resolve().parents[1] / "docs" / "archive-benchmarks.md"
SCRAPY_SAMPLE = 0.05


@dataclass(frozen=True)
class Step:
    """One command of the bench, measured, with what the replica served meanwhile."""

    measured: Measured
    requests: int
    pages: int
    photo_requests: int
    output: Any


def run_command(server: Replica, args: list[str], env: dict[str, str]) -> Step:
    server.reset()
    measured = measure([str(BIN / "fashion-assets"), *args], env)
    if measured.returncode != 0:
        raise RuntimeError(f"fashion-assets {' '.join(args)} failed:\n{measured.stderr_tail}")
    stats = server.stats()
    pages = stats["page_requests"] + stats["robots_requests"]
    output = json.loads(measured.stdout) if measured.stdout.strip() else None
    return Step(measured, pages + stats["image_requests"], pages, stats["image_requests"],
                output)


def outcomes(catalog: str) -> dict[str, int]:
    """Each show's last ingest outcome, counted: what the crawl did with every show."""
    rows = query(catalog, "SELECT outcome, count(*) FROM (SELECT DISTINCT ON (source_url) "
                 "source_url, outcome FROM ingest_log ORDER BY source_url, id DESC) last "
                 "GROUP BY outcome")
    return {outcome: count for outcome, count in rows}


def sizes(catalog: str, home: Path) -> dict[str, float]:
    [(catalog_bytes,)] = query(catalog, "SELECT pg_database_size(current_database())")
    store = open_store(f"file://{home / 'objects'}", home=home).stats()
    return {"catalog_mb": catalog_bytes / 1e6, "store_mb": store.bytes / 1e6,
            "objects": store.objects}


def catalog_figures(catalog: str, env: dict[str, str], store_url: str, home: Path
                    ) -> dict[str, Any]:
    """With every show of the crawl in the catalog: the coverage sensor's tick, the
    promotion sensor's tick once every draft is approved, the hashing of the photos it
    compares (the promotion job's ``photo_hashes`` step), the promotion of every draft, the
    coverage tick again on the promoted catalog, and what editors and operators open: the
    review queue's first page, the ``/crawler`` page and ``fashion-assets status``'s report.
    The sensors are evaluated as Dagster does (``build_sensor_context``, the resources from
    the environment), the pages through HTTP to the page as ``review serve`` runs it."""
    from dagster import DagsterInstance, build_sensor_context
    from sqlalchemy import text

    from fashion_assets.catalog.entities import RUNWAY
    from fashion_assets.catalog.photo_hashes import hash_photos, unhashed_for_promotion
    from fashion_assets.catalog.promotion import promote
    from fashion_assets.definitions import build_definitions
    from fashion_assets.resources import catalog_engine, resources_from_env
    from fashion_assets.status import catalog_status, crawler_status
    from fashion_assets.storage import open_store
    from tests.integration.test_review_app import review_app, serve, sign_in

    engine = catalog_engine(catalog)
    drafts = query(catalog, "SELECT count(*) FROM brand_runway_drafts")[0][0]
    # Every draft waits for review after a first crawl: far past backpressure's pause, which
    # would skip the coverage tick before its query. The tick's own work is measured here.
    sensor_env = {**env, "FASHION_BACKPRESSURE_PAUSE_PENDING": str(drafts + 1),
                  "FASHION_BACKPRESSURE_ALERT_PENDING": str(drafts + 1)}
    resources = resources_from_env(sensor_env)
    definitions = build_definitions(sensor_env)
    instance = DagsterInstance.ephemeral()

    def tick(name: str) -> Callable[[], object]:
        sensor = definitions.resolve_sensor_def(name)

        def evaluate() -> object:
            with build_sensor_context(instance=instance, resources=resources) as context:
                return sensor(context)
        return evaluate

    figures: dict[str, Any] = {"drafts": drafts}
    figures["coverage_tick_ms"] = median_ms(tick("coverage_sensor"))
    store = open_store(store_url, home=home)
    with serve(review_app(engine, store)) as url:
        client = sign_in(url)
        figures["queue_ms"] = median_ms(lambda: client.get("/").raise_for_status())
        figures["crawler_ms"] = median_ms(lambda: client.get("/crawler").raise_for_status())
    figures["status_ms"] = median_ms(lambda: (catalog_status(engine, store_url, home),
                                               crawler_status(engine)))
    with engine.begin() as conn:
        conn.execute(text("UPDATE brand_runway_drafts SET status = 'approved'"))
    figures["promotion_tick_ms"] = median_ms(tick("approved_drafts_sensor"))
    # The promotion job's ``photo_hashes`` step, as it runs before the promotion.
    started = time.perf_counter()
    hashed = hash_photos(engine, store, unhashed_for_promotion(engine, RUNWAY))
    figures["hashing_s"] = time.perf_counter() - started
    figures["photos_hashed"] = hashed.hashed
    started = time.perf_counter()
    result = promote(engine, RUNWAY)
    figures["promotion_s"] = time.perf_counter() - started
    figures["entries"] = result.entries_created
    figures["coverage_tick_promoted_ms"] = median_ms(tick("coverage_sensor"))
    engine.dispose()
    return figures


@dataclass(frozen=True)
class RunTimes:
    """Where the runs of one crawl spent their time, from the Dagster instance's records:
    each run from its creation to its end (its process started, the definitions loaded, its
    steps, its events), and the part of it its steps took."""

    runs: int
    run_s: float
    step_s: float

    @property
    def dagster_s(self) -> float:
        """The runs' time outside their steps: what Dagster does for a run beside the work,
        the cost that batching amortizes."""
        return self.run_s - self.step_s


def _run_records(env: dict[str, str], crawl: Step, *, steps: bool = False
                 ) -> tuple[list[Any], list[Any]]:
    """The records of the runs ``crawl`` printed, and with ``steps`` their steps' stats, read
    from the instance that ``fashion-assets crawl`` ran them on (``FASHION_HOME/dagster``)."""
    from dagster import DagsterInstance, RunsFilter

    run_ids = [summary["run_id"] for summary in crawl.output["crawls"]]
    with DagsterInstance.from_config(str(settings.dagster_home(env))) as instance:
        records = list(instance.get_run_records(RunsFilter(run_ids=run_ids)))
        stats = [step for run_id in run_ids for step in instance.get_run_step_stats(run_id)
                 ] if steps else []
    return records, stats


def run_times(env: dict[str, str], crawl: Step) -> RunTimes:
    """The run and step times of the runs ``crawl`` printed."""
    records, steps = _run_records(env, crawl, steps=True)
    created = [(r.create_timestamp if r.create_timestamp.tzinfo
                else r.create_timestamp.replace(tzinfo=UTC)).timestamp() for r in records]
    return RunTimes(len(records),
                    sum(r.end_time - start for r, start in zip(records, created, strict=True)
                        if r.end_time),
                    sum(s.end_time - s.start_time for s in steps
                        if s.start_time and s.end_time))


def run_spans(env: dict[str, str], crawl: Step) -> list[tuple[float, float]]:
    """When each run ``crawl`` printed started and ended (epoch seconds)."""
    records, _ = _run_records(env, crawl)
    return sorted((r.start_time, r.end_time) for r in records if r.start_time and r.end_time)


def run_archive(fraction: float, photos: int, save: Path | None = None,
                recrawl_batches: tuple[int, ...] = ()) -> dict[str, Any]:
    result: dict[str, Any] = {"fraction": fraction, "photos_per_show": photos,
                              "machine": machine()}

    def keep(**measured: Any) -> None:
        result.update(measured)
        if save:
            save.write_bytes(pickle.dumps(result))

    with tempfile.TemporaryDirectory(prefix="fa-archive-") as folder, \
            replica(0, 0, photos, archive_fraction=fraction) as server, \
            fresh_database() as catalog:
        home = Path(folder) / "fashion"
        env = {"FASHION_HOME": str(home), "FASHION_DATABASE_URL": catalog,
               "FASHION_STORE_URL": "", **POLITE.fashion_assets_env(), **server.env()}
        print(f"archive replica: {len(server.brands)} designers", flush=True)
        discovery = run_command(server, ["brands", "discover", "--json"], env)
        keep(designers=len(server.brands), discovery=discovery)
        print(f"discovery: {discovery.measured.wall_s:.0f} s", flush=True)
        started_at = time.time()
        first = run_command(server, ["crawl", "--all", "--json"], env)
        print(f"first crawl: {first.measured.wall_s:.0f} s", flush=True)
        drafted = query(catalog, "SELECT count(*), COALESCE(sum(stored_images), 0) FROM "
                        "brand_runway_drafts")[0]
        keep(first=first, drafts=drafted[0], photos=drafted[1], outcomes=outcomes(catalog),
             sizes=sizes(catalog, home), first_started_at=started_at,
             first_spans=run_spans(env, first))
        again = run_command(server, ["crawl", "--all", "--json"], env)
        keep(again=again, again_runs=run_times(env, again))
        print(f"re-crawl: {again.measured.wall_s:.0f} s, {again.requests} requests", flush=True)
        batched: list[tuple[int, Step, RunTimes]] = []
        for size in recrawl_batches:
            step = run_command(server, ["crawl", "--all", "--json"],
                               {**env, "FASHION_CRAWL_BATCH_BRANDS": str(size)})
            batched.append((size, step, run_times(env, step)))
            keep(batched=batched)
            print(f"re-crawl, {size} brands a run: {batched[-1][1].measured.wall_s:.0f} s",
                  flush=True)
        status = measure([str(BIN / "fashion-assets"), "status"], env)
        keep(status_command_s=status.wall_s)
        figures = catalog_figures(catalog, env, f"file://{home / 'objects'}", home)
        keep(catalog=figures)
        print(f"catalog: {figures}", flush=True)
        sample = [slug for slug in server.brands if in_fraction(slug, SCRAPY_SAMPLE)]
        peer = scrapy_crawl(replace(server, brands=sample), Path(folder) / "scrapy", POLITE)
        keep(peer=peer, sample=len(sample))
        print(f"Scrapy, {len(sample)} designers: {peer.measured.wall_s:.0f} s", flush=True)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fraction", type=float, default=0.05)
    parser.add_argument("--photos", type=int, default=40)
    parser.add_argument("--write", action="store_true",
                        help="put the figures in docs/archive-benchmarks.md")
    parser.add_argument("--recrawl-batches", type=lambda v: tuple(map(int, v.split(","))),
                        default=(), metavar="N,N",
                        help="re-crawl again with each of these FASHION_CRAWL_BATCH_BRANDS")
    parser.add_argument("--save", type=Path, help="keep the measurements in this file")
    parser.add_argument("--report", type=Path,
                        help="report the measurements a --save kept, without crawling")
    args = parser.parse_args()
    measured = (pickle.loads(args.report.read_bytes()) if args.report
                else run_archive(args.fraction, args.photos, args.save, args.recrawl_batches))
    text = report(measured)
    publish(text, f"First crawl and re-crawl, {measured['fraction']:.0%} of the archive", DOC,
            args.write)


if __name__ == "__main__":
    main()
