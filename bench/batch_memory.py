"""A batch of brands crawled as the command crawls it, and its run processes' memory as they
go: resident memory of each run, twice a second.

    python -m bench.batch_memory [--fraction 0.05] [--photos 40] [--brands 25]

The archive-shaped replica in a process of its own, a fresh PostgreSQL catalog and the file
store; designer discovery, then the first ``--brands`` designers of the catalog
(``FASHION_CRAWL_BATCH_BRANDS``, 25 by default: a batch of the schedule) crawled with no page
delay, both the way ``fashion-assets`` gets them done (``launch.crawl.command_session``: a
``dagster dev`` of its own, every run queued and launched by its daemon; ``run_job``,
``crawl``, which cuts the brands into partition ranges, a run each). The crawl's work is in
the run processes, which Dagster's default run launcher spawns from the code server
(``multiprocessing``'s ``spawn_main``): a thread samples the resident memory (RSS) of each,
with its children. It shows where within a run memory is taken: the manifests step, where
pages could run ahead of their photos, and the drafts step's start, where a range's manifests
are read at once (docs/performance.md, "Photos waiting for their slots"). Python's own
accounting of its objects (``tracemalloc``) is not available from another process: resident
memory only.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import tempfile
import threading
import time
from pathlib import Path

import psutil

from bench.common import (
    checkout_env,
    fresh_database,
    machine_sentence,
    replica,
    tree,
)
from bench.deployed import (
    WATCHDOG,
    children,
    cmdline,
    environment,
    is_code_server,
    is_run_process,
)

INTERVAL_S = 0.5


def rss_mb(pids: list[int]) -> float:
    """The summed resident memory of ``pids`` still there, in MB."""
    total = 0
    for pid in pids:
        with contextlib.suppress(psutil.Error):
            total += psutil.Process(pid).memory_info().rss
    return total / 2**20


def run_processes(deployment: int) -> list[int]:
    """The processes executing runs under ``deployment`` (the watchdog every process of the
    command's ``dagster dev`` descends from): the children its code servers spawned."""
    servers = [pid for pid in tree(deployment) if is_code_server(cmdline(pid))]
    return [child for server in servers for child in children(server)
            if is_run_process(cmdline(child))]


class Sampler(threading.Thread):
    """Every ``interval_s``: seconds since start and each run process's resident MB (with
    its children), by pid."""

    def __init__(self, deployment: int, interval_s: float = INTERVAL_S) -> None:
        super().__init__(daemon=True)
        self.deployment = deployment
        self.interval_s = interval_s
        self.samples: list[tuple[float, dict[int, float]]] = []
        self.done = threading.Event()

    def run(self) -> None:
        started = time.monotonic()
        while not self.done.is_set():
            self.samples.append((time.monotonic() - started,
                                 {run: rss_mb(tree(run))
                                  for run in run_processes(self.deployment)}))
            self.done.wait(self.interval_s)

    def peaks(self) -> dict[int, float]:
        """Each run process's highest resident MB."""
        found: dict[int, float] = {}
        for _, runs in self.samples:
            for pid, mb in runs.items():
                found[pid] = max(found.get(pid, 0.0), mb)
        return found


def wait_for_no_runs(deployment: int, deadline_s: float = 60.0) -> None:
    """Until no run process is left under ``deployment``: a run's process exits a moment
    after its run has ended, and one sampled then is not the crawl's."""
    deadline = time.monotonic() + deadline_s
    while run_processes(deployment):
        if time.monotonic() > deadline:
            raise RuntimeError(f"run processes still there after {deadline_s:.0f} s")
        time.sleep(0.1)  # polling /proc for the processes' end, a real condition


def the_watchdog(before: set[int]) -> int:
    """The watchdog of the ``dagster dev`` this process started since ``before``."""
    found = [pid for pid in children(os.getpid())
             if pid not in before and WATCHDOG in " ".join(cmdline(pid))]
    if len(found) != 1:
        raise RuntimeError(f"cannot tell the deployment's watchdog: {found}")
    return found[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fraction", type=float, default=0.05)
    parser.add_argument("--photos", type=int, default=40)
    parser.add_argument("--brands", type=int, default=None,
                        help="Designers crawled (default FASHION_CRAWL_BATCH_BRANDS).")
    args = parser.parse_args()
    from fashion_assets.launch.crawl import command_session, crawl, run_job
    from fashion_assets.launch.follow import RunLog
    from fashion_assets.launch.partitions import catalog_brands
    from fashion_assets.settings import crawl_batch_brands

    brands = args.brands or crawl_batch_brands()
    with tempfile.TemporaryDirectory(prefix="fa-batch-") as folder, \
            replica(0, 0, args.photos, archive_fraction=args.fraction) as server, \
            fresh_database() as catalog:
        home = Path(folder) / "fashion"
        env = {"FASHION_HOME": str(home), "FASHION_DATABASE_URL": catalog,
               "FASHION_STORE_URL": "", "FASHION_PAGE_DELAY": "0", **server.env(),
               "DAGSTER_HOME": str(home / "dagster"), "FASHION_DAGSTER_URL": ""}
        before = set(children(os.getpid()))
        with environment(env), command_session({**os.environ, **checkout_env()}) as session:
            deployment = the_watchdog(before)
            discovery = run_job(session, "designer_discovery",
                                asset="vogue_designer_discovery", run_log=RunLog.QUIET)
            assert discovery["success"], discovery
            first = catalog_brands(session.env)[:brands]
            wait_for_no_runs(deployment)
            sampler = Sampler(deployment)
            sampler.start()
            summaries = crawl(session, [("brand", slug) for slug in first],
                              run_log=RunLog.QUIET)
            sampler.done.set()
            sampler.join()
    samples, peaks = sampler.samples, sampler.peaks()
    totals = [sum(runs.values()) for _, runs in samples]
    stored = sum(s.get("images_stored", 0) for s in summaries)
    print(f"{len(first)} designers ({first[0]} .. {first[-1]}), no page delay, in "
          f"{len(summaries)} runs ({', '.join(s['partition'] for s in summaries)}): "
          f"{stored:,} photos, success {all(s['success'] for s in summaries)}, "
          f"{samples[-1][0]:.0f} s. {machine_sentence()}")
    print(f"resident memory of a run process (with its children) at its highest: "
          f"{', '.join(f'{mb:.0f}' for mb in sorted(peaks.values(), reverse=True))} MB; "
          f"of the run processes together: {max(totals, default=0):.0f} MB")
    for seconds, runs in samples[::max(1, len(samples) // 20)]:
        print(f"{seconds:7.1f} s {len(runs):3d} runs {sum(runs.values()):7.0f} MB resident "
              f"{max(runs.values(), default=0):7.0f} MB the largest run")


if __name__ == "__main__":
    main()
