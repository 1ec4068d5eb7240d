"""The counts partition health is judged on (``domain/health.py``), per partition.

A runway partition is a brand (Vogue's shows, ``brand_slug``) or a season code
(theImpression's galleries, ``season_code``) of one source; a street-style partition is a
fashion week (``week_slug``) of its articles. One grouped statement for all the partitions
of a run: one partition, or a batch of a few dozen.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from sqlalchemy import Engine, text

from fashion_assets.catalog.entities import has_draft, same_source
from fashion_assets.domain.health import PartitionCounts

PartitionKind = Literal["brand", "season", "week"]


@dataclass(frozen=True)
class _Layout:
    """Where one kind of partition's articles, drafts and missing photos are."""

    articles: str
    column: str
    drafts: str
    missing: str
    missing_article: str
    given_up: bool  # runway shows have coverage repairs; street articles do not


_LAYOUTS: dict[str, _Layout] = {
    "brand": _Layout("runway_shows", "brand_slug", "brand_runway_drafts",
                     "runway_missing_images", "show_id", True),
    "season": _Layout("runway_shows", "season_code", "brand_runway_drafts",
                      "runway_missing_images", "show_id", True),
    "week": _Layout("street_style_articles", "week_slug", "street_snap_drafts",
                    "street_missing_images", "article_id", False),
}


def _counts_sql(layout: _Layout, keys: int) -> str:
    """One row per partition key (``:k0`` to ``:k<keys - 1>``), a key without articles too.

    A failed article's latest manifest or ingest entry failed and no draft has its source
    key: the rule backpressure counts failed ingests by (catalog/backpressure.py).
    """
    drafted = has_draft(layout.drafts, "s")
    key = "wanted.partition_key"
    given_up = ("(SELECT count(*) FROM coverage_repairs r JOIN runway_shows x"
                f" ON x.id = r.show_id WHERE x.source = :source AND x.{layout.column} = {key}"
                " AND r.gave_up_at IS NOT NULL)") if layout.given_up else "0"
    wanted = ", ".join(f"(:k{n})" for n in range(keys))
    return (
        f"WITH wanted (partition_key) AS (VALUES {wanted})"
        f" SELECT {key}, count(s.id), sum(CASE WHEN {drafted} THEN 1 ELSE 0 END),"
        " sum(CASE WHEN (SELECT l.outcome FROM ingest_log l WHERE"
        f"  {same_source('l', 's')} AND l.stage IN ('ingest', 'manifest')"
        f"  ORDER BY l.id DESC LIMIT 1) = 'failed' AND NOT {drafted} THEN 1 ELSE 0 END),"
        f" (SELECT count(*) FROM {layout.missing} m JOIN {layout.articles} x"
        f"  ON x.id = m.{layout.missing_article}"
        f"  WHERE x.source = :source AND x.{layout.column} = {key}),"
        f" {given_up}"
        f" FROM wanted LEFT JOIN {layout.articles} s"
        f" ON s.source = :source AND s.{layout.column} = {key}"
        f" GROUP BY {key}")


def partition_counts(engine: Engine, kind: PartitionKind, source: str,
                     keys: Sequence[str]) -> dict[str, PartitionCounts]:
    """Per partition key, its shows (or articles), drafted ones, failed ones, missing
    photos and shows given up on, for ``source``."""
    if kind not in _LAYOUTS:
        raise ValueError(f"not a kind of partition: {kind!r}")
    wanted = list(dict.fromkeys(keys))  # a key twice would count its articles twice
    if not wanted:
        return {}
    sql = text(_counts_sql(_LAYOUTS[kind], len(wanted)))
    params = {"source": source} | {f"k{n}": key for n, key in enumerate(wanted)}
    with engine.connect() as conn:
        rows = {row[0]: row[1:] for row in conn.execute(sql, params)}
    return {key: PartitionCounts(*(int(number or 0) for number in rows[key])) for key in wanted}
