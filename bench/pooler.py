"""PgBouncer in front of Dagster's PostgreSQL, for the benchmarks of the daemon's path.

dagster-postgres, as Dagster ships it, opens a new connection for each storage call
(SQLAlchemy's ``NullPool``); deploy/dagster.yaml's storage (``fashion_assets/pooled_storage.py``)
holds one per storage in each process instead. A pooler in session mode keeps a few server
connections open and hands them to each new client connection in turn, so PostgreSQL sees
its pool, not every connect; Dagster needs nothing but ``DAGSTER_PG_HOST`` and
``DAGSTER_PG_PORT`` pointing at it (docs/operations.md, "Connections to Dagster's
PostgreSQL"). The benchmark's row with it shows what a pooler still adds.

Debian's ``pgbouncer`` package (``apt-get install pgbouncer``) is what this starts; it
refuses to run as root, so it drops to the ``postgres`` user when started by root.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from bench.topology import free_port

STARTUP_DEADLINE_S = 30.0
POOL_SIZE = 20


def pgbouncer_binary() -> str | None:
    """Where ``pgbouncer`` is installed, or None."""
    return shutil.which("pgbouncer") or next(
        (p for p in ("/usr/sbin/pgbouncer",) if os.access(p, os.X_OK)), None)


def config(port: int, server_host: str, server_port: int, userlist: Path) -> str:
    """Session pooling for every database of the server, with trust auth as on this
    machine's PostgreSQL."""
    return "\n".join([
        "[databases]", f"* = host={server_host} port={server_port}", "",
        "[pgbouncer]", "listen_addr = 127.0.0.1", f"listen_port = {port}",
        "unix_socket_dir =", "auth_type = trust", f"auth_file = {userlist}",
        # A server connection serves one client connection at a time, then the next:
        # Dagster's connections are short, so a few server connections serve them all.
        "pool_mode = session", f"default_pool_size = {POOL_SIZE}",
        "max_client_conn = 2000", "ignore_startup_parameters = extra_float_digits,options",
        ""])


@contextlib.contextmanager
def pgbouncer(server_host: str, server_port: int, user: str) -> Iterator[tuple[str, int]]:
    """A PgBouncer listening on a free local port for PostgreSQL at ``server_host``; yields
    its host and port, and stops it at the end."""
    binary = pgbouncer_binary()
    if binary is None:
        raise RuntimeError("pgbouncer is not installed (apt-get install pgbouncer)")
    with tempfile.TemporaryDirectory(prefix="fa-pgbouncer-") as folder:
        os.chmod(folder, 0o755)  # readable by the user it drops to
        userlist, ini, log = (Path(folder) / name for name in
                              ("userlist.txt", "pgbouncer.ini", "pgbouncer.log"))
        userlist.write_text(f'"{user}" ""\n')
        port = free_port()
        ini.write_text(config(port, server_host, server_port, userlist))
        drop = ["-u", "postgres"] if os.geteuid() == 0 else []
        with open(log, "wb") as out:
            process = subprocess.Popen([binary, *drop, str(ini)], stdout=out,
                                       stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + STARTUP_DEADLINE_S
            while not _listening(port):
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"pgbouncer did not start:\n{log.read_text()[-2000:]}")
                time.sleep(0.1)  # polling a real condition: the port answers
            yield "127.0.0.1", port
        finally:
            process.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=10)
            if process.poll() is None:
                process.kill()
                process.wait()


def _listening(port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(1)
        return probe.connect_ex(("127.0.0.1", port)) == 0
