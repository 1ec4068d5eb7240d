"""Reliability of the crawl: transient faults, SIGKILLs and concurrent runs, with figures.

    python -m bench.reliability            # the full size (20 kills: about an hour)
    python -m bench.reliability --quick    # a small size, to check the harness (10-20 min)

The replica serves from its own process (``bench.common.replica``). Every scenario runs
``fashion-assets crawl`` as a user does, in separate processes (``bench/crawls.py``), on a
fresh PostgreSQL database and a file store in a temp folder, and compares its drafts (public
show URL -> object keys in photo order) with what the replica serves. Each command starts a
``dagster dev`` whose run processes do the work, a run per brand or range of brands, as
many at once as dagster.yaml's ``max_concurrent_runs`` (there are no worker processes any
more, so the figures count runs where they counted workers); every wall time includes that
start.

1. Faults: the replica injects 10% 5xx, 5% 429 with Retry-After, 2% dropped connections,
   2% hangs past the client's timeout and 1% truncated bodies; the drafts must equal those
   of a fault-free crawl of the same replica, and no host may receive a request inside a
   Retry-After window it gave.
2. Kills: the command's process group is killed with SIGKILL at random moments (a random
   number of photo requests let through the replica's gate) and run again each time, then
   run to completion: the same drafts, no duplicate, no more objects left unreferenced than
   photos were in flight at the kills, no run left marked as running. The deployment, in a
   session of its own, is not killed with the command: it ends by itself (its watchdog);
   the scenario waits until it is gone (the figures say how long that took) before the
   gate opens and the next command, which fails the killed deployment's runs.
3. Concurrency: four crawls of the same brand at once (and four of the same two brands),
   each frozen at its first photo until every one has planned its work: no failed run, no
   duplicate draft. Each crawl has an instance of its own: one instance's run queue would
   run the crawls of a brand one after the other, and the catalog must hold without it.
4. Coverage loop: a crawl under faults with a client that gives up fast, then the
   coverage sensor's repair runs, the faults still on: the fault-free drafts within three
   sensor-driven rounds.

The summary is printed and the ``## Faults``, ``## Kills``, ``## Concurrency`` and
``## Coverage loop`` sections of docs/reliability.md are replaced (``reliability_report.py``);
other sections of that file (written by other scripts) are kept. The test suite runs small
versions of the same scenarios through these functions (tests/integration/test_reliability.py).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script (python bench/reliability.py): find ``bench``
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import Replica, fresh_database, machine, replica
from bench.crawls import (  # noqa: F401 - the tests' and the other benches' names
    ONE_AT_A_TIME,
    CrawlProcess,
    RemoteReplica,
    concurrent_crawls,
    gate_closed,
    held_client,
    kill_and_restart,
    own_instance,
    wait_until,
)
from bench.reliability_report import (  # noqa: F401 - the other benches' names
    DOC,
    SECTIONS,
    Drafts,
    expected_drafts,
    failure_logs,
    missing_photos,
    publish,
    read_drafts,
    report,
    summary_table,
    verdicts,
    write_sections,
)
from fashion_assets.launch.watchdog import GRACE_S
from fashion_assets.replica import FaultPlan, ReplicaStats, build_site
from fashion_assets.settings import setting

FULL_SIZE = (4, 10, 40)  # brands, shows per brand, photos per show
QUICK_SIZE = (2, 3, 8)
KILLS = 20
IMAGE_CONCURRENCY = int(setting({}, "FASHION_IMAGE_CONCURRENCY"))  # the default, per run
# The seed is one whose draws include every kind of fault in the first 50 requests.
FAULTS = FaultPlan(error_5xx=0.10, rate_429=0.05, retry_after_s=1, drop=0.02, timeout=0.02,
                   hang_s=3, truncate=0.01, seed=48)
# Against FAULTS: a timeout shorter than a hang, and enough retries that a photo failing
# eleven times in a row (about 0.2 ** 11) does not happen.
FAULT_CLIENT_ENV = {"FASHION_HTTP_TIMEOUT": "1", "FASHION_HTTP_RETRIES": "10",
                    "FASHION_RETRY_BACKOFF": "0.05"}

# The coverage loop: a client that gives up fast (two retries), so a crawl under faults leaves
# photos missing, and a tolerance of 0, so every missing photo makes its show incomplete:
# the loop must then end with exactly the fault-free drafts. The sensor's back-off starts at
# an hour of its clock, and each round ticks when the last round's shows are due again.
COVERAGE_CLIENT_ENV = {"FASHION_HTTP_TIMEOUT": "1", "FASHION_HTTP_RETRIES": "2",
                       "FASHION_RETRY_BACKOFF": "0.05", "FASHION_COVERAGE_TOLERANCE": "0",
                       "FASHION_REPAIR_BACKOFF": "3600", "FASHION_REPAIR_MAX_ATTEMPTS": "5"}
# Photos a CDN refuses (403) are not retried by the client: they go missing at once. About
# 6% of the photos fail a round (403 or three failed tries), so of the ~100 a crawl of 1,600
# loses, 3 rounds leave none but with odds of about 2%.
COVERAGE_FAULTS = replace(FAULTS, error_403=0.05)


# -- a crawl and its repairs, in this process ---------------------------------------------


COVERAGE_ROUNDS = 3
"""Sensor-driven rounds within which the coverage loop must mend what faults left."""


@dataclass(frozen=True)
class CoverageRound:
    """One tick of the coverage sensor and the repair runs it requested."""

    runs: int
    shows: int
    repaired: int  # shows whose outcome was repaired
    missing_after: int  # photos still missing from the drafts, against the replica
    equals_replica: bool


def coverage_loop(env: Mapping[str, str], brands: Sequence[str], reference: Drafts,
                  database_url: str, dagster_home: Path, *, rounds: int = COVERAGE_ROUNDS,
                  between_rounds: Callable[[], None] = lambda: None
                  ) -> tuple[int, list[CoverageRound]]:
    """A crawl of ``brands`` in this process, then up to ``rounds`` ticks of
    ``coverage_sensor``, each when the shows of the last are due again on its clock (the
    back-off: 0 h, 1 h, 3 h, ...), each requested run executed.

    Returns the photos missing after the crawl and each round's figures; the loop stops
    early once the drafts equal ``reference``. ``between_rounds`` runs after the crawl and
    after each round (the test turns the faults off there).
    """
    from datetime import timedelta

    from dagster import DagsterInstance, SkipReason, build_sensor_context

    from fashion_assets.definitions import build_definitions
    from fashion_assets.domain.coverage import backoff
    from fashion_assets.resources import resources_from_env
    from tests.pipeline import crawl_brands

    dagster_home.mkdir(parents=True, exist_ok=True)
    instance = DagsterInstance.local_temp(str(dagster_home))
    rules = resources_from_env(env)["crawler"].repair_rules()
    start = datetime(2026, 1, 5, 8, 0, tzinfo=UTC)
    # Each round ticks when the last round's shows are due again: 0 h, 1 h, 3 h, ...
    ticks = [start + sum((backoff(k, rules) for k in range(1, n + 1)), timedelta())
             for n in range(rounds)]
    crawl_brands(list(brands), instance, env)
    missing = missing_photos(read_drafts(database_url).drafts, reference)
    done: list[CoverageRound] = []
    for n in range(rounds):
        between_rounds()
        if missing_photos(read_drafts(database_url).drafts, reference) == 0:
            break
        tick_env = {**env, "FASHION_CLOCK": ticks[n].isoformat()}
        defs = build_definitions(tick_env)
        coverage_sensor = defs.get_repository_def().get_sensor_def("coverage_sensor")
        with build_sensor_context(instance=instance,
                                  resources=resources_from_env(tick_env)) as context:
            result = coverage_sensor(context)
        requests = [] if isinstance(result, SkipReason) else list(result.run_requests or [])
        repaired = 0
        for request in requests:
            run = defs.resolve_job_def(request.job_name).execute_in_process(
                instance=instance, partition_key=request.partition_key,
                run_config=request.run_config, tags=request.tags, raise_on_error=False)
            for materialization in run.asset_materializations_for_node("runway_drafts"):
                repaired += int(materialization.metadata["shows_repaired"].value)
        state = read_drafts(database_url)
        done.append(CoverageRound(
            len(requests), sum(len(r.run_config["ops"]["runway_drafts"]["config"]["show_ids"])
                               for r in requests), repaired,
            missing_photos(state.drafts, reference), state.drafts == reference))
        if state.drafts == reference:
            break
    return missing, done


# -- the bench ----------------------------------------------------------------------------


def bench_env(server: Replica, database_url: str, work: Path, **overrides: str
              ) -> dict[str, str]:
    """The settings of one scenario: its data folder, Dagster instance, store and catalog."""
    return {"FASHION_HOME": str(work), "DAGSTER_HOME": str(work / "dagster"),
            "FASHION_DATABASE_URL": database_url, "FASHION_STORE_URL": f"file://{work}/objects",
            **server.env(), **overrides}


def faults_scenario(remote: RemoteReplica, work: Path, reference: Drafts) -> dict[str, Any]:
    """A fault-free crawl, then one under ``FAULTS``, each into a fresh catalog and store."""
    brands = [b.slug for b in remote.site.brands]
    crawls: dict[str, dict[str, Any]] = {}
    drafts: dict[str, Drafts] = {}
    for label, plan, client in (("fault-free", FaultPlan(), {}),
                                ("faults", FAULTS, FAULT_CLIENT_ENV)):
        with fresh_database() as database_url:
            remote.set_faults(plan)
            remote.reset_stats()
            env = bench_env(remote.server, database_url, work / label, **client)
            run = CrawlProcess(env, brands, work / "logs").finish()
            stats = remote.stats()
            state = read_drafts(database_url)
        remote.set_faults(FaultPlan())
        drafts[label] = state.drafts
        crawls[label] = {
            "ok": run.ok, "wall_s": run.wall_s, "shows": len(state.drafts),
            "runs": len(run.summaries),
            "photos": state.photos, "duplicates": state.duplicates,
            "missing_photos": sum(s.get("images_missing", 0) for s in run.summaries),
            "failed_shows": run.shows("failed"), "equals_replica": state.drafts == reference,
            "requests": _requests(stats),
            "by_status": dict(sorted(stats.by_status.items())), "dropped": stats.dropped,
            "truncated": stats.truncated, "violations": stats.retry_after_violations,
            "in_flight_after_429": stats.in_flight_after_429, "log_tail": run.log_tail,
        }
    clean, faulty = crawls["fault-free"], crawls["faults"]
    return {
        "plan": asdict(FAULTS), "client": FAULT_CLIENT_ENV, "brands": len(brands),
        "runs": faulty["runs"], "runs_at_once": min(faulty["runs"], os.cpu_count() or 1),
        "fault_free": clean, "faulty": faulty,
        "same_drafts": drafts["faults"] == drafts["fault-free"],
        "retries": faulty["requests"] - clean["requests"],
    }


def coverage_scenario(remote: RemoteReplica, work: Path, reference: Drafts) -> dict[str, Any]:
    """Under ``COVERAGE_FAULTS`` throughout: the crawl, then the coverage loop."""
    brands = [b.slug for b in remote.site.brands]
    with fresh_database() as database_url:
        remote.set_faults(COVERAGE_FAULTS)
        remote.reset_stats()
        env = bench_env(remote.server, database_url, work / "coverage", **COVERAGE_CLIENT_ENV)
        started = time.monotonic()
        try:
            missing, rounds = coverage_loop(env, brands, reference, database_url,
                                            work / "coverage" / "dagster")
        finally:
            remote.set_faults(FaultPlan())
        wall_s = time.monotonic() - started
    return {"plan": asdict(COVERAGE_FAULTS), "client": COVERAGE_CLIENT_ENV,
            "missing_after_crawl": missing, "rounds": [asdict(r) for r in rounds],
            "converged_in": len(rounds) if rounds and rounds[-1].equals_replica else None,
            "rounds_allowed": COVERAGE_ROUNDS, "wall_s": wall_s}


def _requests(stats: ReplicaStats) -> int:
    return stats.page_requests + stats.image_requests + stats.robots_requests


def kills_scenario(remote: RemoteReplica, work: Path, reference: Drafts, kills: int,
                   seed: int) -> dict[str, Any]:
    brands = [b.slug for b in remote.site.brands]
    with fresh_database() as database_url:
        env = bench_env(remote.server, database_url, work / "kills",
                        FASHION_IMAGE_CONCURRENCY=str(IMAGE_CONCURRENCY))
        result = kill_and_restart(
            remote, env, brands, kills=kills, seed=seed,
            total_photos=sum(len(keys) for keys in reference.values()),
            database_url=database_url, store_root=work / "kills" / "objects",
            logs=work / "logs")
    return {
        "kills": [asdict(k) for k in result.kills], "grace_s": GRACE_S,
        "image_concurrency": IMAGE_CONCURRENCY,
        "in_flight_bound": IMAGE_CONCURRENCY * len(brands), "in_flight": result.in_flight,
        "runs_failed": result.runs.get("FAILURE", 0), "runs_left_running": result.left_running,
        "final_ok": result.final.ok, "final_created": result.final.shows("created"),
        "final_skipped": result.final.shows("skipped_already_ingested"),
        "same_drafts": result.drafts.drafts == reference,
        "duplicates": result.drafts.duplicates, "unreferenced": result.unreferenced,
        "missing_objects": result.missing, "temp_files": result.store.temp_files,
        "wall_s": result.wall_s, "log_tail": result.final.log_tail,
    }


def concurrency_scenario(remote: RemoteReplica, work: Path, reference: Drafts,
                         runs: int = 4) -> list[dict[str, Any]]:
    slugs = [b.slug for b in remote.site.brands]
    results = []
    for brands in (slugs[:1], slugs[:2]):
        label = f"{runs} x {len(brands)} brand{'s' if len(brands) > 1 else ''}"
        with fresh_database() as database_url:
            env = bench_env(remote.server, database_url, work / label.replace(" ", ""))
            started = time.monotonic()
            done = concurrent_crawls(remote, env, [brands] * runs, work / "logs")
            wall = time.monotonic() - started
            state = read_drafts(database_url)
        expected = {url: keys for url, keys in reference.items()
                    if url.rsplit("/", 1)[1] in brands}
        results.append({
            "label": label, "runs": runs, "brands": len(brands), "shows": len(expected),
            "failed_runs": sum(not run.ok for run in done),
            "failed_shows": sum(run.shows("failed") for run in done),
            "created": sum(run.shows("created") for run in done),
            "conflicts": sum(run.shows("skipped_conflict") for run in done),
            "skipped": sum(run.shows("skipped_already_ingested") for run in done),
            "duplicates": state.duplicates, "same_drafts": state.drafts == expected,
            "wall_s": wall,
            "log_tails": [run.log_tail for run in done if not run.ok],
        })
    return results


def run_reliability(quick: bool = False, *, kills: int = KILLS, seed: int = 0,
                    ) -> dict[str, Any]:
    """Run the three scenarios on one replica; return their figures (see ``report``)."""
    brands, shows, photos = QUICK_SIZE if quick else FULL_SIZE
    kills = min(kills, 3) if quick else kills
    site = build_site(brands=brands, shows_per_brand=shows, photos_per_show=photos,
                      seed=seed, hostile=False)
    reference = expected_drafts(site)
    figures: dict[str, Any] = {
        "machine": machine(), "size": (brands, shows, photos), "shows": len(reference),
        "photos": sum(len(keys) for keys in reference.values()), "seed": seed,
        "date": datetime.now(UTC).strftime("%Y-%m-%d"),
        "command": " ".join(["python -m bench.reliability", *(["--quick"] if quick else []),
                             *([f"--kills {kills}"] if kills != KILLS and not quick else []),
                             *([f"--seed {seed}"] if seed else [])]),
    }
    with tempfile.TemporaryDirectory() as tmp, \
            replica(brands, shows, photos, seed=seed) as server:
        remote = RemoteReplica(server, site)
        work = Path(tmp)
        print(f"replica {brands} brands x {shows} shows x {photos} photos", flush=True)
        figures["faults"] = faults_scenario(remote, work, reference)
        print("faults: done", flush=True)
        figures["kills"] = kills_scenario(remote, work, reference, kills, seed)
        print("kills: done", flush=True)
        figures["concurrency"] = concurrency_scenario(remote, work, reference)
        print("concurrency: done", flush=True)
        figures["coverage"] = coverage_scenario(remote, work, reference)
        print("coverage loop: done", flush=True)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="a small replica and 3 kills")
    parser.add_argument("--kills", type=int, default=KILLS, help="SIGKILLs of the crawl")
    parser.add_argument("--seed", type=int, default=0, help="the replica's and the kills'")
    parser.add_argument("--output", type=Path, default=DOC,
                        help="the Markdown file whose sections are replaced")
    args = parser.parse_args()
    figures = run_reliability(args.quick, kills=args.kills, seed=args.seed)
    print(summary_table(figures))
    write_sections(report(figures), args.output)
    print(f"wrote the {', '.join(SECTIONS)} sections of {args.output}")
    failed = [name for name, ok in verdicts(figures).items() if not ok]
    for tail in failure_logs(figures):
        print(tail, file=sys.stderr)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
