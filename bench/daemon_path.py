"""The same crawl through the command's deployment and the production topology's launchers,
side by side (issue 34).

    python -m bench.daemon_path [--brands 10 --shows 10 --photos 40] [--rounds 2]
                                [--latency-ms 100] [--before /tmp/before] [--write]

Every crawl runs through a Dagster daemon: the command's on its own ``dagster dev``,
production's on the topology of docs/operations.md. Here one replica (no page delay,
``bench.run``'s ENGINE pace) is crawled, every brand, each way once per round
(``--rounds``), alternating:

1. ``fashion-assets crawl --json --brand ...`` as ``bench.run`` measures it: a ``dagster dev``
   up with the crawl's settings (Dagster's storage on SQLite, the default run launcher, the
   local ``dagster.yaml`` the command writes), the command submitting to it;
2. the daemon's path with the default run launcher: the production topology
   (``bench.topology``: gRPC code server, webserver, daemon, no Celery) on
   ``deploy/dagster.yaml`` with Dagster's storage on a fresh PostgreSQL database, started
   before timing, the brands registered with ``fashion-assets brands discover``; then 2 runs
   of ``runway_crawl`` over half the brands each (the schedule's batch tags), submitted with
   one ``launchMultipleRuns`` POST to the webserver's GraphQL as the UI or the API would,
   timed from the POST to the last run's end. deploy/dagster.yaml is taken as it is (its
   dequeue interval and threads too: a run's wait in the queue is production's);
3. production as deploy/ configures it: its run launcher
   (``fashion_assets.launch.celery_runs``, dagster-celery's) sends whole runs to warm
   Celery workers (1, then 2, ``--concurrency=1`` each) that imported the code location once
   (``-i fashion_assets.definitions``); a run executes in a worker's pool process, its steps
   in process. Broker: a RabbitMQ virtual host of its own. Result backend:
   ``db+postgresql+psycopg2://`` on a fresh database, as docs/operations.md sets it up. Both
   sides read deploy/celery.yaml.
4. the 2 workers again with every Dagster process reaching Dagster's database through
   PgBouncer in session mode (``bench/pooler.py``), when ``pgbouncer`` is installed
   (``apt-get install pgbouncer``; without it the row is left out).

With ``--before``, each round first crawls with the command as it was before issue 34, on
its own process engine, from an old checkout (``bench/before_issue.py`` says how to make
it): the baseline the issue sets for one Celery worker.

Figures: wall seconds, photos stored (counted in the catalog), photos per second, and CPU
seconds of every process started for the crawl: the command and the run processes it got
started (``bench.deployed.measure_runs``); for the topology's paths every process of it
(psutil: each live descendant with the children it reaped, plus those this process reaped),
from just before the POST to 3 s after the last run ended (the idle daemon and webserver
tick meanwhile).
The replica is left out; PostgreSQL (every ``postgres`` process of the machine) is apart,
and so are the sessions opened on Dagster's database (``pg_stat_database.sessions``, read
from the admin database) from the POST to the end, per run.
Per run, from Dagster's event log: the POST, created, RUN_ENQUEUED, RUN_STARTING (dequeued
and launched: 1.13 writes no RUN_DEQUEUED), RUN_START (its process executes it), its end.

Workers as the bound (``--latency-ms``): on two cores the crawl's CPU bounds every path
long before the workers do, so the replica answers every request that much later and the
photo cap per host is twice a run's own concurrency: a run then waits on its own requests
in flight, and a second worker runs the second run beside the first instead of after it.
With ``--write`` such a run replaces the section "Workers as the bound (issue 34)".

Bytecode: when PYTHONDONTWRITEBYTECODE is set here, every process measured would compile the
project from source at each start (about twice its import time); they get a bytecode cache
in a temporary folder instead (PYTHONPYCACHEPREFIX), warmed once before timing, as an
installed package has. With ``--write`` the section "The daemon's path (issue 34)" of
docs/performance.md is replaced.
"""

from __future__ import annotations

import argparse
import math
import statistics
import tempfile
import time
from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from dagster import DagsterEventType, RunsFilter

from bench.before_issue import COMMIT, before_command, before_crawl
from bench.common import ROOT, Replica, fresh_database, machine_sentence, replica
from bench.costs import postgres_cpu_s, sessions_opened, tree_cpu_s
from bench.deployed import warm_bytecode
from bench.peers import CONCURRENCY, Pace
from bench.phases import PHASE_LABELS, phase_summary, run_phases
from bench.pooler import pgbouncer, pgbouncer_binary
from bench.reliability import publish
from bench.run import ENGINE, fashion_assets_crawl
from bench.topology import DEPLOY, Topology, dagster_pg_env, rabbitmq_vhost, wait_for
from fashion_assets.domain.batches import batches
from fashion_assets.launch.graphql import GraphQL, GraphQLError
from fashion_assets.sources.registry import VOGUE
from fashion_assets.tags import batch_tags
from tests.catalog_db import query

DOC = ROOT / "docs" / "performance.md"
HEADING = "The daemon's path (issue 34)"
WORKERS_HEADING = "Workers as the bound (issue 34)"
RUN_DEADLINE_S = 600.0
SETTLE_S = 3.0
CLI = "command on dagster dev"
DEFAULT = "daemon + default launcher"
BEFORE = f"command before issue 34 ({COMMIT}, own process engine)"


def celery_path(workers: int) -> str:
    return f"daemon + Celery launcher ({workers} worker{'s' * (workers > 1)})"


ONE, TWO = celery_path(1), celery_path(2)
POOLED = " + PgBouncer"
WARM = ("import fashion_assets.definitions, fashion_assets.cli, dagster_webserver.cli, "
        "dagster_celery.cli, dagster._daemon.cli, dagster._grpc.impl")
LAUNCH = """mutation($ps: [ExecutionParams!]!) { launchMultipleRuns(executionParamsList: $ps) {
  __typename ... on LaunchMultipleRunsResult { launchMultipleRunsResult { __typename
      ... on LaunchRunSuccess { run { runId } } ... on PythonError { message } } }
  ... on PythonError { message } } }"""


@dataclass(frozen=True)
class Result:
    """One measured crawl of one path."""

    path: str
    wall_s: float
    photos: int
    cpu_s: float
    postgres_s: float
    runs: list[dict[str, Any]] = field(default_factory=list)  # status and marks
    # Sessions opened on Dagster's PostgreSQL database from the POST to the end, every
    # process's (None for the command's SQLite instance).
    dagster_sessions: int | None = None

    @property
    def photos_per_s(self) -> float:
        return self.photos / self.wall_s


def stored_photos(catalog: str) -> int:
    return query(catalog, "SELECT count(*) FROM brand_runway_draft_images")[0][0]


def cli_crawl(server: Replica, folder: Path, pace: Pace) -> Result:
    """``fashion-assets crawl`` of every brand, as ``bench.run`` measures it."""
    folder.mkdir(parents=True)
    with fresh_database() as catalog:
        postgres = postgres_cpu_s()
        crawl = fashion_assets_crawl(server, catalog, folder / "home", pace,
                                     store_url=f"file://{folder / 'store'}")
        return Result(CLI, crawl.measured.wall_s, stored_photos(catalog), crawl.measured.cpu_s,
                      postgres_cpu_s() - postgres)


def daemon_crawl(server: Replica, folder: Path, workers: int | None, pace: Pace,
                 pooled: bool = False) -> Result:
    """The crawl through the daemon's path: the default run launcher (``workers`` None) or
    the Celery run launcher with that many workers, with every Dagster process reaching
    its database through PgBouncer when ``pooled``."""
    with fresh_database() as catalog, fresh_database() as dagster_db, ExitStack() as stack:
        env = {"FASHION_DATABASE_URL": catalog, "FASHION_STORE_URL": f"file://{folder}/store",
               "FASHION_HOME": str(folder / "home"), **pace.fashion_assets_env(),
               **server.env(), **dagster_pg_env(dagster_db)}
        if pooled:
            host, port = stack.enter_context(pgbouncer(
                env["DAGSTER_PG_HOST"], int(env["DAGSTER_PG_PORT"]), env["DAGSTER_PG_USER"]))
            env = {**env, "DAGSTER_PG_HOST": host, "DAGSTER_PG_PORT": str(port)}
        if workers is None:
            with Topology(folder, env, workers=()) as top:
                return follow(server, top, DEFAULT, catalog)
        with rabbitmq_vhost() as broker, fresh_database() as results:
            names = tuple(f"worker-{i}" for i in range(1, workers + 1))
            env = {**env, "CELERY_BROKER_URL": broker, "CELERY_RESULT_BACKEND": f"db+{results}"}
            with Topology(folder, env, workers=names) as top:
                path = celery_path(workers) + (POOLED if pooled else "")
                return follow(server, top, path, catalog)


def submit(top: Topology) -> tuple[float, list[str]]:
    """The brands registered, in 2 runs of half of them each, in one ``launchMultipleRuns``:
    its epoch time and the runs' ids."""
    assert VOGUE.runway_names is not None
    with top.instance() as instance:
        brands = instance.get_dynamic_partitions("brands")
    params = [{"selector": {"repositoryLocationName": "fashion_assets",
                            "repositoryName": "__repository__",
                            "jobName": VOGUE.runway_names.crawl_job},
               "runConfigData": {},
               "executionMetadata": {"tags": [{"key": k, "value": v}
                                              for k, v in batch_tags(batch).items()]}}
              for batch in batches(brands, math.ceil(len(brands) / 2))]
    graphql = GraphQL(top.web_url)
    submitted = time.time()
    answer = graphql(LAUNCH, ps=params)["launchMultipleRuns"]
    launched = answer.get("launchMultipleRunsResult") or [answer]
    if any(r["__typename"] != "LaunchRunSuccess" for r in launched):
        raise GraphQLError(str(answer)[:2000])
    return submitted, [r["run"]["runId"] for r in launched]


def follow(server: Replica, top: Topology, path: str, catalog: str) -> Result:
    """Register the brands, submit the runs, wait for their end; the crawl's figures."""
    top.fashion_assets("brands", "discover", timeout_s=600)
    server.reset()
    time.sleep(SETTLE_S)  # the processes' first sensor and schedule passes, untimed
    cpu, postgres = tree_cpu_s(server.process.pid), postgres_cpu_s()
    sessions = sessions_opened(top.env["DAGSTER_PG_DB"])
    submitted, ids = submit(top)
    with top.instance() as instance:
        def ended() -> bool:
            records = instance.get_run_records(RunsFilter(run_ids=ids))
            return len(records) == len(ids) and all(r.dagster_run.is_finished for r in records)

        wait_for(ended, f"{len(ids)} runs to end", RUN_DEADLINE_S, top.check_running)
        time.sleep(SETTLE_S)
        cpu, postgres = tree_cpu_s(server.process.pid) - cpu, postgres_cpu_s() - postgres
        sessions = sessions_opened(top.env["DAGSTER_PG_DB"]) - sessions
        runs = [run_figures(instance, record, submitted)
                for record in instance.get_run_records(RunsFilter(run_ids=ids))]
    failed = [r for r in runs if r["status"] != "SUCCESS"]
    if failed:
        raise RuntimeError(f"{path}: runs {failed} did not succeed\n{top.logs()}")
    wall = max(r["marks"]["ended"] for r in runs) - submitted
    return Result(path, wall, stored_photos(catalog), cpu, postgres,
                  sorted(runs, key=lambda r: r["marks"]["created"]), sessions)


def run_figures(instance: Any, record: Any, submitted: float) -> dict[str, Any]:
    """A run's status and marks (epoch times) from its record and its event log."""
    kinds = {DagsterEventType.RUN_ENQUEUED: "enqueued", DagsterEventType.RUN_STARTING:
             "starting", DagsterEventType.RUN_START: "started",
             DagsterEventType.RUN_SUCCESS: "ended", DagsterEventType.RUN_FAILURE: "ended"}
    run = record.dagster_run
    marks = {"submitted": submitted, "created": record.create_timestamp.timestamp()}
    for entry in instance.all_logs(run.run_id, of_type=set(kinds)):
        marks.setdefault(kinds[entry.dagster_event.event_type], entry.timestamp)
    return {"status": run.status.value, "marks": marks}


def measure_round(server: Replica, folder: Path, number: int, pace: Pace,
                  before: Path | None = None) -> list[Result]:
    """One crawl of each path, in order (the old checkout's command first, if any)."""
    results = []
    if before is not None:
        measured, photos, postgres = before_crawl(before, server, folder / f"{number}-before",
                                                  pace)
        results.append(Result(BEFORE, measured.wall_s, photos, measured.cpu_s, postgres))
    results.append(cli_crawl(server, folder / f"{number}-cli", pace))
    paths = [(None, False), (1, False), (2, False)] + [(2, True)] * bool(pgbouncer_binary())
    for workers, pooled in paths:
        results.append(daemon_crawl(server, folder / f"{number}-daemon-{workers}-{pooled}",
                                    workers, pace, pooled))
        print(f"round {number}: {results[-1].path}: {results[-1].wall_s:.1f} s", flush=True)
    return results


def paths_table(results: Sequence[Result]) -> list[str]:
    lines = ["| path | wall s (each round) | photos | photos/s (median) | CPU s of its "
             "processes (median) | PostgreSQL CPU s (median) | Dagster DB sessions per run "
             "(median) |", "|---|---|---|---|---|---|---|"]
    for path, group in by_path(results).items():
        per_run = [r.dagster_sessions / len(r.runs) for r in group
                   if r.dagster_sessions is not None and r.runs]
        lines.append(
            f"| {path} | {', '.join(f'{r.wall_s:.1f}' for r in group)} | "
            f"{', '.join(f'{r.photos:,}' for r in group)} | "
            f"{statistics.median(r.photos_per_s for r in group):.0f} | "
            f"{statistics.median(r.cpu_s for r in group):.1f} | "
            f"{statistics.median(r.postgres_s for r in group):.1f} | "
            f"{f'{statistics.median(per_run):.0f}' if per_run else 'SQLite'} |")
    return lines


def phases_table(results: Sequence[Result]) -> list[str]:
    """Each run's phases (``round.run``), and per path their medians and shares."""
    lines = ["| path | round.run | " + " | ".join(PHASE_LABELS) + " | POST → ended |",
             "|---|---|" + "---|" * (len(PHASE_LABELS) + 1)]
    for path, group in by_path(results).items():
        runs = {f"{n}.{i}": run_phases(run["marks"])
                for n, r in enumerate(group, 1) for i, run in enumerate(r.runs, 1)}
        for name, phases in runs.items():
            cells = [f"{phases[label]:.2f}" if label in phases else "" for label in PHASE_LABELS]
            lines.append(f"| {path} | {name} | {' | '.join(cells)} | "
                         f"{sum(phases.values()):.2f} |")
        if runs:
            summary = phase_summary(list(runs.values()))
            cells = [f"**{summary[label][0]:.2f} ({summary[label][1]:.0%})**"
                     if label in summary else "" for label in PHASE_LABELS]
            whole = statistics.median(sum(phases.values()) for phases in runs.values())
            lines.append(f"| {path} | median (share) | {' | '.join(cells)} | {whole:.2f} |")
    return lines


def by_path(results: Sequence[Result]) -> dict[str, list[Result]]:
    grouped: dict[str, list[Result]] = {}
    for result in results:
        grouped.setdefault(result.path, []).append(result)
    return grouped


def findings(results: Sequence[Result], workers_bound: bool = False) -> str:
    """What the figures say, in a few sentences built from them (with the workers as the
    bound, the ratio of two workers' photos per second to one's)."""
    grouped = by_path(results)
    rates = {p: statistics.median(r.photos_per_s for r in g) for p, g in grouped.items()}
    wall = {p: statistics.median(r.wall_s for r in g) for p, g in grouped.items()}
    cpu = {p: statistics.median(r.cpu_s for r in g) for p, g in grouped.items()}
    largest = {}
    for path, group in grouped.items():
        if summary := phase_summary([run_phases(run["marks"]) for r in group for run in r.runs]):
            largest[path] = max(summary.items(), key=lambda item: item[1][1])
    return " ".join([
        f"Median wall time and CPU of the processes started: the command {wall[CLI]:.1f} s and "
        f"{cpu[CLI]:.1f} CPU s; " + "; ".join(
            f"{p} {wall[p]:.1f} s ({wall[p] / wall[CLI]:.2f}x the command's) and {cpu[p]:.1f} CPU s"
            for p in wall if p != CLI) + ".",
        "A run's largest phase (median, share of its seconds): " + "; ".join(
            f"{p} {label}, {median:.2f} s, {share:.0%}"
            for p, (label, (median, share)) in largest.items()) + ".",
        "With one Celery worker, one of the two runs waits in the broker for the worker's "
        "only slot: its launch phase holds the other run's execution.",
        *([f"One Celery worker crawls at {rates[ONE] / rates[BEFORE]:.2f}x the photos per "
           f"second of the command before issue 34 ({rates[ONE]:.0f} against "
           f"{rates[BEFORE]:.0f}; the worker's from the POST, as a schedule's tick submits, "
           "the old command's from its start)."] if {ONE, BEFORE} <= set(rates) else []),
        *([f"Two workers crawl at {rates[TWO] / rates[ONE]:.2f}x one worker's photos per "
           "second."] if workers_bound and {ONE, TWO} <= set(rates) else [])])


def report(results: Sequence[Result], args: argparse.Namespace) -> str:
    photos = args.brands * args.shows * args.photos
    instance = yaml.safe_load((DEPLOY / "dagster.yaml").read_text())
    interval = instance.get("run_coordinator", {}).get("config", {}).get(
        "dequeue_interval_seconds", 5)  # Dagster's default
    latency = f" --latency-ms {args.latency_ms:g}" if args.latency_ms else ""
    latency += " --before <checkout>" if args.before else ""
    before = (f"; first in each round, the command before issue 34 (a checkout of {COMMIT} "
              "in its own venv: bench/before_issue.py), from its start" if args.before else "")
    bound = (f"; every answer {args.latency_ms:g} ms late and the photo cap per host "
             f"{2 * CONCURRENCY}, so that a run is bound by its own requests in flight and "
             "the workers are the bound" if args.latency_ms else "")
    return "\n".join([
        f"Measured by `python -m bench.daemon_path --brands {args.brands} --shows {args.shows} "
        f"--photos {args.photos} --rounds {args.rounds}{latency}`: one replica ({photos:,} "
        f"photos, no page delay, {CONCURRENCY} requests at a time per run{bound}), each path "
        f"once per round, alternating{before}, each "
        "crawl on a fresh catalog; the daemon's paths on the production topology "
        "(deploy/dagster.yaml as it is: Dagster's storage on PostgreSQL, dequeue interval "
        f"{interval} s), "
        "2 runs of half the brands each submitted in one `launchMultipleRuns` POST to the "
        "webserver, timed from the POST to the last run's end; the default launcher's "
        "path without deploy/dagster.yaml's `run_launcher` block, the Celery paths with it "
        "(whole runs on warm workers, `-i fashion_assets.definitions`, `--concurrency=1`, "
        "result backend on PostgreSQL), the PgBouncer row with every Dagster process reaching "
        "Dagster's database through PgBouncer (session mode, `bench/pooler.py`; its server "
        "connections are opened before the POST). CPU: every process started for the crawl "
        "(topology included), the replica left out; PostgreSQL: every `postgres` process of the "
        "machine; sessions: those opened on Dagster's database from the POST to the end, by "
        "every process (PostgreSQL's `pg_stat_database.sessions`), per run. "
        + machine_sentence(),
        "", *paths_table(results), "",
        "Where a run's seconds go (Dagster's event log, s; per path the medians, and each "
        "phase's share of all its runs' seconds from the POST to their end):", "",
        *phases_table(results), "",
        findings(results, bool(args.latency_ms))])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--brands", type=int, default=10)
    parser.add_argument("--shows", type=int, default=10)
    parser.add_argument("--photos", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--latency-ms", type=float, default=0.0,
                        help="every replica answer this much later, the photo cap per host "
                        "twice a run's: each run is bound by its own requests in flight, "
                        "so the workers are the bound")
    parser.add_argument("--before", type=Path, help="a checkout of the code before issue 34 "
                        f"({COMMIT}) with its own .venv: its command crawls first each round")
    parser.add_argument("--write", action="store_true", help=f"put the figures in {DOC}")
    args = parser.parse_args()
    if args.before is not None:
        before_command(args.before.resolve())
    pace = Pace("workers-bound", 0.0, 2 * CONCURRENCY) if args.latency_ms else ENGINE
    with tempfile.TemporaryDirectory(prefix="fa-daemon-path-") as folder:
        warm_bytecode(Path(folder) / "pycache", WARM)
        with replica(args.brands, args.shows, args.photos) as server:
            if args.latency_ms:
                server.control("faults", {"latency_ms": args.latency_ms})
            results = [result for number in range(1, args.rounds + 1)
                       for result in measure_round(server, Path(folder), number, pace,
                                                   args.before and args.before.resolve())]
    publish(report(results, args), WORKERS_HEADING if args.latency_ms else HEADING, DOC,
            args.write)


if __name__ == "__main__":
    main()
