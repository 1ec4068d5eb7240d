"""Equal politeness on each of the daemon's paths: how far over the page bound a polite crawl
ends when its runs start in a spawned process and when they start in a warm worker (issue 34).

    python -m bench.polite_paths [--brands 20 --shows 30 --photos 40] [--write]

``bench.run``'s table 2 crawls at the default politeness (``bench.peers.POLITE``: pages of a
host spaced by the page delay) through the command's ``dagster dev``, whose default run
launcher has its code server spawn a process per run: Python, Dagster and the code location
imported again before the run's first page. Production (deploy/) launches whole runs on
warm Celery workers that imported the code location once. Here the same polite crawl goes
each of ``bench.daemon_path``'s ways (its crawls, one replica): the command on ``dagster
dev`` (timed from the command's start, as ``bench.run`` times it), the production topology
with the default launcher, and with the Celery launcher on 1 and 2 workers (timed from the
``launchMultipleRuns`` POST, as a schedule's runs need no command). The pages are counted by
the replica for each crawl; the bound is pages x page delay.

With ``--write`` the section "Equal politeness on each path (issue 34)" of
docs/performance.md is replaced.
"""

from __future__ import annotations

import argparse
import tempfile
from dataclasses import dataclass
from pathlib import Path

from bench.common import Replica, machine_sentence, replica
from bench.daemon_path import DOC, WARM, Result, cli_crawl, daemon_crawl
from bench.deployed import warm_bytecode
from bench.peers import POLITE
from bench.reliability import publish

HEADING = "Equal politeness on each path (issue 34)"


@dataclass(frozen=True)
class Polite:
    """One polite crawl of one path, and the pages the replica served it."""

    result: Result
    pages: int

    @property
    def bound_s(self) -> float:
        return self.pages * POLITE.page_delay_s


def pages_served(server: Replica) -> int:
    """Pages (robots.txt included) the replica served since its last reset."""
    stats = server.stats()
    return stats["page_requests"] + stats["robots_requests"]


def crawl_each_path(server: Replica, folder: Path) -> list[Polite]:
    """The command's crawl, then the topology's with the default launcher, 1 and 2 workers."""
    crawls = [Polite(cli_crawl(server, folder / "cli", POLITE), pages_served(server))]
    print(f"{crawls[-1].result.path}: {crawls[-1].result.wall_s:.1f} s", flush=True)
    for workers in (None, 1, 2):
        result = daemon_crawl(server, folder / f"daemon-{workers}", workers, POLITE)
        crawls.append(Polite(result, pages_served(server)))
        print(f"{result.path}: {result.wall_s:.1f} s", flush=True)
    return crawls


def report(crawls: list[Polite], args: argparse.Namespace) -> str:
    lines = [
        f"Measured by `python -m bench.polite_paths --brands {args.brands} --shows "
        f"{args.shows} --photos {args.photos}`: one replica, every brand crawled once each "
        f"way at the default politeness (page delay {POLITE.page_delay_s:g} s, "
        f"{POLITE.host_image_concurrency} photos in flight per host), each crawl on a fresh "
        "catalog; the command timed from its start, the topology's paths from the "
        "`launchMultipleRuns` POST of 2 runs (half the brands each) to the last run's end "
        "(`bench.daemon_path`'s crawls; deploy/dagster.yaml's dequeue interval). Start: from "
        "the POST to the first run's RUN_START (the command's crawl: not measured here, see "
        "`bench.polite_timeline`). "
        + machine_sentence(), "",
        "| path | pages | bound s | wall s | wall / bound | over the bound s | start s |",
        "|---|---|---|---|---|---|---|"]
    for crawl in crawls:
        result = crawl.result
        start = min((run["marks"]["started"] - run["marks"]["submitted"] for run in result.runs
                     if "started" in run["marks"]), default=None)
        lines.append(
            f"| {result.path} | {crawl.pages} | {crawl.bound_s:.1f} | {result.wall_s:.1f} | "
            f"{result.wall_s / crawl.bound_s:.3f}x | {result.wall_s - crawl.bound_s:.1f} | "
            f"{'' if start is None else f'{start:.2f}'} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--brands", type=int, default=20)
    parser.add_argument("--shows", type=int, default=30)
    parser.add_argument("--photos", type=int, default=40)
    parser.add_argument("--write", action="store_true", help=f"put the figures in {DOC}")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="fa-polite-paths-") as folder:
        warm_bytecode(Path(folder) / "pycache", WARM)
        with replica(args.brands, args.shows, args.photos) as server:
            crawls = crawl_each_path(server, Path(folder))
    publish(report(crawls, args), HEADING, DOC, args.write)


if __name__ == "__main__":
    main()
