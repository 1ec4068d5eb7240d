"""A real S3 API over HTTP on loopback, for tests: moto's standalone server in a subprocess.

A separate process (rather than moto's in-process mocks) means the code under test runs its
real boto3 client, HTTP stack, retries and error parsing, exactly as against AWS.
"""

from __future__ import annotations

import http.client
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import TracebackType
from typing import IO, Self

_HOST = "127.0.0.1"
_START_TIMEOUT = 15.0
_POLL_INTERVAL = 0.05


class S3Server:
    """A running ``moto_server``; ``stop()`` it, or use it as a context manager."""

    def __init__(self, process: subprocess.Popen[bytes], port: int, log: IO[bytes]) -> None:
        self.process = process
        self.endpoint_url = f"http://{_HOST}:{port}"
        self._log = log

    def stop(self) -> None:
        """Terminate the server, escalating to kill if it ignores SIGTERM; safe to call twice."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._log.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()


def start_moto_server(timeout: float = _START_TIMEOUT) -> S3Server:
    """Start ``moto_server`` on a free loopback port and return once it answers HTTP.

    The executable comes from the running interpreter's venv, so tests never pick up some
    other moto on PATH. Its output goes to a temp file, not a pipe: moto logs every request,
    and an unread pipe would fill up and freeze the server mid-test.
    """
    executable = Path(sys.executable).parent / "moto_server"
    port = _free_port()
    log = tempfile.TemporaryFile()  # noqa: SIM115 - outlives this call; S3Server.stop closes it
    try:
        process = subprocess.Popen(
            [str(executable), "-H", _HOST, "-p", str(port)],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    except BaseException:
        log.close()
        raise
    server = S3Server(process, port, log)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            output = _read(log)
            server.stop()
            raise RuntimeError(f"moto_server exited with {process.returncode}:\n{output}")
        if _answers_http(port):
            return server
        time.sleep(_POLL_INTERVAL)
    output = _read(log)
    server.stop()
    raise RuntimeError(f"moto_server did not answer on port {port} within {timeout}s:\n{output}")


def _free_port() -> int:
    """A port the OS just handed out; moto binds it right after (a small race, fine for tests)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((_HOST, 0))
        return probe.getsockname()[1]


def _answers_http(port: int) -> bool:
    """One GET straight to the socket: http.client ignores *_PROXY variables, unlike urllib."""
    connection = http.client.HTTPConnection(_HOST, port, timeout=1)
    try:
        connection.request("GET", "/")
        connection.getresponse().read()
    except (OSError, http.client.HTTPException):
        return False
    finally:
        connection.close()
    return True


def _read(log: IO[bytes]) -> str:
    log.seek(0)
    return log.read().decode(errors="replace")
