"""Pending names: the names no brand or city has yet, each waiting once for an editor.

A name is recorded once per normalized spelling, read back with how many articles and shows
wait on it, and marked once an editor decided it. The decisions themselves (approve, merge,
dismiss) and the release of what waited are ``catalog/names.py``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import Connection, Engine, text

from fashion_assets.domain.names import NameKind, normalize_name

# A pending name with the count of the articles and shows that wait on it (see _pending).
_SELECT_PENDING = (
    "SELECT p.id, p.kind, p.name, p.source, p.example_url, p.candidates, p.status,"
    " p.entity_slug, p.resolved_by,"
    " (SELECT count(*) FROM waiting_articles w WHERE w.pending_name_id = p.id)"
    " + (SELECT count(*) FROM runway_shows s WHERE s.city_pending_id = p.id),"
    " p.first_seen_at FROM pending_names p")


class NameActionError(ValueError):
    """An editor's action that cannot be carried out; the message says why."""


@dataclass(frozen=True)
class PendingName:
    id: int
    kind: str
    name: str
    source: str
    example_url: str
    candidates: tuple[str, ...]
    status: str
    entity_slug: str | None
    resolved_by: str
    waiting: int
    first_seen_at: str


def record_pending(conn: Connection, kind: NameKind, name: str, source: str, url: str,
                   candidates: Sequence[str]) -> tuple[int, str, str | None]:
    """Record ``name`` as pending once per normalized spelling (a later sighting changes
    nothing); the pending name's id, status and, once an editor decided, its entity."""
    conn.execute(
        text("INSERT INTO pending_names (kind, name, normalized, source, example_url, candidates)"
             " VALUES (:k, :name, :norm, :source, :url, :cand)"
             " ON CONFLICT (kind, normalized) DO NOTHING"),
        {"k": kind.value, "name": name, "norm": normalize_name(name), "source": source,
         "url": url, "cand": json.dumps(list(candidates))})
    pending_id, status, entity = conn.execute(
        text("SELECT id, status, entity_slug FROM pending_names"
             " WHERE kind = :k AND normalized = :norm"),
        {"k": kind.value, "norm": normalize_name(name)}).one()
    return int(pending_id), str(status), entity


def list_pending(engine: Engine, *, status: str | None = "pending",
                 kind: NameKind | None = None) -> list[PendingName]:
    """Pending names (or those of another status, or all with None), oldest first."""
    where, params = [], {}
    if status is not None:
        where.append("p.status = :status")
        params["status"] = status
    if kind is not None:
        where.append("p.kind = :kind")
        params["kind"] = kind.value
    sql = (_SELECT_PENDING + (" WHERE " + " AND ".join(where) if where else "")
           + " ORDER BY p.id")
    with engine.connect() as conn:
        return [_pending(row) for row in conn.execute(text(sql), params)]


def get_pending(conn: Connection, pending_id: int) -> PendingName:
    row = conn.execute(text(_SELECT_PENDING + " WHERE p.id = :id"), {"id": pending_id}).first()
    if row is None:
        raise NameActionError(f"no pending name with id {pending_id}")
    return _pending(row)


def _pending(row: Sequence[object]) -> PendingName:
    return PendingName(int(row[0]), str(row[1]), str(row[2]), str(row[3]), str(row[4]),
                       tuple(json.loads(str(row[5]))), str(row[6]),
                       None if row[7] is None else str(row[7]), str(row[8]), int(row[9]),
                       str(row[10]))


def open_pending(conn: Connection, pending_id: int) -> PendingName:
    """The pending name an editor acts on; NameActionError once it was decided."""
    pending = get_pending(conn, pending_id)
    if pending.status != "pending":
        raise NameActionError(f"name {pending_id} ({pending.name!r}) is {pending.status} already")
    return pending


def mark_decided(conn: Connection, pending_id: int, status: str, entity: str | None,
                 editor: str) -> None:
    """Record an editor's decision (``status``: approved, merged, dismissed) on the name."""
    conn.execute(
        text("UPDATE pending_names SET status = :st, entity_slug = :e, resolved_by = :by,"
             " resolved_at = :at WHERE id = :id"),
        {"st": status, "e": entity, "by": editor, "at": datetime.now(UTC), "id": pending_id})
