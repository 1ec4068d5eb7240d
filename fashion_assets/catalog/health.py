"""The counts partition health is judged on (``domain/health.py``), per runway partition.

A runway partition is a brand (Vogue's shows, ``brand_slug``) or a season code
(theImpression's galleries, ``season_code``) of one source. One statement per partition:
a crawl run covers one partition, or a batch of a few dozen.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from sqlalchemy import Engine, text

from fashion_assets.domain.health import PartitionCounts

PartitionColumn = Literal["brand_slug", "season_code"]

# A show failed when its latest manifest or ingest entry failed and no draft has its source
# key: the rule backpressure counts failed ingests by (catalog/backpressure.py).
_COUNTS = """
SELECT
  count(*),
  sum(CASE WHEN EXISTS (SELECT 1 FROM brand_runway_drafts d WHERE d.source = s.source
        AND d.source_url = s.source_url AND d.source_url <> '') THEN 1 ELSE 0 END),
  sum(CASE WHEN (SELECT l.outcome FROM ingest_log l WHERE l.source = s.source
        AND l.source_url = s.source_url AND l.stage IN ('ingest', 'manifest')
        ORDER BY l.id DESC LIMIT 1) = 'failed'
      AND NOT EXISTS (SELECT 1 FROM brand_runway_drafts d WHERE d.source = s.source
        AND d.source_url = s.source_url AND d.source_url <> '') THEN 1 ELSE 0 END),
  (SELECT count(*) FROM runway_missing_images m JOIN runway_shows x ON x.id = m.show_id
   WHERE x.source = :source AND x.{column} = :key),
  (SELECT count(*) FROM coverage_repairs r JOIN runway_shows x ON x.id = r.show_id
   WHERE x.source = :source AND x.{column} = :key AND r.gave_up_at IS NOT NULL)
FROM runway_shows s WHERE s.source = :source AND s.{column} = :key
"""


def runway_partition_counts(engine: Engine, source: str, column: PartitionColumn,
                            keys: Sequence[str]) -> dict[str, PartitionCounts]:
    """Per partition key, its shows, drafted shows, failed shows, missing photos and shows
    given up on, for ``source``."""
    if column not in ("brand_slug", "season_code"):
        raise ValueError(f"not a runway partition column: {column!r}")
    sql = text(_COUNTS.format(column=column))
    counts = {}
    with engine.connect() as conn:
        for key in keys:
            shows, drafted, failed, missing, given_up = conn.execute(
                sql, {"source": source, "key": key}).one()
            counts[key] = PartitionCounts(int(shows), int(drafted or 0), int(failed or 0),
                                          int(missing), int(given_up))
    return counts
