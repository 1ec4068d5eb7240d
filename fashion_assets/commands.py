"""Commands as the user must type them in the shell they ran this one from.

``pip install`` into a virtual environment puts ``fashion-assets`` and ``dagster`` into its
``bin`` folder, which is on ``PATH`` only while the environment is activated. The README's
first command runs ``.venv/bin/fashion-assets demo`` without activating it, so a hint that
says ``fashion-assets status`` would answer "command not found". A hint names the program by
its path in the running environment's ``bin`` folder instead, unless ``PATH`` already finds
it there.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from pathlib import Path


def typed_command(program: str, *, bin_dir: Path | None = None, search_path: str | None = None,
                  cwd: Path | None = None) -> str:
    """How to type ``program`` (``fashion-assets``, ``dagster``) of this environment.

    Its bare name when ``PATH`` (``search_path``, default the environment's) finds it in
    ``bin_dir`` (default: the running interpreter's folder, not resolved: a virtual
    environment's python is a link to the base interpreter); else its path, relative to
    ``cwd`` when inside it (``.venv/bin/fashion-assets``), absolute otherwise. A program not
    installed next to the interpreter is left to ``PATH``, by name.
    """
    bin_dir = Path(sys.executable).parent if bin_dir is None else bin_dir
    found = shutil.which(program, path=search_path)
    if found is not None and Path(found).parent.resolve() == bin_dir.resolve():
        return program
    installed = Path(os.path.abspath(bin_dir / program))
    if not installed.is_file():
        return program
    here = Path(os.path.abspath(Path.cwd() if cwd is None else cwd))
    if not installed.is_relative_to(here):
        return shlex.quote(str(installed))
    relative = installed.relative_to(here)
    # A bare name would be looked up on PATH again: "./fashion-assets" runs the file.
    return shlex.quote(str(relative) if len(relative.parts) > 1 else f"./{relative}")
