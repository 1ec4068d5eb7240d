"""The command as it was before issue 34, for ``bench.daemon_path``'s baseline row.

    git worktree add /tmp/before 8d9876a
    python3 -m venv /tmp/before/.venv && /tmp/before/.venv/bin/pip install -e /tmp/before
    python -m bench.daemon_path --before /tmp/before

Before issue 34, ``fashion-assets crawl`` ran its crawls on a process engine of its own
(warm worker processes forked by the command), beside Dagster's run queue rather than
through it. The issue asks that one Celery worker on the daemon's path crawl at least as
fast as that command did on the same machine, so the figure is measured, not remembered:
the old checkout's command crawls the same replica in each round, between the other paths.
Its code imports modules this checkout removed and spawns processes that must import it
too, so it runs from its own venv (``<checkout>/.venv``, installed from its own
pyproject.toml) with its own ``DAGSTER_HOME``, not from this one with a path prepended.
"""

from __future__ import annotations

import json
from pathlib import Path

from bench.common import Measured, Replica, fresh_database, measure
from bench.costs import postgres_cpu_s
from bench.peers import Pace

COMMIT = "8d9876a"
"""The last commit before issue 34's work: the command on its own engine."""


def before_command(checkout: Path) -> Path:
    """The old checkout's ``fashion-assets``, or a one-line error that says how to make it."""
    command = checkout / ".venv" / "bin" / "fashion-assets"
    if not (checkout / "fashion_assets" / "runs.py").is_file() or not command.is_file():
        raise SystemExit(
            f"--before {checkout}: not a checkout of {COMMIT} with its own venv; make one with"
            f" `git worktree add {checkout} {COMMIT} && python3 -m venv {checkout}/.venv && "
            f"{checkout}/.venv/bin/pip install -e {checkout}`")
    return command


def before_crawl(checkout: Path, server: Replica, folder: Path, pace: Pace
                 ) -> tuple[Measured, int, float]:
    """``fashion-assets crawl --json`` of every brand by the old checkout's command, on a
    fresh catalog: how it went (wall time, CPU of its process tree), the photos it says it
    stored, and PostgreSQL's CPU seconds meanwhile."""
    home = folder / "home"
    (home / "dagster").mkdir(parents=True)
    env = {"FASHION_HOME": str(home), "DAGSTER_HOME": str(home / "dagster"),
           "FASHION_STORE_URL": f"file://{folder / 'store'}", "PYTHONPATH": str(checkout),
           **pace.fashion_assets_env(), **server.env()}
    command = [str(before_command(checkout)), "crawl", "--json",
               *[arg for slug in server.brands for arg in ("--brand", slug)]]
    with fresh_database() as catalog:
        postgres = postgres_cpu_s()
        measured = measure(command, {**env, "FASHION_DATABASE_URL": catalog}, cwd=checkout)
        postgres = postgres_cpu_s() - postgres
    if measured.returncode != 0:
        raise RuntimeError(f"the command of {checkout} failed:\n{measured.stderr_tail}")
    photos = sum(run["images_stored"] for run in json.loads(measured.stdout)["crawls"])
    return measured, photos, postgres
