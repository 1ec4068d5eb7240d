"""The suite's own guard: a process a test leaves behind fails the session, and is killed.

A small suite is run in a separate pytest process with this project's session hooks
(tests/conftest.py): once with a test that starts a process in a session of its own and
forgets it (as a killed crawl's orphaned workers would be), once with a test that stops its
process properly.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import psutil
import pytest

REPO = Path(__file__).resolve().parents[1]

CONFTEST = "from tests.conftest import pytest_configure, pytest_sessionfinish, pytest_unconfigure\n"

LEAKING = """
import subprocess, sys
from pathlib import Path

def test_leaves_a_process_behind():
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"],
                            start_new_session=True)
    Path("leaked.pid").write_text(str(proc.pid))
"""

TIDY = """
import subprocess, sys

def test_stops_its_process():
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    proc.kill()
    proc.wait()
"""


def _run_suite(folder: Path, test_source: str) -> subprocess.CompletedProcess[str]:
    (folder / "conftest.py").write_text(CONFTEST)
    (folder / "test_case.py").write_text(test_source)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-n", "1", "-p", "no:cacheprovider",
         "--rootdir", str(folder), str(folder / "test_case.py")],
        cwd=folder, env=env, capture_output=True, text=True, timeout=240, check=False)


@pytest.mark.slow
def test_a_process_that_outlives_the_suite_fails_it_and_is_killed(tmp_path: Path) -> None:
    result = _run_suite(tmp_path, LEAKING)
    output = result.stdout + result.stderr
    assert result.returncode == 1, output
    assert "outlived it" in output and "time.sleep(600)" in output, output
    pid = int((tmp_path / "leaked.pid").read_text())
    assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE


@pytest.mark.slow
def test_a_suite_that_stops_what_it_started_passes(tmp_path: Path) -> None:
    result = _run_suite(tmp_path, TIDY)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert "outlived" not in output, output
