"""What the archive holds right now: one bounded set of queries, for the CLI and tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import Engine, text

from fashion_assets.storage import open_store

DRAFT_STATUSES = ("pending", "approved", "rejected", "promoted")


def catalog_status(engine: Engine, store_url: str, home: Path) -> dict[str, Any]:
    """Brands, shows, drafts by status, street style, names waiting for an editor, photos,
    per-brand counts and the store's size."""
    with engine.connect() as conn:
        brands = conn.execute(text("SELECT count(*) FROM brands")).scalar_one()
        shows = conn.execute(text("SELECT count(*) FROM runway_shows")).scalar_one()
        by_status = dict(conn.execute(text(
            "SELECT status, count(*) FROM brand_runway_drafts WHERE NOT is_deleted"
            " GROUP BY status")).all())
        deleted = conn.execute(text(
            "SELECT count(*) FROM brand_runway_drafts WHERE is_deleted")).scalar_one()
        images = conn.execute(text(
            "SELECT count(*) FROM brand_runway_draft_images")).scalar_one()
        per_brand = conn.execute(text(
            "SELECT b.slug,"
            " (SELECT count(*) FROM runway_shows s WHERE s.brand_slug = b.slug),"
            " (SELECT count(*) FROM brand_runway_drafts d WHERE d.brand_slug = b.slug),"
            " (SELECT count(*) FROM brand_runway_draft_images i JOIN brand_runway_drafts d"
            "   ON d.id = i.draft_id WHERE d.brand_slug = b.slug),"
            " (SELECT count(*) FROM runway_missing_images m JOIN runway_shows s"
            "   ON s.id = m.show_id WHERE s.brand_slug = b.slug)"
            " FROM brands b ORDER BY b.slug")).all()
        street_by_status = dict(conn.execute(text(
            "SELECT status, count(*) FROM street_snap_drafts WHERE NOT is_deleted"
            " GROUP BY status")).all())
        street_deleted = conn.execute(text(
            "SELECT count(*) FROM street_snap_drafts WHERE is_deleted")).scalar_one()
        catalog = conn.execute(text(
            "SELECT (SELECT count(*) FROM brand_runways), (SELECT count(*) FROM"
            " brand_runway_images), (SELECT count(*) FROM street_snaps), (SELECT count(*) FROM"
            " street_snap_images)")).one()
        street_articles = conn.execute(text(
            "SELECT count(*) FROM street_style_articles")).scalar_one()
        pending_names = dict(conn.execute(text(
            "SELECT kind, count(*) FROM pending_names WHERE status = 'pending'"
            " GROUP BY kind")).all())
        waiting = conn.execute(text("SELECT count(*) FROM waiting_articles w JOIN pending_names p"
                                    " ON p.id = w.pending_name_id WHERE p.status = 'pending'"
                                    )).scalar_one()
    store = open_store(store_url, home=home)
    stats = store.stats()
    return {
        "database": engine.url.render_as_string(hide_password=True),
        "brands": brands,
        "shows": shows,
        "drafts": {**{s: int(by_status.get(s, 0)) for s in DRAFT_STATUSES},
                   "deleted": int(deleted)},
        "draft_images": images,
        "street_articles": street_articles,
        "street_drafts": {**{s: int(street_by_status.get(s, 0)) for s in DRAFT_STATUSES},
                          "deleted": int(street_deleted)},
        "pending_names": {kind: int(pending_names.get(kind, 0)) for kind in ("brand", "city")},
        "waiting_for_name": int(waiting),
        "catalog": {"shows": int(catalog[0]), "show_photos": int(catalog[1]),
                    "street_albums": int(catalog[2]), "street_photos": int(catalog[3])},
        "store": {"url": store.url, "objects": stats.objects,
                  "bytes": stats.bytes},
        "per_brand": [
            {"brand": slug, "shows": s, "drafts": d, "photos": p, "missing_photos": m}
            for slug, s, d, p, m in per_brand
        ],
    }

