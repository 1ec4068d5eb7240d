"""A crawl in one process hands the memory a run freed back to the system.

``runs.crawl_partitions`` executes its targets run after run in the caller's process (a
test, a benchmark, a crawl of one target, each worker of ``fashion-assets crawl`` until it
leaves for a fresh process: ``fresh_processes.py``). Python frees a run's objects
when it ends, but glibc keeps the freed heap pages for later use, so the process would stay
the size of the biggest run it ever executed (a batch of designers with hundreds of shows):
over a long crawl, memory creeps up batch by batch although nothing is kept.
``malloc_trim`` returns those pages. Where there is no glibc (musl, macOS), nothing is done.
"""

from __future__ import annotations

import ctypes
import gc
import os

from fashion_assets.libc import c_function


def release_freed_memory() -> None:
    """Collect a finished run's reference cycles (Dagster's objects hold many), then give
    every free heap page back to the system."""
    gc.collect()
    malloc_trim = c_function("malloc_trim", ctypes.c_size_t)
    if malloc_trim is not None:
        malloc_trim(0)


WORKER_GROWTH = 0.10
"""A crawl worker leaves, for a fresh process, once its resident memory has grown this much
past what it was after its first run (``runs._crawl_in_pool``): memory stays within it, and
the runs before that start warm (docs/performance.md, "A worker's memory, run after run")."""


def resident_bytes() -> int | None:
    """This process's resident memory, from ``/proc``; None where there is none."""
    try:
        with open("/proc/self/statm") as handle:
            return int(handle.read().split()[1]) * os.sysconf("SC_PAGESIZE")
    except (OSError, ValueError, IndexError):
        return None


LONG_RUN_S = 30.0
"""A crawl worker leaves, for a fresh process, after a run that took this long or longer:
the next run's cold start (about 0.4 s of CPU) costs such runs little, and it starts without
the heap a long run leaves (a batch of 25 designers at the politeness defaults takes
minutes). Runs shorter than this keep their warm worker, whose cold start would cost them
a share: at no page delay, a fresh process for every one-brand run cost the crawl 15% of
its photos per second."""


def has_grown(first: int | None, now: int | None, growth: float = WORKER_GROWTH) -> bool:
    """Whether a worker whose memory was ``first`` after its first run and is ``now`` should
    leave; unknown memory counts as grown (a fresh process per run, the safe side)."""
    return first is None or now is None or now > first * (1 + growth)


def worker_leaves(first: int | None, now: int | None, run_s: float) -> bool:
    """Whether a crawl worker leaves after a run of ``run_s`` seconds, its memory ``first``
    after its first run and ``now``: after a long run (``LONG_RUN_S``), or once grown."""
    return run_s >= LONG_RUN_S or has_grown(first, now)
