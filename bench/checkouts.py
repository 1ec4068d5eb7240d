"""The engine crawl of another checkout and of this one, alternating on one replica.

    git worktree add /tmp/before <commit>
    python -m bench.checkouts /tmp/before [--rounds 3]

What a change did to the crawl, told apart from the machine: on a shared two-core machine a
crawl's wall time drifts by a fifth from one half hour to the next, more than most changes
move it, so two ``bench.run`` runs at different times cannot say. Here both checkouts crawl
the same warm replica (``bench.run``'s engine table: 20 brands x 30 shows x 40 photos, no
page delay, 16 requests at a time, the catalog on a fresh PostgreSQL database each crawl,
through the daemon's path) in alternating order, round after round, with this venv's
packages; each process started runs the named checkout's code (``FASHION_BENCH_CHECKOUT``,
``bench.common.checkout_env``).

Printed: each crawl's wall time, photos per second and CPU seconds (the command and its run
processes), then each checkout's medians.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
from pathlib import Path

from bench.common import ROOT, fresh_database, replica
from bench.peers import ENGINE
from bench.run import fashion_assets_crawl


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("other", type=Path, help="the other checkout (a git worktree)")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    other = args.other.resolve()
    if not (other / "fashion_assets").is_dir():
        raise SystemExit(f"{other} is not a checkout of fashion-assets")
    checkouts = {"other": other, "this": ROOT}
    figures: dict[str, list[tuple[float, float, float]]] = {name: [] for name in checkouts}
    with replica(20, 30, 40) as server:
        for number in range(args.rounds):
            order = list(checkouts) if number % 2 == 0 else list(reversed(checkouts))
            for name in order:
                os.environ["FASHION_BENCH_CHECKOUT"] = str(checkouts[name])
                with fresh_database() as database_url, tempfile.TemporaryDirectory() as home:
                    crawl = fashion_assets_crawl(server, database_url, Path(home), ENGINE)
                measured = crawl.measured
                figures[name].append((measured.wall_s, crawl.photos / measured.wall_s,
                                      measured.cpu_s))
                print(f"round {number + 1}, {name} ({checkouts[name]}): {measured.wall_s:.1f} s,"
                      f" {crawl.photos / measured.wall_s:.0f} photos/s, "
                      f"{measured.cpu_s:.1f} CPU s", flush=True)
    os.environ.pop("FASHION_BENCH_CHECKOUT", None)
    for name, rows in figures.items():
        wall, rate, cpu = (statistics.median(column) for column in zip(*rows, strict=True))
        print(f"median, {name}: {wall:.1f} s, {rate:.0f} photos/s, {cpu:.1f} CPU s")


if __name__ == "__main__":
    main()
