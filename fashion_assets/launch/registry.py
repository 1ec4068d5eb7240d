"""The private deployments of a ``DAGSTER_HOME``: which command started one, which use it.

One Dagster instance takes one daemon: two daemons on one run queue would launch each run
twice. So the commands of one ``DAGSTER_HOME`` share one ``dagster dev``: the first starts
it (its owner) and records it here, later ones find it and use it (its users), and the
owner stops it only once no user is left. Everything is a file lock in
``DAGSTER_HOME/deployments``, which the kernel frees when a process ends, however it ends:

- ``start.lock``: held while a command looks for a deployment or starts one, so two
  commands never start two, and while an owner decides to stop, so nobody joins then;
- ``ID.lock``: held by the owner for as long as it lives (``ended``: it is free);
- ``ID.json``: where the deployment answers, and a digest of the settings its runs get;
  removed when the owner stops it, so only a live deployment is found;
- ``ID.users``: a shared lock each user holds, which the owner waits to take alone.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

SETTING_PREFIXES = ("FASHION_", "AWS_")
"""The environment the runs' code location reads (FASHION_DAGSTER_URL aside: the command's)."""


@dataclass(frozen=True)
class Registered:
    """A live deployment as its owner recorded it."""

    id: str
    url: str
    log: str
    settings: Mapping[str, str]  # setting name -> digest of its value


def settings_digest(env: Mapping[str, str]) -> dict[str, str]:
    """The settings the runs would get from ``env``, each value as a digest (the record
    names no secret)."""
    return {name: hashlib.sha256(value.encode()).hexdigest()[:16]
            for name, value in sorted(env.items())
            if name.startswith(SETTING_PREFIXES) and name != "FASHION_DAGSTER_URL"}


def differing(a: Mapping[str, str], b: Mapping[str, str]) -> list[str]:
    """The settings ``a`` and ``b`` (digests) do not agree on."""
    return sorted(name for name in a.keys() | b.keys() if a.get(name) != b.get(name))


def _folder(home: Path) -> Path:
    folder = home / "deployments"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _open(path: Path) -> int:
    return os.open(path, os.O_CREAT | os.O_RDWR | os.O_CLOEXEC, 0o644)


@contextmanager
def starting(home: Path) -> Iterator[None]:
    """``start.lock`` held for the block (waiting for another command's start or stop)."""
    fd = _open(_folder(home) / "start.lock")
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def hold_owner(home: Path, deployment_id: str) -> int:
    """The owner's lock of ``deployment_id``, held until the returned descriptor closes."""
    fd = _open(_folder(home) / f"{deployment_id}.lock")
    fcntl.flock(fd, fcntl.LOCK_EX)
    return fd


def record(home: Path, registered: Registered) -> None:
    """Make the live deployment findable (within ``starting``)."""
    path = _folder(home) / f"{registered.id}.json"
    partial = path.with_suffix(".json.partial")
    partial.write_text(json.dumps({"url": registered.url, "log": registered.log,
                                   "settings": dict(registered.settings)}))
    partial.replace(path)


def _free(fd: int) -> bool:
    """Whether nobody else holds a lock on ``fd`` (closed here)."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    finally:
        os.close(fd)
    return True


def ended(home: Path, deployment_id: str) -> bool:
    """Whether the owner of ``deployment_id`` has ended (its lock is free, or gone)."""
    try:
        fd = os.open(_folder(home) / f"{deployment_id}.lock", os.O_RDWR | os.O_CLOEXEC)
    except FileNotFoundError:
        return True
    return _free(fd)


def forget(home: Path, deployment_id: str) -> None:
    """Remove the files of a deployment that has ended."""
    for suffix in (".json", ".users", ".lock"):
        (_folder(home) / f"{deployment_id}{suffix}").unlink(missing_ok=True)


def ended_ids(home: Path) -> list[str]:
    """The deployments recorded here whose owner has ended without stopping them (killed):
    their lock files are left, and free."""
    return [path.stem for path in sorted(_folder(home).glob("*.lock"))
            if path.stem != "start" and ended(home, path.stem)]


def live(home: Path) -> Registered | None:
    """The deployment recorded here whose owner lives (within ``starting``). The records of
    owners that ended stay until ``deployment.fail_runs_of_ended`` has failed their runs."""
    for path in sorted(_folder(home).glob("*.json")):
        deployment_id = path.stem
        if ended(home, deployment_id):
            continue
        with suppress(OSError, ValueError, KeyError):
            data = json.loads(path.read_text())
            return Registered(deployment_id, data["url"], data["log"], data["settings"])
    return None


def hold_user(home: Path, deployment_id: str) -> int:
    """A user's shared lock on ``deployment_id`` (within ``starting``), held until the
    returned descriptor closes."""
    fd = _open(_folder(home) / f"{deployment_id}.users")
    fcntl.flock(fd, fcntl.LOCK_SH)
    return fd


def unused(home: Path, deployment_id: str) -> bool:
    """Whether no command uses ``deployment_id`` any more; if so, it is removed from the
    record (within ``starting``), so none can join, and the owner may stop it."""
    if not _free(_open(_folder(home) / f"{deployment_id}.users")):
        return False
    (_folder(home) / f"{deployment_id}.json").unlink(missing_ok=True)
    return True
