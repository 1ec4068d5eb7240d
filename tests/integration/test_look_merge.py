"""End to end: a show published by both sources is promoted with each look once.

The replica's theImpression gallery shows many of Vogue's looks again (cropped, resized,
compressed anew: other bytes, so other object keys) and a few looks that only resemble
them; the replica knows which is which (``ReplicaPhoto.look_of``, ``resemblance``), so the
catalog is checked against the truth, not against the rule. Crawled through Dagster,
promoted by the promotion job, on SQLite and PostgreSQL.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from dagster import DagsterInstance
from sqlalchemy import text

from fashion_assets.catalog.entities import RUNWAY
from fashion_assets.catalog.look_review import decide_look_pair, draft_looks
from fashion_assets.domain.looks import PairDecision
from fashion_assets.replica import build_site, start_replica
from fashion_assets.replica.images import photo_body
from fashion_assets.replica.site import IMAGE_SIZE, RESEMBLANCE_ALIKE, RESEMBLANCE_SAME
from fashion_assets.resources import catalog_engine
from fashion_assets.runs import crawl_partitions
from tests.catalog_db import query
from tests.conftest import pipeline_env
from tests.integration.test_promotion import entry_photos, promote

SITE = build_site(brands=2, shows_per_brand=2, photos_per_show=24, hostile=False)
GALLERY = next(a for a in SITE.impression.iter_articles() if a.brand_slug and {
    p.resemblance for p in a.photos} >= {RESEMBLANCE_SAME, RESEMBLANCE_ALIKE})
SHOW = next(s for s in SITE.iter_shows() if s.path.endswith(
    f"/{GALLERY.season_code}/{GALLERY.brand_slug}"))
KEY = (GALLERY.brand_slug, GALLERY.season_code)


def key_of(photo: Any) -> str:
    return hashlib.sha1(photo_body(photo)).hexdigest()


def alternates(database_url: str) -> dict[str, tuple[str, str, str, int]]:
    """The entry's alternates: object key -> (kept key, source, source URL, distance)."""
    return {row[0]: tuple(row[1:]) for row in query(
        database_url, "SELECT a.object_key, a.kept_key, a.source, a.source_image_url,"
        " a.distance FROM brand_runway_image_alternates a JOIN brand_runways c"
        " ON c.id = a.runway_id WHERE c.brand_slug = :b AND c.season_code = :c",
        b=KEY[0], c=KEY[1])}


def test_a_show_of_both_sources_shows_each_look_once_and_a_split_pair_stays_split(
        tmp_path: Path, database_url: str) -> None:
    with start_replica(SITE) as replica:
        env = pipeline_env(tmp_path, database_url, f"file://{tmp_path / 'objects'}", replica)
        instance = DagsterInstance.ephemeral()
        runs = crawl_partitions([("brand", KEY[0]), ("season", KEY[1])], instance, env)
    assert all(r["success"] for r in runs), runs
    engine = catalog_engine(database_url)
    with engine.begin() as conn:
        approved = conn.execute(text(
            "UPDATE brand_runway_drafts SET status = 'approved' WHERE brand_slug = :b AND"
            " season_code = :c"), {"b": KEY[0], "c": KEY[1]}).rowcount
    assert approved == 2

    done = promote(env, instance)

    shown, alternate = entry_photos(database_url, RUNWAY, KEY), alternates(database_url)
    vogue = {p.photo_id: p for p in SHOW.photos}
    same = [p for p in GALLERY.photos if p.resemblance == RESEMBLANCE_SAME]
    merged = 0
    for photo in same:
        pair = {key_of(photo), key_of(vogue[photo.look_of])}
        if not pair & set(alternate):
            continue  # too far apart to merge alone: left for an editor
        merged += 1
        [extra] = pair & set(alternate)
        [kept] = pair - {extra}
        larger = photo if photo.pixels[0] > IMAGE_SIZE[0] else vogue[photo.look_of]
        assert kept == key_of(larger) and kept in shown and extra not in shown, photo
        kept_by, source, url, distance = alternate[extra]
        assert kept_by == kept and distance <= 20
        origin = photo if extra == key_of(photo) else vogue[photo.look_of]
        assert source == ("theimpression" if origin is photo else "vogue")
        assert origin.file_name.rsplit(".", 1)[0] in url, (url, origin)
    assert merged >= len(same) - done["runway_uncertain_pairs"] and merged > 0
    assert done["runway_alternates"] == len(alternate) == merged
    for photo in GALLERY.photos:
        if photo.resemblance != RESEMBLANCE_SAME:  # its own look: always shown
            assert key_of(photo) in shown and key_of(photo) not in alternate, photo
    everything = {key_of(p) for p in (*SHOW.photos, *GALLERY.photos)}
    assert set(shown) | set(alternate) == everything and not set(shown) & set(alternate)
    assert len(shown) == len(everything) - merged

    # An editor splits one merged pair on the draft's page: the entry shows both at once,
    # and every later promotion keeps them apart.
    [(vogue_draft,)] = query(database_url, "SELECT id FROM brand_runway_drafts WHERE"
                             " brand_slug = :b AND season_code = :c AND source = 'vogue'",
                             b=KEY[0], c=KEY[1])
    looks = draft_looks(engine, RUNWAY, vogue_draft)
    assert {(p.first_key, p.second_key) for p in looks.merged} == {
        (kept, extra) for extra, (kept, *_) in alternate.items()}
    split = looks.merged[0]
    said = decide_look_pair(engine, RUNWAY, vogue_draft, split.second_key, split.first_key,
                            PairDecision.DIFFERENT, "editor")
    assert said == "marked as different looks; the catalog entry follows it now"
    after_split = entry_photos(database_url, RUNWAY, KEY)
    assert split.second_key in after_split and split.second_key not in alternates(database_url)
    assert len(after_split) == len(shown) + 1

    with engine.begin() as conn:
        conn.execute(text("UPDATE brand_runway_drafts SET status = 'approved' WHERE"
                          " brand_slug = :b AND season_code = :c"), {"b": KEY[0], "c": KEY[1]})
    again = promote(env, instance)

    assert again["runway_drafts_promoted"] == 2
    assert entry_photos(database_url, RUNWAY, KEY) == after_split
    assert set(alternates(database_url)) == set(alternate) - {split.second_key}
