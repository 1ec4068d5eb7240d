"""Designers of the archive-shaped replica crawled as any others: their real names and titles
drafted, a designer without a show recorded as one, every photo of every show stored."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx

from fashion_assets.replica import start_replica
from fashion_assets.replica.archive import Corpus, build_archive
from fashion_assets.replica.images import photo_body
from fashion_assets.sources.vogue import parse_designer_directory
from tests.catalog_db import query
from tests.conftest import pipeline_env
from tests.pipeline import crawl_brands

DATA = Path(__file__).resolve().parents[1] / "data"
# An accent and a shape of São Paulo, an ampersand, and a designer listed with no show.
DESIGNERS = ("À LA GARÇONNE", "GIEVES & HAWKES", "A. POTTS")


def test_archive_designers_are_crawled_with_their_real_names_and_titles(
        tmp_path: Path, database_url: str, store_url: str, dagster_instance: Any) -> None:
    corpus = Corpus.read(DATA)
    chosen = Corpus(DESIGNERS, tuple(show for show in corpus.shows if show[0] in DESIGNERS))
    site = build_archive(chosen, photos_per_show=6)
    server = start_replica(site)
    try:
        env = pipeline_env(tmp_path, database_url, store_url, server)
        summaries = crawl_brands([brand.slug for brand in site.brands], dagster_instance, env)
    finally:
        server.stop()

    assert [s["success"] for s in summaries] == [True] * len(DESIGNERS)
    assert [s["shows"]["created"] for s in summaries] == [len(b.shows) for b in site.brands]
    assert [len(b.shows) for b in site.brands] == [2, 4, 0]
    drafted = query(database_url, "SELECT b.display_name, d.title, d.stored_images FROM "
                    "brand_runway_drafts d JOIN brands b ON b.slug = d.brand_slug")
    assert sorted(drafted) == sorted((brand.name, show.title, len(show.photos))
                                     for brand in site.brands for show in brand.shows)
    assert {title for _, title, _ in drafted} >= {"São Paulo Resort 2017",
                                                  "São Paolo Spring 2017"}


def test_replica_serve_archive_serves_the_fraction_of_the_designers(tmp_path: Path) -> None:
    """``fashion-assets replica serve --archive``, as the archive benchmark starts it: its
    directory lists exactly the fraction's designers, and their shows and photos answer."""
    expected = build_archive(Corpus.read(DATA), fraction=0.01, photos_per_show=5)
    process = subprocess.Popen(
        [sys.executable, "-m", "fashion_assets", "replica", "serve", "--archive", str(DATA),
         "--fraction", "0.01", "--photos", "5", "--port", "0", "--cdn-port", "0",
         "--impression-port", "0", "--impression-cdn-port", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert process.stdout is not None
        urls = json.loads(process.stdout.readline())
        directory = httpx.get(f"{urls['base_url']}/fashion-shows/designers", timeout=30).text
        listed = [slug for _, slug in parse_designer_directory(directory)]
        show = next(show for show in expected.iter_shows())
        page = httpx.get(f"{urls['base_url']}{show.path}", timeout=30)
        photo = httpx.get(f"{urls['cdn_url']}/photos/{show.photos[0].photo_id}/master/pass/"
                          f"{show.photos[0].file_name}", timeout=30)
    finally:
        process.terminate()
        process.wait(timeout=30)

    assert sorted(listed) == sorted(brand.slug for brand in expected.brands)
    assert page.status_code == 200 and show.title in page.text
    assert photo.status_code == 200 and photo.content == photo_body(show.photos[0])
