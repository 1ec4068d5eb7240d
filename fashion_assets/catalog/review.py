"""Editors' review of drafts in the catalog: list, show, and act, with an audit trail.

The rule is ``domain/review.py: decide_review``; this module loads a draft, asks the rule,
and writes what it decided. Each draft is reviewed in its own transaction (row locked on
PostgreSQL; SQLite's ``BEGIN IMMEDIATE`` holds the write lock), which updates the draft and
appends its ``draft_reviews`` row together: an action is recorded if and only if it happened,
and a refused action writes nothing.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Engine, bindparam, text
from sqlalchemy.exc import IntegrityError

from fashion_assets.catalog.db import is_postgres
from fashion_assets.catalog.entities import ENTITIES, EntityTables, same_entity, same_source
from fashion_assets.domain.coverage import CoverageRules, incomplete_sql
from fashion_assets.domain.review import (
    QUEUE_SORTS,
    REFERENCES,
    DraftRef,
    decide_review,
    kept_reason,
)

# The sibling drafts of draft :id (alias ``d``): other drafts of its entity key, any source,
# any status. Written once, from entities.same_entity, the definition promotion merges by
# and will keep reusing, so the siblings an editor sees are the drafts promotion would merge
# into one catalog entry.
SIBLINGS = {
    kind: (f"d.id <> :id AND EXISTS (SELECT 1 FROM {t.drafts} me"
           f" WHERE me.id = :id AND {same_entity(t, 'me', 'd')})")
    for kind, t in ENTITIES.items()
}

# The columns of each kind in one shape, so both kinds list as one union.
_SUMMARY_COLUMNS = {
    "runway": "d.brand_slug, d.season_code, d.city, d.year, CAST(NULL AS INTEGER) AS month",
    "street": "CAST(NULL AS TEXT) AS brand_slug, CAST(NULL AS TEXT) AS season_code, d.city,"
              " d.year, d.month",
}
_DETAIL_COLUMNS = {
    "runway": ("brand_slug", "season_code", "title", "season", "year", "collection_type",
               "city", "city_name", "expected_images"),
    "street": ("city", "year", "month", "title", "expected_images"),
}
_STATE = ("status", "is_deleted", "reject_reason", "created_at", "updated_at")
_PHOTOS = ("position, object_key, content_type, width, height, byte_size, source_image_url")


# Each of QUEUE_SORTS as the union's columns to order by, before its tie-breakers.
_ORDER = {"waiting": (), "title": ("lower(title)",), "source": ("source",),
          "status": ("status",), "photos": ("photos",)}


class ReviewError(ValueError):
    """A review request that cannot be answered, such as a draft that does not exist."""


@dataclass(frozen=True)
class DraftSummary:
    """One line of the review queue."""

    kind: str
    id: int
    ref: str
    source: str
    source_url: str
    brand_slug: str | None
    season_code: str | None
    city: str | None
    year: int
    month: int | None
    title: str
    status: str
    is_deleted: bool
    reject_reason: str
    photos: int
    expected_images: int  # how many photos its source listed
    created_at: str


@dataclass(frozen=True)
class DraftPhoto:
    position: int
    object_key: str
    content_type: str
    width: int | None
    height: int | None
    byte_size: int
    source_image_url: str


@dataclass(frozen=True)
class ReviewEntry:
    """One row of a draft's audit trail: who did what, when, and what changed."""

    id: int
    action: str
    editor: str
    reason: str
    changes: dict[str, list[Any]]
    created_at: str


@dataclass(frozen=True)
class DraftDetail:
    summary: DraftSummary
    fields: dict[str, Any]
    photos: list[DraftPhoto]
    trail: list[ReviewEntry]
    siblings: list[DraftSummary]
    # The photos of its article that the crawl could not store, with why.
    missing: list[MissingPhoto]


@dataclass(frozen=True)
class MissingPhoto:
    """A photo of the draft's article that failed for good: where, and the reason code."""

    position: int
    url: str
    reason: str
    detail: str


@dataclass(frozen=True)
class ReviewResult:
    """What one action did to one draft; ``ok`` False: refused, nothing written
    (``needs_confirmation``: for want of the confirmation that it should have no photos)."""

    ref: str
    ok: bool
    message: str
    changes: dict[str, tuple[Any, Any]] = field(default_factory=dict)
    needs_confirmation: bool = False


def _when(value: Any) -> str:
    """Timestamps as one text shape on both databases (SQLite returns text already)."""
    if isinstance(value, datetime):
        return value.isoformat(sep=" ", timespec="seconds")
    return str(value)


def _summary_select(t: EntityTables, where: str, photos: str = "each") -> str:
    """The summaries of the drafts ``where`` selects (alias ``d``), with their photo counts:
    ``each`` counted per row (a few rows), ``all`` by one grouped count of every draft's
    photos (``c.n``, for a query that filters or orders a whole queue by them), ``later``
    not at all (NULL: ``_with_photo_counts`` fills in the page's)."""
    counted = {
        "each": f"(SELECT count(*) FROM {t.draft_images} i WHERE i.draft_id = d.id)",
        "all": "COALESCE(c.n, 0)",
        "later": "CAST(NULL AS INTEGER)",
    }[photos]
    joined = (f" LEFT JOIN (SELECT draft_id, count(*) AS n FROM {t.draft_images}"
              " GROUP BY draft_id) c ON c.draft_id = d.id" if photos == "all" else "")
    return (f"SELECT '{t.kind}' AS kind, d.id, d.source, d.source_url,"
            f" {_SUMMARY_COLUMNS[t.kind]}, d.title, d.status, d.is_deleted, d.reject_reason,"
            f" {counted} AS photos, d.expected_images, d.created_at FROM {t.drafts} d{joined}"
            f" WHERE {where}")


def _with_photo_counts(conn: Connection, rows: list[DraftSummary]) -> list[DraftSummary]:
    """``rows`` with their photo counts, one grouped query per kind for just these drafts."""
    counts: dict[tuple[str, int], int] = {}
    for kind, t in ENTITIES.items():
        ids = [r.id for r in rows if r.kind == kind]
        if ids:
            query = text(f"SELECT draft_id, count(*) FROM {t.draft_images}"
                         " WHERE draft_id IN :ids GROUP BY draft_id"
                         ).bindparams(bindparam("ids", expanding=True))
            counts.update(((kind, int(i)), int(n)) for i, n in conn.execute(query, {"ids": ids}))
    return [replace(r, photos=counts.get((r.kind, r.id), 0)) for r in rows]


def _summary(row: Any) -> DraftSummary:
    kind, draft_id, *rest = row
    values = list(rest)
    values[9] = bool(values[9])  # is_deleted: 0/1 on SQLite
    values[-1] = _when(values[-1])
    return DraftSummary(kind, draft_id, str(DraftRef(kind, draft_id)), *values)


def list_drafts(engine: Engine, *, kind: str | None = None, status: str | None = None,
                brand: str | None = None, city: str | None = None, source: str | None = None,
                include_deleted: bool = False, complete: CoverageRules | None = None,
                limit: int = 100, offset: int = 0, sort: str = "waiting") -> list[DraftSummary]:
    """The drafts matching every filter given, in ``sort`` order (one of ``QUEUE_SORTS``,
    "-" first to reverse it): by default oldest first, the order they wait in.

    ``brand`` only matches runway drafts, so it leaves street drafts out; ``city`` matches
    both (a runway draft's city is the one its title named). ``complete`` keeps the drafts
    whose photos make them complete by those coverage rules (domain/coverage.py).
    """
    order = _ORDER.get(sort.removeprefix("-"))
    if order is None:
        raise ReviewError(f"unknown sort {sort!r} ({', '.join(QUEUE_SORTS)})")
    # Photo counts of the whole queue only when it is ordered by them: else the page's alone.
    photos = "all" if sort.removeprefix("-") == "photos" else "later"
    union, params = _matching(kind=kind, status=status, brand=brand, city=city, source=source,
                              include_deleted=include_deleted, complete=complete,
                              photos=photos)
    if not union:
        return []
    direction = " DESC" if sort.startswith("-") else ""
    keys = ", ".join(f"{key}{direction}" for key in (*order, "created_at", "kind", "id"))
    sql = f"SELECT * FROM ({union}) u ORDER BY {keys} LIMIT :limit OFFSET :offset"
    with engine.connect() as conn:
        rows = [_summary(row) for row in conn.execute(
            text(sql), {**params, "limit": limit, "offset": offset})]
        return rows if photos == "all" else _with_photo_counts(conn, rows)


def count_drafts(engine: Engine, *, kind: str | None = None, status: str | None = None,
                 brand: str | None = None, city: str | None = None, source: str | None = None,
                 include_deleted: bool = False, complete: CoverageRules | None = None) -> int:
    """How many drafts ``list_drafts`` would list with these filters, all pages together."""
    union, params = _matching(kind=kind, status=status, brand=brand, city=city, source=source,
                              include_deleted=include_deleted, complete=complete,
                              photos="later")
    if not union:
        return 0
    with engine.connect() as conn:
        return int(conn.execute(text(f"SELECT count(*) FROM ({union}) u"), params).scalar_one())


def _matching(*, kind: str | None, status: str | None, brand: str | None, city: str | None,
              source: str | None, include_deleted: bool, complete: CoverageRules | None,
              photos: str) -> tuple[str, dict[str, Any]]:
    """The drafts of both kinds that match the filters, as one union of summaries ("" when
    no kind can match) and its parameters; ``photos`` as ``_summary_select`` takes it, but
    counted for all when ``complete`` filters by the counts."""
    photos = "all" if complete is not None else photos
    conditions = ["1 = 1"]
    if status:
        conditions.append("d.status = :status")
    if city:
        conditions.append("d.city = :city")
    if source:
        conditions.append("d.source = :source")
    if not include_deleted:
        conditions.append("NOT d.is_deleted")
    selects = []
    for t in ENTITIES.values():
        if (kind and t.kind != kind) or (brand and t.kind != "runway"):
            continue
        extra = ["d.brand_slug = :brand"] if brand else []
        if complete is not None:
            extra.append(f"NOT {incomplete_sql('d.expected_images', 'COALESCE(c.n, 0)', complete)}")
        selects.append(_summary_select(t, " AND ".join(conditions + extra), photos))
    params = {"status": status, "city": city, "source": source, "brand": brand}
    return " UNION ALL ".join(selects), params


def get_draft(engine: Engine, kind: str, draft_id: int) -> DraftDetail:
    """A draft with its fields, photos, audit trail and siblings; ReviewError if none."""
    t = _tables(kind)
    with engine.connect() as conn:
        row = conn.execute(text(_summary_select(t, "d.id = :id")), {"id": draft_id}).first()
        if row is None:
            raise ReviewError(f"no {kind} draft {draft_id}")
        columns = _DETAIL_COLUMNS[kind] + _STATE
        values = conn.execute(text(f"SELECT {', '.join(columns)} FROM {t.drafts} WHERE id = :id"),
                              {"id": draft_id}).one()
        fields = dict(zip(columns, values, strict=True))
        fields.update(is_deleted=bool(fields["is_deleted"]),
                      created_at=_when(fields["created_at"]),
                      updated_at=_when(fields["updated_at"]))
        photos = [DraftPhoto(*r) for r in conn.execute(
            text(f"SELECT {_PHOTOS} FROM {t.draft_images} WHERE draft_id = :id"
                 " ORDER BY position"), {"id": draft_id})]
        siblings = [_summary(r) for r in conn.execute(
            text(_summary_select(t, SIBLINGS[kind]) + " ORDER BY d.id"), {"id": draft_id})]
        missing = [MissingPhoto(*r) for r in conn.execute(text(
            f"SELECT m.position, m.url, m.reason, m.detail FROM {t.missing_images} m"
            f" JOIN {t.listings} s ON s.id = m.{t.missing_fk}"
            f" JOIN {t.drafts} d ON {same_source('d', 's')}"
            " WHERE d.id = :id ORDER BY m.position"), {"id": draft_id})]
        return DraftDetail(_summary(row), fields, photos, _trail(conn, kind, draft_id), siblings,
                           missing)


def _trail(conn: Connection, kind: str, draft_id: int) -> list[ReviewEntry]:
    rows = conn.execute(
        text("SELECT id, action, editor, reason, changes, created_at FROM draft_reviews"
             " WHERE draft_kind = :k AND draft_id = :id ORDER BY id"),
        {"k": kind, "id": draft_id})
    return [ReviewEntry(i, action, editor, reason, json.loads(changes), _when(at))
            for i, action, editor, reason, changes, at in rows]


def review(engine: Engine, kind: str, draft_ids: Sequence[int], action: str, *, editor: str,
           reason: str = "", changes: Mapping[str, Any] | None = None,
           confirm_no_photos: bool = False) -> list[ReviewResult]:
    """Take ``action`` on each draft, one transaction per draft; refusals come back as results.

    One transaction per draft, not one for all: one refused or conflicting draft must not
    undo the others an editor reviewed in the same command. A draft without photos is
    approved only with ``confirm_no_photos`` (domain/review.py: decide_review).
    """
    t = _tables(kind)
    reason = kept_reason(reason)
    results = []
    for draft_id in draft_ids:
        ref = DraftRef(kind, draft_id)
        try:
            with engine.begin() as conn:
                results.append(_review_one(conn, t, ref, action, editor, reason,
                                           dict(changes or {}), is_postgres(engine),
                                           confirm_no_photos))
        except IntegrityError as exc:  # a race the checks did not see: rolled back, said so
            detail = str(exc.orig).strip().splitlines()[0] if exc.orig else "constraint"
            results.append(ReviewResult(str(ref), False,
                                        f"draft {ref}: the catalog refused the change ({detail})"))
    return results


def _review_one(conn: Connection, t: EntityTables, ref: DraftRef, action: str, editor: str,
                reason: str, changes: dict[str, Any], lock: bool,
                confirm_no_photos: bool) -> ReviewResult:
    editable = _DETAIL_COLUMNS[t.kind]
    row = conn.execute(
        text(f"SELECT status, is_deleted, {', '.join(editable)} FROM {t.drafts} WHERE id = :id"
             + (" FOR UPDATE" if lock else "")), {"id": ref.id}).first()
    if row is None:
        return ReviewResult(str(ref), False, f"no {t.kind} draft {ref.id}")
    status, deleted, *values = row
    photos = conn.execute(text(f"SELECT count(*) FROM {t.draft_images} WHERE draft_id = :id"),
                          {"id": ref.id}).scalar_one() if action == "approve" else None
    decision = decide_review(ref=ref, status=status, is_deleted=bool(deleted), action=action,
                             reason=reason, changes=changes,
                             current=dict(zip(editable, values, strict=True)), photos=photos,
                             confirm_no_photos=confirm_no_photos)
    if not decision.ok:
        return ReviewResult(str(ref), False, decision.message,
                            needs_confirmation=decision.needs_confirmation)
    missing = _missing_reference(conn, decision.changes)
    if missing:
        return ReviewResult(str(ref), False, f"draft {ref}: {missing}")
    updates = {name: new for name, (_old, new) in decision.changes.items()}
    if action in ("reject", "approve"):
        updates["reject_reason"] = reason.strip() if action == "reject" else ""
    assignments = "".join(f"{name} = :{name}, " for name in updates)
    conn.execute(text(f"UPDATE {t.drafts} SET {assignments}updated_at = CURRENT_TIMESTAMP"
                      " WHERE id = :id"), {**updates, "id": ref.id})
    conn.execute(
        text("INSERT INTO draft_reviews (draft_kind, draft_id, action, editor, reason, changes)"
             " VALUES (:k, :id, :a, :e, :r, :c)"),
        {"k": t.kind, "id": ref.id, "a": action, "e": editor, "r": reason.strip(),
         "c": json.dumps({k: list(v) for k, v in decision.changes.items()})})
    return ReviewResult(str(ref), True, decision.message, decision.changes)


def _missing_reference(conn: Connection, changes: Mapping[str, tuple[Any, Any]]) -> str | None:
    """Why an edit names a brand or city the catalog does not have, or None."""
    for name, table in REFERENCES.items():
        if name in changes:
            new = changes[name][1]
            found = conn.execute(text(f"SELECT 1 FROM {table} WHERE slug = :s"), {"s": new})
            if found.first() is None:
                what = "brand" if table == "brands" else "city"
                hint = " (register it with fashion-assets brands add)" if what == "brand" else ""
                return f"no {what} {new!r}{hint}"
    return None


def _tables(kind: str) -> EntityTables:
    if kind not in ENTITIES:
        raise ReviewError(f"unknown draft kind {kind!r} (runway or street)")
    return ENTITIES[kind]
