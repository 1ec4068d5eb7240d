"""Photos per second of the production topology with one and with two Celery workers (issue 18).

    python -m bench.celery_workers [--brands 8] [--shows 4] [--photos 40] [--rounds 3]
                                   [--write]

The replica serves in its own process. For each worker count, a fresh deployment
(``bench/topology.py``: code server, webserver, daemon and the workers, started from
``deploy/``; Dagster's storage and the catalog on fresh PostgreSQL databases, the store on
the S3 API server, a RabbitMQ virtual host of its own) registers the brands, turns
``full_crawl_schedule`` on with a cron of every minute and batches of one brand, and lets
the daemon crawl every brand; the worker counts alternate, ``--rounds`` times each, and the
round of median wall time is reported. Wall time runs from the tick's first run to the end
of the last; the wait for the cron minute and the startup are not counted. Beside them, the same
crawl by ``fashion-assets crawl --workers 2`` on one machine, for the same replica and
settings (the politeness defaults, for all three).

The figures go to the terminal, and with ``--write`` to docs/operations.md ("Figures: one
and two Celery workers").
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.common import (
    PG_ADMIN_URL,
    Replica,
    fresh_database,
    machine_sentence,
    measure,
    replica,
)
from bench.reliability import publish
from bench.run import s3_env
from bench.topology import Topology, dagster_pg_env, rabbitmq_vhost, wait_for
from fashion_assets.sources.registry import VOGUE
from fashion_assets.storage import S3Store
from tests.catalog_db import fresh_postgres_database, query
from tests.s3server import start_moto_server

DOC = Path(__file__).resolve().parents[1] / "docs" / "operations.md"
SECTION = "Figures: one and two Celery workers"
CRAWL_DEADLINE_S = 1800
assert VOGUE.runway_names is not None
CRAWL_JOB = VOGUE.runway_names.crawl_job


@dataclass(frozen=True)
class Crawl:
    """One measured crawl of every brand."""

    label: str
    wall_s: float
    photos: int
    runs: int
    # The daemon's crawls only (None for the CLI), each a mean over the runs or steps:
    queue_wait_s: float | None = None  # a step, from its submission to a worker beginning it
    run_start_s: float | None = None  # a run, from its creation (the tick) to its start
    run_s: float | None = None  # a run, from its start to its end
    steps_s: float | None = None  # a run's steps, from each one's start to its success
    busy: float | None = None  # the share of the workers' time spent executing steps

    @property
    def photos_per_s(self) -> float:
        return self.photos / self.wall_s


def store_env(s3_endpoint: str, work: Path) -> dict[str, str]:
    bucket = f"bench-{work.name}".lower()
    S3Store(bucket, endpoint_url=s3_endpoint).ensure_bucket()
    return {"FASHION_STORE_URL": f"s3://{bucket}/photos", **s3_env(s3_endpoint)}


def photos_in(catalog: str) -> int:
    return query(catalog, "SELECT count(*) FROM brand_runway_draft_images")[0][0]


@dataclass(frozen=True)
class StepTimes:
    """From each run's events: how long its steps waited for a worker, and executed."""

    waits: list[float]
    executing: dict[str, float]  # run id: its steps' execution, in all


def step_times(instance: Any, run_ids: list[str]) -> StepTimes:
    from dagster import DagsterEventType

    waits, executing = [], {}
    for run_id in run_ids:
        submitted: dict[str, float] = {}
        started: dict[str, float] = {}
        executing[run_id] = 0.0
        for record in instance.all_logs(run_id, of_type={
                DagsterEventType.ENGINE_EVENT, DagsterEventType.STEP_START,
                DagsterEventType.STEP_SUCCESS}):
            event, key = record.dagster_event, record.dagster_event.step_key
            if event.event_type == DagsterEventType.STEP_START:
                started[key] = record.timestamp
            elif event.event_type == DagsterEventType.STEP_SUCCESS:
                executing[run_id] += record.timestamp - started.pop(key)
            elif event.message and event.message.startswith("Submitting celery task"):
                submitted[key] = record.timestamp
            elif "Celery worker" in event.engine_event_data.metadata and key in submitted:
                waits.append(record.timestamp - submitted.pop(key))
    return StepTimes(waits, executing)


def daemon_crawl(server: Replica, s3_endpoint: str, workers: int, work: Path) -> Crawl:
    """Every brand crawled by the daemon's schedule, its steps on ``workers`` workers."""
    with fresh_database() as catalog, \
            fresh_postgres_database(PG_ADMIN_URL, prefix="fa_bench_dagster") as dagster_db, \
            rabbitmq_vhost() as broker:
        env = {"FASHION_HOME": str(work / "fashion"), "FASHION_DATABASE_URL": catalog,
               **store_env(s3_endpoint, work), **server.env(), **dagster_pg_env(dagster_db),
               "CELERY_BROKER_URL": broker, "FASHION_CRAWL_CRON": "* * * * *",
               "FASHION_CRAWL_BATCH_BRANDS": "1"}
        names = [f"worker-{n}" for n in range(1, workers + 1)]
        with Topology(work / "deployment", env, workers=names) as topology:
            for brand in server.brands:
                subprocess.run([sys.executable, "-m", "fashion_assets", "brands", "add", brand],
                               env=topology.process_env, check=True, capture_output=True)
            topology.turn_on("schedule", "full_crawl_schedule")
            with topology.instance() as instance:
                from dagster import RunsFilter

                def runs() -> list[Any]:
                    return list(instance.get_run_records(RunsFilter(job_name=CRAWL_JOB)))

                wait_for(lambda: len(runs()) >= len(server.brands), "the tick's runs",
                         CRAWL_DEADLINE_S, topology.check_running)
                topology.turn_off("schedule", "full_crawl_schedule")
                wait_for(lambda: all(r.dagster_run.is_finished for r in runs()),
                         "every crawl run to end", CRAWL_DEADLINE_S, topology.check_running)
                records = runs()
                times = step_times(instance, [r.dagster_run.run_id for r in records])
        failed = [r.dagster_run.run_id for r in records
                  if r.dagster_run.status.value != "SUCCESS"]
        if failed:
            raise AssertionError(f"crawl runs did not succeed: {failed}\n{topology.logs()}")
        first = min(r.create_timestamp.timestamp() for r in records)
        last = max(r.end_time for r in records)
        label = f"daemon, {workers} Celery worker{'s' if workers > 1 else ''}"
        mean = statistics.mean
        return Crawl(
            label, last - first, photos_in(catalog), len(records),
            queue_wait_s=mean(times.waits),
            run_start_s=mean(r.start_time - r.create_timestamp.timestamp() for r in records),
            run_s=mean(r.end_time - r.start_time for r in records),
            steps_s=mean(times.executing.values()),
            busy=sum(times.executing.values()) / ((last - first) * workers))


def cli_crawl(server: Replica, s3_endpoint: str, work: Path) -> Crawl:
    """The same crawl by ``fashion-assets crawl --workers 2`` on this machine."""
    with fresh_database() as catalog:
        env = {"FASHION_HOME": str(work / "fashion"), "FASHION_DATABASE_URL": catalog,
               "DAGSTER_HOME": str(work / "dagster"), **store_env(s3_endpoint, work),
               **server.env()}
        command = [sys.executable, "-m", "fashion_assets", "crawl", "--json", "--workers", "2",
                   *[a for brand in server.brands for a in ("--brand", brand)]]
        done = measure(command, env)
        if done.returncode != 0:
            raise AssertionError(f"crawl failed:\n{done.stderr_tail}")
        runs = len(json.loads(done.stdout)["crawls"])
        return Crawl("`fashion-assets crawl --workers 2`", done.wall_s, photos_in(catalog),
                     runs)


def _cell(value: float | None, form: str) -> str:
    return "" if value is None else format(value, form)


def section(crawls: list[Crawl], rates: dict[int, list[float]],
            args: argparse.Namespace) -> str:
    rows = [f"| {c.label} | {c.runs} | {c.photos:,} | {c.wall_s:.1f} | {c.photos_per_s:.0f} | "
            f"{_cell(c.run_start_s, '.1f')} | {_cell(c.run_s, '.1f')} | "
            f"{_cell(c.steps_s, '.1f')} | {_cell(c.queue_wait_s, '.2f')} | "
            f"{_cell(c.busy, '.0%')} |" for c in crawls]
    one, two, cli = crawls
    assert one.run_s and one.steps_s and one.run_start_s and one.busy is not None
    assert two.busy is not None
    spread = "; ".join(f"{w} worker{'s' if w > 1 else ''}: "
                       + ", ".join(f"{r:.0f}" for r in sorted(rs)) for w, rs in rates.items())
    return "\n".join([
        f"Measured by `python -m bench.celery_workers --brands {args.brands} --shows "
        f"{args.shows} --photos {args.photos} --rounds {args.rounds}`: every brand of the "
        "replica crawled once per round, one run per brand, with the politeness defaults "
        "(`FASHION_PAGE_DELAY` 0.25 s between two pages of the site, 8 photo downloads at once "
        "per host), the store on the S3 API server, the catalog and Dagster on PostgreSQL, "
        "each worker executing one step at a time; the worker counts alternate from round to "
        "round, and each row is the round of median wall time. Wall time runs from the "
        "tick's first run to the end of the last (the command's whole run for the CLI). "
        "After photos/s, means over the runs (or steps): a run's wait from the tick to its "
        "start (the queue, then its process starting), the run from its start to its end, "
        "its three steps executing, a step's wait for a worker, and the share of the "
        "workers' time spent executing steps. "
        + machine_sentence(),
        "",
        "| how | runs | photos | wall s | photos/s | run start s | run s | steps s "
        "| step's wait s | workers busy |",
        "|---|---|---|---|---|---|---|---|---|---|",
        *rows,
        "",
        f"Photos/s of every round, {spread}.",
        "",
        f"A second worker changes the median rate by "
        f"{two.photos_per_s / one.photos_per_s - 1:+.0%}, and the columns say why it can do "
        f"little on this 2-core machine. With one worker, a run spends {one.steps_s:.1f} s of "
        f"its {one.run_s:.1f} s executing steps, a step waits {one.queue_wait_s:.2f} s for "
        f"the worker, and the worker is busy {one.busy:.0%} of the time (two workers: "
        f"{two.busy:.0%} each). The rest of a run is each step's hand-off, three times a run: "
        "through the broker (the executor polls for results every second), and the worker "
        "loading the job and the step's resources. Before it starts, a run waits "
        f"{one.run_start_s:.1f} s from the tick: four crawl runs at a time in the queue, and "
        "its process importing Dagster and the code location. All of that shares the two "
        "cores with the workers, the daemon, the code server, PostgreSQL and the S3 server, "
        "so a second worker saves little of what bounds the crawl. Workers help where steps "
        "wait for one: long steps (the weekly crawl's batches of "
        "`FASHION_CRAWL_BATCH_BRANDS` brands) on more runs than one machine's cores can "
        "execute, each worker on a machine of its own. On one machine, `fashion-assets "
        f"crawl` ({cli.photos_per_s:.0f} photos/s here) is faster: its processes fork from one "
        "that imported everything once, and hand nothing through a broker.",
    ])


def median_crawl(crawls: list[Crawl]) -> Crawl:
    """The round whose wall time is the median (the lower one of an even count)."""
    return sorted(crawls, key=lambda c: c.wall_s)[(len(crawls) - 1) // 2]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--brands", type=int, default=8)
    parser.add_argument("--shows", type=int, default=4)
    parser.add_argument("--photos", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=3,
                        help="crawls per worker count, the counts alternating")
    parser.add_argument("--write", action="store_true",
                        help=f"put the figures in {DOC.relative_to(DOC.parents[1])}")
    args = parser.parse_args()
    rounds: dict[int, list[Crawl]] = {1: [], 2: []}
    with replica(args.brands, args.shows, args.photos) as server, start_moto_server() as s3, \
            tempfile.TemporaryDirectory(prefix="fa-bench-celery-") as folder:
        os.environ.update(s3_env(s3.endpoint_url))  # this process makes the buckets
        for n in range(args.rounds):
            for workers in (1, 2) if n % 2 == 0 else (2, 1):
                started = time.perf_counter()
                rounds[workers].append(daemon_crawl(server, s3.endpoint_url, workers,
                                                    Path(folder) / f"r{n}w{workers}"))
                print(f"{rounds[workers][-1]} ({time.perf_counter() - started:.0f} s in all)",
                      flush=True)
        cli = cli_crawl(server, s3.endpoint_url, Path(folder) / "cli")
        print(cli, flush=True)
    text = section([median_crawl(rounds[1]), median_crawl(rounds[2]), cli],
                   {w: [c.photos_per_s for c in crawls] for w, crawls in rounds.items()}, args)
    publish(text, SECTION, DOC, args.write)


if __name__ == "__main__":
    main()
