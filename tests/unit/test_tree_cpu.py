"""The benchmarks' CPU time of a process tree (``bench/common.py``), whose processes end
between samples: a crawl's workers, a fresh one per run."""

from __future__ import annotations

import json
import sys

from bench.common import ProcessCpu, measure, tree_cpu_ticks

ROOT, SERVER, WORKER = (1, 0), (2, 0), (3, 0)


def test_a_process_its_parent_waited_for_is_counted_whole_through_the_parent() -> None:
    processes = {ROOT: ProcessCpu(5, 0, None, 9), SERVER: ProcessCpu(2, 40, ROOT, 9),
                 WORKER: ProcessCpu(30, 0, SERVER, 6)}
    # The worker's last sample saw 30 ticks; it used 40 in all, which the server waited for.
    assert tree_cpu_ticks(processes, {WORKER: 7}) == 5 + 2 + 40


def test_a_process_alive_or_whose_parent_was_not_sampled_after_it_counts_as_last_sampled(
        ) -> None:
    running = {ROOT: ProcessCpu(5, 0, None, 9), WORKER: ProcessCpu(30, 0, ROOT, 9)}
    assert tree_cpu_ticks(running, {}) == 35
    orphaned = {ROOT: ProcessCpu(5, 0, None, 6), WORKER: ProcessCpu(30, 0, ROOT, 8)}
    assert tree_cpu_ticks(orphaned, {ROOT: 7, WORKER: 9}) == 35


CHILDREN = """
import json, os, subprocess, sys
burn = "import time, os\\nt = time.process_time()\\nwhile time.process_time() - t < 0.3: pass\\n" \\
       "print(sum(os.times()[:2]))"
used = [float(subprocess.run([sys.executable, "-c", burn], capture_output=True, text=True,
                             check=True).stdout) for _ in range(4)]
print(json.dumps(used))
"""


def test_processes_that_end_between_samples_are_counted_to_their_last_moment() -> None:
    measured = measure([sys.executable, "-c", CHILDREN], {})
    assert measured.returncode == 0, measured.stderr_tail
    children = sum(json.loads(measured.stdout))
    assert children >= 1.2
    # Up to a sampling interval (0.25 s) of each child's end used to be missed.
    assert children <= measured.cpu_s <= children + 1.0, (measured.cpu_s, children)
