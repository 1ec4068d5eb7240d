"""Commands in hints are written as the user must type them, on PATH or not."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from fashion_assets.commands import typed_command


@pytest.fixture
def venv(tmp_path: Path) -> Path:
    """A virtual environment's bin folder holding the two programs hints name."""
    bin_dir = tmp_path / "project" / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    for program in ("fashion-assets", "dagster"):
        (bin_dir / program).write_text("#!/bin/sh\n")
        (bin_dir / program).chmod(0o755)
    return bin_dir


def test_a_program_on_path_in_the_running_environment_is_typed_by_name(venv: Path) -> None:
    path = os.pathsep.join(["/nonexistent", str(venv)])

    assert typed_command("fashion-assets", bin_dir=venv, search_path=path,
                         cwd=venv.parents[1]) == "fashion-assets"


def test_a_program_not_on_path_is_typed_relative_to_the_folder_it_runs_from(venv: Path) -> None:
    """The README's ``.venv/bin/fashion-assets demo``, run from the project folder."""
    project = venv.parents[1]

    assert typed_command("fashion-assets", bin_dir=venv, search_path="/nonexistent",
                         cwd=project) == ".venv/bin/fashion-assets"
    assert typed_command("dagster", bin_dir=venv, search_path="",
                         cwd=project) == ".venv/bin/dagster"
    assert typed_command("dagster", bin_dir=venv, search_path="", cwd=venv) == "./dagster"


def test_a_program_not_on_path_is_typed_absolute_from_elsewhere(venv: Path,
                                                                tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()

    assert typed_command("fashion-assets", bin_dir=venv, search_path="",
                         cwd=elsewhere) == str(venv / "fashion-assets")


def test_another_install_on_path_does_not_stand_for_this_one(venv: Path,
                                                             tmp_path: Path) -> None:
    other = tmp_path / "other" / "bin"
    other.mkdir(parents=True)
    (other / "fashion-assets").write_text("#!/bin/sh\n")
    (other / "fashion-assets").chmod(0o755)

    assert typed_command("fashion-assets", bin_dir=venv, search_path=str(other),
                         cwd=venv.parents[1]) == ".venv/bin/fashion-assets"


def test_a_path_with_spaces_is_quoted_for_the_shell(tmp_path: Path) -> None:
    bin_dir = tmp_path / "my env" / "bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / "dagster").write_text("#!/bin/sh\n")

    assert typed_command("dagster", bin_dir=bin_dir, search_path="",
                         cwd=tmp_path / "my env") == "bin/dagster"
    assert typed_command("dagster", bin_dir=bin_dir, search_path="",
                         cwd=tmp_path / "elsewhere") == f"'{bin_dir / 'dagster'}'"


def test_a_program_not_installed_next_to_the_interpreter_is_left_to_path(venv: Path) -> None:
    assert typed_command("dg", bin_dir=venv, search_path="", cwd=venv) == "dg"
