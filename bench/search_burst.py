"""Look searches sent at once: how the read API answers a burst of large uploads, and its
memory before and at the peak.

    python -m bench.search_burst [--uploads 32]

``fashion-assets api serve`` runs as a user starts it, on a SQLite catalog in a temp folder
holding one promoted show of the replica (tests/looks_catalog.py). Two rounds, each of
``--uploads`` searches sent at once, each from a thread of its own: flat-colour 50-megapixel
PNGs (154 KB on the wire, 150 MB of RGB pixels once decoded: Pillow decodes a PNG
whole), then JPEGs of nearly 10 MiB (``FASHION_LOOK_SEARCH_MAX_BYTES``; decoded at a reduced
scale). The answers are counted by status: 200 searched, 503 refused while the search has
all the photos it takes in hand (``catalog_api/search_gate.py``). The API's resident memory
is read from /proc: idle (after a first search), and its high-water mark (``VmHWM``) after
the round; each round has an ``api serve`` of its own, since memory freed after a round
stays with the process. ``FASHION_BENCH_CHECKOUT=DIR`` serves the code of another checkout
(``bench.common.checkout_env``): how the figures before the gate were measured.
"""

from __future__ import annotations

import argparse
import io
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import httpx
from PIL import Image

from bench.common import checkout_env, machine
from bench.sign_in_burst import memory_mb
from fashion_assets.domain.look_answers import UploadRules
from fashion_assets.replica.images import photo_body
from fashion_assets.resources import catalog_engine
from fashion_assets.storage import open_store
from tests.looks_catalog import SHOWS, add_draft, promote_approved

SEARCH = "/api/v1/looks/search"
SHOW = SHOWS[0]


def flat_png(width: int = 10_000, height: int = 5_000) -> bytes:
    """A flat-colour RGB PNG, 50 MP by default: 154 KB, ``width * height * 3`` bytes of
    pixels once decoded."""
    out = io.BytesIO()
    Image.new("RGB", (width, height), (181, 62, 74)).save(out, format="PNG")
    return out.getvalue()


def large_jpeg(max_bytes: int = UploadRules().max_bytes) -> bytes:
    """A JPEG of noise just under ``max_bytes``: the largest upload the search takes."""
    import numpy as np

    side, noise, previous = 2_000, np.random.default_rng(7), b""
    while True:
        out = io.BytesIO()
        pixels = noise.integers(0, 256, (side * 3 // 4, side, 3), dtype=np.uint8)
        Image.fromarray(pixels).save(out, format="JPEG", quality=90)
        if len(out.getvalue()) > max_bytes:
            return previous
        previous, side = out.getvalue(), side + 250


def small_catalog(home: Path) -> dict[str, str]:
    """One promoted show of the replica in a SQLite catalog and a file store under
    ``home``; the environment ``fashion-assets api serve`` reads them from."""
    url = f"sqlite:///{home / 'catalog.db'}"
    engine, store = catalog_engine(url), open_store(f"file://{home / 'objects'}", home=home)
    add_draft(engine, store, "vogue", SHOW, SHOW.photos, "approved")
    promote_approved(engine, store)
    engine.dispose()
    return {**os.environ, **checkout_env(), "FASHION_HOME": str(home),
            "FASHION_DATABASE_URL": url, "FASHION_STORE_URL": f"file://{home / 'objects'}"}


@contextmanager
def served_api(env: dict[str, str]) -> Iterator[tuple[str, int]]:
    """``fashion-assets api serve`` on a free loopback port: its base URL and process id,
    after a first search (the index loaded, numpy imported: the idle figure)."""
    # -P: the package of PYTHONPATH's checkout (``checkout_env``), not the working folder's.
    server = subprocess.Popen([sys.executable, "-P", "-m", "fashion_assets", "api", "serve",
                               "--port", "0"], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True)
    try:
        line = server.stdout.readline() if server.stdout else ""
        found = re.match(r"read API on (http://\S+:\d+)/api/v1/", line)
        assert found, line
        url = found.group(1)
        assert search(url, photo_body(SHOW.photos[0]), "image/jpeg") == 200
        yield url, server.pid
    finally:
        server.terminate()
        server.wait(30)


def search(url: str, body: bytes, content_type: str) -> int:
    return httpx.post(f"{url}{SEARCH}", content=body, timeout=300,
                      headers={"Content-Type": content_type}).status_code


def burst(url: str, bodies: list[bytes], content_type: str) -> Counter[int]:
    """``bodies`` searched at once, a thread each; the answers' statuses counted."""
    with ThreadPoolExecutor(len(bodies)) as pool:
        return Counter(pool.map(lambda body: search(url, body, content_type), bodies))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--uploads", type=int, default=32)
    args = parser.parse_args()
    rounds = [("flat 50 MP PNGs", flat_png(), "image/png"),
              ("JPEGs near 10 MiB", large_jpeg(), "image/jpeg")]
    results = []
    with tempfile.TemporaryDirectory() as home:
        env = small_catalog(Path(home))
        for name, body, content_type in rounds:
            with served_api(env) as (url, pid):
                idle = memory_mb(pid, "VmRSS")
                started = time.monotonic()
                statuses = burst(url, [body] * args.uploads, content_type)
                results.append((name, len(body), statuses, time.monotonic() - started, idle,
                                memory_mb(pid, "VmHWM")))
    print(f"machine: {machine()}")
    print(f"{args.uploads} look searches at once, each round on a fresh `api serve`:")
    for name, size, statuses, seconds, idle, peak in results:
        others = sum(n for status, n in statuses.items() if status not in (200, 503))
        print(f"  {name} ({size / 1024:,.0f} KB each): {statuses.get(200, 0)} searched "
              f"(200), {statuses.get(503, 0)} refused (503), other {others}, "
              f"{seconds:.1f} s; memory idle {idle:.0f} MB, peak {peak:.0f} MB "
              f"(+{peak - idle:.0f} MB)")


if __name__ == "__main__":
    main()
