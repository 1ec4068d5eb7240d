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
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Engine, text
from sqlalchemy.exc import IntegrityError

from fashion_assets.catalog.db import is_postgres
from fashion_assets.catalog.entities import ENTITIES, EntityTables, same_entity
from fashion_assets.domain.review import REFERENCES, DraftRef, decide_review

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


@dataclass(frozen=True)
class ReviewResult:
    """What one action did to one draft; ``ok`` False: refused, nothing written."""

    ref: str
    ok: bool
    message: str
    changes: dict[str, tuple[Any, Any]] = field(default_factory=dict)


def _when(value: Any) -> str:
    """Timestamps as one text shape on both databases (SQLite returns text already)."""
    if isinstance(value, datetime):
        return value.isoformat(sep=" ", timespec="seconds")
    return str(value)


def _summary_select(t: EntityTables, where: str) -> str:
    return (f"SELECT '{t.kind}' AS kind, d.id, d.source, d.source_url,"
            f" {_SUMMARY_COLUMNS[t.kind]}, d.title, d.status, d.is_deleted, d.reject_reason,"
            f" (SELECT count(*) FROM {t.draft_images} i WHERE i.draft_id = d.id) AS photos,"
            f" d.created_at FROM {t.drafts} d WHERE {where}")


def _summary(row: Any) -> DraftSummary:
    kind, draft_id, *rest = row
    values = list(rest)
    values[9] = bool(values[9])  # is_deleted: 0/1 on SQLite
    values[-1] = _when(values[-1])
    return DraftSummary(kind, draft_id, str(DraftRef(kind, draft_id)), *values)


def list_drafts(engine: Engine, *, kind: str | None = None, status: str | None = None,
                brand: str | None = None, city: str | None = None, source: str | None = None,
                include_deleted: bool = False, limit: int = 100,
                offset: int = 0) -> list[DraftSummary]:
    """The drafts matching every filter given, oldest first (the order they wait in).

    ``brand`` only matches runway drafts, so it leaves street drafts out; ``city`` matches
    both (a runway draft's city is the one its title named).
    """
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
        selects.append(_summary_select(t, " AND ".join(conditions + extra)))
    if not selects:
        return []
    sql = (f"SELECT * FROM ({' UNION ALL '.join(selects)}) u"
           " ORDER BY created_at, kind, id LIMIT :limit OFFSET :offset")
    params = {"status": status, "city": city, "source": source, "brand": brand,
              "limit": limit, "offset": offset}
    with engine.connect() as conn:
        return [_summary(row) for row in conn.execute(text(sql), params)]


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
        return DraftDetail(_summary(row), fields, photos, _trail(conn, kind, draft_id), siblings)


def _trail(conn: Connection, kind: str, draft_id: int) -> list[ReviewEntry]:
    rows = conn.execute(
        text("SELECT id, action, editor, reason, changes, created_at FROM draft_reviews"
             " WHERE draft_kind = :k AND draft_id = :id ORDER BY id"),
        {"k": kind, "id": draft_id})
    return [ReviewEntry(i, action, editor, reason, json.loads(changes), _when(at))
            for i, action, editor, reason, changes, at in rows]


def review(engine: Engine, kind: str, draft_ids: Sequence[int], action: str, *, editor: str,
           reason: str = "", changes: Mapping[str, Any] | None = None) -> list[ReviewResult]:
    """Take ``action`` on each draft, one transaction per draft; refusals come back as results.

    One transaction per draft, not one for all: one refused or conflicting draft must not
    undo the others an editor reviewed in the same command.
    """
    t = _tables(kind)
    results = []
    for draft_id in draft_ids:
        ref = DraftRef(kind, draft_id)
        try:
            with engine.begin() as conn:
                results.append(_review_one(conn, t, ref, action, editor, reason,
                                           dict(changes or {}), is_postgres(engine)))
        except IntegrityError as exc:  # a race the checks did not see: rolled back, said so
            detail = str(exc.orig).strip().splitlines()[0] if exc.orig else "constraint"
            results.append(ReviewResult(str(ref), False,
                                        f"draft {ref}: the catalog refused the change ({detail})"))
    return results


def _review_one(conn: Connection, t: EntityTables, ref: DraftRef, action: str, editor: str,
                reason: str, changes: dict[str, Any], lock: bool) -> ReviewResult:
    editable = _DETAIL_COLUMNS[t.kind]
    row = conn.execute(
        text(f"SELECT status, is_deleted, {', '.join(editable)} FROM {t.drafts} WHERE id = :id"
             + (" FOR UPDATE" if lock else "")), {"id": ref.id}).first()
    if row is None:
        return ReviewResult(str(ref), False, f"no {t.kind} draft {ref.id}")
    status, deleted, *values = row
    decision = decide_review(ref=ref, status=status, is_deleted=bool(deleted), action=action,
                             reason=reason, changes=changes,
                             current=dict(zip(editable, values, strict=True)))
    if not decision.ok:
        return ReviewResult(str(ref), False, decision.message)
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
