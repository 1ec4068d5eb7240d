"""How fast the review page answers with an archive's worth of drafts (issue 17).

    python -m bench.review_queue [--drafts 26000] [--requests 20] [--write]

A fresh PostgreSQL database gets one runway draft per show of the real Vogue corpus
(tests/data/vogue_show_titles.csv: 25,876 shows of 1,900-odd designers, their real titles),
each with 40 photo rows, and street drafts up to ``--drafts``; a third of the drafts are
approved. The review page then runs as ``review serve`` runs it (uvicorn, on loopback, an
editor signed in), and each page below is requested ``--requests`` times in turn through
HTTP; the median and the slowest answer are printed (and with ``--write`` put in the
"Review queue" section of docs/performance.md). Then a draft of 60 photos of a real photo's
size is opened and its images fetched as a browser would: their bytes against the full
photos'. The targets: the queue's first page under 200 ms; the 60 thumbnails under 10% of
the full photos' bytes.
"""

from __future__ import annotations

import argparse
import csv
import io
import random
import re
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from PIL import Image
from sqlalchemy import text

from bench.common import ROOT, fresh_database, machine_sentence
from bench.reliability import publish
from fashion_assets.catalog.editors import add_editor
from fashion_assets.domain.names import name_slug
from fashion_assets.domain.titles import TitleParseError, parse_show_title, season_slug_for
from fashion_assets.resources import catalog_engine
from fashion_assets.review_app import create_app
from fashion_assets.storage import ObjectStore, object_key, open_store
from tests.integration.test_review_app import CHEAP, serve, sign_in

CORPUS = ROOT / "tests" / "data" / "vogue_show_titles.csv"
PHOTOS = 40
TARGET_MS = 200
SHOW_PHOTOS = 60
THUMB_SHARE = 0.10
EDITOR, PASSWORD = "ana", "correct horse battery staple"
DOC = ROOT / "docs" / "performance.md"


def populate(database_url: str, drafts: int) -> dict[str, Any]:
    """The catalog's drafts: the corpus's shows as runway drafts, street drafts for the
    rest; returns what a page needs to name (a brand, a draft)."""
    engine = catalog_engine(database_url)
    with CORPUS.open(newline="", encoding="utf-8") as f:
        shows = list(csv.DictReader(f))[:drafts]
    brands = {name_slug(row["designer"]) or "unnamed": row["designer"] for row in shows}
    rows = []
    for n, row in enumerate(shows):
        try:
            code = season_slug_for(parse_show_title(row["show"]))
        except TitleParseError:
            code = "spring-2020-ready-to-wear"
        rows.append({"u": f"https://www.vogue.com/fashion-shows/{n}", "b": name_slug(
            row["designer"]) or "unnamed", "c": code, "t": row["show"][:500],
                     "s": "approved" if n % 3 == 0 else "pending"})
    with engine.begin() as conn:
        conn.execute(text("INSERT INTO brands (slug, display_name) VALUES (:s, :n)"
                          " ON CONFLICT DO NOTHING"),
                     [{"s": slug, "n": name} for slug, name in brands.items()])
        conn.execute(text(
            "INSERT INTO brand_runway_drafts (source, source_url, brand_slug, season_code,"
            " title, status, expected_images) VALUES ('vogue', :u, :b, :c, :t, :s, 40)"), rows)
        street = max(0, drafts - len(rows))
        conn.execute(text(
            "INSERT INTO street_snap_drafts (source, source_url, city, year, month, title,"
            " expected_images) SELECT 'theimpression', 'https://theimpression.com/a/' || g,"
            " 'paris', 2020, 1 + g % 12, 'Street style ' || g, 40"
            " FROM generate_series(1, :n) g"), {"n": street})
        # 40 photo rows per draft, made by the server (a million rows in seconds).
        conn.execute(text(
            "INSERT INTO brand_runway_draft_images (draft_id, position, object_key,"
            " source_image_url, content_type, width, height, byte_size)"
            " SELECT d.id, p, md5(d.id || '-' || p) || '00000000', 'https://cdn.example/'"
            " || d.id || '/' || p, 'image/jpeg', 1280, 1920, 200000"
            f" FROM brand_runway_drafts d, generate_series(1, {PHOTOS}) p"))
        conn.execute(text("ANALYZE"))
        brand = conn.execute(text("SELECT brand_slug FROM brand_runway_drafts GROUP BY"
                                  " brand_slug ORDER BY count(*) DESC LIMIT 1")).scalar_one()
        draft = conn.execute(text("SELECT id FROM brand_runway_drafts WHERE status ="
                                  " 'pending' ORDER BY id LIMIT 1 OFFSET 100")).scalar_one()
        counts = dict(conn.execute(text(
            "SELECT 'runway', count(*) FROM brand_runway_drafts UNION ALL"
            " SELECT 'street', count(*) FROM street_snap_drafts UNION ALL"
            " SELECT 'photos', count(*) FROM brand_runway_draft_images")).all())
    add_editor(engine, EDITOR, PASSWORD, cost=CHEAP)
    return {"engine": engine, "brand": brand, "draft": draft, "counts": counts}


def show_of_big_photos(engine: Any, store: ObjectStore, count: int) -> tuple[int, int]:
    """A draft of ``count`` photos of a real photo's size (1280 x 1920 noisy JPEGs, about
    2 MB each: noise compresses as badly as a photo); its id and the photos' bytes."""
    rng = random.Random(1)
    total = 0
    with engine.begin() as conn:
        draft = conn.execute(text(
            "INSERT INTO brand_runway_drafts (source, source_url, brand_slug, season_code,"
            " title) SELECT 'vogue', 'https://www.vogue.com/fashion-shows/big', slug,"
            " 'fall-2026-ready-to-wear', 'Sixty looks' FROM brands LIMIT 1 RETURNING id"
        )).scalar_one()
        for position in range(1, count + 1):
            image = Image.frombytes("RGB", (1280, 1920), rng.randbytes(1280 * 1920 * 3))
            out = io.BytesIO()
            image.save(out, format="JPEG", quality=85)
            data = out.getvalue()
            store.put(object_key(data), data, "image/jpeg")
            total += len(data)
            conn.execute(text(
                "INSERT INTO brand_runway_draft_images (draft_id, position, object_key,"
                " source_image_url, content_type, width, height, byte_size) VALUES"
                " (:d, :p, :k, 'https://cdn.example/big.jpg', 'image/jpeg', 1280, 1920, :n)"),
                {"d": draft, "p": position, "k": object_key(data), "n": len(data)})
    return draft, total


def page_images(client: httpx.Client, path: str) -> tuple[int, float]:
    """Bytes of every image ``path`` shows, fetched as a browser would, and the seconds."""
    started = time.perf_counter()
    page = client.get(path).text
    sources = re.findall(r'<img[^>]* src="(/[^"]+)"', page)
    total = sum(len(client.get(source).content) for source in sources)
    return total, time.perf_counter() - started


def timed(client: httpx.Client, path: str, requests: int) -> tuple[float, float, int]:
    """Median and slowest answer of ``path`` in ms, and the size of its page."""
    times, size = [], 0
    for _ in range(requests):
        started = time.perf_counter()
        response = client.get(path)
        times.append((time.perf_counter() - started) * 1000)
        if response.status_code != 200:
            raise RuntimeError(f"{path}: HTTP {response.status_code}")
        size = len(response.content)
    return statistics.median(times), max(times), size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--drafts", type=int, default=26_000)
    parser.add_argument("--requests", type=int, default=20)
    parser.add_argument("--write", action="store_true",
                        help="put the figures in docs/performance.md")
    args = parser.parse_args()
    with fresh_database() as database_url:
        started = time.perf_counter()
        made = populate(database_url, args.drafts)
        print(f"catalog: {made['counts']} in {time.perf_counter() - started:.0f} s", flush=True)
        pages = {
            "queue, first page (pending, oldest first)": "/",
            "queue, a deep page": "/?offset=17000",
            "queue sorted by photos": "/?sort=photos",
            "queue sorted by title, reversed": "/?sort=-title",
            "queue of one brand": f"/?brand={made['brand']}",
            "queue, complete drafts only": "/?complete=1",
            "every status": "/?status=any",
            "a draft with 40 photos, opened from the queue": f"/drafts/runway:{made['draft']}"
                                                             "?pos=100",
        }
        with tempfile.TemporaryDirectory() as home:
            store = open_store("", home=Path(home))
            big, full_bytes = show_of_big_photos(made["engine"], store, SHOW_PHOTOS)
            with serve(create_app(made["engine"], store,
                                  password_cost=CHEAP)) as url:
                client = sign_in(url, EDITOR, PASSWORD)
                timed(client, "/", 3)  # warm: connections, templates
                results = {label: timed(client, path, args.requests)
                           for label, path in pages.items()}
                first_bytes, first_s = page_images(client, f"/drafts/runway:{big}")
                again_bytes, again_s = page_images(client, f"/drafts/runway:{big}")
    lines = [f"| {label} | `{pages[label]}` | {median:.0f} | {slowest:.0f} | {size / 1000:.0f} |"
             for label, (median, slowest, size) in results.items()]
    first = results["queue, first page (pending, oldest first)"][0]
    counts = made["counts"]
    section = "\n".join([
        f"Measured by `python -m bench.review_queue` ({args.requests} requests per page, one "
        "at a time, through HTTP to the page as `review serve` runs it, an editor signed in), "
        f"on PostgreSQL: {counts['runway']:,} runway drafts (the real corpus's shows and "
        f"titles) with {counts['photos']:,} photo rows and {counts['street']:,} street "
        "drafts, a third approved. "
        + machine_sentence(),
        "",
        "| page | path | median ms | slowest ms | KB |",
        "|---|---|---|---|---|",
        *lines,
        "",
        f"Target: the queue's first page under {TARGET_MS} ms: {first:.0f} ms, "
        + ("met." if first < TARGET_MS else "NOT met."),
        "",
        "A queue counts photos for the drafts of the page it shows only (one grouped query "
        "per kind; counted in each row before the order and the limit, they took 0.5 s); "
        "ordered by photos or filtered to complete drafts, it counts them for every draft "
        "of the queue (one grouped count), hence those pages' longer times.",
        "",
        f"Thumbnails: a draft of {SHOW_PHOTOS} photos of 1280 x 1920 (JPEG, "
        f"{full_bytes / SHOW_PHOTOS / 1e6:.1f} MB each, {full_bytes / 1e6:.0f} MB in all) shows "
        f"them as thumbnails (`/thumbs/`, 320 px WebP); the full photo opens on click. Its "
        f"images transfer {again_bytes / 1e6:.2f} MB, {again_bytes / full_bytes:.1%} of the "
        f"full photos' bytes; {first_s:.1f} s to load them the first time (each thumbnail made "
        f"and stored), {again_s:.2f} s after.",
        "",
        f"Target: a page of {SHOW_PHOTOS} thumbnails under {THUMB_SHARE:.0%} of the full "
        f"photos' bytes: {again_bytes / full_bytes:.1%}, "
        + ("met." if again_bytes < THUMB_SHARE * full_bytes and first_bytes == again_bytes
           else "NOT met."),
    ])
    publish(section, "Review queue (issue 17)", DOC, args.write)


if __name__ == "__main__":
    main()
