"""``fashion-assets demo`` reads well: a line per run (a partition or a range of them), a total
and the next commands as the user must type them, run the README's way (the venv's ``bin``
not on ``PATH``), on the ``dagster dev`` it starts for its runs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from fashion_assets.replica import ROBOTS_BLOCKED_BRAND, build_site

pytestmark = pytest.mark.slow

DEMO_ARGS = ("--brands", "1", "--shows", "2", "--photos", "3")
BIN = Path(sys.executable).parent  # the venv the suite runs in, as .venv/bin/ in the README


def test_the_demo_prints_progress_a_total_and_commands_as_typed(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("FASHION_") and k != "DAGSTER_HOME"}
    env["XDG_DATA_HOME"] = str(tmp_path / "data")  # the user's data folder: FASHION_HOME's
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep)
                                  if p and Path(p).resolve() != BIN.resolve())
    result = subprocess.run([str(BIN / "fashion-assets"), "demo", *DEMO_ARGS], cwd=tmp_path,
                            env=env, capture_output=True, text=True, timeout=300, check=False)
    output = f"exit {result.returncode}\n{result.stdout}\n--- stderr\n{result.stderr}"
    assert result.returncode == 0, output

    # No Dagster event stream, no stack trace (what `dagster dev` prints goes to its log).
    for noise in (" - dagster - ", "DEBUG", "RUN_START", "STEP_", "Traceback", "Stack Trace"):
        assert noise not in result.stdout + result.stderr, output
    site = build_site(brands=1, shows_per_brand=2, photos_per_show=3)
    partitions = ([b.slug for b in site.brands if b.slug != ROBOTS_BLOCKED_BRAND]
                  + [s.code for s in site.impression.seasons]
                  + [w.slug for w in site.impression.weeks])
    lines = result.stdout.splitlines()
    dagster_home = tmp_path / "data" / "fashion-assets" / "dagster"
    # Its own deployment, said once: what it started, and where its log is.
    [started] = [line for line in lines if line.startswith("started Dagster")]
    assert started.startswith("started Dagster (`dagster dev`: webserver, daemon) for this "
                              "command in "), output
    assert started.endswith(f"; its log: {dagster_home / 'dagster-dev.log'}"), output
    # A line per run as it ends, naming its partition or range: each partition in one line.
    covering = lines_by_partition(lines, dagster_home)
    assert sorted(covering) == sorted(partitions), output
    assert all(len(found) == 1 for found in covering.values()), output
    assert len(lines) <= len(partitions) + 15, output

    program = BIN / "fashion-assets"  # not on PATH, run from elsewhere: the absolute path
    [lagos] = covering["lagos-fashion-week"]  # its 3 articles wait for a city name
    assert f"waiting for a city name ({program} names list)" in lagos, output
    assert "nothing listed" not in result.stdout, output
    assert any(line.startswith("Done: ") and " 0 failed: " in line for line in lines), output
    for command in ("status", "review serve", "names list", "coverage list"):
        assert any(line.startswith(f"  {program} {command} ") for line in lines), output
    # The hostile brand's failures said to be expected, before they read as breakage.
    assert any(line.startswith("hostile-house is the replica's deliberately hostile brand")
               for line in lines), output
    # The UI on the demo's instance, and what runs there by itself and what does not.
    assert any(line.startswith(f"  {program} ui ") and "Dagster UI" in line
               for line in lines), output
    assert any(line.startswith(f"  {program} home > .env ") for line in lines), output
    assert any(line.startswith("While Dagster's daemon runs") and "sensors work by themselves"
               in line and "schedules" in line and "are off" in line for line in lines), output


def lines_by_partition(lines: list[str], dagster_home: Path) -> dict[str, list[str]]:
    """The output's lines of runs, by each partition they name: ``key: ...``, or
    ``first..last: ...`` for a range of the partitions' order in the demo's instance
    (``dagster_home``): the command puts several partitions in a run."""
    from dagster import DagsterInstance

    from fashion_assets.launch.summaries import crawl_kinds

    with DagsterInstance.from_config(str(dagster_home)) as instance:
        orders = [instance.get_dynamic_partitions(name)
                  for name in {kind.partitions for kind in crawl_kinds().values()}]
    found: dict[str, list[str]] = {}
    for line in lines:
        first, _, last = line.partition(": ")[0].partition("..")
        for order in orders:
            if first in order and (last or first) in order:
                for key in order[order.index(first):order.index(last or first) + 1]:
                    found.setdefault(key, []).append(line)
    return found
