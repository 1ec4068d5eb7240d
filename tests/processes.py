"""No process outlives the suite: every process the suite starts is marked, and found.

The pytest process writes a mark of this session into the environment variable
``FA_TEST_SESSION`` before it starts its xdist workers. Every process started from then on
inherits the mark in the environment it was started with (``/proc/PID/environ``): the
workers, what they start, the children of those, forks included, and the ones that were
orphaned and adopted by init on the way (a crawl killed by its process group, Dagster's run
workers, a Chromium), so the mark finds them where the process tree cannot. When the session
ends, whatever still carries the mark is a leak: it is listed and the session fails (the
processes are then killed, so one broken test does not leave them running for the next).

What the pytest process itself forks, without ``-n``, keeps the environment pytest was started
with and is not seen; the README's command runs with ``-n``.

A crawl's own processes carry a mark of their own (``CrawlProcess``, ``bench/crawls.py``):
its command's and, inherited, its deployment's (watchdog, ``dagster dev``, webserver, daemon,
code server, run processes), which live in a session of their own. ``wait_gone`` waits for
such processes to end, ``run_process_pid`` names the process that executes a run, and
``wait_run_ended`` waits for a terminated run to end with its process.
"""

from __future__ import annotations

import os
import re
import signal
import time
import uuid
from collections.abc import Callable, Iterable
from typing import Any

import psutil

MARK_ENV = "FA_TEST_SESSION"
# How long a process that was just told to stop may take to be gone.
GRACE_S = 15.0
POLL_S = 0.1


def mark_processes_started_from_now() -> str:
    """Everything started from now on carries a mark of this session; returns the mark."""
    mark = uuid.uuid4().hex
    os.environ[MARK_ENV] = mark
    return mark


def _marked(mark: str) -> list[psutil.Process]:
    found = []
    for proc in psutil.process_iter():
        if proc.pid == os.getpid():
            continue
        try:
            if proc.status() == psutil.STATUS_ZOMBIE:
                continue  # gone; only its exit status waits for its parent
            if proc.environ().get(MARK_ENV) == mark:
                found.append(proc)
        except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
            continue
    return found


def describe(proc: psutil.Process) -> str:
    """Pid, state and command line, so a failure names what was left behind."""
    try:
        return f"pid {proc.pid} [{proc.status()}] {' '.join(proc.cmdline())[:200]}"
    except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
        return f"pid {proc.pid} (gone)"


def leftover_processes(mark: str, grace_s: float = GRACE_S) -> list[str]:
    """The processes still alive that carry ``mark``, described.

    Processes get ``grace_s`` to finish exiting; those still there are then thawed and
    killed, so the leak is reported once and cleaned up.
    """
    deadline = time.monotonic() + grace_s
    alive = _marked(mark)
    while alive and time.monotonic() < deadline:
        time.sleep(POLL_S)
        alive = _marked(mark)
    described = [describe(proc) for proc in alive]
    for proc in alive:
        try:
            proc.send_signal(signal.SIGCONT)  # a stopped process acts on SIGKILL only when run
            proc.kill()
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            pass
    psutil.wait_procs(alive, timeout=5)
    return described


def state(proc: psutil.Process) -> str:
    """Its state letter's psutil name; "gone" rather than an error, as polls race exits."""
    try:
        return proc.status()
    except psutil.NoSuchProcess:
        return "gone"


def wait_gone(find: Callable[[], list[psutil.Process]], what: str, deadline_s: float) -> None:
    """Poll ``find`` (the processes of something that ended: a crawl's deployment) until it
    finds none; past ``deadline_s``, fail naming each one left, as ``describe`` does."""
    deadline = time.monotonic() + deadline_s
    while left := find():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: still running after {deadline_s:.0f} s: "
                                 f"{[describe(p) for p in left]}")
        time.sleep(POLL_S)  # the polling interval of a real condition


def still_running(procs: Iterable[psutil.Process]) -> list[psutil.Process]:
    """Those of ``procs`` still running (a zombie is dead; a reused pid is not the same
    process: psutil compares creation times)."""
    return [p for p in procs if p.is_running() and state(p) not in ("gone",
                                                                       psutil.STATUS_ZOMBIE)]


def run_process_pid(instance: Any, run_id: str) -> int:
    """The pid of the process that executes run ``run_id``, as the run's own log says it
    ("Started process for run (pid: N)", the engine event of Dagster's run process)."""
    from dagster import DagsterEventType

    for entry in instance.all_logs(run_id, of_type=DagsterEventType.ENGINE_EVENT):
        found = re.match(r"Started process for run \(pid: (\d+)\)", entry.message or "")
        if found:
            return int(found.group(1))
    raise AssertionError(f"run {run_id} logged no process start")


class RunNotEnded(AssertionError):
    """A run that was terminated has not ended, or its process still runs."""


def wait_run_ended(instance: Any, run_id: str, process: psutil.Process,
                   deadline_s: float = 60.0) -> str:
    """Wait until run ``run_id`` has ended in Dagster (success, failure, canceled) and its
    ``process`` is gone; the run's status. A run terminated through its launcher ends in
    seconds (its step interrupted where it waits); past ``deadline_s``, ``RunNotEnded``."""
    from dagster import DagsterRunStatus

    ended = {DagsterRunStatus.SUCCESS, DagsterRunStatus.FAILURE, DagsterRunStatus.CANCELED}
    deadline = time.monotonic() + deadline_s
    while (run := instance.get_run_by_id(run_id)).status not in ended or still_running(
            [process]):
        if time.monotonic() > deadline:
            raise RunNotEnded(f"terminated run {run_id} is {run.status.value} after "
                              f"{deadline_s:.0f} s, its process {describe(process)}")
        time.sleep(POLL_S)  # polling a real condition: the run's status, its process
    return run.status.value
