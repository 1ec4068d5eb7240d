"""How long the read-only commands take, as a user types them (issue 37).

    python -m bench.cli_startup [--times 10] [--database-url URL]

Each read-only command (``fashion-assets --help``, ``brands list``, ``review list``,
``review show``, ``names list``, ``coverage list``, ``editors list``, ``store missing``,
``status``) runs ``--times`` times as its own process through the console script, against a
catalog with some data: 60 brands, 600 runway drafts of 40 photo rows each, 100 street
drafts, an editor, and a Dagster instance holding 30 ended runs (what ``status`` asks
about; ``status`` is timed without it too, as before the first crawl). The catalog is a
SQLite file in a temporary ``FASHION_HOME``, or with ``--database-url`` (a PostgreSQL
server's admin URL) a fresh PostgreSQL database, dropped afterwards.

Printed: each command's median and slowest wall time and its median CPU time (user and
system: what a shared machine's other processes inflate far less), beside those of
``python -c pass``, the interpreter's own start, the floor no command goes under, and the
machine's load average before and after (docs/performance.md, "Read-only commands", has the
figures). The target: every one under a second. ``FASHION_BENCH_CHECKOUT=<folder>``
measures another checkout's code (``bench/common.py``: ``checkout_env``).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from bench.common import BIN, checkout_env, machine_sentence

TARGET_S = 1.0
BRANDS, RUNWAY_DRAFTS, PHOTOS, STREET_DRAFTS, RUNS = 60, 600, 40, 100, 30
COMMANDS: tuple[tuple[str, ...], ...] = (
    ("--help",), ("brands", "list"), ("review", "list"), ("review", "show", "1"),
    ("names", "list"), ("coverage", "list"), ("editors", "list"), ("store", "missing"),
    ("status",))


def populate(database_url: str, dagster_home: Path) -> None:
    """The catalog's rows (portable SQL: SQLite and PostgreSQL alike) and the instance's
    ended runs, written once before any timed command."""
    from dagster import DagsterInstance, DagsterRun, DagsterRunStatus
    from sqlalchemy import text

    from fashion_assets.catalog.editors import add_editor
    from fashion_assets.catalog.engines import catalog_engine
    from fashion_assets.domain.passwords import Argon2Cost

    engine = catalog_engine(database_url)
    brands = [{"s": f"brand-{n}", "n": f"Brand {n}"} for n in range(BRANDS)]
    drafts = [{"u": f"https://www.vogue.com/fashion-shows/{n}", "b": f"brand-{n % BRANDS}",
               "t": f"Brand {n % BRANDS} Spring {2000 + n // BRANDS} Ready-to-Wear",
               "c": f"spring-{2000 + n // BRANDS}-ready-to-wear",
               "s": "approved" if n % 3 == 0 else "pending"} for n in range(RUNWAY_DRAFTS)]
    with engine.begin() as conn:
        conn.execute(text("INSERT INTO brands (slug, display_name) VALUES (:s, :n)"), brands)
        conn.execute(text(
            "INSERT INTO brand_runway_drafts (source, source_url, brand_slug, season_code,"
            " title, status, expected_images) VALUES ('vogue', :u, :b, :c, :t, :s, 40)"),
            drafts)
        ids = conn.execute(text("SELECT id FROM brand_runway_drafts")).scalars().all()
        conn.execute(text(
            "INSERT INTO brand_runway_draft_images (draft_id, position, object_key,"
            " source_image_url, content_type, width, height, byte_size) VALUES (:d, :p, :k,"
            " :u, 'image/jpeg', 1280, 1920, 200000)"),
            [{"d": d, "p": p, "k": f"{d:032x}{p:08x}", "u": f"https://cdn.example/{d}/{p}"}
             for d in ids for p in range(1, PHOTOS + 1)])
        conn.execute(text(
            "INSERT INTO street_snap_drafts (source, source_url, city, year, month, title,"
            " expected_images) VALUES ('theimpression', :u, 'paris', 2020, :m, :t, 40)"),
            [{"u": f"https://theimpression.com/a/{n}", "m": 1 + n % 12,
              "t": f"Street style {n}"} for n in range(STREET_DRAFTS)])
    add_editor(engine, "ana", "correct horse battery staple",
               cost=Argon2Cost(time_cost=1, memory_kib=1024))
    engine.dispose()
    dagster_home.mkdir(parents=True, exist_ok=True)
    with DagsterInstance.from_config(str(dagster_home)) as instance:
        for n in range(RUNS):
            instance.add_run(DagsterRun(
                job_name="runway_crawl", status=(DagsterRunStatus.SUCCESS, DagsterRunStatus.FAILURE,
                                                 DagsterRunStatus.CANCELED)[n % 3],
                tags={"dagster/partition": f"brand-{n % BRANDS}"}))


@contextmanager
def catalog(admin_url: str | None) -> Iterator[dict[str, str]]:
    """The environment of a ``FASHION_HOME`` whose catalog is populated: SQLite in it, or a
    fresh PostgreSQL database of the server ``admin_url`` names."""
    with tempfile.TemporaryDirectory(prefix="fa_cli_startup_") as home:
        env = {"FASHION_HOME": home, "FASHION_STORE_URL": "", "DAGSTER_HOME": ""}
        if admin_url is None:
            populate(f"sqlite:///{home}/catalog.db", Path(home) / "dagster")
            yield {**env, "FASHION_DATABASE_URL": ""}
            return
        from tests.catalog_db import fresh_postgres_database

        with fresh_postgres_database(admin_url, prefix="fa_bench") as url:
            populate(url, Path(home) / "dagster")
            yield {**env, "FASHION_DATABASE_URL": url}


@dataclass(frozen=True)
class Timed:
    """A command's runs: the wall time of each, and the CPU time (user and system) of each,
    which other processes on a shared machine inflate far less than the wall time."""

    wall_s: list[float]
    cpu_s: list[float]


def timed(command: Sequence[str], env: Mapping[str, str], times: int) -> Timed:
    """``times`` runs of ``command`` to its end, one after the other; a failing command
    stops the benchmark (it must be measured working)."""
    walls, cpus = [], []
    for _ in range(times):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        done = subprocess.run(command, env={**os.environ, **checkout_env(), **env},
                              capture_output=True, text=True, timeout=120)
        walls.append(time.perf_counter() - started)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(command)} failed: {done.stderr[-2000:]}")
    return Timed(walls, cpus)


def table(rows: Sequence[tuple[str, Timed]]) -> str:
    """One row per command: its median and slowest wall time, its median CPU time, and
    whether its median wall time is under the target."""
    lines = ["| command | median wall s | slowest wall s | median CPU s | under 1 s |",
             "|---|---|---|---|---|"]
    for name, runs in rows:
        wall = statistics.median(runs.wall_s)
        lines.append(f"| `{name}` | {wall:.2f} | {max(runs.wall_s):.2f} | "
                     f"{statistics.median(runs.cpu_s):.2f} | "
                     f"{'yes' if wall < TARGET_S else 'NO'} |")
    return "\n".join(lines)


def run(times: int, admin_url: str | None) -> str:
    """Every command's figures, the floor first, as a markdown table with its preamble."""
    load_before = os.getloadavg()[0]
    with catalog(admin_url) as env:
        rows = [("python -c pass", timed([sys.executable, "-c", "pass"], env, times))]
        for args in COMMANDS:
            rows.append((f"fashion-assets {' '.join(args)}",
                         timed([str(BIN / "fashion-assets"), *args], env, times)))
        # Before anything was crawled from this FASHION_HOME: no instance to ask.
        rows.append(("fashion-assets status (no Dagster instance)",
                     timed([str(BIN / "fashion-assets"), "status"],
                           {**env, "DAGSTER_HOME": str(Path(env["FASHION_HOME"]) / "none")},
                           times)))
    database = "PostgreSQL" if admin_url else "SQLite"
    return (f"`python -m bench.cli_startup --times {times}"
            + (" --database-url URL" if admin_url else "") + f"`: each command {times} times"
            f" through the console script, on a {database} catalog of {BRANDS} brands, "
            f"{RUNWAY_DRAFTS} runway drafts of {PHOTOS} photo rows and {STREET_DRAFTS} street "
            f"drafts, beside a Dagster instance of {RUNS} ended runs; load average "
            f"{load_before:.1f} before, {os.getloadavg()[0]:.1f} after.\n\n{table(rows)}\n\n"
            + machine_sentence())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--times", type=int, default=10, help="Runs of each command.")
    parser.add_argument("--database-url", default=None,
                        help="A PostgreSQL server's admin URL: the catalog is a fresh "
                             "database on it (SQLite in FASHION_HOME when not given).")
    args = parser.parse_args()
    print(run(args.times, args.database_url))


if __name__ == "__main__":
    main()
