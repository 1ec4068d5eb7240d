"""A crawl worker's memory, run after run: a fresh process per run, or one process for all.

    python -m bench.worker_memory [--fraction 0.05] [--batch 5] [--runs 8] [--write]

A worker of ``fashion-assets crawl`` executes run after run (batches of designers), handing
the heap pages each run freed back to the system (``fashion_assets/memory.py:
release_freed_memory``), until its memory has grown 10% past what it was after its first
run; then a fresh process forked from the fork server takes the next run
(``fashion_assets/fresh_processes.py``). Here the first
``--runs`` batches of the archive-shaped replica (``--fraction``, ``--batch`` designers a
run, no page delay so it takes minutes) are crawled three ways, each on a fresh catalog,
and the resident memory of the process that executed each run is printed after it, with
the Python objects it holds (``tracemalloc``): a fresh process per run; one process,
freed memory handed back; one process, freed memory kept.
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


MODES = {  # key: how the runs are executed, as the table's rows say it
    "fresh": "a fresh process per run",
    "release": "one process, freed memory handed back (a crawl worker, until grown 10%)",
    "keep": "one process, freed memory kept",
}


def worker(runs: int, mode: str) -> list[dict[str, float]]:
    """In this process, or a fresh process forked for each: the first ``runs`` batches of
    the catalog's brands, one run each, with the memory after each (the environment names
    the catalog and the replica)."""
    import multiprocessing

    from fashion_assets.fresh_processes import Task, run_in_fresh_processes
    from fashion_assets.runs import all_brand_targets, dagster_instance, default_dagster_home

    targets = all_brand_targets(dagster_instance())[:runs]
    if mode != "fresh":
        return [one_run(target) for target in targets]
    default_dagster_home()
    context = multiprocessing.get_context("forkserver")  # as runs._crawl_in_pool makes them
    context.set_forkserver_preload(["fashion_assets.fork_server"])
    after: dict[int, dict[str, float]] = {}

    def died(index: int, code: int | None) -> None:
        raise RuntimeError(f"the process of {targets[index]} ended with {code}")

    run_in_fresh_processes([Task(one_run, (target,)) for target in targets], 1, context,
                           on_result=after.__setitem__, on_died=died)
    return [after[n] for n in range(len(targets))]


def one_run(target: tuple[str, str]) -> dict[str, float]:
    """One run of ``target`` as a crawl worker executes it, and the memory after it."""
    import tracemalloc

    from fashion_assets.runs import RunLog, crawl_partitions, worker_instance

    if not tracemalloc.is_tracing():
        tracemalloc.start()
    [summary] = crawl_partitions([target], worker_instance(), None, run_log=RunLog.PROGRESS)
    if not summary["success"]:
        raise RuntimeError(f"the run of {target} failed: {summary}")
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return {"rss_mb": pages * os.sysconf("SC_PAGESIZE") / 1e6,
            "python_mb": tracemalloc.get_traced_memory()[0] / 1e6}


def measure_worker(fraction: float, batch: int, runs: int, mode: str) -> list[dict]:
    with tempfile.TemporaryDirectory(prefix="fa-worker-memory-") as folder, \
            replica(0, 0, 40, archive_fraction=fraction) as server, fresh_database() as catalog:
        env = {**os.environ, **checkout_env(), "FASHION_HOME": str(Path(folder) / "fashion"),
               "FASHION_DATABASE_URL": catalog, "FASHION_STORE_URL": "",
               **POLITE.fashion_assets_env(), **server.env(), "FASHION_PAGE_DELAY": "0",
               "FASHION_CRAWL_BATCH_BRANDS": str(batch)}
        subprocess.run([str(BIN / "fashion-assets"), "brands", "discover"], env=env,
                       check=True, capture_output=True, timeout=600)
        done = subprocess.run(
            [sys.executable, "-m", "bench.worker_memory", "--worker", str(runs), "--mode",
             mode],
            env=env, check=True, capture_output=True, text=True, timeout=3600)
    return json.loads(done.stdout.strip().splitlines()[-1])


def report(args: argparse.Namespace, results: dict[str, list[dict]]) -> str:
    lines = [
        f"Measured by `python -m bench.worker_memory --fraction {args.fraction:g} --batch "
        f"{args.batch} --runs {args.runs}`: the first {args.runs} batches of the "
        f"archive-shaped replica ({args.batch} designers a run, no page delay) crawled three "
        "ways, each on a fresh catalog; the resident memory of the process that executed "
        "each run, after it: a fresh process per run (`fashion_assets/fresh_processes.py`), "
        "one process for all with the freed memory handed back (`fashion_assets/memory.py`"
        "; what a worker of `fashion-assets crawl` does until it has grown 10%, when a "
        "fresh process takes over), and without. "
        + machine_sentence(),
        "",
        "| after run | " + " | ".join(str(n) for n in range(1, args.runs + 1)) + " |",
        "|---|" + "---|" * args.runs,
    ]
    for key, label in MODES.items():
        rows = results[key]
        lines.append(f"| resident MB, {label} | "
                     + " | ".join(f"{r['rss_mb']:.0f}" for r in rows) + " |")
        lines.append(f"| Python objects MB, {label} | "
                     + " | ".join(f"{r['python_mb']:.1f}" for r in rows) + " |")
    growth = {key: rows[-1]["rss_mb"] / rows[0]["rss_mb"] - 1 for key, rows in results.items()}
    highest = {key: max(r["rss_mb"] for r in rows) for key, rows in results.items()}
    lines += ["", "From the first run to the last, the resident memory grows "
              f"{growth['fresh']:+.0%} with a fresh process per run (highest "
              f"{highest['fresh']:.0f} MB), {growth['release']:+.0%} in one process with the "
              f"freed memory handed back (highest {highest['release']:.0f} MB) and "
              f"{growth['keep']:+.0%} without it (highest {highest['keep']:.0f} MB). The "
              "Python objects change little: what one process gains is heap that glibc keeps "
              "from its biggest runs."]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fraction", type=float, default=0.05)
    parser.add_argument("--batch", type=int, default=5)
    parser.add_argument("--runs", type=int, default=8)
    parser.add_argument("--write", action="store_true", help=f"put the figures in {DOC}")
    parser.add_argument("--worker", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--mode", choices=MODES, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        if args.mode == "keep":
            import fashion_assets.runs

            fashion_assets.runs.release_freed_memory = lambda: None  # type: ignore[assignment]
        print(json.dumps(worker(args.worker, args.mode)))
        return
    results = {}
    for key in MODES:
        results[key] = measure_worker(args.fraction, args.batch, args.runs, key)
        print(key, [round(r["rss_mb"]) for r in results[key]], flush=True)
    text = report(args, results)
    publish(text, HEADING, DOC, args.write)


if __name__ == "__main__":
    main()
