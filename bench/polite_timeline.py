"""Where a polite crawl's time over its page bound goes, on the daemon's path (issue 34).

    python -m bench.polite_timeline [--brands 5 --shows 10 --photos 40] [--rounds 3]
                                    [--other /tmp/before]

Under equal politeness (``bench.run``'s table 2) the pages of one host, spaced by the page
delay, bound the crawl: whatever comes before the first page and after the last is the
run's fixed cost, the same for a small crawl as for a large one. Here a small polite crawl
(the replica's pages at the default delay, every brand) is timed as ``bench.run`` times
it, ``fashion-assets crawl`` submitting to a ``dagster dev`` that is up, and its time is
cut at the marks both sides keep: the replica's arrival time of each page (the machine's
monotonic clock, which every process shares) and each run's marks in Dagster's event log
(created, enqueued, dequeued and launched, started, ended). With ``--other``, another
checkout's command (``git worktree add``; this venv's packages) crawls in alternate
rounds, so a change is told apart from the machine.

Printed per crawl: the seconds from the command's start to the first run's creation, to the
first page request, the run's launch and process start in between, the seconds pages came
later than the delay after the one before (the page budget left idle mid-crawl), from the
last page to the last run's end and to the command's end, and the time over the bound
(pages x delay).
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from bench.common import BIN, ROOT, Replica, checkout_env, fresh_database, replica
from bench.deployed import deployment_up, warm_bytecode
from bench.peers import POLITE

MARKS = {"RUN_ENQUEUED": "enqueued", "RUN_STARTING": "starting", "RUN_START": "started",
         "RUN_SUCCESS": "ended", "RUN_FAILURE": "ended", "STEP_START": "step started",
         "STEP_SUCCESS": "step ended"}


def run_marks(home: Path) -> list[dict[str, float]]:
    """Each run's marks (epoch seconds) in the instance of ``home``."""
    from dagster import DagsterEventType, DagsterInstance

    kinds = {DagsterEventType[name]: mark for name, mark in MARKS.items()}
    with DagsterInstance.from_config(str(home)) as instance:
        runs = []
        for record in instance.get_run_records():
            marks = {"created": record.create_timestamp.timestamp()}
            for entry in instance.all_logs(record.dagster_run.run_id, of_type=set(kinds)):
                mark = kinds[entry.dagster_event.event_type]
                if mark.startswith("step"):  # each step's, by its asset's last word
                    mark = f"{entry.step_key.rsplit('_', 1)[-1]} {mark}"
                marks.setdefault(mark, entry.timestamp)
            runs.append(marks)
    return runs


def timeline(server: Replica, brands: list[str], folder: Path) -> dict[str, float]:
    """One polite crawl of every brand; where its seconds went."""
    with fresh_database() as database_url:
        env = {"FASHION_HOME": str(folder), "FASHION_DATABASE_URL": database_url,
               "FASHION_STORE_URL": "", **POLITE.fashion_assets_env(), **server.env()}
        command = [str(BIN / "fashion-assets"), "crawl", "--json",
                   *[arg for slug in brands for arg in ("--brand", slug)]]
        with deployment_up(env, folder / "dagster") as deployed:
            server.reset()
            clock, epoch = time.monotonic(), time.time()
            done = subprocess.run(command, env={**os.environ, **checkout_env(), **env,
                                                **deployed.env}, capture_output=True,
                                  text=True, timeout=900)
            finished = time.monotonic() - clock
            if done.returncode != 0:
                raise RuntimeError(f"the crawl failed:\n{done.stderr[-3000:]}")
            pages = sorted(server.read("arrivals?origin=site&kind=page")
                           + server.read("arrivals?origin=site&kind=robots"))
        runs = [{k: v - epoch for k, v in marks.items()}
                for marks in run_marks(folder / "dagster")]
    first = min(r["created"] for r in runs)
    return {"created": first,
            "queue": statistics.median(r["starting"] - r["enqueued"] for r in runs),
            "process start": statistics.median(r["started"] - r["starting"] for r in runs),
            "→ first step": statistics.median(min(v for k, v in r.items() if k.endswith(
                "step started")) - r["started"] for r in runs),
            "first page": pages[0] - clock,
            # Pages later than the delay after the one before: the page budget left idle
            # (a run waiting for its photos, a run between two steps).
            "pages late": sum(max(0.0, later - earlier - POLITE.page_delay_s)
                              for earlier, later in itertools.pairwise(pages)),
            "drafts step": statistics.median(r["drafts step ended"] - r["drafts step started"]
                                             for r in runs if "drafts step ended" in r),
            "last page → runs ended": max(r["ended"] for r in runs) - (pages[-1] - clock),
            "→ command ended": finished - max(r["ended"] for r in runs),
            "over the bound": finished - len(pages) * POLITE.page_delay_s}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--brands", type=int, default=5)
    parser.add_argument("--shows", type=int, default=10)
    parser.add_argument("--photos", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--other", type=Path, help="another checkout, crawling in turn")
    args = parser.parse_args()
    checkouts = {"this": ROOT, **({"other": args.other.resolve()} if args.other else {})}
    figures: dict[str, list[dict[str, float]]] = {name: [] for name in checkouts}
    with replica(args.brands, args.shows, args.photos) as server, \
            tempfile.TemporaryDirectory(prefix="fa-polite-") as tmp:
        warm_bytecode(Path(tmp) / "pycache")  # the run processes read bytecode, not source
        for number in range(args.rounds):
            order = list(checkouts) if number % 2 == 0 else list(reversed(checkouts))
            for name in order:
                os.environ["FASHION_BENCH_CHECKOUT"] = str(checkouts[name])
                figures[name].append(timeline(server, server.brands,
                                              Path(tmp) / f"{name}-{number}"))
                print(f"round {number + 1}, {name}: " + ", ".join(
                    f"{k} {v:.2f}" for k, v in figures[name][-1].items()), flush=True)
    os.environ.pop("FASHION_BENCH_CHECKOUT", None)
    for name, rows in figures.items():
        print(f"median, {name} ({checkouts[name]}): " + ", ".join(
            f"{k} {statistics.median(r[k] for r in rows):.2f} s" for k in rows[0]))


if __name__ == "__main__":
    main()
