"""A crawl in one process hands the memory a run freed back to the system.

``runs.crawl_partitions`` executes its targets run after run in the caller's process (a
test, a benchmark, a crawl of one target; ``fashion-assets crawl`` of more gives each run a
fresh process: ``fresh_processes.py``). Python frees a run's objects
when it ends, but glibc keeps the freed heap pages for later use, so the process would stay
the size of the biggest run it ever executed (a batch of designers with hundreds of shows):
over a long crawl, memory creeps up batch by batch although nothing is kept.
``malloc_trim`` returns those pages. Where there is no glibc (musl, macOS), nothing is done.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import os
from functools import lru_cache
from typing import Any


def release_freed_memory() -> None:
    """Collect a finished run's reference cycles (Dagster's objects hold many), then give
    every free heap page back to the system."""
    gc.collect()
    libc = _glibc()
    if libc is not None:
        libc.malloc_trim(0)


@lru_cache(maxsize=1)
def _glibc() -> Any:
    """The C library when it is glibc (it has ``malloc_trim``), else None."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.malloc_trim.argtypes = [ctypes.c_size_t]
    except (OSError, AttributeError):
        return None
    return libc


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


def has_grown(first: int | None, now: int | None, growth: float = WORKER_GROWTH) -> bool:
    """Whether a worker whose memory was ``first`` after its first run and is ``now`` should
    leave; unknown memory counts as grown (a fresh process per run, the safe side)."""
    return first is None or now is None or now > first * (1 + growth)
