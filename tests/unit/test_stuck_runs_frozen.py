"""stuck_runs_sensor kills a frozen run process only when it is surely the row's."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import psutil
import pytest

from fashion_assets.catalog.progress import ProgressRow
from sensors.stuck_runs import _kill_frozen


@contextmanager
def sleeper(*, stopped: bool) -> Iterator[subprocess.Popen[bytes]]:
    process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        if stopped:
            process.send_signal(signal.SIGSTOP)
            while psutil.Process(process.pid).status() != psutil.STATUS_STOPPED:
                time.sleep(0.01)  # polling the real state
        yield process
    finally:
        process.kill()
        process.wait()


def row_of(pid: int, started_at: datetime) -> ProgressRow:
    now = datetime.now(UTC)
    return ProgressRow("run", "brand", "chloe", 2, 0, "", 0, 0, started_at, now, None,
                       "running", "", host=socket.gethostname(), pid=pid)


@pytest.mark.timeout(30)
def test_a_stopped_process_that_started_the_row_is_killed() -> None:
    with sleeper(stopped=True) as process:
        assert _kill_frozen(row_of(process.pid, datetime.now(UTC)))
        assert process.wait(10) == -signal.SIGKILL


@pytest.mark.timeout(30)
def test_a_running_process_a_younger_one_or_another_machine_s_is_left_alone() -> None:
    with sleeper(stopped=False) as running:
        assert not _kill_frozen(row_of(running.pid, datetime.now(UTC)))
        assert running.poll() is None
    with sleeper(stopped=True) as reused:  # a process id reused after the row's started
        row = row_of(reused.pid, datetime.now(UTC) - timedelta(minutes=5))
        assert not _kill_frozen(row)
        assert not _kill_frozen(replace(row_of(reused.pid, datetime.now(UTC)),
                                        host="another-machine"))
        assert reused.poll() is None
