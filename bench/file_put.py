"""The file store's put, placing each object by ``renameat2(RENAME_NOREPLACE)`` against the
hard link it replaced (``storage/file.py: _place``), alternating, on this machine's disk.

    python -m bench.file_put [--size 200000] [--photos 2000] [--rounds 5]

Each round writes ``--photos`` new objects of ``--size`` bytes into a fresh temp folder,
once each way; the medians of wall and CPU time per photo are printed.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from bench.common import machine
from fashion_assets.storage import FileStore, file, object_key

WAYS = ("link", "renameat2")


def one_round(way: str, photos: list[bytes]) -> tuple[float, float]:
    """Wall and CPU seconds per photo of ``photos`` put into a fresh store, placed ``way``."""
    keys = [object_key(data) for data in photos]
    place = file._place
    if way == "link":
        file._place = lambda temp, final: place(temp, final, renameat2=False)  # type: ignore
    try:
        with tempfile.TemporaryDirectory() as folder:
            store = FileStore(Path(folder))
            wall, cpu = time.perf_counter(), time.process_time()
            for key, data in zip(keys, photos, strict=True):
                store.put(key, data, "image/jpeg")
            return ((time.perf_counter() - wall) / len(photos),
                    (time.process_time() - cpu) / len(photos))
    finally:
        file._place = place


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=200_000)
    parser.add_argument("--photos", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    photos = [os.urandom(args.size) + n.to_bytes(4, "big") for n in range(args.photos)]
    figures: dict[str, list[tuple[float, float]]] = {way: [] for way in WAYS}
    for _ in range(args.rounds):
        for way in WAYS:
            figures[way].append(one_round(way, photos))
    print(machine())
    for way, rounds in figures.items():
        print(f"{way}: {args.photos} photos of {args.size:,} bytes, median of {args.rounds} "
              f"rounds: {statistics.median(w for w, _ in rounds) * 1000:.3f} ms wall, "
              f"{statistics.median(c for _, c in rounds) * 1000:.3f} ms CPU a photo")


if __name__ == "__main__":
    main()
