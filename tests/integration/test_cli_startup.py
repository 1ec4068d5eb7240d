"""The read-only commands start without what they do not use (issue 37: 3.4-4 s each, 2.2 s
of it importing Dagster and the resources): no Dagster, no boto3 for a file store, no
crawler, no HTML parser. Asserted on the modules the real command imports (``python -X
importtime``), not on its time, which a shared machine's load decides;
``bench/cli_startup.py`` times them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

READ_ONLY = (("--help",), ("brands", "list"), ("review", "list"), ("review", "show", "1"),
             ("names", "list"), ("coverage", "list"), ("editors", "list"),
             ("store", "missing"), ("status",))
UNNEEDED = ("dagster", "boto3", "aiohttp", "uvicorn", "parsel", "lxml", "pandas")
"""Dagster (a second to import), the S3 client, the crawler's HTTP client, the servers, the
HTML parser, pandas."""


def command(args: tuple[str, ...], database_url: str, home: Path, **env: str
            ) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    """The command's run, and the top-level packages it imported."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "fashion_assets", *args],
        env={**os.environ, "FASHION_DATABASE_URL": database_url, "FASHION_HOME": str(home),
             "FASHION_STORE_URL": "", "DAGSTER_HOME": "", **env},
        capture_output=True, text=True, timeout=120)
    packages = {line.rsplit("|", 1)[1].strip().split(".")[0]
                for line in done.stderr.splitlines() if line.startswith("import time:")}
    return done, packages


@pytest.mark.parametrize("args", READ_ONLY, ids=" ".join)
def test_a_read_only_command_imports_no_dagster(args: tuple[str, ...], database_url: str,
                                                tmp_path: Path) -> None:
    done, packages = command(args, database_url, tmp_path)
    errors = [line for line in done.stderr.splitlines() if not line.startswith("import time:")]
    if args[:2] == ("review", "show"):  # the catalog is empty: one line says so
        assert done.returncode == 1 and len(errors) == 1, done
        assert errors[0].startswith("Error: ") and "runway draft 1" in errors[0], done
    else:
        assert done.returncode == 0 and errors == [], done
    assert packages.isdisjoint(UNNEEDED), sorted(packages & set(UNNEEDED))


def test_status_reads_the_rules_as_the_settings_give_them(database_url: str,
                                                          tmp_path: Path) -> None:
    """The rules status reports with are the settings' values: the Dagster resource's
    fields, unresolved, read 0 for a variable set in the environment (a traceback for a
    backpressure threshold)."""
    done, _ = command(("status",), database_url, tmp_path,
                      FASHION_BACKPRESSURE_PAUSE_PENDING="7",
                      FASHION_BACKPRESSURE_ALERT_PENDING="3")
    assert done.returncode == 0, done.stderr[-2000:]
    assert ("backpressure: ok: 0 drafts wait for review (alert at 3), 0 shows failed their "
            "last ingest (alert at 100)") in done.stdout.splitlines()
