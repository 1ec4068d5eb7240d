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

# Dagster's own tag on every run of one partition: limited like BRAND_TAG, so a brand
# launched by hand from the UI, which has no BRAND_TAG, still runs once at a time.
PARTITION_TAG = "dagster/partition"
CRAWL_TAG = "fashion-assets/crawl"
BRAND_TAG = "fashion-assets/brand"
PROMOTION_TAG = "fashion-assets/promotion"
