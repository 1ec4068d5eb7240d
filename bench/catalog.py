"""Catalog-scale benchmarks on PostgreSQL: promotion of 10,000 approved drafts (about 40
photos each), the promotion sensor's tick on a catalog of 100,000 shows, and the coverage
sensor's tick on 100,000 shows with 4,000,000 and more photo rows.

The data is bulk-generated in the database with ``generate_series`` (two sources per show,
half of theImpression's photos the same bytes as Vogue's, so the merge has duplicates to
drop); the timed code is the pipeline's own (``catalog/promotion.py``). Writes
``docs/catalog-benchmarks.md``.

    python -m bench.catalog            # a few minutes, PostgreSQL on 127.0.0.1:5432
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import Engine, text

from bench.common import PG_ADMIN_URL, ROOT
from fashion_assets.catalog.entities import RUNWAY, STREET
from fashion_assets.catalog.promotion import approved_backlog, promote
from fashion_assets.resources import catalog_engine
from tests.catalog_db import fresh_postgres_database

PHOTOS_PER_DRAFT = 40
BRANDS = 200


def generate_drafts(engine: Engine, shows: int, status: str, *, photos: bool = True) -> None:
    """``shows`` shows of ``BRANDS`` brands, each with a Vogue and a theImpression draft of
    ``PHOTOS_PER_DRAFT`` photos (when ``photos``), the first half of theImpression's its own
    and the second half the same bytes as Vogue's."""
    with engine.begin() as conn:
        conn.execute(text("INSERT INTO brands (slug, display_name) SELECT 'brand-' || b,"
                          " 'Brand ' || b FROM generate_series(1, :n) b ON CONFLICT DO NOTHING"),
                     {"n": BRANDS})
        conn.execute(text(
            "INSERT INTO brand_runway_drafts (source, source_url, brand_slug, season_code,"
            " title, season, year, collection_type, expected_images, status)"
            " SELECT src, 'https://' || src || '.example/' || s, 'brand-' || (1 + s % :brands),"
            " 'fall-' || (1900 + s / :brands) || '-ready-to-wear', 'Fall', 'fall',"
            " 1900 + s / :brands, 'ready-to-wear', :photos, :status"
            " FROM generate_series(0, :shows - 1) s, (VALUES ('vogue'), ('theimpression')) v(src)"),
            {"brands": BRANDS, "photos": PHOTOS_PER_DRAFT, "shows": shows, "status": status})
        if not photos:  # the sensor reads drafts only
            conn.execute(text("ANALYZE"))
            return
        conn.execute(text(
            "INSERT INTO brand_runway_draft_images (draft_id, position, object_key,"
            " source_image_url, content_type, width, height, byte_size)"
            " SELECT d.id, p, md5(CASE WHEN d.source = 'theimpression' AND p <= :half"
            "   THEN d.brand_slug || d.season_code || 'own' || p"
            "   ELSE d.brand_slug || d.season_code || p END) || 'abcdefgh',"
            " 'https://img.example/' || d.id || '/' || p, 'image/jpeg', 640, 960, 20000"
            " FROM brand_runway_drafts d, generate_series(1, :photos) p"
            " WHERE d.status = :status"),
            {"half": PHOTOS_PER_DRAFT // 2, "photos": PHOTOS_PER_DRAFT, "status": status})
        conn.execute(text("ANALYZE"))


def timed(action: Callable[[], object]) -> tuple[float, object]:
    start = time.perf_counter()
    result = action()
    return time.perf_counter() - start, result


def bench_promotion(drafts: int) -> list[str]:
    with fresh_postgres_database(PG_ADMIN_URL, prefix="fa_bench") as url:
        engine = catalog_engine(url)
        generate_drafts(engine, drafts // 2, "approved")
        seconds, result = timed(lambda: promote(engine, RUNWAY))
        again, repeat = timed(lambda: promote(engine, RUNWAY))
        with engine.connect() as conn:
            photos = conn.execute(text("SELECT count(*) FROM brand_runway_images")).scalar_one()
            rows = conn.execute(text("SELECT count(*) FROM brand_runway_draft_images")
                                ).scalar_one()
        engine.dispose()
    return [
        "## Promotion",
        "",
        f"{drafts:,} approved drafts ({drafts // 2:,} shows, each from Vogue and theImpression),"
        f" {rows:,} draft photo rows, half of theImpression's photos duplicates of Vogue's.",
        "",
        "| run | wall s | entries created | drafts promoted | catalog photos | batches |",
        "|---|---|---|---|---|---|",
        f"| first | {seconds:.1f} | {result.entries_created:,} | {result.drafts_promoted:,} |"
        f" {photos:,} | {result.batches} |",
        f"| again (nothing approved) | {again:.2f} | {repeat.entries_created} |"
        f" {repeat.drafts_promoted} | {photos:,} | {repeat.batches} |",
        "",
        f"Target: under 30 s, set-based SQL. {'Met' if seconds < 30 else 'NOT met'}:"
        f" {result.batches} batch(es) of a handful of statements each, no statement per photo.",
        "",
    ]


def bench_sensor_tick(shows: int, ticks: int) -> list[str]:
    with fresh_postgres_database(PG_ADMIN_URL, prefix="fa_bench") as url:
        engine = catalog_engine(url)
        generate_drafts(engine, shows, "promoted", photos=False)
        with engine.begin() as conn:  # a few waiting, as between two ticks in production
            conn.execute(text("UPDATE brand_runway_drafts SET status = 'approved'"
                              " WHERE id % 5000 = 0"))
        samples = [timed(lambda: approved_backlog(engine, (RUNWAY, STREET)))[0]
                   for _ in range(ticks)]
        with engine.connect() as conn:
            drafts = conn.execute(text("SELECT count(*) FROM brand_runway_drafts")).scalar_one()
        engine.dispose()
    median, worst = statistics.median(samples), max(samples)
    return [
        "## Promotion sensor tick",
        "",
        f"{shows:,} shows ({drafts:,} drafts, a few approved, the rest promoted),"
        f" {ticks} ticks of `approved_drafts_sensor`'s query (`approved_backlog`).",
        "",
        "| median ms | worst ms |",
        "|---|---|",
        f"| {median * 1000:.1f} | {worst * 1000:.1f} |",
        "",
        f"Target: under 1 s per tick. {'Met' if worst < 1 else 'NOT met'}.",
        "",
    ]


def generate_coverage_catalog(engine: Engine, shows: int, incomplete: int) -> None:
    """``shows`` Vogue shows with a manifest of ``PHOTOS_PER_DRAFT`` photos and a draft; half
    of them promoted into catalog entries (their photos copied into the entry, as promotion
    does). ``incomplete`` shows, spread over the catalog, lack 10 photos: in the draft for
    pending ones, in the entry for promoted ones. Photo counts come from the triggers."""
    with engine.begin() as conn:
        conn.execute(text("INSERT INTO brands (slug, display_name) SELECT 'brand-' || b,"
                          " 'Brand ' || b FROM generate_series(1, :n) b ON CONFLICT DO NOTHING"),
                     {"n": BRANDS})
        conn.execute(text(
            "INSERT INTO runway_shows (brand_slug, source, source_url, source_path, title,"
            " season_code, season, year, collection_type)"
            " SELECT 'brand-' || (1 + s % :brands), 'vogue', 'https://www.vogue.com/s/' || s,"
            " '/s/' || s, 'Fall ' || s, 'fall-' || s || '-ready-to-wear', 'fall', 1900,"
            " 'ready-to-wear' FROM generate_series(0, :shows - 1) s"),
            {"brands": BRANDS, "shows": shows})
        conn.execute(text("INSERT INTO runway_show_manifests (show_id, expected_images)"
                          " SELECT id, :photos FROM runway_shows"), {"photos": PHOTOS_PER_DRAFT})
        conn.execute(text(
            "INSERT INTO brand_runway_drafts (source, source_url, brand_slug, season_code,"
            " title, expected_images, status)"
            " SELECT source, source_url, brand_slug, season_code, title, :photos,"
            " CASE WHEN id % 2 = 0 THEN 'promoted' ELSE 'pending' END FROM runway_shows"),
            {"photos": PHOTOS_PER_DRAFT})
        gap = max(shows // max(incomplete, 1), 1)
        conn.execute(text(
            "INSERT INTO brand_runway_draft_images (draft_id, position, object_key,"
            " source_image_url, content_type, byte_size)"
            " SELECT d.id, p, md5(d.id || '-' || p) || 'abcdefgh', 'https://img.example/'"
            " || d.id || '/' || p, 'image/jpeg', 20000"
            " FROM brand_runway_drafts d, generate_series(1, :photos) p"
            " WHERE NOT (d.status = 'pending' AND d.id % :gap = 1 AND p > :photos - 10)"),
            {"photos": PHOTOS_PER_DRAFT, "gap": gap})
        conn.execute(text(
            "INSERT INTO brand_runways (brand_slug, season_code, title, expected_images)"
            " SELECT brand_slug, season_code, title, expected_images FROM brand_runway_drafts"
            " WHERE status = 'promoted'"))
        conn.execute(text(
            "INSERT INTO brand_runway_images (runway_id, position, object_key, content_type,"
            " byte_size, source, source_image_url)"
            " SELECT e.id, i.position, i.object_key, i.content_type, i.byte_size, d.source,"
            " i.source_image_url FROM brand_runways e JOIN brand_runway_drafts d"
            " ON d.brand_slug = e.brand_slug AND d.season_code = e.season_code"
            " JOIN brand_runway_draft_images i ON i.draft_id = d.id"
            " WHERE NOT (d.id % :gap = 0 AND i.position > :photos - 10)"),
            {"photos": PHOTOS_PER_DRAFT, "gap": gap})
        conn.execute(text("ANALYZE"))


def bench_coverage_tick(shows: int, incomplete: int, ticks: int) -> list[str]:
    """The coverage sensor's whole tick (Dagster's evaluation included) on a big catalog:
    ticks that find due shows and record their attempts, and idle ones (all backing off)."""
    from dagster import DagsterInstance, build_sensor_context

    from fashion_assets.catalog.coverage import coverage_report
    from fashion_assets.definitions import build_definitions
    from fashion_assets.domain.coverage import CoverageRules
    from fashion_assets.resources import resources_from_env

    coverage_sensor = build_definitions({}).resolve_sensor_def("coverage_sensor")

    with fresh_postgres_database(PG_ADMIN_URL, prefix="fa_bench") as url:
        engine = catalog_engine(url)
        generate_seconds, _ = timed(lambda: generate_coverage_catalog(engine, shows, incomplete))
        with engine.connect() as conn:
            counts = conn.execute(text(
                "SELECT (SELECT count(*) FROM runway_shows),"
                " (SELECT count(*) FROM brand_runway_draft_images),"
                " (SELECT count(*) FROM brand_runway_images)")).one()
        # Half the drafts are pending: far past backpressure's pause, which would skip every
        # tick before its query. Here the tick's own work is measured.
        incomplete = coverage_report(engine, CoverageRules(), datetime.now(UTC), limit=0
                                     ).incomplete
        resources = resources_from_env({"FASHION_DATABASE_URL": url,
                                        "FASHION_BACKPRESSURE_PAUSE_PENDING": str(shows),
                                        "FASHION_BACKPRESSURE_ALERT_PENDING": str(shows)})
        per_tick = resources["crawler"].repair_shows_per_tick
        instance = DagsterInstance.ephemeral()

        def tick() -> object:
            with build_sensor_context(instance=instance, resources=resources) as context:
                return coverage_sensor(context)

        busy, idle, requested = [], [], []
        for _ in range(ticks):
            with engine.begin() as conn:  # every show due again: a tick with work
                conn.execute(text("DELETE FROM coverage_repairs"))
            seconds, result = timed(tick)
            busy.append(seconds)
            requested.append(sum(len(r.run_config["ops"]["runway_drafts"]["config"]["show_ids"])
                                 for r in getattr(result, "run_requests", [])))
        if min(requested) != min(per_tick, incomplete):
            raise RuntimeError(f"a tick with due shows requested {requested}, not {per_tick}")
        for _ in range(incomplete // per_tick + 1):
            tick()  # take every incomplete show once: then all of them back off
        idle = [timed(tick)[0] for _ in range(ticks)]
        engine.dispose()
    worst = max(busy + idle)
    return [
        "## Coverage sensor tick",
        "",
        f"{counts[0]:,} shows, {counts[1] + counts[2]:,} photo rows ({counts[1]:,} in drafts,"
        f" {counts[2]:,} in catalog entries), {incomplete:,} shows incomplete (10 photos short"
        f" of 40, in a pending draft or in a catalog entry); generated in"
        f" {generate_seconds:.0f} s."
        f" {ticks} ticks of `coverage_sensor`, evaluated as Dagster does (resources built,"
        " the query, the attempts written, the run requests built).",
        "",
        "| tick | shows requested | median ms | worst ms |",
        "|---|---|---|---|",
        f"| with due shows (up to FASHION_REPAIR_SHOWS_PER_TICK = {per_tick}) |"
        f" {statistics.median(requested):,.0f} | {statistics.median(busy) * 1000:.0f} |"
        f" {max(busy) * 1000:.0f} |",
        f"| idle (every incomplete show backing off) | 0 | {statistics.median(idle) * 1000:.0f} |"
        f" {max(idle) * 1000:.0f} |",
        "",
        f"Target: under 1 s per tick. {'Met' if worst < 1 else 'NOT met'}.",
        "",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--drafts", type=int, default=10_000)
    parser.add_argument("--shows", type=int, default=100_000)
    parser.add_argument("--ticks", type=int, default=20)
    parser.add_argument("--incomplete", type=int, default=2_000,
                        help="pending drafts, and as many catalog entries, left incomplete in"
                             " the coverage sensor's catalog")
    parser.add_argument("--output", type=Path, default=ROOT / "docs" / "catalog-benchmarks.md")
    args = parser.parse_args()
    lines = ["# Catalog benchmarks", "",
             "Measured by `python -m bench.catalog` on PostgreSQL (`FASHION_BENCH_DATABASE_URL`,"
             " default the local server), data bulk-generated in the database.", "",
             *bench_promotion(args.drafts), *bench_sensor_tick(args.shows, args.ticks),
             *bench_coverage_tick(args.shows, args.incomplete, args.ticks)]
    args.output.write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
