"""Retry-After windows shared by every client on the machine (see ``RetryAfterWindows``)."""

from __future__ import annotations

import fcntl
import os
import tempfile
import time
from pathlib import Path
from urllib.parse import quote


class RetryAfterWindows:
    """Until when each host asked not to be called again, shared by every client on the machine.

    A 429 with Retry-After throttles our address, not one client: the worker processes of a
    crawl, runs side by side and the client of the next step must all wait it out. So the end
    of a host's window (Unix time) is also kept in a file named after the host, read before
    every request (no file, the usual case, costs one ``access`` call) and raised under a lock
    when a longer window is given. Without a usable folder, windows stay with this client.
    """

    def __init__(self, directory: Path | None, horizon_s: float) -> None:
        self._directory = directory
        self._horizon_s = horizon_s
        self._local: dict[str, float] = {}
        self._paths: dict[str, str] = {}  # each host's window file

    def end(self, host: str) -> float:
        """When ``host``'s window ends (Unix time); 0.0 when it gave none."""
        return max(self._local.get(host, 0.0), self._shared_end(host))

    def extend(self, host: str, until: float) -> None:
        """Make ``host``'s window last at least until ``until``, for every client."""
        self._local[host] = max(self._local.get(host, 0.0), until)
        if self._directory is None:
            return
        path = self._directory / quote(host, safe="")
        try:
            with open(path.with_name(path.name + ".lock"), "a") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)  # read, compare and write as one step
                if until > self._shared_end(host):
                    temp = path.with_name(f"{path.name}.{os.getpid()}")
                    temp.write_text(repr(until))
                    os.replace(temp, path)  # a reader sees the old end or the new one
        except OSError:
            return  # this client still honours the window

    def _shared_end(self, host: str) -> float:
        if self._directory is None:
            return 0.0
        path = self._paths.get(host)
        if path is None:
            path = self._paths[host] = str(self._directory / quote(host, safe=""))
        if not os.access(path, os.F_OK):  # no window: no exception raised and caught
            return 0.0
        try:
            with open(path) as file:
                end = float(file.read())
        except (OSError, ValueError):
            return 0.0
        # Further ahead than any window a client accepts: the clock moved, not the host.
        return end if end <= time.time() + self._horizon_s else 0.0


def machine_windows_dir() -> Path | None:
    """The folder of the shared Retry-After windows: this user's, in the temp folder.

    None when it cannot be created or belongs to someone else (then nobody else's files
    can make the crawl wait).
    """
    directory = Path(tempfile.gettempdir()) / f"fashion-assets-{os.getuid()}" / "retry-after"
    try:
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        owner = directory.parent.stat().st_uid
    except OSError:
        return None
    return directory if owner == os.getuid() else None
