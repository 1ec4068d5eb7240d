"""Reliability of the crawl: transient faults, SIGKILLs and concurrent runs, with figures.

    python bench/reliability.py            # the full size (about three minutes on 2 cores)
    python bench/reliability.py --quick    # a small size, to check the harness

The replica serves from its own process (``bench.common.replica``). Every scenario runs
``fashion-assets crawl`` as a user does, in separate processes, on a fresh PostgreSQL
database and a file store in a temp folder, and compares its drafts (public show URL ->
object keys in photo order) with what the replica serves:

1. Faults: the replica injects 10% 5xx, 5% 429 with Retry-After, 2% dropped connections,
   2% hangs past the client's timeout and 1% truncated bodies; the drafts must equal those
   of a fault-free crawl of the same replica, and no host may receive a request inside a
   Retry-After window it gave.
2. Kills: the crawl's process group is killed with SIGKILL at random moments (a random
   number of photo requests let through the replica's gate), restarted each time, and
   finally run to completion: the same drafts, no duplicate, and no more objects left
   unreferenced than photos were in flight at the kills.
3. Concurrency: four crawls of the same brand at once (and four of the same two brands),
   each frozen at its first photo until every one has planned its work: no failed run, no
   duplicate draft.
4. Coverage loop: a crawl under faults with a client that gives up fast, then the
   coverage sensor's repair runs, the faults still on: the fault-free drafts within three
   sensor-driven rounds.

The summary is printed and the ``## Faults``, ``## Kills``, ``## Concurrency`` and
``## Coverage loop`` sections of docs/reliability.md are replaced; other sections of that
file (written by other scripts) are kept. The test suite runs small versions of the same
scenarios through these functions (tests/integration/test_reliability.py).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

if __package__ in (None, ""):  # run as a script (python bench/reliability.py): find ``bench``
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import psutil

from bench.common import ROOT, Replica, fresh_database, machine, replica
from fashion_assets.replica import (
    FaultPlan,
    ReplicaSite,
    ReplicaStats,
    build_site,
    photo_bytes,
)
from fashion_assets.settings import setting
from fashion_assets.sources.vogue import PUBLIC_BASE_URL
from fashion_assets.storage import object_key
from fashion_assets.storage.base import is_object_path
from fashion_assets.storage.file import TEMP_PREFIX
from tests.catalog_db import query

DOC = ROOT / "docs" / "reliability.md"
SECTIONS = ("Faults", "Kills", "Concurrency", "Coverage loop")
FULL_SIZE = (4, 10, 40)  # brands, shows per brand, photos per show
QUICK_SIZE = (2, 3, 8)
KILLS = 20
WORKERS = 2
IMAGE_CONCURRENCY = int(setting({}, "FASHION_IMAGE_CONCURRENCY"))  # the default
DEADLINE_S = 600.0  # the longest any one crawl process may take

# The seed is one whose draws include every kind of fault in the first 50 requests.
FAULTS = FaultPlan(error_5xx=0.10, rate_429=0.05, retry_after_s=1, drop=0.02, timeout=0.02,
                   hang_s=3, truncate=0.01, seed=48)
# Against FAULTS: a timeout shorter than a hang, and enough retries that a photo failing
# eleven times in a row (about 0.2 ** 11) does not happen.
FAULT_CLIENT_ENV = {"FASHION_HTTP_TIMEOUT": "1", "FASHION_HTTP_RETRIES": "10",
                    "FASHION_RETRY_BACKOFF": "0.05"}
# One show and one photo at a time: a run then holds exactly one request per brand at the
# replica's gate (its image client's robots.txt, or a photo).
ONE_AT_A_TIME = {"FASHION_IMAGE_CONCURRENCY": "1", "FASHION_SHOW_CONCURRENCY": "1"}

# The coverage loop: a client that gives up fast (two retries), so a crawl under faults leaves
# photos missing, and a tolerance of 0, so every missing photo makes its show incomplete:
# the loop must then end with exactly the fault-free drafts. The sensor's back-off starts at
# an hour of its clock, and each round ticks when the last round's shows are due again.
COVERAGE_CLIENT_ENV = {"FASHION_HTTP_TIMEOUT": "1", "FASHION_HTTP_RETRIES": "2",
                       "FASHION_RETRY_BACKOFF": "0.05", "FASHION_COVERAGE_TOLERANCE": "0",
                       "FASHION_REPAIR_BACKOFF": "3600", "FASHION_REPAIR_MAX_ATTEMPTS": "5"}
COVERAGE_ROUNDS = 3
# Photos a CDN refuses (403) are not retried by the client: they go missing at once. About
# 6% of the photos fail a round (403 or three failed tries), so of the ~100 a crawl of 1,600
# loses, 3 rounds leave none but with odds of about 2%.
COVERAGE_FAULTS = replace(FAULTS, error_403=0.05)

Drafts = dict[str, tuple[str, ...]]


class ImageGate(Protocol):
    """The replica's image gate, as the kills and the concurrent runs drive it: that of a
    ``ReplicaServer`` in this process (the tests) or of a ``RemoteReplica`` (the bench)."""

    def hold_images(self, after: int) -> None: ...
    def release_images(self) -> None: ...
    def held_count(self) -> int: ...


@dataclass(frozen=True)
class RemoteReplica:
    """A replica in its own process behind the methods of an in-process ``ReplicaServer``."""

    server: Replica
    site: ReplicaSite

    def set_faults(self, plan: FaultPlan) -> None:
        self.server.control("faults", asdict(plan))

    def reset_stats(self) -> None:
        self.server.reset()

    def stats(self) -> ReplicaStats:
        return ReplicaStats.from_dict(self.server.stats())

    def hold_images(self, after: int) -> None:
        self.server.control(f"hold?after={after}")

    def release_images(self) -> None:
        self.server.control("release")

    def held_count(self) -> int:
        return self.stats().held


# -- what a crawl left behind -------------------------------------------------------------


def expected_drafts(site: ReplicaSite, brands: Sequence[str] | None = None) -> Drafts:
    """The drafts a complete crawl makes of ``site`` (or of ``brands``): every show, every
    photo, under the sha1 of the bytes the replica serves."""
    return {PUBLIC_BASE_URL + show.path: tuple(object_key(photo_bytes(site, photo.photo_id))
                                               for photo in show.photos)
            for brand in site.brands if brands is None or brand.slug in brands
            for show in brand.shows}


@dataclass(frozen=True)
class DraftState:
    """The drafts of a catalog, and how many draft rows hold them (more rows than source
    URLs would be a duplicate draft)."""

    drafts: Drafts
    rows: int

    @property
    def duplicates(self) -> int:
        return self.rows - len(self.drafts)

    @property
    def photos(self) -> int:
        return sum(len(keys) for keys in self.drafts.values())

    @property
    def keys(self) -> frozenset[str]:
        return frozenset(key for keys in self.drafts.values() for key in keys)


def read_drafts(database_url: str) -> DraftState:
    rows = query(database_url,
                 "SELECT d.id, d.source_url, i.object_key FROM brand_runway_drafts d"
                 " LEFT JOIN brand_runway_draft_images i ON i.draft_id = d.id"
                 " ORDER BY d.id, i.position")
    by_id: dict[int, tuple[str, list[str]]] = {}
    for draft_id, url, key in rows:
        by_id.setdefault(draft_id, (url, []))[1].extend([key] if key else [])
    return DraftState({url: tuple(keys) for url, keys in by_id.values()}, len(by_id))


@dataclass(frozen=True)
class StoreContents:
    """The objects of a file store, and the temp files a kill left between write and link."""

    keys: frozenset[str]
    temp_files: int


def store_contents(root: Path) -> StoreContents:
    keys, temp_files = set(), 0
    for shard in root.iterdir() if root.is_dir() else ():
        for entry in shard.iterdir() if shard.is_dir() else ():
            if is_object_path(f"{shard.name}/{entry.name}"):
                keys.add(entry.name)
            elif entry.name.startswith(TEMP_PREFIX):
                temp_files += 1
    return StoreContents(frozenset(keys), temp_files)


# -- crawl processes ----------------------------------------------------------------------


@dataclass(frozen=True)
class CrawlRun:
    """How one ``fashion-assets crawl`` process ended, with its per-brand summaries."""

    returncode: int
    summaries: tuple[dict[str, Any], ...]
    wall_s: float
    log_tail: str

    @property
    def ok(self) -> bool:
        return (self.returncode == 0 and bool(self.summaries)
                and all(s["success"] for s in self.summaries))

    def shows(self, outcome: str) -> int:
        """How many shows of this run had ``outcome`` (``created``, ``failed``, ...)."""
        return sum(s.get("shows", {}).get(outcome, 0) for s in self.summaries)


class CrawlProcess:
    """``fashion-assets crawl --json`` in a session of its own.

    Its own process group holds the command, the fork server and the workers, so a kill
    reaches all of them at once, as a crash of the machine would. Output goes to files: a
    pipe nobody reads while the crawl is frozen at the gate could fill and block it.
    """

    def __init__(self, env: Mapping[str, str], brands: Sequence[str], logs: Path) -> None:
        logs.mkdir(parents=True, exist_ok=True)
        name = logs / f"crawl-{uuid.uuid4().hex[:8]}"
        self._stdout, self._stderr = name.with_suffix(".json"), name.with_suffix(".log")
        command = [sys.executable, "-m", "fashion_assets", "crawl", "--json",
                   *[a for b in brands for a in ("--brand", b)]]
        self.started = time.monotonic()
        with open(self._stdout, "w") as out, open(self._stderr, "w") as err:
            self.process = subprocess.Popen(command, env={**os.environ, **env}, stdout=out,
                                            stderr=err, start_new_session=True)

    def exited(self) -> bool:
        return self.process.poll() is not None

    def log_tail(self) -> str:
        return self._stderr.read_text(errors="replace")[-3000:]

    def kill(self, deadline_s: float = 30.0) -> None:
        """SIGKILL the whole process group, thaw it, and wait until none of it runs any more.

        Also after the command itself has exited: Dagster's helpers (its compute-log
        ``tail -F`` and their watcher) live on in the group. SIGKILL ends even members a
        test stopped with SIGSTOP; SIGCONT follows anyway, cheap insurance that nothing of
        the group stays frozen. The command is reaped here, the orphans by init.
        """
        for sig in (signal.SIGKILL, signal.SIGCONT):
            with contextlib.suppress(ProcessLookupError):  # nothing of the group is left
                os.killpg(self.process.pid, sig)
        self.process.wait(timeout=deadline_s)
        wait_until(lambda: not group_members(self.process.pid), "the killed group to end",
                   [], deadline_s)

    def finish(self, deadline_s: float = DEADLINE_S) -> CrawlRun:
        """Wait for the crawl to end; past the deadline it is killed and this raises."""
        try:
            self.process.wait(timeout=max(0.0, self.started + deadline_s - time.monotonic()))
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError(f"crawl still running after {deadline_s:.0f} s:\n"
                                 f"{self.log_tail()}") from None
        wall = time.monotonic() - self.started
        output = self._stdout.read_text()
        summaries = tuple(json.loads(output)["crawls"]) if output.strip() else ()
        return CrawlRun(self.process.returncode, summaries, wall, self.log_tail())


def group_members(pgid: int) -> list[psutil.Process]:
    """The processes of group ``pgid`` that still run (zombies are dead: not counted)."""
    found = []
    for proc in psutil.process_iter():
        with contextlib.suppress(psutil.Error):
            if os.getpgid(proc.pid) == pgid and proc.status() != psutil.STATUS_ZOMBIE:
                found.append(proc)
    return found


def wait_until(condition: Callable[[], bool], what: str, crawls: Sequence[CrawlProcess],
               deadline_s: float = DEADLINE_S) -> None:
    """Poll a real condition until it holds; fail if a crawl exits first or time runs out."""
    deadline = time.monotonic() + deadline_s
    while not condition():
        for crawl in crawls:
            if crawl.exited():
                raise AssertionError(f"crawl exited before {what}:\n{crawl.log_tail()}")
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {deadline_s:.0f} s waiting for {what}")
        time.sleep(0.05)  # the polling interval of a real condition, not a synchronisation


# -- the scenarios ------------------------------------------------------------------------


@dataclass(frozen=True)
class Kill:
    """One SIGKILL: where the gate closed and what the killed run left."""

    after: int  # image requests let through before the gate closed
    in_flight: int  # image requests of the killed run waiting at the gate
    drafts: int  # drafts committed when it was killed
    unreferenced: int  # objects stored for shows not committed yet


@dataclass(frozen=True)
class KillResult:
    kills: tuple[Kill, ...]
    final: CrawlRun
    drafts: DraftState
    store: StoreContents
    wall_s: float

    @property
    def in_flight(self) -> int:
        return sum(k.in_flight for k in self.kills)

    @property
    def unreferenced(self) -> int:
        """Objects no draft references once the crawl is complete."""
        return len(self.store.keys - self.drafts.keys)

    @property
    def missing(self) -> int:
        """Objects a draft references that the store does not hold (a lost photo)."""
        return len(self.drafts.keys - self.store.keys)


def kill_and_restart(server: ImageGate, env: Mapping[str, str], brands: Sequence[str],
                     *, kills: int, workers: int, seed: int, total_photos: int,
                     database_url: str, store_root: Path, logs: Path,
                     deadline_s: float = DEADLINE_S) -> KillResult:
    """Kill a crawl ``kills`` times at random moments, restarting it each time, then let it
    finish.

    A moment is a number of image requests the replica's gate lets through, drawn below the
    photos not drafted yet, so the crawl always reaches the gate before it could finish; the
    crawl is killed as soon as a request waits there. On average each kill lets through an
    equal share of what is left, so the kills spread over the whole crawl.
    """
    rng = random.Random(seed)
    started = time.monotonic()
    records: list[Kill] = []
    drafted_photos = 0
    for left in range(kills, 0, -1):
        after = rng.randrange(max(1, 2 * (total_photos - drafted_photos) // (left + 1)))
        with gate_closed(server, after):
            crawl = CrawlProcess(env, brands, logs)
            try:
                wait_until(lambda: server.held_count() > 0, "the crawl to reach the gate",
                           [crawl], deadline_s)
            finally:
                crawl.kill()
            in_flight = server.held_count()
        state = read_drafts(database_url)
        drafted_photos = state.photos
        records.append(Kill(after, in_flight, len(state.drafts),
                            len(store_contents(store_root).keys - state.keys)))
    final = CrawlProcess(env, brands, logs).finish(deadline_s)
    return KillResult(tuple(records), final, read_drafts(database_url),
                      store_contents(store_root), time.monotonic() - started)


def concurrent_crawls(server: ImageGate, env: Mapping[str, str],
                      brand_sets: Sequence[Sequence[str]], logs: Path,
                      deadline_s: float = DEADLINE_S) -> list[CrawlRun]:
    """One crawl per brand set, all at once, each brand in a worker of its own.

    Every run is frozen at its first image request (one per brand, see ``ONE_AT_A_TIME``)
    until all of them have one: by then each has read its shows, none drafted, and fetches
    the photos of every show with its manifest, so all of them go on to draft shows the
    others draft too, and the catalog's unique source key has to settle every race. A held
    request waits for the slowest run to start, however long that takes on a busy machine,
    so the client's timeout is the scenario's deadline: the hold is not a fault to retry.

    robots.txt is not obeyed here: the gate holds every request to the CDN, its robots.txt
    too, and one client reads an origin's robots.txt for all of them (the others wait for
    it, up to ``ROBOTS_READ_CLAIM_S``), so only one run would ever reach the gate.
    """
    crawls: list[CrawlProcess] = []
    try:
        with gate_closed(server, after=0):
            held_env = {**env, **ONE_AT_A_TIME, "FASHION_HTTP_TIMEOUT": str(deadline_s),
                        "FASHION_OBEY_ROBOTS": "false"}
            crawls = [CrawlProcess(held_env, brands, logs)
                      for brands in brand_sets]
            held = sum(len(brands) for brands in brand_sets)
            wait_until(lambda: server.held_count() == held, "every run to reach a photo",
                       crawls, deadline_s)
        return [crawl.finish(deadline_s) for crawl in crawls]
    finally:
        for crawl in crawls:
            if not crawl.exited():  # only after an error: no crawl outlives its scenario
                crawl.kill()


@contextlib.contextmanager
def gate_closed(server: ImageGate, after: int) -> Iterator[None]:
    """Let ``after`` image requests through and hold the rest until the block ends, however
    it ends: a gate left closed would freeze every later crawl of the replica."""
    server.hold_images(after)
    try:
        yield
    finally:
        server.release_images()


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
        "plan": asdict(FAULTS), "client": FAULT_CLIENT_ENV, "workers": WORKERS,
        "fault_free": clean, "faulty": faulty,
        "same_drafts": drafts["faults"] == drafts["fault-free"],
        "retries": faulty["requests"] - clean["requests"],
    }


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
    from fashion_assets.runs import crawl_brands

    dagster_home.mkdir(parents=True, exist_ok=True)
    instance = DagsterInstance.local_temp(str(dagster_home))
    rules = resources_from_env(env)["crawler"].repair_rules()
    start = datetime(2026, 1, 5, 8, 0, tzinfo=UTC)
    # Each round ticks when the last round's shows are due again: 0 h, 1 h, 3 h, ...
    ticks = [start + sum((backoff(k, rules) for k in range(1, n + 1)), timedelta())
             for n in range(rounds)]
    crawl_brands(list(brands), instance, env)
    missing = _missing(read_drafts(database_url).drafts, reference)
    done: list[CoverageRound] = []
    for n in range(rounds):
        between_rounds()
        if _missing(read_drafts(database_url).drafts, reference) == 0:
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
            _missing(state.drafts, reference), state.drafts == reference))
        if state.drafts == reference:
            break
    return missing, done


def _missing(drafts: Drafts, reference: Drafts) -> int:
    """Photos of ``reference`` not in ``drafts`` (a show not drafted lacks all of its)."""
    return sum(len(set(keys) - set(drafts.get(url, ()))) for url, keys in reference.items())


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
            "wall_s": wall_s}


def _requests(stats: ReplicaStats) -> int:
    return stats.page_requests + stats.image_requests + stats.robots_requests


def kills_scenario(remote: RemoteReplica, work: Path, reference: Drafts, kills: int,
                   seed: int) -> dict[str, Any]:
    brands = [b.slug for b in remote.site.brands]
    with fresh_database() as database_url:
        env = bench_env(remote.server, database_url, work / "kills",
                        FASHION_IMAGE_CONCURRENCY=str(IMAGE_CONCURRENCY))
        result = kill_and_restart(
            remote, env, brands, kills=kills, workers=WORKERS, seed=seed,
            total_photos=sum(len(keys) for keys in reference.values()),
            database_url=database_url, store_root=work / "kills" / "objects",
            logs=work / "logs")
    return {
        "kills": [asdict(k) for k in result.kills], "workers": WORKERS,
        "in_flight_bound": IMAGE_CONCURRENCY * WORKERS, "in_flight": result.in_flight,
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
        "command": " ".join(["python bench/reliability.py", *(["--quick"] if quick else []),
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


def verdicts(figures: dict[str, Any]) -> dict[str, bool]:
    """Each claim of the issue, held or not."""
    faults, kills = figures["faults"], figures["kills"]
    faulty = faults["faulty"]
    return {
        "faults: same drafts as the fault-free crawl": faults["same_drafts"]
        and faults["fault_free"]["equals_replica"] and faulty["ok"],
        "faults: no duplicate draft": faulty["duplicates"] == 0,
        "faults: no request inside a Retry-After window": faulty["violations"] == 0,
        "kills: the fault-free result after the last restart": kills["same_drafts"]
        and kills["final_ok"],
        "kills: no duplicate draft, no lost object": kills["duplicates"] == 0
        and kills["missing_objects"] == 0,
        "kills: unreferenced objects <= photos in flight": kills["unreferenced"]
        <= kills["in_flight"],
        **{f"concurrency {c['label']}: no failed run, no duplicate":
           c["failed_runs"] == 0 and c["duplicates"] == 0 and c["same_drafts"]
           for c in figures["concurrency"]},
        "coverage: the fault-free drafts within 3 sensor-driven rounds":
        figures["coverage"]["converged_in"] is not None
        and figures["coverage"]["converged_in"] <= COVERAGE_ROUNDS,
    }


def report(figures: dict[str, Any]) -> dict[str, str]:
    """The three sections of docs/reliability.md, by heading."""
    brands, shows, photos = figures["size"]
    held = verdicts(figures)
    measured = (f"Measured by `{figures['command']}` on {figures['date']}: replica of "
                f"{brands} brands x {shows} shows x {photos} photos ({figures['shows']} shows, "
                f"{figures['photos']:,} photos) in its own process, `fashion-assets crawl` in "
                "its own processes, catalog on a fresh PostgreSQL database per crawl, file "
                f"store; {figures['machine']['cpu']}.")
    return {"Faults": _faults_section(figures, held, measured),
            "Kills": _kills_section(figures, held, measured),
            "Concurrency": _concurrency_section(figures, held, measured),
            "Coverage loop": _coverage_section(figures, held, measured)}


def _mark(ok: bool) -> str:
    return "yes" if ok else "**NO**"


def _faults_section(figures: dict[str, Any], held: dict[str, bool], measured: str) -> str:
    f = figures["faults"]
    plan, clean, faulty = f["plan"], f["fault_free"], f["faulty"]
    throttled = faulty["by_status"].get(429, 0)
    rows = [("shows drafted", clean["shows"], faulty["shows"]),
            ("photos in drafts", clean["photos"], faulty["photos"]),
            ("photos missing", clean["missing_photos"], faulty["missing_photos"]),
            ("failed shows", clean["failed_shows"], faulty["failed_shows"]),
            ("duplicate drafts", clean["duplicates"], faulty["duplicates"]),
            ("requests", clean["requests"], faulty["requests"]),
            *[(f"answered {status}", clean["by_status"].get(status, 0), count)
              for status, count in faulty["by_status"].items()],
            ("dropped connections", clean["dropped"], faulty["dropped"]),
            ("truncated bodies", clean["truncated"], faulty["truncated"]),
            ("Retry-After violations", clean["violations"], faulty["violations"]),
            ("arrivals already in flight at a 429", clean["in_flight_after_429"],
             faulty["in_flight_after_429"]),
            ("wall s", f"{clean['wall_s']:.1f}", f"{faulty['wall_s']:.1f}")]
    return "\n".join([
        measured,
        "",
        f"Fault plan: {plan['error_5xx']:.0%} 5xx, {plan['rate_429']:.0%} 429 with "
        f"Retry-After {plan['retry_after_s']:.0f} s, {plan['drop']:.0%} dropped connections, "
        f"{plan['timeout']:.0%} hangs of {plan['hang_s']:.0f} s, {plan['truncate']:.0%} "
        f"truncated bodies (seed {plan['seed']}). Client: "
        + ", ".join(f"{k}={v}" for k, v in f["client"].items())
        + f"; {f['workers']} worker processes.",
        "",
        "| | fault-free | faults |",
        "|---|---|---|",
        *[f"| {name} | {a} | {b} |" for name, a, b in rows],
        "",
        f"- Same drafts (show URL -> object keys in order) as the fault-free crawl, which "
        f"equals the replica's shows: {_mark(held['faults: same drafts as the fault-free crawl'])}",
        f"- No duplicate draft: {_mark(held['faults: no duplicate draft'])}",
        f"- No request inside a Retry-After window: "
        f"{_mark(held['faults: no request inside a Retry-After window'])}; {f['retries']:,} "
        "requests more than the fault-free crawl (the retries).",
        "",
        f"The wall time under faults is the Retry-After windows: {throttled} answers 429, "
        f"each closing its host to every worker for at least {plan['retry_after_s']:.0f} s. "
        "The 404s are the CDN's robots.txt, which it does not have (no rules).",
        "",
        "A request that arrives within 0.25 s of a 429 was already on its way when the 429 "
        "was sent (the client could not have read it), so the replica counts it apart, not "
        "as a violation. Windows are kept per host for every client on the machine: the two "
        "worker processes, and each step's client, honour a window given to any of them.",
        "",
        "A request drawn to hang past the client's timeout gets no answer once the client "
        "has hung up: a 429 then would open a Retry-After window that nobody was told about.",
    ])


def _kills_section(figures: dict[str, Any], held: dict[str, bool], measured: str) -> str:
    k = figures["kills"]
    kills = k["kills"]
    return "\n".join([
        measured,
        "",
        f"{len(kills)} SIGKILLs of the crawl's process group (the command, its fork server "
        f"and {k['workers']} workers), each at a random moment (seed {figures['seed']}): the "
        "replica's gate lets a random number of photo requests through, the crawl is killed "
        "as soon as one waits at the gate, then restarted. After the last kill the crawl runs "
        "to completion.",
        "",
        "| kill | photo requests let through | drafts committed | in flight | "
        "stored, not yet referenced |",
        "|---|---|---|---|---|",
        *[f"| {n} | {r['after']} | {r['drafts']} | {r['in_flight']} | {r['unreferenced']} |"
          for n, r in enumerate(kills, 1)],
        "",
        "| after the last restart | |",
        "|---|---|",
        f"| final run succeeded | {_mark(k['final_ok'])}: shows created {k['final_created']}, "
        f"already drafted {k['final_skipped']} |",
        f"| drafts equal the fault-free result | {_mark(k['same_drafts'])} |",
        f"| duplicate drafts | {k['duplicates']} |",
        f"| objects referenced but missing | {k['missing_objects']} |",
        f"| objects left unreferenced | {k['unreferenced']} |",
        f"| photos in flight at the kills (sum) | {k['in_flight']} (bound: "
        f"{k['in_flight_bound']} per kill, {IMAGE_CONCURRENCY} per worker) |",
        f"| temp files left (a kill between write and link; never objects) | "
        f"{k['temp_files']} |",
        f"| wall s, kills and restarts included | {k['wall_s']:.1f} |",
        "",
        f"- Unreferenced objects <= photos in flight at the kills: "
        f"{_mark(held['kills: unreferenced objects <= photos in flight'])}.",
        "",
        "A kill loses the shows in progress, never a committed one: a draft, its photos and "
        "its log entry commit in one transaction, after the photos are flushed. Photos "
        "stored for a show in progress are unreferenced until the restart drafts the show "
        "and references the same keys again (same bytes, same sha1), so none is left once "
        "the crawl completes. In flight counts the photo requests waiting at the gate when "
        "the group was killed.",
    ])


def _concurrency_section(figures: dict[str, Any], held: dict[str, bool], measured: str
                         ) -> str:
    rows = figures["concurrency"]
    return "\n".join([
        measured,
        "",
        "Four `fashion-assets crawl` processes started at once on one catalog and one "
        "Dagster instance, of the same brand, then of the same two brands (a worker per "
        "brand). Each runs one show and one photo at a time and is frozen at its first photo "
        "request until every run has reached one, so all of them plan every show before any "
        "draft is written. They do not obey robots.txt: the gate holds the CDN's robots.txt "
        "too, and one client reads it for all (the others wait for what it keeps), so only "
        "one run would reach the gate.",
        "",
        "| runs | shows | failed runs | failed shows | created | skipped (conflict) | "
        "skipped (already drafted) | duplicate drafts | drafts equal the replica's | wall s |",
        "|---|---|---|---|---|---|---|---|---|---|",
        *[f"| {c['label']} | {c['shows']} | {c['failed_runs']} | {c['failed_shows']} | "
          f"{c['created']} | {c['conflicts']} | {c['skipped']} | {c['duplicates']} | "
          f"{_mark(c['same_drafts'])} | {c['wall_s']:.1f} |" for c in rows],
        "",
        "A show two runs download at once is drafted by the first to commit; the other's "
        "insert meets the unique source key and is recorded as `skipped_conflict`, its "
        "photos being the same objects under the same keys.",
    ])


def _coverage_section(figures: dict[str, Any], held: dict[str, bool], measured: str) -> str:
    coverage = figures["coverage"]
    verdict = "coverage: the fault-free drafts within 3 sensor-driven rounds"
    return "\n".join([
        measured,
        "",
        "One crawl of every brand in this process under the fault plan below, with a client "
        "that gives up fast (`" + " ".join(f"{k}={v}" for k, v in coverage["client"].items())
        + "`), so photos go missing; then ticks of `coverage_sensor` on the back-off's schedule "
        "(0 h, 1 h, 3 h on its clock), each requested repair run executed, the faults still "
        "on. The tolerance is 0 "
        "so that every missing photo makes its show incomplete: the loop must end with "
        "exactly the drafts of the fault-free crawl.",
        "",
        f"Fault plan: `{coverage['plan']}`.",
        "",
        f"Photos missing after the crawl: {coverage['missing_after_crawl']}.",
        "",
        "| round | repair runs | shows re-fetched | shows repaired | photos still missing |"
        " drafts equal the replica's |",
        "|---|---|---|---|---|---|",
        *[f"| {n} | {r['runs']} | {r['shows']} | {r['repaired']} | {r['missing_after']} | "
          f"{_mark(r['equals_replica'])} |" for n, r in enumerate(coverage["rounds"], 1)],
        "",
        f"Converged within 3 sensor-driven rounds: {_mark(held[verdict])}"
        f" (in {coverage['converged_in']}); wall {coverage['wall_s']:.1f} s.",
    ])


def write_sections(sections: Mapping[str, str], path: Path = DOC) -> None:
    """Replace the ``## <heading>`` sections of ``path`` named in ``sections``.

    Other scripts write other sections of the same file, so it is read right before writing
    and everything else is kept as it is; a missing section is appended, a missing file
    created.
    """
    text = path.read_text() if path.exists() else (
        "# Reliability\n\nHow the crawl holds up against a failing source, kills and "
        "concurrent runs. Each section is written by the script it names.\n")
    head, *parts = text.split("\n## ")
    blocks = {part.split("\n", 1)[0].strip(): part for part in parts}
    for heading, body in sections.items():
        blocks[heading] = f"{heading}\n\n{body.strip()}\n"
    out = head.rstrip("\n") + "\n" + "".join(f"\n## {block.rstrip(chr(10))}\n"
                                             for block in blocks.values())
    temp = path.with_name(f".{path.name}.{os.getpid()}")
    temp.write_text(out)
    os.replace(temp, path)


def publish(text: str, heading: str, doc: Path, write: bool) -> None:
    """A bench's figures to the terminal and, with ``--write``, as the ``heading`` section
    of ``doc``."""
    print(text)
    if write:
        write_sections({heading: text}, doc)
        print(f"wrote the {heading!r} section of {doc}")


def summary_table(figures: dict[str, Any]) -> str:
    """The verdicts and the key figures, for the terminal."""
    faults, kills = figures["faults"], figures["kills"]
    lines = [f"{'check':<58} result",
             *[f"{name:<58} {'ok' if ok else 'FAILED'}" for name, ok in verdicts(figures).items()],
             "",
             f"faults: {faults['faulty']['requests']:,} requests "
             f"({faults['retries']:,} retries), by status {faults['faulty']['by_status']}, "
             f"{faults['faulty']['dropped']} dropped, {faults['faulty']['truncated']} "
             f"truncated, {faults['faulty']['in_flight_after_429']} in flight after a 429; "
             f"wall {faults['fault_free']['wall_s']:.1f} s fault-free, "
             f"{faults['faulty']['wall_s']:.1f} s with faults",
             f"kills: {len(kills['kills'])} kills, {kills['in_flight']} photos in flight in "
             f"all, {kills['unreferenced']} objects left unreferenced, "
             f"{kills['temp_files']} temp files; wall {kills['wall_s']:.1f} s",
             *[f"concurrency {c['label']}: {c['created']} created, {c['conflicts']} conflicts, "
               f"{c['skipped']} skipped, {c['failed_runs']} failed runs, {c['duplicates']} "
               f"duplicates; wall {c['wall_s']:.1f} s" for c in figures["concurrency"]],
             f"coverage: {figures['coverage']['missing_after_crawl']} photos missing after the "
             f"crawl, rounds {[r['missing_after'] for r in figures['coverage']['rounds']]}"]
    return "\n".join(lines)


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
    for tail in _failure_logs(figures):
        print(tail, file=sys.stderr)
    sys.exit(1 if failed else 0)


def _failure_logs(figures: dict[str, Any]) -> list[str]:
    """The end of the log of every crawl that failed, to see why without re-running."""
    tails = [figures["faults"][k]["log_tail"] for k in ("fault_free", "faulty")
             if not figures["faults"][k]["ok"]]
    if not figures["kills"]["final_ok"]:
        tails.append(figures["kills"]["log_tail"])
    return tails + [t for c in figures["concurrency"] for t in c["log_tails"]]


if __name__ == "__main__":
    main()
