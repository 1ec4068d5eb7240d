"""A crawl worker's memory, run after run, with and without handing freed memory back.

    python -m bench.worker_memory [--fraction 0.05] [--batch 5] [--runs 8] [--write]

A worker of ``fashion-assets crawl`` executes run after run (batches of designers); after
each, ``fashion_assets/memory.py: release_freed_memory`` gives the heap pages the run
freed back to the system. Here one process crawls the first ``--runs`` batches of the
archive-shaped replica (``--fraction``, ``--batch`` designers a run, no page delay so it
takes minutes), as a worker does, and prints its resident memory after each run and the
Python objects it still holds (``tracemalloc``): once as the crawl does it, once with the
release turned off, each in a process of its own on a fresh catalog.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.common import BIN, checkout_env, fresh_database, machine_sentence, replica
from bench.reliability import publish
from bench.run import POLITE

DOC = Path(__file__).resolve().parents[1] / "docs" / "performance.md"
HEADING = "A worker's memory, run after run (issue 19)"


def worker(runs: int) -> list[dict[str, float]]:
    """In this process: the first ``runs`` batches of the catalog's brands, one run each,
    with the memory after each (the environment names the catalog and the replica)."""
    import tracemalloc

    from fashion_assets.runs import RunLog, all_brand_targets, crawl_partitions, dagster_instance

    instance = dagster_instance()
    tracemalloc.start()
    after = []
    for target in all_brand_targets(instance)[:runs]:
        [summary] = crawl_partitions([target], instance, None, run_log=RunLog.PROGRESS)
        if not summary["success"]:
            raise RuntimeError(f"the run of {target} failed: {summary}")
        pages = int(Path("/proc/self/statm").read_text().split()[1])
        resident = pages * os.sysconf("SC_PAGESIZE")
        after.append({"rss_mb": resident / 1e6,
                      "python_mb": tracemalloc.get_traced_memory()[0] / 1e6})
    return after


def measure_worker(fraction: float, batch: int, runs: int, release: bool) -> list[dict]:
    with tempfile.TemporaryDirectory(prefix="fa-worker-memory-") as folder, \
            replica(0, 0, 40, archive_fraction=fraction) as server, fresh_database() as catalog:
        env = {**os.environ, **checkout_env(), "FASHION_HOME": str(Path(folder) / "fashion"),
               "FASHION_DATABASE_URL": catalog, "FASHION_STORE_URL": "",
               **POLITE.fashion_assets_env(), **server.env(), "FASHION_PAGE_DELAY": "0",
               "FASHION_CRAWL_BATCH_BRANDS": str(batch)}
        subprocess.run([str(BIN / "fashion-assets"), "brands", "discover"], env=env,
                       check=True, capture_output=True, timeout=600)
        done = subprocess.run(
            [sys.executable, "-m", "bench.worker_memory", "--worker", str(runs),
             *([] if release else ["--keep-freed"])],
            env=env, check=True, capture_output=True, text=True, timeout=3600)
    return json.loads(done.stdout.strip().splitlines()[-1])


def report(args: argparse.Namespace, results: dict[str, list[dict]]) -> str:
    lines = [
        f"Measured by `python -m bench.worker_memory --fraction {args.fraction:g} --batch "
        f"{args.batch} --runs {args.runs}`: one process crawls the first {args.runs} batches "
        f"of the archive-shaped replica ({args.batch} designers a run, no page delay), as a "
        "crawl worker does; its memory after each run, with the freed memory handed back "
        "(`fashion_assets/memory.py`, what the crawl does) and without. "
        + machine_sentence(),
        "",
        "| after run | " + " | ".join(str(n) for n in range(1, args.runs + 1)) + " |",
        "|---|" + "---|" * args.runs,
    ]
    for label, key in (("handed back", "release"), ("kept", "keep")):
        rows = results[key]
        lines.append(f"| resident MB, freed memory {label} | "
                     + " | ".join(f"{r['rss_mb']:.0f}" for r in rows) + " |")
        lines.append(f"| Python objects MB, freed memory {label} | "
                     + " | ".join(f"{r['python_mb']:.1f}" for r in rows) + " |")
    growth = {key: rows[-1]["rss_mb"] / rows[0]["rss_mb"] - 1 for key, rows in results.items()}
    lines += ["", f"From the first run to the last, the resident memory grows "
              f"{growth['release']:+.0%} with the freed memory handed back and "
              f"{growth['keep']:+.0%} without: glibc keeps the heap of the biggest run, and "
              "the Python objects alone change little."]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fraction", type=float, default=0.05)
    parser.add_argument("--batch", type=int, default=5)
    parser.add_argument("--runs", type=int, default=8)
    parser.add_argument("--write", action="store_true", help=f"put the figures in {DOC}")
    parser.add_argument("--worker", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--keep-freed", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        if args.keep_freed:
            import fashion_assets.runs

            fashion_assets.runs.release_freed_memory = lambda: None  # type: ignore[assignment]
        print(json.dumps(worker(args.worker)))
        return
    results = {}
    for key, release in (("release", True), ("keep", False)):
        results[key] = measure_worker(args.fraction, args.batch, args.runs, release)
        print(key, [round(r["rss_mb"]) for r in results[key]], flush=True)
    text = report(args, results)
    publish(text, HEADING, DOC, args.write)


if __name__ == "__main__":
    main()
