"""The look merge on the replica: precision, recall, the editors' share, and hashing's cost.

    python -m bench.looks [--brands 20] [--shows 3] [--photos 40] [--write]

theImpression's replica galleries show many of Vogue's looks again (cropped, resized,
recompressed) and a few that only resemble them (``replica/impression_build.py:
_of_vogue_look``): the truth, photo by photo. For every gallery of a Vogue show, its photos
and the show's are merged as promotion merges one entry (``domain/looks.py: merge_looks``,
the thresholds of ``LookRules``' defaults); each merged pair is right when the gallery's
photo shows that Vogue look again. Precision: the right pairs among those merged; recall:
the looks shown again that were merged; beside them, the pairs left for an editor.

Then what a perceptual hash costs per photo (``domain/perceptual_hash.py``): on the
replica's photos, and on a photo of a real runway photo's size (1600 x 2400 JPEG), decoded
at reduced scale as the crawl does and decoded whole.
"""

from __future__ import annotations

import argparse
import io
import random
import statistics
import time
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw

from bench.common import machine_sentence
from bench.reliability import publish
from fashion_assets.domain.looks import DEFAULT_LOOK_RULES, LookPhoto, LookRules, merge_looks
from fashion_assets.domain.perceptual_hash import PerceptualHash, perceptual_hash
from fashion_assets.replica.build import build_site
from fashion_assets.replica.images import photo_body
from fashion_assets.replica.site import RESEMBLANCE_SAME, ReplicaPhoto

DOC = Path(__file__).resolve().parents[1] / "docs" / "performance.md"
HEADING = "Look merge: precision, recall and hashing (issue 20)"
REAL_SIZE = (1600, 2400)
SAMPLES = 20


def look_photo(photo: ReplicaPhoto, source: str, hashes: PerceptualHash) -> LookPhoto:
    with Image.open(io.BytesIO(photo_body(photo))) as image:
        width, height = image.size
    return LookPhoto(photo.photo_id, source, width, height, hashes)


def merge_quality(brands: int, shows: int, photos: int, rules: LookRules) -> dict[str, Any]:
    site = build_site(brands=brands, shows_per_brand=shows, photos_per_show=photos,
                      hostile=False)
    vogue_shows = {(brand.slug, show.season_slug): show
                   for brand in site.brands for show in brand.shows}
    hashes: dict[str, PerceptualHash] = {}

    def hashed(photo: ReplicaPhoto) -> PerceptualHash:
        if photo.photo_id not in hashes:
            hashes[photo.photo_id] = perceptual_hash(photo_body(photo))
        return hashes[photo.photo_id]

    merged = right = truth = uncertain = uncertain_right = entries = 0
    for gallery in site.impression.iter_articles():
        show = vogue_shows.get((gallery.brand_slug or "", gallery.season_code or ""))
        if show is None:
            continue
        entries += 1
        vogue = [look_photo(p, "vogue", hashed(p)) for p in show.photos if p.fault is None]
        second = [look_photo(p, "theimpression", hashed(p)) for p in gallery.photos]
        same = {(p.look_of, p.photo_id) for p in gallery.photos
                if p.look_of and p.resemblance == RESEMBLANCE_SAME}
        result = merge_looks(vogue + second, rules)
        pairs = {tuple(sorted((a.kept_key, a.object_key))) for a in result.alternates}
        truth += len(same)
        merged += len(pairs)
        right += len(pairs & {tuple(sorted(pair)) for pair in same})
        uncertain += len(result.uncertain)
        uncertain_right += sum(tuple(sorted((u.first_key, u.second_key)))
                               in {tuple(sorted(pair)) for pair in same}
                               for u in result.uncertain)
    return {"entries": entries, "photos": len(hashes), "truth": truth, "merged": merged,
            "right": right, "uncertain": uncertain, "uncertain_right": uncertain_right,
            "precision": right / merged if merged else float("nan"),
            "recall": right / truth if truth else float("nan")}


def real_size_jpeg(seed: int) -> bytes:
    rng = random.Random(seed)
    image = Image.new("RGB", REAL_SIZE, tuple(rng.randrange(256) for _ in range(3)))
    draw = ImageDraw.Draw(image)
    for _ in range(12):
        x, y = rng.randrange(REAL_SIZE[0]), rng.randrange(REAL_SIZE[1])
        draw.ellipse((x, y, x + rng.randrange(100, 600), y + rng.randrange(100, 900)),
                     fill=tuple(rng.randrange(256) for _ in range(3)))
    out = io.BytesIO()
    image.save(out, "JPEG", quality=90)
    return out.getvalue()


def whole_decode(data: bytes) -> None:
    """Decoding every pixel, as a hash that does not ask libjpeg for a reduced scale must."""
    with Image.open(io.BytesIO(data)) as image:
        image.convert("L")


def per_photo_ms(action: Any, bodies: list[bytes]) -> float:
    for body in bodies[:2]:
        action(body)  # warm: the DCT basis, the codecs
    samples = []
    for body in bodies:
        started = time.perf_counter()
        action(body)
        samples.append(time.perf_counter() - started)
    return statistics.median(samples) * 1000


def hashing_cost() -> dict[str, float]:
    replica_site = build_site(brands=2, shows_per_brand=1, photos_per_show=SAMPLES,
                              hostile=False)
    replica_bodies = [photo_body(p) for show in replica_site.iter_shows() for p in show.photos]
    real = [real_size_jpeg(seed) for seed in range(SAMPLES)]
    return {"replica_ms": per_photo_ms(perceptual_hash, replica_bodies),
            "real_ms": per_photo_ms(perceptual_hash, real),
            "real_whole_decode_ms": per_photo_ms(whole_decode, real),
            "real_bytes": statistics.median(len(body) for body in real)}


def report(args: argparse.Namespace, quality: dict[str, Any], cost: dict[str, float],
           rules: LookRules) -> str:
    q = quality
    lines = [
        f"Measured by `python -m bench.looks --brands {args.brands} --shows {args.shows} "
        f"--photos {args.photos}`: every theImpression gallery of a Vogue show in the replica "
        f"merged with the show's photos as promotion merges an entry (same look within "
        f"{rules.same_within} bits of pHash and dHash together, left for an editor up to "
        f"{rules.uncertain_within}). "
        + machine_sentence(),
        "",
        "| | figure |",
        "|---|---|",
        f"| entries (a show in both sources), photos hashed | {q['entries']:,}, "
        f"{q['photos']:,} |",
        f"| looks shown again by theImpression (the truth) | {q['truth']:,} |",
        f"| pairs merged, of them right | {q['merged']:,}, {q['right']:,} |",
        f"| precision; recall | {q['precision']:.3f}; {q['recall']:.3f} |",
        f"| pairs left for an editor, of them one look | {q['uncertain']:,}, "
        f"{q['uncertain_right']:,} |",
        f"| hashing a replica photo (96 x 128 and its renditions), median | "
        f"{cost['replica_ms']:.2f} ms |",
        f"| hashing a {REAL_SIZE[0]} x {REAL_SIZE[1]} JPEG ({cost['real_bytes'] / 1e3:,.0f} KB),"
        f" decoded at reduced scale as the crawl does, median | {cost['real_ms']:.2f} ms |",
        f"| decoding that JPEG whole, for comparison (no hash), median | "
        f"{cost['real_whole_decode_ms']:.2f} ms |",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--brands", type=int, default=20)
    parser.add_argument("--shows", type=int, default=3)
    parser.add_argument("--photos", type=int, default=40)
    parser.add_argument("--write", action="store_true", help=f"put the figures in {DOC}")
    args = parser.parse_args()
    rules = DEFAULT_LOOK_RULES
    text = report(args, merge_quality(args.brands, args.shows, args.photos, rules),
                  hashing_cost(), rules)
    publish(text, HEADING, DOC, args.write)


if __name__ == "__main__":
    main()
