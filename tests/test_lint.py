"""The code base stays ruff clean: checked by the suite, so CI enforces it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[1]


def test_ruff_finds_nothing() -> None:
    result = subprocess.run([sys.executable, "-m", "ruff", "check", str(ROOT)],
                            capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
