"""One batch run's memory as it goes: resident memory and Python objects, twice a second.

    python -m bench.batch_memory [--fraction 0.05] [--photos 40]

The first batch of the archive-shaped replica (``FASHION_CRAWL_BATCH_BRANDS`` designers,
25 by default) is crawled in this process, with no page delay, on a fresh PostgreSQL
catalog and the file store, while a thread samples the resident memory and the size of
the Python objects (``tracemalloc``). It shows where within a run memory is taken: the
manifests step, where pages could run ahead of their photos, and the drafts step's start,
where a batch's manifests were read at once (docs/performance.md, "Photos waiting for
their slots").
"""

from __future__ import annotations

import argparse
import os
import tempfile
import threading
import time
import tracemalloc
from pathlib import Path

from bench.archive import run_command
from bench.common import fresh_database, machine_sentence, replica
from fashion_assets.memory import resident_bytes


def resident_mb() -> float:
    resident = resident_bytes()
    if resident is None:
        raise RuntimeError("no resident memory in /proc: this benchmark needs Linux")
    return resident / 2**20


class Sampler(threading.Thread):
    """Seconds since start, resident MB and Python objects MB, every ``interval_s``."""

    def __init__(self, interval_s: float = 0.5) -> None:
        super().__init__(daemon=True)
        self.interval_s = interval_s
        self.samples: list[tuple[float, float, float]] = []
        self.done = threading.Event()

    def run(self) -> None:
        started = time.monotonic()
        while not self.done.is_set():
            self.samples.append((time.monotonic() - started, resident_mb(),
                                 tracemalloc.get_traced_memory()[0] / 2**20))
            self.done.wait(self.interval_s)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fraction", type=float, default=0.05)
    parser.add_argument("--photos", type=int, default=40)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="fa-batch-") as folder, \
            replica(0, 0, args.photos, archive_fraction=args.fraction) as server, \
            fresh_database() as catalog:
        env = {"FASHION_HOME": str(Path(folder) / "fashion"), "FASHION_DATABASE_URL": catalog,
               "FASHION_STORE_URL": "", "FASHION_PAGE_DELAY": "0", **server.env()}
        run_command(server, ["brands", "discover", "--json"], env)
        os.environ.update(env)
        from fashion_assets.runs import (
            RunLog,
            all_brand_targets,
            crawl_partitions,
            dagster_instance,
        )

        instance = dagster_instance()
        [target] = all_brand_targets(instance)[:1]
        before = resident_mb()
        tracemalloc.start(1)
        sampler = Sampler()
        sampler.start()
        [summary] = crawl_partitions([target], instance, None, run_log=RunLog.QUIET)
        sampler.done.set()
        sampler.join()
    samples = sampler.samples
    print(f"one batch ({target[1]}), no page delay: {summary.get('images_stored', 0):,} photos, "
          f"success {summary['success']}, {samples[-1][0]:.0f} s. {machine_sentence()}")
    print(f"resident memory: {before:.0f} MB before, {max(s[1] for s in samples):.0f} MB at "
          f"the highest; Python objects: {max(s[2] for s in samples):.1f} MB at the highest")
    for seconds, resident, objects in samples[::max(1, len(samples) // 20)]:
        print(f"{seconds:7.1f} s {resident:7.0f} MB resident {objects:6.1f} MB objects")


if __name__ == "__main__":
    main()
