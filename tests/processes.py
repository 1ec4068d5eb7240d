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

Tests of a crawl's own processes find them by its process group (``group_processes``): a
crawl started in a session of its own leads one, which its workers and helpers share.
"""

from __future__ import annotations

import os
import signal
import time
import uuid

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


def group_processes(pgid: int) -> list[psutil.Process]:
    """The processes of group ``pgid`` still alive (zombies are dead), found through psutil
    rather than the /proc reading of the code under test."""
    found = []
    for proc in psutil.process_iter():
        try:
            if os.getpgid(proc.pid) == pgid and proc.status() != psutil.STATUS_ZOMBIE:
                found.append(proc)
        except (ProcessLookupError, psutil.NoSuchProcess):
            continue  # ended while being looked at
    return found


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
