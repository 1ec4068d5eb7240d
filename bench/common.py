"""What every benchmark needs: the replica in its own process, fresh catalogs, and
measurements of a command (wall time and peak memory of its whole process tree).

Memory is the peak of the summed PSS (proportional set size) of the measured processes,
sampled every 250 ms: PSS counts the pages they share (the interpreter, the libraries) once,
where summing RSS counts them per process. (Reading PSS makes the kernel walk page tables:
sampled every 20 ms, the measurement itself took a fifth of a core from what it measured.)
"""

from __future__ import annotations

import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.catalog_db import fresh_postgres_database

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
PG_ADMIN_URL = os.environ.get("FASHION_BENCH_DATABASE_URL",
                              "postgresql+psycopg2://postgres@127.0.0.1:5432/postgres")


def checkout_env() -> dict[str, str]:
    """``PYTHONPATH`` with this checkout first (or ``FASHION_BENCH_CHECKOUT``'s, as
    ``bench.checkouts`` sets it), for the processes a benchmark starts. The venv's console
    scripts import the package the venv was installed from (an editable install points at
    one checkout); a benchmark must measure the code of the checkout it names."""
    root = os.environ.get("FASHION_BENCH_CHECKOUT") or str(ROOT)
    paths = [root, *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    return {"PYTHONPATH": os.pathsep.join(dict.fromkeys(paths))}


@dataclass
class Replica:
    """A replica serving in its own process, driven through its control endpoints."""

    process: subprocess.Popen[str]
    base_url: str
    cdn_url: str
    brands: list[str]

    def control(self, action: str, body: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """``POST`` ``action`` (with ``body`` as JSON) to the replica's control endpoint."""
        return self._call(action, json.dumps(body or {}).encode())

    def read(self, action: str) -> Any:
        """``GET`` ``action`` (``stats``, ``arrivals?origin=site&kind=page``) from it."""
        return self._call(action, None)

    def _call(self, action: str, data: bytes | None) -> Any:
        request = urllib.request.Request(f"{self.base_url}/__replica/{action}", data=data,
                                         method="GET" if data is None else "POST")
        with urllib.request.urlopen(request, timeout=30) as response:
            payload = response.read()
        return json.loads(payload) if payload else {}

    def stats(self) -> dict[str, Any]:
        return self.read("stats")

    def reset(self) -> None:
        self.control("reset")

    def env(self) -> dict[str, str]:
        return {"FASHION_VOGUE_BASE_URL": self.base_url,
                "FASHION_VOGUE_IMAGE_HOSTS": self.cdn_url.split("://", 1)[1]}


@contextmanager
def replica(brands: int, shows: int, photos: int, *, seed: int = 0,
            archive_fraction: float | None = None) -> Iterator[Replica]:
    """A warm replica (every photo encoded before it answers), no hostile brands; with
    ``archive_fraction``, that part of the archive-shaped replica instead (photos drawn on
    request: they are small), ``brands`` and ``shows`` unused."""
    shape = (["--brands", str(brands), "--shows", str(shows), "--no-hostile", "--warm"]
             if archive_fraction is None else
             ["--archive", str(ROOT / "tests" / "data"), "--fraction", str(archive_fraction)])
    process = subprocess.Popen(
        # Every origin on a free port, so a replica already serving the defaults is no clash.
        [str(BIN / "fashion-assets"), "replica", "serve", "--port", "0", "--cdn-port", "0",
         "--impression-port", "0", "--impression-cdn-port", "0",
         "--photos", str(photos), "--seed", str(seed), *shape],
        env={**os.environ, **checkout_env()}, stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL, text=True)
    try:
        assert process.stdout is not None
        urls = json.loads(process.stdout.readline())
        with urllib.request.urlopen(f"{urls['base_url']}/fashion-shows/designers") as response:
            directory = response.read().decode()
        from fashion_assets.sources.vogue import parse_designer_directory

        slugs = [slug for _, slug in parse_designer_directory(directory)]
        server = Replica(process, urls["base_url"], urls["cdn_url"], slugs)
        yield server
    finally:
        process.terminate()
        process.wait(timeout=30)


MEDIAN_OF = 5  # calls of a timed tick or page; the median is reported


def median_ms(action: Callable[[], object], times: int = MEDIAN_OF) -> float:
    """The median wall time of ``times`` calls of ``action``, in ms: a tick or a page as
    users meet it, the first call's warm-up outweighed."""
    samples = []
    for _ in range(times):
        started = time.perf_counter()
        action()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples) * 1000


def fresh_database() -> AbstractContextManager[str]:
    """A new PostgreSQL database for one measured crawl, dropped afterwards."""
    return fresh_postgres_database(PG_ADMIN_URL, prefix="fa_bench")


@dataclass(frozen=True)
class Measured:
    wall_s: float
    peak_mb: float
    returncode: int
    stdout: str
    stderr_tail: str
    cpu_s: float = 0.0  # CPU seconds (user and system) of the processes (``tree_cpu_ticks``)
    peak_mb_by_minute: tuple[float, ...] = ()  # the peak of each minute, from the first on
    peak_rss_mb: float = 0.0  # the peak of the summed RSS (shared pages in each process)
    run_processes: int = 0  # a deployment's run processes measured (``bench.deployed``)
    peak_runs_mb: float = 0.0  # the peak of their summed PSS alone, without the command


def measure(command: list[str], env: Mapping[str, str], cwd: Path | None = None, *,
            sampler: Callable[[int], PeakPss] | None = None) -> Measured:
    """Run ``command`` (this checkout's code first on its path) to completion, sampling the
    PSS and the CPU time of its process tree (``sampler``, given the command's pid: of the
    processes it says).

    The CPU time is sampled process by process (``tree_cpu_ticks``): processes a server
    starts and reaps (a code server's runs) are not in the kernel's accounting of this
    process's waited-for children (``RUSAGE_CHILDREN``), which gives the command's own
    process whole, with the children it waited for."""
    before = _children_ticks()
    started = time.perf_counter()
    process = subprocess.Popen(command, env={**os.environ, **checkout_env(), **env}, cwd=cwd,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    sampling = (sampler or PeakPss)(process.pid)
    sampling.start()
    stdout, stderr = process.communicate()
    wall = time.perf_counter() - started
    sampling.stop()
    sampling.root_whole(_children_ticks() - before)
    return Measured(wall, sampling.peak_kb / 1024, process.returncode, stdout, stderr[-4000:],
                    sampling.cpu_s, tuple(kb / 1024 for kb in sampling.by_minute),
                    sampling.peak_rss_kb / 1024, **sampling.extra())


def _children_ticks() -> int:
    """The CPU ticks of this process's children it waited for (and theirs), so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return round((usage.ru_utime + usage.ru_stime) * os.sysconf("SC_CLK_TCK"))


@dataclass(frozen=True)
class ProcessCpu:
    """One process's CPU ticks at the last sample that found it."""

    own: int  # user and system ticks of the process itself
    reaped: int  # those of its children it has waited for (cutime and cstime), whole
    parent: tuple[int, int] | None  # the (pid, start time) of its parent, if sampled
    last_seen: int  # the number of that sample


def tree_cpu_ticks(processes: Mapping[tuple[int, int], ProcessCpu],
                   vanished: Mapping[tuple[int, int], int]) -> int:
    """The CPU ticks a process tree used, from samples of each process's ``/proc`` stat.

    A process's own ticks are only known up to its last sample, and a crawl's run processes
    end between samples. A process that ends is waited for by its parent (the code server
    reaps its run processes), and from then on its whole CPU time, its last moments too, is
    in the parent's ``reaped`` ticks. So a process that vanished (not found
    at sample ``vanished[key]``) while its parent was sampled at or after that is counted
    through its parent, and every other process as it was last sampled.
    """
    total = 0
    for key, cpu in processes.items():
        total += cpu.own + cpu.reaped
        parent = processes.get(cpu.parent) if cpu.parent is not None else None
        if key in vanished and parent is not None and parent.last_seen >= vanished[key]:
            total -= cpu.own + cpu.reaped
    return total


class PeakPss(threading.Thread):
    """Samples a command's process tree: its PSS (and RSS), the peak of each minute, and each
    process's CPU ticks. A process once found is sampled until it ends, even after the
    command ended, so it is known who waited for whom. Subclasses measure other processes
    with it (``_members``), and name those whose reaped children count (``_reapers``)."""

    def __init__(self, pid: int, interval_s: float = 0.25) -> None:
        super().__init__(daemon=True)
        self.pid = pid
        self.interval_s = interval_s
        self.peak_kb = 0
        self.peak_rss_kb = 0
        self.by_minute: list[int] = []
        self._cpu: dict[tuple[int, int], ProcessCpu] = {}  # (pid, start time): CPU ticks
        self._vanished: dict[tuple[int, int], int] = {}  # (pid, start time): the sample
        self._reaper_keys: set[tuple[int, int]] = set()
        self._sample = 0
        self._done = threading.Event()

    @property
    def cpu_s(self) -> float:
        return tree_cpu_ticks(self._cpu, self._vanished) / os.sysconf("SC_CLK_TCK")

    def extra(self) -> dict[str, Any]:  # ``Measured``'s fields of a subclass's processes
        return {}

    def root_whole(self, ticks: int) -> None:
        """The command's process, once ended and waited for: its whole CPU time and that of
        the children it waited for, known at its last moment (``RUSAGE_CHILDREN``)."""
        for key in list(self._cpu):
            if key[0] == self.pid:
                self._cpu[key] = ProcessCpu(ticks, 0, None,
                                            self._vanished.get(key, self._sample))

    def _members(self) -> list[int]:
        """The processes measured this sample: the command's tree, and the trees of those
        found before that still run (a child whose parent ended)."""
        alive = [key[0] for key in self._cpu
                 if key not in self._vanished and key not in self._reaper_keys]
        return list(dict.fromkeys(pid for top in [self.pid, *alive] for pid in tree(top)))

    def _reapers(self) -> dict[int, tuple[int, int]]:
        """Processes not measured whose reaped children count whole (``tree_cpu_ticks``),
        ``pid: (start time, reaped ticks to count)``. None here."""
        return {}

    def run(self) -> None:
        started = time.monotonic()
        while not self._done.is_set():
            self._sample += 1
            members = self._members()
            stats = {pid: stat for pid in members if (stat := cpu_stat(pid)) is not None}
            reapers = self._reapers()
            keys = {pid: (pid, stat[0]) for pid, stat in stats.items()}
            keys.update({pid: (pid, start) for pid, (start, _) in reapers.items()})
            for pid, (_, own, reaped, ppid) in stats.items():
                self._cpu[keys[pid]] = ProcessCpu(own, reaped, keys.get(ppid), self._sample)
            for pid, (start, reaped) in reapers.items():
                self._reaper_keys.add((pid, start))
                self._cpu[(pid, start)] = ProcessCpu(0, reaped, None, self._sample)
            for key, cpu in self._cpu.items():
                if cpu.last_seen == self._sample - 1:
                    self._vanished[key] = self._sample
            kb = self._summed_pss(members)
            self.peak_kb = max(self.peak_kb, kb)
            self.peak_rss_kb = max(self.peak_rss_kb, sum(_rss_kb(p) for p in members))
            minute = int((time.monotonic() - started) // 60)
            if minute >= len(self.by_minute):
                self.by_minute.extend([0] * (minute + 1 - len(self.by_minute)))
            self.by_minute[minute] = max(self.by_minute[minute], kb)
            self._done.wait(self.interval_s)

    def stop(self) -> None:
        self._done.set()
        self.join()

    def _summed_pss(self, members: list[int]) -> int:  # the sample's summed PSS
        return sum(pss_kb(p) for p in members)


def tree(root: int) -> list[int]:
    """``root`` and its descendants, from /proc (children of every thread)."""
    pids, frontier = [root], [root]
    while frontier:
        pid = frontier.pop()
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for task in tasks:
            try:
                with open(f"/proc/{pid}/task/{task}/children") as handle:
                    children = [int(c) for c in handle.read().split()]
            except OSError:
                continue
            pids.extend(children)
            frontier.extend(children)
    return pids


def cpu_stat(pid: int) -> tuple[int, int, int, int] | None:
    """A process's start time, its own CPU ticks (user and system), those of the children it
    waited for, and its parent's pid, from its stat."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    # After the command's name: state is field 3, ppid 4, utime 14, stime 15, cutime 16,
    # cstime 17, starttime 22.
    return (int(fields[19]), int(fields[11]) + int(fields[12]),
            int(fields[13]) + int(fields[14]), int(fields[1]))


def _rss_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm") as handle:
            return int(handle.read().split()[1]) * (os.sysconf("SC_PAGE_SIZE") // 1024)
    except (OSError, IndexError, ValueError):
        return 0


def pss_kb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/smaps_rollup") as handle:
            for line in handle:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def machine() -> dict[str, str]:
    """The machine and the versions the figures were measured with."""
    cpu = "unknown"
    try:
        with open("/proc/cpuinfo") as handle:
            cpu = next(line.split(":", 1)[1].strip() for line in handle
                       if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    with open("/proc/meminfo") as handle:
        memory_kb = int(handle.readline().split()[1])
    versions = {}
    for package in ("dagster", "httpx", "aiohttp", "sqlalchemy", "scrapy", "moto"):
        try:
            from importlib.metadata import version

            versions[package] = version(package)
        except Exception:
            versions[package] = "not installed"
    return {
        "cpu": f"{os.cpu_count()} x {cpu}",
        "memory": f"{memory_kb / 1024 / 1024:.1f} GiB",
        "os": platform.platform(),
        "python": platform.python_version(),
        **versions,
    }


def machine_sentence(measured_on: dict[str, str] | None = None) -> str:
    """``Machine: cpu ..., python ..., dagster ... .``: how every figures section ends its
    preamble (``measured_on``: a saved run's ``machine()``, else this one's)."""
    return "Machine: " + ", ".join(f"{k} {v}" for k, v in (measured_on or machine()).items()) + "."


def every_few(minutes: tuple[float, ...], most: int = 13) -> tuple[int, tuple[float, ...]]:
    """At most ``most`` of the minutes' peaks, every few minutes and the last: how many
    minutes apart they are, and the peaks. A two-hour crawl's 120 are too many to read."""
    apart = max(1, -(-(len(minutes) - 1) // (most - 1))) if len(minutes) > most else 1
    picked = minutes[::apart]
    if (len(minutes) - 1) % apart:
        picked += minutes[-1:]
    return apart, picked


def busy_by_minute(spans: Sequence[tuple[float, float]], started_at: float,
                   minutes: int) -> tuple[int, ...]:
    """The most runs in progress at once in each minute of a command that started at
    ``started_at`` (epoch seconds), from its runs' ``(start, end)`` spans, to the second.

    A crawl's memory is the sum of its busy workers': a minute with one worker of two left
    at the tail holds about half, which says nothing about growth. So minutes are compared
    with minutes as busy."""
    def at(t: float) -> int:
        return sum(1 for start, end in spans if start <= t < end)
    return tuple(max(at(started_at + 60 * m + s) for s in range(60)) for m in range(minutes))


def last_as_busy(busy: Sequence[int]) -> int | None:
    """The last minute as busy as the first (an index), if any: the tail's minutes with
    fewer runs in progress are left out."""
    return max((m for m, n in enumerate(busy) if n == busy[0]), default=None) if busy else None
