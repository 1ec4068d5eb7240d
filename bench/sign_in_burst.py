"""Wrong sign-ins sent at once (issue 36): how many passwords the review page checks, and its
memory before and at the peak.

    python -m bench.sign_in_burst [--guesses 32] [--rounds 3]

``fashion-assets review serve`` runs as a user starts it, on a SQLite catalog in a temp
folder with one editor account at the default password cost (Argon2id: 64 MiB, 3 passes, 1
lane a hash; scrypt at N = 2^17, 128 MB a hash, before issue 38). Each
round sends ``--guesses`` wrong passwords for that account at once, each from a client of
its own that first fetched the login form (its CSRF token), and counts the answers: 401 is
a password checked, 429 one refused before any hash. The lockout is lifted between rounds
(``editors unlock``), so each round starts from a fresh count. The page's resident memory
is read from /proc: idle (after a first GET), and its high-water mark (``VmHWM``) after the
rounds. Before the fix, 16 guesses at once were all checked and took the page from 279 MB
to 2.2 GB.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

from bench.common import machine

CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')


def memory_mb(pid: int, field: str) -> float:
    """A ``/proc/PID/status`` memory field (``VmRSS``, ``VmHWM``) in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) / 1024
    raise KeyError(field)


def burst(url: str, guesses: int) -> Counter[int]:
    """``guesses`` wrong passwords for ``ana`` at once; the answers' statuses counted."""
    clients = [httpx.Client(base_url=url, timeout=300) for _ in range(guesses)]
    tokens = [CSRF.search(client.get("/login").text) for client in clients]

    def guess(n: int) -> int:
        found = tokens[n]
        assert found, "no CSRF token on the login page"
        return clients[n].post("/login", data={"csrf_token": found.group(1), "name": "ana",
                                               "password": f"wrong {n}"}).status_code

    with ThreadPoolExecutor(guesses) as pool:
        statuses = Counter(pool.map(guess, range(guesses)))
    for client in clients:
        client.close()
    return statuses


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--guesses", type=int, default=32)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "FASHION_HOME": home,
               "FASHION_DATABASE_URL": f"sqlite:///{Path(home) / 'catalog.db'}"}
        command = [sys.executable, "-m", "fashion_assets"]
        subprocess.run([*command, "editors", "add", "ana", "--password-stdin"], env=env,
                       input="the right password\n", text=True, check=True,
                       capture_output=True)
        server = subprocess.Popen([*command, "review", "serve", "--port", "0"], env=env,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        try:
            line = server.stdout.readline() if server.stdout else ""
            found = re.match(r"review page on (http://\S+:\d+)/", line)
            assert found, line
            url = found.group(1)
            httpx.get(f"{url}/login", timeout=30)
            idle = memory_mb(server.pid, "VmRSS")
            rounds = []
            for _ in range(args.rounds):
                started = time.monotonic()
                statuses = burst(url, args.guesses)
                rounds.append((statuses, time.monotonic() - started))
                subprocess.run([*command, "editors", "unlock", "ana"], env=env, check=True,
                               capture_output=True)
            peak = memory_mb(server.pid, "VmHWM")
        finally:
            server.terminate()
            server.wait(30)
    print(f"machine: {machine()}")
    print(f"{args.guesses} wrong sign-ins at once for one account, {args.rounds} rounds, "
          "default Argon2id cost (64 MiB, 3 passes, 1 lane):")
    for n, (statuses, seconds) in enumerate(rounds, 1):
        print(f"  round {n}: {statuses.get(401, 0)} checked (401), "
              f"{statuses.get(429, 0)} refused before a hash (429), "
              f"other {sum(v for k, v in statuses.items() if k not in (401, 429))}, "
              f"{seconds:.1f} s")
    print(f"page memory: idle {idle:.0f} MB, peak {peak:.0f} MB (+{peak - idle:.0f} MB; "
          "the bound is +300 MB)")


if __name__ == "__main__":
    main()
