"""A third source, added as docs/architecture.md says (``tests/toy_source.py``: its adapter,
its declaration, its replica site), goes end to end through the replica with nothing else
changed: its assets, jobs, resources and settings come from the declaration, its galleries
resolve to the brands Vogue registered, its drafts land under the same entity keys, the
coverage sensor maps its shows to its season partitions, and promotion merges its looks
with Vogue's."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from dagster import DagsterInstance
from sqlalchemy import text

from fashion_assets.catalog.coverage import due_repairs
from fashion_assets.catalog.entities import RUNWAY
from fashion_assets.catalog.promotion import promote
from fashion_assets.catalog.review import review
from fashion_assets.definitions import build_definitions
from fashion_assets.domain.coverage import CoverageRules
from fashion_assets.replica import build_site, start_replica
from fashion_assets.resources import catalog_engine
from fashion_assets.sources.registry import SOURCES
from tests.catalog_db import query
from tests.conftest import pipeline_env
from tests.pipeline import crawl_brands
from tests.toy_source import SOURCE, TOY, ToySite

SHARED, OWN = 2, 3  # of each toy gallery: Vogue's looks (the same bytes), its own looks


def test_a_third_source_declared_in_one_module_crawls_drafts_and_merges(
        tmp_path: Path, database_url: str, dagster_instance: DagsterInstance) -> None:
    site = build_site(brands=2, shows_per_brand=2, photos_per_show=4, hostile=False)
    brand = site.brands[0]
    show = brand.shows[0]
    toy = ToySite(site, [brand.slug], shared=SHARED, own=OWN, per_page=1)
    instance = dagster_instance
    with start_replica(site, extra_sites={SOURCE: toy}) as server:
        env = {**pipeline_env(tmp_path, database_url, f"file://{tmp_path / 'objects'}", server),
               **TOY.replica_env(server.origin_url)}
        [vogue] = crawl_brands([brand.slug], instance, env)
        assert vogue["success"], vogue
        defs = build_definitions(env, sources=(*SOURCES, TOY))
        instance.add_dynamic_partitions("runway_seasons", [show.season_slug])
        assert TOY.runway_names is not None
        result = defs.resolve_job_def(TOY.runway_names.crawl_job).execute_in_process(
            instance=instance, partition_key=show.season_slug)
        assert result.success
        toy_requests = server.stats().by_path

    # Its drafts: one per gallery of the season, under Vogue's entity key, every look stored.
    galleries = toy.season(show.season_slug)
    assert galleries and {g.show.brand_slug for g in galleries} == {brand.slug}
    drafts = query(database_url, "SELECT brand_slug, season_code, source_url, expected_images"
                   " FROM brand_runway_drafts WHERE source = :s ORDER BY id", s=SOURCE)
    assert drafts == [(brand.slug, show.season_slug, f"https://runway.example{g.path}",
                       SHARED + OWN) for g in galleries]
    assert all(toy_requests[f"/photos/{p.photo_id}.jpg"] == 1
               for g in galleries for p in g.photos)
    # Its listing read every page: one gallery per page here.
    assert [query(database_url, "SELECT count(*) FROM runway_shows WHERE source = :s",
                  s=SOURCE)[0][0]] == [len(galleries)]

    # An incomplete toy show is due for repair by its season partition, as the source
    # declares it.
    engine = catalog_engine(database_url)
    with engine.begin() as conn:
        conn.execute(text("UPDATE brand_runway_drafts SET expected_images = 40 WHERE"
                          " source = :s"), {"s": SOURCE})
        conn.execute(text("UPDATE runway_show_manifests SET expected_images = 40 WHERE"
                          " show_id IN (SELECT id FROM runway_shows WHERE source = :s)"),
                     {"s": SOURCE})
    due = [d for d in due_repairs(engine, CoverageRules(), datetime.now(UTC), 100)
           if d.source == SOURCE]
    assert due and {d.partition_key for d in due} == {show.season_slug}

    # Approved with Vogue's draft, the show's entry holds Vogue's looks first, then the
    # toy's own; the looks both have are stored and listed once.
    ids = [i for (i,) in query(database_url, "SELECT id FROM brand_runway_drafts WHERE"
                               " brand_slug = :b AND season_code = :c ORDER BY id",
                               b=brand.slug, c=show.season_slug)]
    assert len(ids) == 2
    review(engine, RUNWAY.kind, ids, "approve", editor="test")
    promote(engine, RUNWAY)
    [(photos,)] = query(database_url, "SELECT count(*) FROM brand_runway_images i JOIN"
                        " brand_runways r ON r.id = i.runway_id WHERE r.brand_slug = :b AND"
                        " r.season_code = :c", b=brand.slug, c=show.season_slug)
    assert photos == len(show.photos) + OWN
