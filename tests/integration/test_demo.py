"""``fashion-assets demo`` reads well: a line per partition, a total and the next commands as
the user must type them, run the README's way (the venv's ``bin`` not on ``PATH``)."""

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
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep)
                                  if p and Path(p).resolve() != BIN.resolve())
    result = subprocess.run([str(BIN / "fashion-assets"), "demo", *DEMO_ARGS], cwd=tmp_path,
                            env=env, capture_output=True, text=True, timeout=300, check=False)
    output = f"exit {result.returncode}\n{result.stdout}\n--- stderr\n{result.stderr}"
    assert result.returncode == 0, output

    # No Dagster event stream, no stack trace: only Dagster's one-time telemetry notice,
    # which it prints for every new instance, is left on stderr.
    for noise in (" - dagster - ", "DEBUG", "RUN_START", "STEP_", "Traceback", "Stack Trace"):
        assert noise not in result.stdout + result.stderr, output
    site = build_site(brands=1, shows_per_brand=2, photos_per_show=3)
    partitions = ([b.slug for b in site.brands if b.slug != ROBOTS_BLOCKED_BRAND]
                  + [s.code for s in site.impression.seasons]
                  + [w.slug for w in site.impression.weeks])
    lines = result.stdout.splitlines()
    for key in partitions:  # one line each, as its run ends
        assert len([line for line in lines if line.startswith(f"{key}: ")]) == 1, output
    assert len(lines) <= len(partitions) + 15, output

    program = BIN / "fashion-assets"  # not on PATH, run from elsewhere: the absolute path
    assert (f"lagos-fashion-week: 3 listed, waiting for a city name ({program} names list)"
            in lines), output
    assert "nothing listed" not in result.stdout, output
    assert any(line.startswith("Done: ") and " 0 failed: " in line for line in lines), output
    for command in ("status", "review serve", "names list", "coverage list"):
        assert any(line.startswith(f"  {program} {command} ") for line in lines), output
    dagster_home = tmp_path / ".fashion" / "dagster"
    assert (f"  DAGSTER_HOME={dagster_home} {BIN / 'dagster'} dev -m fashion_assets.definitions"
            in lines), output
