"""``python -m bench.NAME --help`` of every benchmark works where the Scrapy peer is not
installed (it is an extra of the benchmarks alone): Scrapy is imported only by the peer
itself (``bench/scrapy_peer.py``), never by a module a benchmark's ``--help`` loads."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # a process per benchmark

ROOT = Path(__file__).resolve().parents[2]
BENCHMARKS = sorted(path.stem for path in (ROOT / "bench").glob("*.py")
                    if 'if __name__ == "__main__":' in path.read_text())
# As if Scrapy were not installed: its import raises ModuleNotFoundError.
WITHOUT_SCRAPY = """
import runpy, sys
sys.modules["scrapy"] = None
sys.argv = [sys.argv[1], "--help"]
runpy.run_module(sys.argv[0], run_name="__main__")
"""


@pytest.mark.parametrize("name", BENCHMARKS)
def test_a_benchmarks_help_needs_no_scrapy(name: str) -> None:
    done = subprocess.run([sys.executable, "-c", WITHOUT_SCRAPY, f"bench.{name}"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)

    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("usage: "), done.stdout


def test_there_are_benchmarks_to_check() -> None:
    assert {"run", "archive", "daemon_path"} <= set(BENCHMARKS)
