"""Run tag keys that the production instance's run queue limits (``deploy/dagster.yaml``).

The daemon's ``QueuedRunCoordinator`` counts queued and running runs by these tags, so a run
that should be limited must carry them (jobs, schedules and sensors set them on the runs they
request). The keys here and the ``tag_concurrency_limits`` of ``deploy/dagster.yaml`` must be
the same strings; ``tests/integration/test_instance_config.py`` checks that they are.

- ``CRAWL_TAG``: on every crawl run (Vogue, theImpression runway, street style), whatever its
  value, e.g. the crawl's kind (``brand``, ``season``, ``week``). At most 4 such runs at once.
- ``BRAND_TAG``: the brand slug the run crawls, or a name for the batch of brands it crawls.
  At most one run per distinct value at once, so one brand is never crawled twice in parallel.
- ``PROMOTION_TAG``: on every promotion run. One at a time.
"""

from fashion_assets.domain.batches import Batch

# Dagster's own tag on every run of one partition: limited like BRAND_TAG, so a brand
# launched by hand from the UI, which has no BRAND_TAG, still runs once at a time.
PARTITION_TAG = "dagster/partition"
# Dagster's own tags on a run of a range of partitions (its backfills tag theirs so): a crawl
# run of a batch carries them too, so the UI shows the range and the steps read it.
RANGE_START_TAG = "dagster/asset_partition_range_start"
RANGE_END_TAG = "dagster/asset_partition_range_end"
CRAWL_TAG = "fashion-assets/crawl"
BRAND_TAG = "fashion-assets/brand"
PROMOTION_TAG = "fashion-assets/promotion"


def batch_tags(batch: Batch, kind: str = "brand") -> dict[str, str]:
    """The tags of a crawl run over ``batch``: its partition range and the queue's tags
    (one run per batch at a time: ``BRAND_TAG`` names the batch)."""
    return {RANGE_START_TAG: batch.first, RANGE_END_TAG: batch.last, CRAWL_TAG: kind,
            BRAND_TAG: f"batch:{batch.label}"}
