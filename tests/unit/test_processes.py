"""Ending a frozen crawl's whole process tree (``fashion_assets.processes``), on real processes.

A stopped process group stands for a frozen crawl and its Dagster helpers; ``sleep`` stands
for a helper that would otherwise live on. Each test thaws and kills whatever it started.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator

import psutil
import pytest

from bench.reliability import wait_until
from fashion_assets.processes import group_members, kill_process_tree, parse_stat

DEADLINE_S = 30.0
Start = Callable[[list[str]], "subprocess.Popen[bytes]"]


@pytest.fixture
def session() -> Iterator[Start]:
    """Starts commands in sessions (and process groups) of their own; at the end, each group
    is thawed, killed and waited for, whatever the test did."""
    started: list[subprocess.Popen[bytes]] = []

    def start(command: list[str]) -> subprocess.Popen[bytes]:
        started.append(subprocess.Popen(command, stdin=subprocess.PIPE,
                                        start_new_session=True))
        return started[-1]

    yield start
    for process in started:
        for sig in (signal.SIGKILL, signal.SIGCONT):
            try:
                os.killpg(process.pid, sig)
            except ProcessLookupError:
                break  # nothing of the group is left
        process.wait(timeout=DEADLINE_S)
        wait_until(lambda p=process: not group_members(p.pid), "the test's group to end", [],
                   DEADLINE_S)


def children_once_started(pid: int, count: int) -> list[psutil.Process]:
    """The processes below ``pid`` (all levels), once ``count`` of them have started."""
    wait_until(lambda: len(psutil.Process(pid).children(recursive=True)) == count,
               f"{count} processes below {pid}", [], DEADLINE_S)
    return psutil.Process(pid).children(recursive=True)


def test_a_stopped_group_leader_dies_with_everything_it_started(session: Start) -> None:
    crawl = session(["sh", "-c", "sleep 600 & sleep 600 & wait"])
    helpers = children_once_started(crawl.pid, 2)
    everything = {crawl.pid, *(h.pid for h in helpers)}
    os.killpg(crawl.pid, signal.SIGSTOP)
    wait_until(lambda: {p.pid for p in group_members(crawl.pid) if p.state == "T"}
               == everything, "the whole group stopped", [], DEADLINE_S)

    assert set(kill_process_tree(crawl.pid)) == everything

    assert crawl.wait(timeout=DEADLINE_S) == -signal.SIGKILL
    _, alive = psutil.wait_procs(helpers, timeout=DEADLINE_S)  # init reaps them
    assert alive == []
    assert group_members(crawl.pid) == []


def test_a_crawl_sharing_its_callers_group_takes_only_its_own_tree(session: Start) -> None:
    # The caller (a script, say) leads the group and waits on its stdin; the crawl it started
    # is in the same group and has a helper of its own.
    caller = session([sys.executable, "-c", "import subprocess, sys;"
                      " subprocess.Popen(['sh', '-c', 'sleep 600 & wait']); sys.stdin.read()"])
    children_once_started(caller.pid, 2)
    [crawl] = psutil.Process(caller.pid).children()
    [helper] = crawl.children()
    assert os.getpgid(crawl.pid) == caller.pid

    assert set(kill_process_tree(crawl.pid)) == {crawl.pid, helper.pid}

    # The crawl stays a zombie of the caller, which never waits for it: dead all the same.
    wait_until(lambda: [p.pid for p in group_members(caller.pid)] == [caller.pid],
               "only the caller left in its group", [], DEADLINE_S)
    assert caller.poll() is None


def test_the_command_name_may_hold_spaces_and_parentheses() -> None:
    info = parse_stat(4242, "4242 (tail -F (x) y) T 17 4200 4200 0 -1 4194560 0")
    assert (info.pid, info.state, info.ppid, info.pgid) == (4242, "T", 17, 4200)
