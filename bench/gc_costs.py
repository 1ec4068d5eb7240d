"""What Python's garbage collector costs a run process of the daemon's path.

    python -m bench.gc_costs [--brands 20 --shows 30 --photos 40]

docs/performance.md ("The interpreter's own costs") quotes it. One crawl of every brand of a
warm replica, no page delay (``bench.run``'s engine pace), the catalog on a fresh PostgreSQL
database, through the daemon's path as ``bench.run`` measures it (a ``dagster dev`` up, the
command submitting to it). The run processes the code server spawns (``--multiprocessing-fork``
in their command line) report their collections: a ``sitecustomize`` module, on the
deployment's ``PYTHONPATH`` for this crawl only, registers a ``gc.callbacks`` hook in them
that counts each generation's collections and their seconds, and writes them at the
process's exit with the number of objects the collector still walks (``gc.get_objects``:
the frozen ones are not among them).

Printed per run process: the collections of each generation with their seconds, all
collections' seconds, and the objects left to walk.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import tempfile
from pathlib import Path

from bench.common import BIN, checkout_env, fresh_database, replica
from bench.deployed import deployment_up
from bench.peers import ENGINE

HOOK = '''
import atexit, gc, json, os, sys, time
if "--multiprocessing-fork" in sys.argv:
    _seen = {0: [0, 0.0], 1: [0, 0.0], 2: [0, 0.0]}
    _started = [0.0]

    def _count(phase, info):
        if phase == "start":
            _started[0] = time.perf_counter()
        else:
            _seen[info["generation"]][0] += 1
            _seen[info["generation"]][1] += time.perf_counter() - _started[0]

    def _write():
        with open(os.path.join(os.environ["FASHION_BENCH_GC_DIR"], f"{os.getpid()}.json"),
                  "w") as out:
            json.dump({"generations": _seen, "walked": len(gc.get_objects())}, out)

    gc.callbacks.append(_count)
    atexit.register(_write)
'''


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--brands", type=int, default=20)
    parser.add_argument("--shows", type=int, default=30)
    parser.add_argument("--photos", type=int, default=40)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder, \
            replica(args.brands, args.shows, args.photos) as server, \
            fresh_database() as database_url:
        work = Path(folder)
        (work / "hook").mkdir()
        (work / "hook" / "sitecustomize.py").write_text(HOOK)
        (work / "gc").mkdir()
        paths = [str(work / "hook"), checkout_env()["PYTHONPATH"]]
        env = {"FASHION_HOME": str(work / "home"), "FASHION_DATABASE_URL": database_url,
               **ENGINE.fashion_assets_env(), **server.env(),
               "FASHION_BENCH_GC_DIR": str(work / "gc"), "PYTHONPATH": os.pathsep.join(paths)}
        command = [str(BIN / "fashion-assets"), "crawl", "--json",
                   *[arg for slug in server.brands for arg in ("--brand", slug)]]
        with deployment_up(env, work / "home" / "dagster") as deployed:
            done = subprocess.run(command, env={**os.environ, **env, **deployed.env},
                                  capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise SystemExit(f"the crawl failed:\n{done.stderr[-2000:]}")
        photos = sum(c["images_stored"] for c in json.loads(done.stdout)["crawls"])
        print(f"{photos:,} photos stored")
        for report in sorted((work / "gc").glob("*.json")):
            seen = json.loads(report.read_text())
            generations = seen["generations"]
            line = ", ".join(f"gen {g}: {n} in {s:.2f} s" for g, (n, s) in generations.items())
            total = sum(s for _, s in generations.values())
            print(f"run process {report.stem}: {line}; all {total:.2f} s; "
                  f"{seen['walked']:,} objects left to walk")


if __name__ == "__main__":
    main()
