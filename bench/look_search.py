"""The look search at the archive's size: a million photos' codes, searched (issue 39).

    python -m bench.look_search [--photos 1000000] [--queries 200] [--within N] [--write]

The index (``domain/look_search.py``: multi-index hashing over the 128-bit pHash+dHash
code) of an archive-shaped set of codes, asked 200 times with a copy of an indexed photo and
200 times with a photo it does not hold, each as a search does (the photo's code and its
mirror image's, ``within`` bits): the median and 95th percentile of a search, the build
time, the index's memory (``LookIndex.nbytes`` and what the process grew by). Beside it, in
the same run and on the same queries, the peer the index must beat: a plain numpy scan
(XOR and popcount over every code), whose answers the index's must equal.

Why this shape and not random codes: multi-index hashing's cost is the photos that share a
16-bit segment, within a few bits, with the query's. Uniformly random codes spread evenly
over each segment's 65,536 values (15 photos a value at a million) and flatter the index;
real photos do not: runway looks share a backdrop, a lighting, a pose, so their codes
cluster, and the clusters crowd some segment values (the bench prints how much). Drawing and
hashing a million photos would take half an hour, so the million is derived from a few
thousand hashed ones, the way the archive clusters:

- ``HOUSES`` runways of ``FIGURES`` drawn photos each (a backdrop and its lighting, a figure
  walking it: ``runway_photo``), hashed as the catalog hashes (``query_hashes``: each
  photo's code and its mirror image's);
- the archive's real shape (``tests/data``: every designer's number of shows, about 26,000
  shows of 1,749 designers), each designer on one of the runways (three or so designers
  share one, as houses share venues and photographers), ``photos / shows`` looks a show;
- a look's code: one of its runway's photos, with the show's own ``SHOW_FLIPS`` bits
  flipped (its season's staging, shared by its looks) and ``LOOK_FLIPS`` bits of its own
  (the outfit). A photo's nearest other photo then lies 25 bits away at the median, 17 at
  the least (the bench prints it): near, mostly just beyond the search's 20 bits, as
  distinct looks of one show are near each other but not copies;
- a copy of a look (a query that should find it): its code with ``COPY_FLIPS`` bits
  flipped, as the replica's copies lie from their look (``python -m bench.looks``: median
  10 bits); its mirror code derived alike from its runway photo's mirror code. A photo not
  held: a look of a show the catalog does not have, on one of its runways (the hardest
  no-match: near the clusters, not far from everything).
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image, ImageDraw

from bench.common import machine_sentence
from bench.reliability import publish
from fashion_assets.domain.look_search import DEFAULT_SEARCH_WITHIN, SEGMENTS, Hit, LookIndex
from fashion_assets.domain.perceptual_hash import query_hashes
from fashion_assets.replica.archive import Corpus

DOC = Path(__file__).resolve().parents[1] / "docs" / "performance.md"
HEADING = "Look search at the archive's size (issue 39)"
CORPUS = Path(__file__).resolve().parents[1] / "tests" / "data"
HOUSES = 600
FIGURES = 10
PHOTO_SIZE = (160, 240)
SHOW_FLIPS = 8
LOOK_FLIPS = (12, 24)
COPY_FLIPS = (2, 16)
LIMIT = 10
SIBLINGS = 200  # photos whose nearest other photo is measured (a scan each)
SEED = 39
Query = list[tuple[int, int]]  # a photo's code and its mirror image's


def runway_photo(house: int, figure: int) -> bytes:
    """A runway photo as a JPEG: the house's backdrop (a gradient, a lit runway, an
    audience's dots) and a figure walking it (a head, a garment, legs; its own colours,
    place and stride)."""
    backdrop = np.random.default_rng([SEED, house])
    walker = np.random.default_rng([SEED, house, figure])
    width, height = PHOTO_SIZE
    top, bottom = backdrop.integers(0, 256, 3), backdrop.integers(0, 256, 3)
    ramp = np.linspace(0, 1, height)[:, None, None]
    pixels = (top * (1 - ramp) + bottom * ramp).repeat(width, axis=1).astype(np.uint8)
    image = Image.fromarray(pixels, "RGB")
    draw = ImageDraw.Draw(image)
    floor = int(height * backdrop.uniform(0.55, 0.75))
    lane = int(width * backdrop.uniform(0.15, 0.3))
    draw.polygon([(width // 2 - lane // 3, floor), (width // 2 + lane // 3, floor),
                  (width // 2 + lane, height), (width // 2 - lane, height)],
                 fill=tuple(int(v) for v in backdrop.integers(0, 256, 3)))
    for _ in range(40):
        x = int(backdrop.choice([backdrop.integers(0, lane), backdrop.integers(width - lane,
                                                                               width)]))
        y = int(backdrop.integers(floor - 30, height))
        draw.ellipse((x, y, x + 5, y + 5), fill=tuple(int(v) for v in
                                                      backdrop.integers(0, 256, 3)))
    centre = width // 2 + int(walker.integers(-20, 21))
    scale = walker.uniform(0.8, 1.1)
    head, body = int(12 * scale), int(150 * scale)
    top_y = int(walker.integers(10, 30))
    garment = tuple(int(v) for v in walker.integers(0, 256, 3))
    draw.ellipse((centre - head, top_y, centre + head, top_y + 2 * head),
                 fill=tuple(int(v) for v in walker.integers(120, 230, 3)))
    hem = int(walker.uniform(0.4, 0.9) * body)
    flare = int(walker.uniform(10, 45) * scale)
    draw.polygon([(centre - 14, top_y + 2 * head), (centre + 14, top_y + 2 * head),
                  (centre + flare, top_y + 2 * head + hem), (centre - flare, top_y + 2 * head
                                                             + hem)], fill=garment)
    stride = int(walker.integers(-12, 13))
    for side in (-1, 1):
        draw.line((centre + 6 * side, top_y + 2 * head + hem, centre + 6 * side + side * stride,
                   top_y + 2 * head + body), fill=(60, 40, 30), width=5)
    out = io.BytesIO()
    image.save(out, "JPEG", quality=85)
    return out.getvalue()


def runway_codes() -> tuple[np.ndarray, np.ndarray, float]:
    """The ``HOUSES`` x ``FIGURES`` runway photos' codes and mirror codes ((n, 2) uint64),
    and what hashing them took per photo in ms."""
    codes, mirrors = [], []
    started = time.perf_counter()
    for house in range(HOUSES):
        for figure in range(FIGURES):
            photo, mirror = query_hashes(runway_photo(house, figure))
            codes.append((int(photo.phash, 16), int(photo.dhash, 16)))
            mirrors.append((int(mirror.phash, 16), int(mirror.dhash, 16)))
    per_photo = (time.perf_counter() - started) / (HOUSES * FIGURES) * 1000
    return np.array(codes, dtype=np.uint64), np.array(mirrors, dtype=np.uint64), per_photo


def flips(rng: np.random.Generator, counts: np.ndarray) -> np.ndarray:
    """A 128-bit mask per row with ``counts[row]`` random bits set (a few fewer where two
    draws fall on one bit), as (n, 2) uint64."""
    out = np.empty((len(counts), 2), dtype=np.uint64)
    widest = int(counts.max(initial=0))
    for start in range(0, len(counts), 1 << 17):  # 131,072 rows at a time: 16 MB of bits
        rows = counts[start:start + (1 << 17)]
        bits = np.zeros((len(rows), 128), dtype=bool)
        where = rng.integers(0, 128, (len(rows), widest))
        keep = np.arange(widest)[None, :] < rows[:, None]
        bits[np.nonzero(keep)[0], where[keep]] = True
        out[start:start + len(rows)] = np.packbits(bits, axis=1).view(np.uint64)
    return out


def archive_codes(photos: int, runways: np.ndarray, rng: np.random.Generator
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """The archive's codes (see the module's docstring), and for each its runway photo and
    show mask (to derive a copy's mirror code); and how many shows."""
    per_designer = Counter(designer for designer, _ in Corpus.read(CORPUS).shows)
    house_of = {designer: int(rng.integers(HOUSES)) for designer in per_designer}
    show_house = np.array([house_of[d] for d, count in per_designer.items()
                           for _ in range(count)])
    looks = -(-photos // len(show_house))
    show_of = np.repeat(np.arange(len(show_house)), looks)[:photos]
    figure = show_house[show_of] * FIGURES + rng.integers(0, FIGURES, photos)
    show_masks = flips(rng, np.full(len(show_house), SHOW_FLIPS))
    masks = show_masks[show_of] ^ flips(rng, rng.integers(*LOOK_FLIPS, photos, endpoint=True))
    return runways[figure] ^ masks, figure, masks, len(show_house)


def queries(codes: np.ndarray, figure: np.ndarray, masks: np.ndarray, runways: np.ndarray,
            mirrors: np.ndarray, count: int, rng: np.random.Generator
            ) -> tuple[list[Query], list[Query], np.ndarray]:
    """``count`` copies of indexed photos and ``count`` looks not held, each as its code and
    mirror code (as a search gets them: ``code_of`` pairs); the indexed photo each copy is
    of."""
    of = rng.choice(len(codes), count, replace=False)
    noise = flips(rng, rng.integers(*COPY_FLIPS, count, endpoint=True))
    copies = [_pairs(codes[p] ^ noise[n], mirrors[figure[p]] ^ masks[p] ^ noise[n])
              for n, p in enumerate(of)]
    figures = rng.integers(0, len(runways), count)
    fresh = flips(rng, np.full(count, SHOW_FLIPS)) ^ flips(
        rng, rng.integers(*LOOK_FLIPS, count, endpoint=True))
    others = [_pairs(runways[f] ^ fresh[n], mirrors[f] ^ fresh[n])
              for n, f in enumerate(figures)]
    return copies, others, of


def _pairs(*codes: np.ndarray) -> Query:
    return [(int(code[0]), int(code[1])) for code in codes]


def scan(columns: tuple[np.ndarray, np.ndarray], asked: Query, within: int) -> list[Hit]:
    """The plain answer: every code measured against both query codes, as well as numpy
    does it (the pHashes and dHashes as two arrays, uint8 sums: summing each (n, 2) row
    instead, numpy's reduction over a short axis, took ten times as long)."""
    phash, dhash = columns
    nearest = None
    for high, low in asked:
        distances = np.bitwise_count(phash ^ np.uint64(high))
        distances += np.bitwise_count(dhash ^ np.uint64(low))
        nearest = distances if nearest is None else np.minimum(nearest, distances, out=nearest)
    assert nearest is not None
    near = np.flatnonzero(nearest <= within)
    ranked = sorted(zip(nearest[near].tolist(), near.tolist(), strict=True))[:LIMIT]
    return [Hit(photo, bits) for bits, photo in ranked]


def timed(action: Any, asked: list[Query]) -> tuple[list[float], list[list[Hit]]]:
    """Each query's time in ms, and its answer."""
    action(asked[0])  # warm: the masks, the pages of the index
    times, answers = [], []
    for query in asked:
        started = time.perf_counter()
        answers.append(action(query))
        times.append((time.perf_counter() - started) * 1000)
    return times, answers


def rss_bytes() -> int:
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def measure(photos: int, count: int, within: int) -> dict[str, Any]:
    """The figures of the module's docstring, for ``photos`` codes and ``count`` queries of
    each kind."""
    rng = np.random.default_rng(SEED)
    runways, mirrors, hash_ms = runway_codes()
    codes, figure, masks, shows = archive_codes(photos, runways, rng)
    copies, others, of = queries(codes, figure, masks, runways, mirrors, count, rng)
    columns = (codes[:, 0].copy(), codes[:, 1].copy())
    rss = rss_bytes()
    started = time.perf_counter()
    index = LookIndex(codes)
    build_s = time.perf_counter() - started
    grown = rss_bytes() - rss
    r: dict[str, Any] = {"photos": photos, "shows": shows, "queries": count, "within": within,
                         "hash_ms": hash_ms, "build_s": build_s, "nbytes": index.nbytes,
                         "rss_growth": grown, "agree": 0}
    for kind, asked in (("copies", copies), ("others", others)):
        mih, found = timed(lambda q: index.search(q, within=within, limit=LIMIT), asked)
        plain, truth = timed(lambda q: scan(columns, q, within), asked)
        r[kind] = {"mih": mih, "scan": plain, "hits": [len(a) for a in found]}
        r["agree"] += sum(a == b for a, b in zip(found, truth, strict=True))
        if kind == "copies":
            r["right_first"] = sum(bool(a) and a[0].photo == int(p)
                                   for a, p in zip(found, of, strict=True))
    nearest = [int(np.partition(np.bitwise_count(columns[0] ^ codes[p, 0])
                                + np.bitwise_count(columns[1] ^ codes[p, 1]), 1)[1])
               for p in rng.choice(len(codes), SIBLINGS, replace=False)]
    r["sibling"] = (statistics.median(nearest), min(nearest))
    uniform = rng.integers(0, 2**64, codes.shape, dtype=np.uint64)
    r["crowded"] = (crowded(codes), crowded(uniform))
    return r


def crowded(codes: np.ndarray) -> float:
    """The share of the photos whose value, in some segment, is among that segment's most
    common 1% (the largest share of the eight): how far the codes are from even."""
    return max(np.sort(np.bincount(segment, minlength=1 << 16))[-(1 << 16) // 100:].sum()
               for segment in codes.view(np.uint16).T) / len(codes)


def _p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20)[-1]


def report(r: dict[str, Any]) -> str:
    rows = [
        f"Measured by `python -m bench.look_search --photos {r['photos']} --queries "
        f"{r['queries']}`: {r['photos']:,} codes of the archive's shape ({r['shows']:,} shows "
        f"of the real listings, derived from {HOUSES * FIGURES:,} drawn and hashed runway "
        f"photos: see the module's docstring), searched within {r['within']} bits "
        f"({SEGMENTS} segments of 16 bits, each probed within {r['within'] // SEGMENTS}) with "
        f"each query's code and its mirror code, {LIMIT} answers at most. "
        + machine_sentence(),
        "",
        "| queries | index: median, p95 | numpy scan of every code: median, p95 | "
        "photos found (median, max) |",
        "|---|---|---|---|"]
    for kind, label in (("copies", "copies of an indexed photo"),
                        ("others", "looks the catalog does not hold")):
        k = r[kind]
        rows.append(f"| {r['queries']} {label} | {statistics.median(k['mih']):.2f} ms, "
                    f"{_p95(k['mih']):.2f} ms | {statistics.median(k['scan']):.1f} ms, "
                    f"{_p95(k['scan']):.1f} ms | {statistics.median(k['hits']):.0f}, "
                    f"{max(k['hits'])} |")
    rows += [
        "",
        "| | figure |",
        "|---|---|",
        "| the scan's median over the index's (copies; looks not held) | "
        + "; ".join(f"{statistics.median(r[k]['scan']) / statistics.median(r[k]['mih']):.1f} x"
                    for k in ("copies", "others")) + " |",
        f"| building the index | {r['build_s']:.2f} s |",
        f"| the index's memory (`LookIndex.nbytes`); the process grew by | "
        f"{r['nbytes'] / 2**20:.1f} MiB; {r['rss_growth'] / 2**20:.1f} MiB |",
        f"| the scan's memory (the codes alone) | {r['photos'] * 16 / 2**20:.1f} MiB |",
        f"| answers equal to the scan's | {r['agree']} of {2 * r['queries']} |",
        f"| copies whose photo came first | {r['right_first']} of {r['queries']} |",
        f"| bits from a photo to its nearest other photo, of {SIBLINGS} photos (median, min) | "
        f"{r['sibling'][0]:.0f}, {r['sibling'][1]} |",
        f"| the photos in the most crowded 1% of a segment's values, the most of any segment "
        f"(as many uniformly random codes) | {r['crowded'][0]:.1%} ({r['crowded'][1]:.1%}) |",
        f"| hashing a drawn runway photo and its mirror ({PHOTO_SIZE[0]} x {PHOTO_SIZE[1]}) | "
        f"{r['hash_ms']:.2f} ms |",
        "",
        "How the codes are made, and why so: `bench/look_search.py`'s docstring. Again: "
        "`PYTHONPATH=. python -m bench.look_search --write` (about 15 s, 300 MB); "
        "`--within N` for another threshold, `--photos N` for another size. A search's median "
        "is what the issue bounds (50 ms at a million photos)."]
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--photos", type=int, default=1_000_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--within", type=int, default=DEFAULT_SEARCH_WITHIN)
    parser.add_argument("--write", action="store_true", help=f"put the figures in {DOC}")
    args = parser.parse_args()
    publish(report(measure(args.photos, args.queries, args.within)), HEADING, DOC, args.write)


if __name__ == "__main__":
    main()
