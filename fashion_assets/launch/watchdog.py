"""``python -m fashion_assets.launch.watchdog COMMAND...``: COMMAND for as long as the
process that started this one holds its end of our stdin.

The ``fashion-assets`` command starts its own ``dagster dev`` through this, with a pipe as
stdin: when the command ends, whatever ended it (SIGKILL and the OOM killer too), the pipe
closes, and the watchdog stops COMMAND (SIGINT, Dagster's way to shut ``dagster dev`` down
with its webserver, daemon and code servers), then kills what is left of its process group.
A deployment never outlives the command it serves.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading

GRACE_S = 20.0
"""How long COMMAND has to shut down before its process group is killed."""


def main(argv: list[str]) -> int:
    if not argv:
        print("usage: python -m fashion_assets.launch.watchdog COMMAND...", file=sys.stderr)
        return 2
    child = subprocess.Popen(argv, stdin=subprocess.DEVNULL)
    stopping = threading.Event()

    def stop(*_: object) -> None:
        stopping.set()

    signal.signal(signal.SIGTERM, stop)
    threading.Thread(target=lambda: (sys.stdin.buffer.read(), stop()), daemon=True).start()
    while child.poll() is None and not stopping.wait(0.2):
        pass
    if child.poll() is None:
        child.send_signal(signal.SIGINT)
        with contextlib.suppress(subprocess.TimeoutExpired):
            child.wait(GRACE_S)
    if os.getpgrp() == os.getpid():  # our own group: everything COMMAND started, ended
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        os.killpg(0, signal.SIGKILL)
    return child.returncode or 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
