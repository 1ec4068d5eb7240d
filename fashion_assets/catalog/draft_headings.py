"""The headings the review page shows drafts under: each draft's fields and the names the
catalog keeps for its brand and its city, read in one query per kind, made into headings by
the one naming rule (``domain/display_names.py: draft_heading``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from sqlalchemy import Engine, bindparam, text

from fashion_assets.catalog.entities import ENTITIES
from fashion_assets.domain.display_names import DraftHeading, draft_heading
from fashion_assets.domain.review import DraftRef

# What each kind's heading is made of, and the catalog's names joined to it.
_FIELDS = {
    "runway": ("brand_slug", "season_code", "title", "season", "year", "collection_type",
               "city", "city_name"),
    "street": ("city", "year", "month"),
}
_NAMES = {
    "runway": ("b.display_name", " LEFT JOIN brands b ON b.slug = d.brand_slug"),
    "street": ("CAST(NULL AS TEXT)", ""),
}


class _Draft(Protocol):
    """A draft's address: a ``DraftRef``, or a ``DraftSummary`` of the queue."""

    @property
    def kind(self) -> str: ...
    @property
    def id(self) -> int: ...


def draft_headings(engine: Engine, drafts: Iterable[_Draft]) -> dict[str, DraftHeading]:
    """The heading of each of ``drafts``, by its ref as ``DraftSummary.ref`` writes it ("12",
    "street:7"); a draft that does not exist has none."""
    ids: dict[str, list[int]] = {}
    for draft in drafts:
        ids.setdefault(draft.kind, []).append(draft.id)
    headings: dict[str, DraftHeading] = {}
    with engine.connect() as conn:
        for kind, wanted in ids.items():
            brand, brand_join = _NAMES[kind]
            columns = ", ".join(f"d.{name}" for name in _FIELDS[kind])
            query = text(
                f"SELECT d.id, {columns}, {brand}, c.display_name FROM {ENTITIES[kind].drafts} d"
                f"{brand_join} LEFT JOIN cities c ON c.slug = d.city WHERE d.id IN :ids"
            ).bindparams(bindparam("ids", expanding=True))
            for draft_id, *values in conn.execute(query, {"ids": sorted(set(wanted))}):
                *fields, brand_name, city_display = values
                headings[str(DraftRef(kind, int(draft_id)))] = draft_heading(
                    kind, dict(zip(_FIELDS[kind], fields, strict=True)),
                    brand_name=brand_name, city_display=city_display)
    return headings
