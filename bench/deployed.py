"""A crawl measured as a schedule's runs go: submitted to a Dagster deployment that is already
up, launched by its daemon, executed in the run processes of its code server.

``fashion-assets crawl`` with no ``FASHION_DAGSTER_URL`` starts a ``dagster dev`` of its own
for its runs and stops it at the end: seconds of startup, and the memory of a webserver, a
daemon and a code server, that a crawl a schedule launches on a running deployment does not
have. So ``deployment_up`` starts the deployment first, the project's way
(``fashion_assets.launch.deployment``, as the command would), with the crawl's environment
(its code server's, which the run processes inherit: replica, catalog, store, pace) and a
``DAGSTER_HOME`` of its own, and waits until its code location is loaded and its daemons
beat; then the measured command submits to it through ``FASHION_DAGSTER_URL``.

``measure_runs`` measures the command and the runs it got done: the wall time is the
command's (submitted, queued, launched by the daemon, executed, followed to their end), and
memory and CPU are those of the command's process and of the run processes the deployment
started meanwhile: the children of its code server (``dagster api grpc``) that Dagster's
default run launcher spawns for runs (``multiprocessing``'s ``spawn_main``), with their own
children. The webserver, the daemon and the code server are left out: they run whether a
crawl does or not.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from bench.common import Measured, PeakPss, checkout_env, cpu_stat, measure, pss_kb, tree
from fashion_assets.launch.graphql import GraphQL, GraphQLError, job_selectors

READY_DEADLINE_S = 300.0
"""How long a deployment has to load its code location and get its daemons beating, on a
loaded two-core machine."""
RUNS_END_DEADLINE_S = 60.0
"""How long the run processes have, after the command ended, to exit and be reaped."""
DAEMONS = """query Daemons { instance { daemonHealth { allDaemonStatuses {
  daemonType required healthy } } } }"""
WATCHDOG = "fashion_assets.launch.watchdog"
WARM = ("import fashion_assets.definitions, fashion_assets.cli, dagster_webserver.cli, "
        "dagster._daemon.cli, dagster._grpc.impl, dagster._cli.api, scrapy.cmdline, "
        "scrapy.pipelines.files")


def is_code_server(argv: Sequence[str]) -> bool:
    """Whether ``argv`` is a Dagster gRPC code server's (``python -m dagster api grpc``), the
    process that spawns a run process per run under the default run launcher."""
    return any(argv[i:i + 3] == ["dagster", "api", "grpc"] for i in range(len(argv)))


def is_run_process(argv: Sequence[str]) -> bool:
    """Whether ``argv`` is that of a process ``multiprocessing`` spawned (a code server's
    child executing a run: ``python -c 'from multiprocessing.spawn import spawn_main; ...'
    --multiprocessing-fork``), not its resource tracker."""
    return "--multiprocessing-fork" in argv and any("spawn_main" in arg for arg in argv)


def cmdline(pid: int) -> list[str]:
    """A process's arguments ([] once it is gone)."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            return [arg.decode(errors="replace") for arg in handle.read().split(b"\0") if arg]
    except OSError:
        return []


def children(pid: int) -> list[int]:
    """A process's children (of every thread of it), from /proc."""
    found: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/children") as handle:
                found += [int(child) for child in handle.read().split()]
        except OSError:
            continue
    return found


@dataclass(frozen=True)
class Deployed:
    """A deployment that is up: its webserver, the pid of the watchdog every process of it
    descends from, and its instance folder."""

    url: str
    pid: int
    home: Path

    @property
    def env(self) -> dict[str, str]:
        """What a command needs to submit to it and follow its runs in its instance."""
        return {"FASHION_DAGSTER_URL": self.url, "DAGSTER_HOME": str(self.home)}


@contextmanager
def deployment_up(env: Mapping[str, str], home: Path) -> Iterator[Deployed]:
    """``dagster dev`` for the block with ``env`` (over this process's environment) and
    ``home`` as its ``DAGSTER_HOME``, up: its code location loaded, its daemons beating.

    ``fashion_assets.launch.deployment`` takes the instance folder from this process's
    ``DAGSTER_HOME`` (the command's own), not from ``env``: it is set here for the block."""
    from fashion_assets.launch.deployment import deployment

    full = {**os.environ, **checkout_env(), **env, "DAGSTER_HOME": str(home)}
    full.pop("FASHION_DAGSTER_URL", None)
    saved = os.environ.get("DAGSTER_HOME")
    before = set(children(os.getpid()))
    os.environ["DAGSTER_HOME"] = str(home)
    try:
        with deployment(full) as local:
            watchdogs = [pid for pid in children(os.getpid())
                         if pid not in before and WATCHDOG in cmdline(pid)]
            if len(watchdogs) != 1:
                raise RuntimeError(f"cannot tell the deployment's watchdog: {watchdogs}")
            _wait_ready(local.graphql, local.log)
            yield Deployed(local.url, watchdogs[0], home)
    finally:
        if saved is None:
            os.environ.pop("DAGSTER_HOME", None)
        else:
            os.environ["DAGSTER_HOME"] = saved


def _wait_ready(graphql: GraphQL, log: Path | None) -> None:
    """Poll the webserver until its daemons are healthy and its code location serves jobs."""
    deadline = time.monotonic() + READY_DEADLINE_S
    while True:
        try:
            statuses = graphql(DAEMONS)["instance"]["daemonHealth"]["allDaemonStatuses"]
            if statuses and all(s["healthy"] for s in statuses if s["required"]) \
                    and job_selectors(graphql):
                return
        except (GraphQLError, httpx.HTTPError):
            pass  # the code location is still loading
        if time.monotonic() > deadline:
            tail = log.read_text(errors="replace")[-2000:] if log else ""
            raise RuntimeError(f"the deployment was not ready in {READY_DEADLINE_S:.0f} s:\n"
                               f"{tail}")
        time.sleep(0.5)  # polling the webserver's answer, a real condition


class RunProcesses(PeakPss):
    """Samples the command's process tree and the run processes a deployment's code servers
    spawn meanwhile (with their children). A run process ends between two samples; its code
    server reaps it, so its whole CPU time is in the server's reaped ticks since the command
    started (``_reapers``, ``tree_cpu_ticks``)."""

    def __init__(self, pid: int, deployment_pid: int, interval_s: float = 0.25) -> None:
        super().__init__(pid, interval_s)
        self._servers: dict[int, tuple[int, int]] = {}  # pid: (start time, reaped ticks)
        for process in tree(deployment_pid):
            stat = cpu_stat(process)
            if stat is not None and is_code_server(cmdline(process)):
                self._servers[process] = (stat[0], stat[2])
        if not self._servers:
            raise RuntimeError(f"no code server (`dagster api grpc`) under {deployment_pid}")
        self._runs: set[tuple[int, int]] = set()  # (pid, start time)
        self._command_tree: set[int] = set()
        self.peak_runs_kb = 0
        self._lock = threading.Lock()

    def extra(self) -> dict[str, Any]:
        with self._lock:
            return {"run_processes": len(self._runs), "peak_runs_mb": self.peak_runs_kb / 1024}

    def _summed_pss(self, members: list[int]) -> int:
        """The sample's summed PSS; the runs' alone (without the command's tree) too."""
        pss = {pid: pss_kb(pid) for pid in members}
        self.peak_runs_kb = max(self.peak_runs_kb, sum(
            kb for pid, kb in pss.items() if pid not in self._command_tree))
        return sum(pss.values())

    def _members(self) -> list[int]:
        self._command_tree = set(tree(self.pid))
        runs = [child for server in self._servers for child in children(server)
                if is_run_process(cmdline(child))]
        for run in runs:
            stat = cpu_stat(run)
            if stat is not None:
                with self._lock:
                    self._runs.add((run, stat[0]))
        return list(dict.fromkeys([*super()._members(),
                                   *(pid for run in runs for pid in tree(run))]))

    def _reapers(self) -> dict[int, tuple[int, int]]:
        reapers = {}
        for pid, (start, reaped) in self._servers.items():
            stat = cpu_stat(pid)
            if stat is not None and stat[0] == start:
                reapers[pid] = (start, stat[2] - reaped)
        return reapers

    def _runs_alive(self) -> bool:
        """Whether a run process found is still there (a zombie not reaped yet too)."""
        with self._lock:
            runs = list(self._runs)
        return any((stat := cpu_stat(pid)) is not None and stat[0] == start
                   for pid, start in runs)

    def stop(self) -> None:
        """Once every run process found is gone (its code server reaped it) and a sample saw
        it gone: its memory and CPU counted to its last moment. Runs that started just
        before the command ended are found first."""
        deadline = time.monotonic() + RUNS_END_DEADLINE_S
        self._samples(2)
        while self._runs_alive() and time.monotonic() < deadline:
            time.sleep(self.interval_s)  # polling /proc for the run processes' end
        self._samples(2)
        super().stop()

    def _samples(self, count: int) -> None:
        """Wait until ``count`` samples have started since now (so one has run whole)."""
        seen = self._sample
        while self._sample < seen + count and self.is_alive():
            time.sleep(self.interval_s / 5)  # polling the sampler's count of samples


def measure_runs(command: list[str], env: Mapping[str, str], deployed: Deployed) -> Measured:
    """``command`` (``fashion-assets crawl``) submitting to ``deployed``, measured with the
    run processes it got the deployment to start (``RunProcesses``)."""
    measured = measure(command, {**env, **deployed.env},
                       sampler=lambda pid: RunProcesses(pid, deployed.pid))
    if measured.returncode == 0 and not measured.run_processes:
        raise RuntimeError("the command succeeded but no run process was found under the "
                           "deployment's code server: has Dagster changed how it launches "
                           "runs?")
    return measured


def warm_bytecode(cache: Path, modules: str = WARM) -> None:
    """With ``PYTHONDONTWRITEBYTECODE`` set (a development shell), every process measured
    would compile the project from source at its start, a run process too, where an
    installed package has its bytecode: they all read and write it in ``cache`` instead,
    filled once here by importing ``modules`` (an import statement)."""
    if not os.environ.get("PYTHONDONTWRITEBYTECODE"):
        return
    os.environ.pop("PYTHONDONTWRITEBYTECODE")
    os.environ["PYTHONPYCACHEPREFIX"] = str(cache)
    subprocess.run([sys.executable, "-c", modules], check=True, timeout=600,
                   env={**os.environ, **checkout_env()})


@contextmanager
def environment(values: dict[str, str]) -> Iterator[None]:
    """``values`` in this process's environment for the block (what is read from it there:
    a command's instance folder and catalog, the S3 store's credentials), then as it was."""
    saved = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
