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

import httpx
from dagster import DagsterInstance
from sqlalchemy import text

from fashion_assets.catalog.entities import RUNWAY
from fashion_assets.catalog.look_review import draft_looks
from fashion_assets.catalog.photo_hashes import HashCounts, hash_photos
from fashion_assets.catalog_api import create_api
from fashion_assets.domain.looks import DEFAULT_LOOK_RULES, LookPhoto, merge_looks
from fashion_assets.domain.perceptual_hash import PerceptualHash, perceptual_hash
from fashion_assets.replica import build_site, start_replica
from fashion_assets.replica.images import photo_body
from fashion_assets.replica.site import IMAGE_SIZE, RESEMBLANCE_ALIKE, RESEMBLANCE_SAME
from fashion_assets.resources import catalog_engine
from fashion_assets.storage import open_store
from tests.catalog_db import query
from tests.conftest import pipeline_env
from tests.integration.test_promotion import entry_photos, promote
from tests.integration.test_review_app import review_app, serve, sign_in, token
from tests.pipeline import crawl_partitions

SITE = build_site(brands=2, shows_per_brand=2, photos_per_show=24, hostile=False)


def key_of(photo: Any) -> str:
    return hashlib.sha1(photo_body(photo)).hexdigest()


def show_of(gallery: Any) -> Any:
    return next(s for s in SITE.iter_shows()
                if s.path.endswith(f"/{gallery.season_code}/{gallery.brand_slug}"))


def left_for_an_editor(gallery: Any) -> int:
    photos = [LookPhoto(key_of(p), source, None, None, perceptual_hash(photo_body(p)))
              for source, of in (("vogue", show_of(gallery)), ("theimpression", gallery))
              for p in of.photos]
    return len(merge_looks(photos, DEFAULT_LOOK_RULES).uncertain)


# A gallery with looks shown again, a look that resembles one, and a pair too far apart to
# merge without an editor.
GALLERY = next(a for a in SITE.impression.iter_articles() if a.brand_slug and {
    p.resemblance for p in a.photos} >= {RESEMBLANCE_SAME, RESEMBLANCE_ALIKE}
    and left_for_an_editor(a))
SHOW = show_of(GALLERY)
KEY = (GALLERY.brand_slug, GALLERY.season_code)


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
    assert query(database_url, "SELECT count(*) FROM photo_hashes") == [(0,)]  # not the crawl
    store = open_store(env["FASHION_STORE_URL"], home=tmp_path)
    [(vogue_draft,)] = query(database_url, "SELECT id FROM brand_runway_drafts WHERE"
                             " brand_slug = :b AND season_code = :c AND source = 'vogue'",
                             b=KEY[0], c=KEY[1])
    before = draft_looks(engine, store, RUNWAY, vogue_draft)  # a draft's page, before promotion
    assert (len(before.merged), len(before.uncertain)) == (0, 1)

    done = promote(env, instance)

    # Every photo of both drafts hashed once (by the page here), as its bytes hash.
    hashes = {k: PerceptualHash(p, d) for k, p, d in query(
        database_url, "SELECT photo_key, phash, dhash FROM photo_hashes")}
    assert hashes == {key_of(p): perceptual_hash(photo_body(p))
                      for p in (*SHOW.photos, *GALLERY.photos)}

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
    assert done["runway_uncertain_pairs"] == 1 and merged == len(same)
    assert done["runway_alternates"] == len(alternate) == merged
    for photo in GALLERY.photos:
        if photo.resemblance != RESEMBLANCE_SAME:  # its own look: always shown
            assert key_of(photo) in shown and key_of(photo) not in alternate, photo
    everything = {key_of(p) for p in (*SHOW.photos, *GALLERY.photos)}
    assert set(shown) | set(alternate) == everything and not set(shown) & set(alternate)
    assert len(shown) == len(everything) - merged

    # The read API lists each alternate with the photo it stands beside, and serves it.
    with serve(create_api(engine, store)) as url:
        listed = httpx.get(f"{url}/api/v1/shows/{KEY[0]}/{KEY[1]}").json()["photos"]
        beside = {a["object_key"]: (p["object_key"], a["source"], a["source_image_url"],
                                    a["distance"]) for p in listed for a in p["alternates"]}
        assert beside == alternate and [p["object_key"] for p in listed] == shown
        [first, *_] = next(p for p in listed if p["alternates"])["alternates"]
        served = httpx.get(first["url"])
    assert served.status_code == 200, served.text
    assert hashlib.sha1(served.content).hexdigest() == first["object_key"]

    # On the draft's page, an editor takes the pair left undecided for one look, and splits
    # a merged pair: the entry follows at once, and every later promotion.
    looks = draft_looks(engine, store, RUNWAY, vogue_draft)
    assert {(p.first_key, p.second_key) for p in looks.merged} == {
        (kept, extra) for extra, (kept, *_) in alternate.items()}
    [joined] = looks.uncertain
    assert 20 < joined.distance <= 28
    split = looks.merged[0]
    page, decide = f"/drafts/runway:{vogue_draft}", f"/drafts/runway:{vogue_draft}/looks"
    with serve(review_app(engine, store)) as url:
        client = sign_in(url)
        shown_page = client.get(page).text
        assert f'<span id="merged-count">{merged}</span>' in shown_page
        assert '<span id="uncertain-count">1</span>' in shown_page
        assert f'name="second" value="{split.second_key}"' in shown_page
        assert client.get(f"/thumbs/{split.second_key}").status_code == 200
        csrf = token(shown_page)
        form = {"csrf_token": csrf, "first": split.second_key, "second": split.first_key}
        assert client.post(decide, data={**form, "decision": "maybe"}).status_code == 400
        other_show = key_of(next(s for s in SITE.iter_shows() if s != SHOW).photos[0])
        refused = client.post(decide, data={**form, "second": other_show,
                                            "decision": "different"}, follow_redirects=True)
        assert "refused: both photos must be photos of this draft" in refused.text
        said = client.post(decide, data={"csrf_token": csrf, "first": joined.first_key,
                                         "second": joined.second_key, "decision": "same"},
                           follow_redirects=True)
        assert "marked as one look; the catalog entry follows it now" in said.text
        assert 'id="uncertain-count"' not in said.text
        said = client.post(decide, data={**form, "decision": "different"},
                           follow_redirects=True)
        assert "marked as different looks; the catalog entry follows it now" in said.text
        assert f'<span id="merged-count">{merged}</span>' in said.text
    after = entry_photos(database_url, RUNWAY, KEY)
    decided = alternates(database_url)
    assert split.second_key in after and split.second_key not in decided
    assert {joined.first_key, joined.second_key} & set(decided)
    assert len(after) == len(shown) and len(decided) == merged

    with engine.begin() as conn:
        conn.execute(text("UPDATE brand_runway_drafts SET status = 'approved' WHERE"
                          " brand_slug = :b AND season_code = :c"), {"b": KEY[0], "c": KEY[1]})
    again = promote(env, instance)

    assert again["runway_drafts_promoted"] == 2
    assert entry_photos(database_url, RUNWAY, KEY) == after
    assert alternates(database_url) == decided


def test_hashing_says_how_far_it_is_after_each_batch(tmp_path: Path, database_url: str) -> None:
    """``hash_photos``: the counts so far after each batch, a photo not in the store counted
    as missing, bytes that are no photo as not decodable; the hashes recorded."""
    engine = catalog_engine(database_url)
    store = open_store(f"file://{tmp_path / 'objects'}", home=tmp_path)
    bodies = [photo_body(p) for p in SHOW.photos[:3]]
    keys = [key_of(p) for p in SHOW.photos[:3]]
    for key, body in zip(keys, bodies, strict=True):
        store.put(key, body, "image/jpeg")
    html = b"<html>not a photo</html>"
    store.put(hashlib.sha1(html).hexdigest(), html, "text/html")
    heard: list[HashCounts] = []

    counts = hash_photos(engine, store, [*keys, hashlib.sha1(html).hexdigest(), "f" * 40],
                         on_batch=heard.append, batch_size=2)

    assert heard == [HashCounts(2, 0, 0), HashCounts(3, 1, 0), HashCounts(3, 1, 1)]
    assert counts == heard[-1] and counts.done == 5
    assert sorted(k for (k,) in query(database_url, "SELECT photo_key FROM photo_hashes")) \
        == sorted(keys)
