"""Reliability, the fast cases: a crawl under transient faults, four runs of one brand at once,
and a crawl killed with SIGKILL at three random moments and run again each time.

The heavy versions, whose figures are in docs/reliability.md, are ``bench/reliability.py``;
both go through the same functions, so what the bench measures is what is tested here. Each
``fashion-assets crawl`` starts a ``dagster dev`` whose run processes do the work; crawl
processes are synchronised with the replica's image gate, never by sleeping.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from dagster import DagsterInstance

from bench.reliability import (
    COVERAGE_CLIENT_ENV,
    COVERAGE_FAULTS,
    COVERAGE_ROUNDS,
    FAULT_CLIENT_ENV,
    FAULTS,
    IMAGE_CONCURRENCY,
    CrawlProcess,
    concurrent_crawls,
    coverage_loop,
    expected_drafts,
    kill_and_restart,
    read_drafts,
)
from fashion_assets.replica import FaultPlan, ReplicaServer, build_site, start_replica
from tests.catalog_db import fresh_postgres_database
from tests.conftest import PG_ENV, normal_brands, pipeline_env
from tests.pipeline import crawl_brands

pytestmark = pytest.mark.slow  # every case starts crawl processes

DEADLINE_S = 180.0


@pytest.fixture
def catalog_url() -> Iterator[str]:
    """One catalog, on PostgreSQL, for the two slow cases that do not depend on its engine;
    the concurrent runs, which do, run on both."""
    with fresh_postgres_database(os.environ[PG_ENV]) as url:
        yield url


def test_a_crawl_under_transient_faults_drafts_exactly_what_a_fault_free_crawl_drafts(
        tmp_path: Path, catalog_url: str) -> None:
    # A replica of its own: the faults and the Retry-After bookkeeping stay out of the shared one.
    site = build_site(brands=2, shows_per_brand=2, photos_per_show=10, hostile=False, seed=7)
    brands = [brand.slug for brand in site.brands]
    fault_free_url = f"sqlite:///{tmp_path / 'fault-free.db'}"
    with start_replica(site) as server:
        fault_free = crawl_brands(brands, DagsterInstance.ephemeral(), pipeline_env(
            tmp_path / "fault-free", fault_free_url, f"file://{tmp_path / 'fault-free'}", server))
        server.set_faults(FAULTS)
        server.reset_stats()
        # Runs of the command's deployment, each a process with its own client.
        env = pipeline_env(tmp_path / "faults", catalog_url, f"file://{tmp_path / 'objects'}",
                           server, DAGSTER_HOME=str(tmp_path / "dagster"), **FAULT_CLIENT_ENV)
        run = CrawlProcess(env, brands, tmp_path / "logs").finish(DEADLINE_S)
        stats = server.stats()

    assert all(summary["success"] for summary in fault_free), fault_free
    assert run.ok, run.log_tail
    drafts = read_drafts(catalog_url)
    assert drafts.drafts == read_drafts(fault_free_url).drafts == expected_drafts(site)
    assert drafts.duplicates == 0
    assert stats.retry_after_violations == 0
    # The faults did happen: the plan's seed draws each kind in the first 50 requests.
    assert stats.by_status.get(429) and stats.dropped and stats.truncated
    assert any(stats.by_status.get(status) for status in (500, 502, 503))


@pytest.mark.timeout(900)  # four commands, each starting a `dagster dev`, at once
def test_four_runs_of_one_brand_at_once_make_no_duplicate_and_none_fails(
        tmp_path: Path, database_url: str, replica: ReplicaServer) -> None:
    brand = normal_brands(replica)[0]
    env = pipeline_env(tmp_path, database_url, f"file://{tmp_path / 'objects'}", replica,
                       DAGSTER_HOME=str(tmp_path / "dagster"))

    # Each run is frozen at its first image request until all four hold one; each crawl
    # has a Dagster instance of its own, whose queue would otherwise run them one by one.
    runs = concurrent_crawls(replica, env, [[brand.slug]] * 4, tmp_path / "logs", DEADLINE_S)

    for run in runs:
        assert run.ok, run.log_tail
        assert run.shows("failed") == 0
    drafts = read_drafts(database_url)
    assert drafts.drafts == expected_drafts(replica.site, [brand.slug])
    assert drafts.duplicates == 0
    assert sum(run.shows("created") for run in runs) == len(brand.shows)


# Four commands one after the other, each starting a `dagster dev` (up to a minute on two
# loaded cores) before its runs reach the gate: about ten minutes on such a machine.
@pytest.mark.timeout(1200)
def test_a_crawl_killed_at_random_moments_and_restarted_ends_with_the_full_result(
        tmp_path: Path, catalog_url: str, replica: ReplicaServer) -> None:
    """The command is SIGKILLed; its deployment (the run processes) ends by itself, and the
    next command fails the runs it left marked as running."""
    brands = [brand.slug for brand in normal_brands(replica)]
    expected = expected_drafts(replica.site, brands)
    env = pipeline_env(tmp_path, catalog_url, f"file://{tmp_path / 'objects'}", replica,
                       DAGSTER_HOME=str(tmp_path / "dagster"))

    result = kill_and_restart(
        replica, env, brands, kills=3, seed=3,
        total_photos=sum(len(keys) for keys in expected.values()),
        database_url=catalog_url, store_root=tmp_path / "objects",
        logs=tmp_path / "logs", deadline_s=DEADLINE_S)

    assert [kill.in_flight > 0 for kill in result.kills] == [True] * 3
    # At most a run per brand, each with its own image client.
    assert all(kill.in_flight <= IMAGE_CONCURRENCY * len(brands) for kill in result.kills)
    assert result.final.ok, result.final.log_tail
    assert result.drafts.drafts == expected
    assert result.drafts.duplicates == 0
    # What was committed before the last kill was not downloaded again.
    assert result.final.shows("skipped_already_ingested") == result.kills[-1].drafts
    assert result.final.shows("created") == len(expected) - result.kills[-1].drafts
    assert result.missing == 0
    assert result.unreferenced <= result.in_flight
    # No run is left marked as running, and the one each kill caught at the gate was failed
    # (by the next command: the killed one's deployment was gone).
    assert result.runs and result.left_running == 0
    assert result.runs.get("FAILURE", 0) >= 3


def test_a_crawl_under_faults_and_the_repairs_it_triggers_end_with_the_fault_free_drafts(
        tmp_path: Path, catalog_url: str) -> None:
    """The coverage sensor in the loop: photos the crawl lost to faults are re-fetched by the
    repair runs it requests, within 3 rounds. The faults are on for the crawl and turned off
    for the repairs, so the test needs one round: the bench keeps them on throughout."""
    site = build_site(brands=2, shows_per_brand=2, photos_per_show=20, hostile=False, seed=5)
    brands = [brand.slug for brand in site.brands]
    reference = expected_drafts(site)
    with start_replica(site) as server:
        server.set_faults(replace(COVERAGE_FAULTS, error_403=0.2))  # surely some photos lost
        env = pipeline_env(tmp_path, catalog_url, f"file://{tmp_path / 'objects'}", server,
                           **COVERAGE_CLIENT_ENV)
        missing, rounds = coverage_loop(env, brands, reference, catalog_url,
                                        tmp_path / "dagster",
                                        between_rounds=lambda: server.set_faults(FaultPlan()))

    assert missing > 0
    assert rounds and len(rounds) <= COVERAGE_ROUNDS
    assert rounds[-1].equals_replica and rounds[-1].missing_after == 0
    assert 1 <= rounds[0].runs <= len(brands)  # one repair run per brand with gaps
    assert sum(r.repaired for r in rounds) >= 1
    assert read_drafts(catalog_url).duplicates == 0
