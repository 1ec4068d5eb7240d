"""The folders the settings name, made before their first use: FASHION_HOME and what lies
under it (the SQLite catalog's folder, the Dagster instance, the file store), or the
variables that move one of them elsewhere (FASHION_DATABASE_URL, DAGSTER_HOME,
FASHION_STORE_URL).

A folder that cannot be made there (a file in the way, a folder this user may not write:
read-only, immutable, another user's) is a user's setting, not a bug: ``FolderError``
says it in one line that names the variable to change (``cli/errors.py``; in a run, a
failure Dagster does not retry, ``resources``), instead of the ``FileExistsError`` or
``PermissionError`` traceback of the first ``mkdir`` or SQLite's "unable to open database
file".
"""

from __future__ import annotations

import errno
import os
from collections.abc import Mapping
from pathlib import Path

from fashion_assets import settings


class FolderError(Exception):
    """A folder a setting names that cannot be made or written; its text is the one line."""


def writable_folder(path: Path, setting: str, env: Mapping[str, str] | None = None,
                    mode: int = 0o777) -> Path:
    """``path``, made with its parents when missing (itself with ``mode``, less the umask),
    once this user may write in it; a
    ``FolderError`` naming the variable that chose it otherwise (``setting`` when the
    environment sets it, else FASHION_HOME, whose default it then derives from)."""
    try:
        path.mkdir(mode=mode, parents=True, exist_ok=True)
    except OSError as exc:
        raise FolderError(folder_line(path, _reason(path, exc), _chosen_by(env, setting))
                          ) from None
    if not os.access(path, os.W_OK | os.X_OK):  # root too, for a read-only or immutable one
        raise FolderError(folder_line(path, "this user may not write in it",
                                      _chosen_by(env, setting)))
    return path


def folder_line(path: Path, reason: str, setting: str) -> str:
    """The one line of a folder that cannot be used, saying what to do."""
    return (f"cannot use the folder {path}: {reason}; set {setting} to a folder this user "
            "may write")


def _chosen_by(env: Mapping[str, str] | None, setting: str) -> str:
    return settings.setting_behind(os.environ if env is None else env, setting)


def _reason(path: Path, exc: OSError) -> str:
    """Why ``mkdir`` failed, said of the path in the way when a file is."""
    if exc.errno in (errno.EEXIST, errno.ENOTDIR):
        for part in (path, *path.parents):
            if part.exists() and not part.is_dir():
                return f"{part} is a file, not a folder"
    return exc.strerror or type(exc).__name__
