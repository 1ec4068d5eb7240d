"""What a measured crawl cost the machine, read from outside its processes: the CPU of the
processes a benchmark started, PostgreSQL's CPU, and the sessions opened on a database
(``bench/daemon_path.py``)."""

from __future__ import annotations

import resource

import psutil

from bench.common import PG_ADMIN_URL
from tests.catalog_db import query


def tree_cpu_s(skip: int) -> float:
    """CPU seconds so far of every process this one started, but ``skip``'s tree: live
    descendants with the children they reaped, and the children this one reaped."""
    reaped = resource.getrusage(resource.RUSAGE_CHILDREN)
    total = reaped.ru_utime + reaped.ru_stime
    skipped = {skip, *(p.pid for p in psutil.Process(skip).children(recursive=True))}
    for process in psutil.Process().children(recursive=True):
        if process.pid not in skipped:
            try:
                t = process.cpu_times()
            except psutil.Error:
                continue
            total += t.user + t.system + t.children_user + t.children_system
    return total


def postgres_cpu_s() -> float:
    """CPU seconds so far of every ``postgres`` process of the machine, ended backends too."""
    times = [p.info["cpu_times"] for p in psutil.process_iter(["name", "cpu_times"])
             if p.info["name"] == "postgres" and p.info["cpu_times"]]
    return sum(t.user + t.system + t.children_user + t.children_system for t in times)


def sessions_opened(database: str) -> int:
    """Sessions opened so far on ``database`` (PostgreSQL's own count, ``pg_stat_database``),
    read from the admin database so that reading opens none on it."""
    return query(PG_ADMIN_URL, "SELECT sessions FROM pg_stat_database WHERE datname = :d",
                 d=database)[0][0]
