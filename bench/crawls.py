"""``fashion-assets crawl`` as a user runs it, for the reliability scenarios
(``bench/reliability.py``) and the tests that drive real crawls, and the two scenarios made
of such processes: a crawl killed and run again (``kill_and_restart``), crawls at once
(``concurrent_crawls``).

The command submits its runs to a ``dagster dev`` it starts for them, in a session of its
own (``fashion_assets.launch.deployment``): the crawl's work happens in the run processes of
that deployment, not in the command's process group. A kill of the command reaches its
deployment only through the watchdog, which stops ``dagster dev`` once the command's pipe
closes (``fashion_assets.launch.watchdog``). So every process of one crawl, the command's
and its deployment's, carries a mark in its environment (``MARK_ENV``, inherited by
whatever it starts), and a kill waits until none of them runs any more: the next crawl then
meets a dead deployment, never a dying one.

The replica's image gate (``ImageGate``) is how the scenarios hold a crawl at a chosen
photo request, in this process (``ReplicaServer``, the tests) or in the replica's own
(``RemoteReplica``, the bench). What the crawls left is read by ``reliability_report``.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Protocol

import psutil

from bench.common import Replica
from bench.reliability_report import (
    DraftState,
    StoreContents,
    read_drafts,
    runs_by_status,
    store_contents,
)
from fashion_assets import settings
from fashion_assets.launch.watchdog import GRACE_S
from fashion_assets.replica import FaultPlan, ReplicaSite, ReplicaStats

DEADLINE_S = 600.0  # the longest any one crawl process may take
MARK_ENV = "BENCH_CRAWL_MARK"
"""In the environment of a crawl's command and, inherited, of every process of its
deployment (watchdog, ``dagster dev``, webserver, daemon, code server, run processes)."""
KILL_DEADLINE_S = GRACE_S + 60.0
"""How long a killed crawl's deployment may take to be gone: the watchdog's grace for
``dagster dev`` to stop, and the time a loaded machine takes to notice and reap."""

# One show and one photo at a time: a run then holds exactly one request per brand at the
# replica's gate (a photo; robots.txt is never held).
ONE_AT_A_TIME = {"FASHION_IMAGE_CONCURRENCY": "1", "FASHION_SHOW_CONCURRENCY": "1"}


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


@dataclass(frozen=True)
class CrawlRun:
    """How one ``fashion-assets crawl`` process ended, with its per-partition summaries
    (one per run it submitted)."""

    returncode: int
    summaries: tuple[dict[str, Any], ...]
    wall_s: float
    log_tail: str

    @property
    def ok(self) -> bool:
        return (self.returncode == 0 and bool(self.summaries)
                and all(s["success"] for s in self.summaries))

    def shows(self, outcome: str) -> int:
        """How many shows of this crawl had ``outcome`` (``created``, ``failed``, ...)."""
        return sum(s.get("shows", {}).get(outcome, 0) for s in self.summaries)


class CrawlProcess:
    """``fashion-assets crawl --json`` in a session of its own, marked (``MARK_ENV``).

    Output goes to files: a pipe nobody reads while the crawl is frozen at the gate could
    fill and block it.
    """

    def __init__(self, env: Mapping[str, str], brands: Sequence[str], logs: Path) -> None:
        logs.mkdir(parents=True, exist_ok=True)
        self.mark = uuid.uuid4().hex
        name = logs / f"crawl-{self.mark[:8]}"
        self._stdout, self._stderr = name.with_suffix(".json"), name.with_suffix(".log")
        command = [sys.executable, "-m", "fashion_assets", "crawl", "--json",
                   *[a for b in brands for a in ("--brand", b)]]
        self.started = time.monotonic()
        with open(self._stdout, "w") as out, open(self._stderr, "w") as err:
            self.process = subprocess.Popen(
                command, env={**os.environ, **env, MARK_ENV: self.mark}, stdout=out,
                stderr=err, start_new_session=True)

    def exited(self) -> bool:
        return self.process.poll() is not None

    def log_tail(self) -> str:
        return self._stderr.read_text(errors="replace")[-3000:]

    def processes(self) -> list[psutil.Process]:
        """Every process of this crawl still running: the command's and its deployment's."""
        return marked_processes(self.mark)

    def kill(self, deadline_s: float = KILL_DEADLINE_S) -> float:
        """SIGKILL the command's process group, wait until no process of the crawl runs,
        and return how long that took (seconds from the SIGKILL).

        The command is killed outright, as the OOM killer or ``kill -9`` would; its
        deployment, in a session of its own, goes as the design has it go: the watchdog sees
        the command's pipe close, stops ``dagster dev`` and kills what is left of its group,
        run processes included. Waiting for that means the next crawl never races a dying
        deployment (its run processes drafting on, its daemon launching): it finds the killed
        deployment's runs still marked as running and fails them itself
        (``fail_runs_of_ended``). SIGCONT follows the SIGKILL: nothing of the group stays
        frozen (a test may have stopped a member). The command is reaped here, the rest of
        the deployment by its own parents or init.
        """
        killed = time.monotonic()
        for sig in (signal.SIGKILL, signal.SIGCONT):
            with contextlib.suppress(ProcessLookupError):  # nothing of the group is left
                os.killpg(self.process.pid, sig)
        self.process.wait(timeout=deadline_s)
        wait_until(lambda: not self.processes(), "the killed crawl's deployment to end", [],
                   deadline_s)
        return time.monotonic() - killed

    def finish(self, deadline_s: float = DEADLINE_S) -> CrawlRun:
        """Wait for the crawl to end, its deployment too (the command stops it on its way
        out: what comes next meets no process of this crawl); past the deadline the crawl is
        killed and this raises."""
        try:
            self.process.wait(timeout=max(0.0, self.started + deadline_s - time.monotonic()))
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError(f"crawl still running after {deadline_s:.0f} s:\n"
                                 f"{self.log_tail()}") from None
        wall = time.monotonic() - self.started
        wait_until(lambda: not self.processes(), "the crawl's deployment to end", [],
                   KILL_DEADLINE_S)
        output = self._stdout.read_text()
        summaries = tuple(json.loads(output)["crawls"]) if output.strip() else ()
        return CrawlRun(self.process.returncode, summaries, wall, self.log_tail())


def marked_processes(mark: str) -> list[psutil.Process]:
    """The processes that still run with ``MARK_ENV=mark`` in the environment they were
    started with (zombies are dead: not counted)."""
    found = []
    for proc in psutil.process_iter():
        with contextlib.suppress(psutil.Error):
            if (proc.status() != psutil.STATUS_ZOMBIE
                    and proc.environ().get(MARK_ENV) == mark):
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


@contextlib.contextmanager
def gate_closed(server: ImageGate, after: int) -> Iterator[None]:
    """Let ``after`` image requests through and hold the rest until the block ends, however
    it ends: a gate left closed would freeze every later crawl of the replica."""
    server.hold_images(after)
    try:
        yield
    finally:
        server.release_images()


def held_client(deadline_s: float) -> dict[str, str]:
    """A client whose requests held at the gate wait for the scenario, not for a fault: no
    timeout cuts them (a cut photo would be retried into the gate and counted there twice,
    or given up, its show drafted without it) while the crawls reach the gate or a killed
    crawl's deployment goes down."""
    return {"FASHION_HTTP_TIMEOUT": str(deadline_s), "FASHION_HTTP_DEADLINE": str(deadline_s)}


def own_instance(env: Mapping[str, str], name: str, *, runs: int) -> dict[str, str]:
    """``env`` with a Dagster instance of its own, ``DAGSTER_HOME`` next to the one ``env``
    names, whose dagster.yaml (the command's, ``local_instance_yaml``) runs ``runs`` runs
    at once: a crawl's runs that must all be under way together, whatever the CPU count."""
    from fashion_assets.launch.instance import local_instance_yaml

    base = settings.dagster_home({**os.environ, **env}).resolve()
    home = base.with_name(f"{base.name}-{name}")
    home.mkdir(parents=True, exist_ok=True)
    (home / "dagster.yaml").write_text(local_instance_yaml(runs))
    return {**env, "DAGSTER_HOME": str(home)}


# -- the scenarios made of crawl processes ------------------------------------------------


@dataclass(frozen=True)
class Kill:
    """One SIGKILL: where the gate closed and what the killed crawl left."""

    after: int  # image requests let through before the gate closed
    in_flight: int  # image requests of the killed crawl waiting at the gate
    drafts: int  # drafts committed when it was killed
    unreferenced: int  # objects stored for shows not committed yet
    gone_s: float  # from the SIGKILL until no process of the crawl (its deployment) was left


@dataclass(frozen=True)
class KillResult:
    kills: tuple[Kill, ...]
    final: CrawlRun
    drafts: DraftState
    store: StoreContents
    runs: Mapping[str, int]  # the instance's runs by status once the crawl completed
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

    @property
    def left_running(self) -> int:
        """Runs not ended: a killed crawl's run nobody failed holds its partition's queue."""
        return sum(n for status, n in self.runs.items()
                   if status not in ("SUCCESS", "FAILURE", "CANCELED"))


def kill_and_restart(server: ImageGate, env: Mapping[str, str], brands: Sequence[str],
                     *, kills: int, seed: int, total_photos: int, database_url: str,
                     store_root: Path, logs: Path, deadline_s: float = DEADLINE_S
                     ) -> KillResult:
    """Kill a crawl ``kills`` times at random moments, running it again each time, then let
    it finish.

    A moment is a number of image requests the replica's gate lets through, drawn below the
    photos not drafted yet, so the crawl always reaches the gate before it could finish; the
    command is killed as soon as a request waits there, and the gate stays closed until its
    deployment is gone too (``CrawlProcess.kill``). On average each kill lets through an
    equal share of what is left, so the kills spread over the whole crawl.
    """
    rng = random.Random(seed)
    started = time.monotonic()
    records: list[Kill] = []
    drafted_photos = 0
    for left in range(kills, 0, -1):
        after = rng.randrange(max(1, 2 * (total_photos - drafted_photos) // (left + 1)))
        with gate_closed(server, after):
            crawl = CrawlProcess({**env, **held_client(deadline_s)}, brands, logs)
            try:
                wait_until(lambda: server.held_count() > 0, "the crawl to reach the gate",
                           [crawl], deadline_s)
            finally:
                gone_s = crawl.kill()
            in_flight = server.held_count()
        state = read_drafts(database_url)
        drafted_photos = state.photos
        records.append(Kill(after, in_flight, len(state.drafts),
                            len(store_contents(store_root).keys - state.keys), gone_s))
    final = CrawlProcess(env, brands, logs).finish(deadline_s)
    return KillResult(tuple(records), final, read_drafts(database_url),
                      store_contents(store_root), runs_by_status(env),
                      time.monotonic() - started)


def concurrent_crawls(server: ImageGate, env: Mapping[str, str],
                      brand_sets: Sequence[Sequence[str]], logs: Path,
                      deadline_s: float = DEADLINE_S) -> list[CrawlRun]:
    """One crawl per brand set, all at once, each on a Dagster instance of its own
    (``own_instance``) that runs every brand of the set at once.

    Every run, one per brand (``FASHION_CRAWL_BATCH_BRANDS=1``: the command would put
    brands together in a range on a machine with fewer CPUs than brands), is frozen at its
    first image request (one each, see ``ONE_AT_A_TIME``) until all of them have one: by
    then each has read its shows, none drafted, and fetches the photos of every show with
    its manifest, so all of them go on to draft shows the others draft too, and the
    catalog's unique source key has to settle every race. A held request waits for the
    slowest run to start (each command starts a ``dagster dev``), however long that takes
    on a busy machine, so the client's timeout is the scenario's deadline: the hold is not
    a fault to retry.

    One instance for all would not do: its run queue runs the crawls of one brand one after
    the other (dagster.yaml's tag limits), and the catalog must hold against runs the queue
    does not see (another deployment, a run executed in process).
    """
    crawls: list[CrawlProcess] = []
    try:
        with gate_closed(server, after=0):
            held_env = {**env, **ONE_AT_A_TIME, **held_client(deadline_s),
                        "FASHION_CRAWL_BATCH_BRANDS": "1"}
            crawls = [CrawlProcess(own_instance(held_env, f"crawl{n}", runs=len(brands)),
                                   brands, logs)
                      for n, brands in enumerate(brand_sets)]
            held = sum(len(brands) for brands in brand_sets)
            wait_until(lambda: server.held_count() == held, "every run to reach a photo",
                       crawls, deadline_s)
        return [crawl.finish(deadline_s) for crawl in crawls]
    finally:
        for crawl in crawls:
            if not crawl.exited():  # only after an error: no crawl outlives its scenario
                crawl.kill()
