"""The progress row of a crawl step, shared by every crawl asset: each step of a run
(listing, manifests, drafts, discovery) writes the run's row, so the status page, the CLI
and the stuck-run sensor see the run from its first request to its last write."""

from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

from dagster import AssetExecutionContext
from sqlalchemy import Engine

from fashion_assets.assets.policies import interruptions_not_retried, listing_failures
from fashion_assets.crawl import loop
from fashion_assets.crawl.http import Fetcher
from fashion_assets.crawl.runway import ListingError
from fashion_assets.domain.hosts import HostPolicy
from fashion_assets.progress import CrawlProgress, runs_later
from fashion_assets.resources import CrawlerResource

T = TypeVar("T")


def step_progress(context: AssetExecutionContext, engine: Engine, crawler: CrawlerResource,
                  step: str, total: int, *, unit: str = "shows", later: Sequence[str] = (),
                  photos_total: int = 0, partition: str | None = None) -> CrawlProgress:
    """The progress of this step in the run's row (``later``: the steps that may follow it in
    the run; the last step of the run ends the row). ``partition`` names what an asset
    without partitions works on."""
    label = partition if partition is not None else partition_label(context)
    return CrawlProgress(engine, context.run.run_id, context.asset_key.to_user_string(),
                         label, total, step=step, unit=unit,
                         last_step=not runs_later(context, *later), photos_total=photos_total,
                         warn=context.log.warning, heartbeat_s=crawler.heartbeat_seconds,
                         stuck_after_s=crawler.stuck_after_seconds)


def partition_label(context: AssetExecutionContext) -> str:
    """The run's partition, or its range ``first..last`` when it covers a batch."""
    if context.has_partition_key_range:
        keys = context.partition_key_range
        if keys.start != keys.end:
            return f"{keys.start}..{keys.end}"
    return context.partition_key


def read_listings(context: AssetExecutionContext, engine: Engine, crawler: CrawlerResource,
                  hosts: HostPolicy, *, unit: str, later: Sequence[str],
                  read: Callable[[Fetcher, str], Awaitable[T]]
                  ) -> tuple[list[tuple[str, T]], list[tuple[str, str]]]:
    """The listing of each partition of the run (a brand, a season, a week; or a range of
    them: a batch), read by ``read`` with a fetcher of its own, in the progress row; the
    listings read and the partitions that failed, with why.

    A listing that failed for good fails the step unretried when the run has one partition;
    in a batch the others go on, and the failure is in the ingest log and the metadata. A
    failure a retry can fix (the source did not answer) is raised as is for the retry
    policy when the run has one partition.
    """
    keys = context.partition_keys
    tracker = step_progress(context, engine, crawler, "listing", len(keys), unit=unit,
                            later=later)

    async def run(key: str) -> T:
        async with crawler.fetcher(hosts, engine) as fetcher, tracker.beating():
            return await read(fetcher, key)

    listed: list[tuple[str, T]] = []
    failed: list[tuple[str, str]] = []
    with interruptions_not_retried(), tracker:
        for key in keys:
            try:
                listed.append((key, loop.run(run(key))))
            except ListingError as exc:
                if len(keys) == 1:
                    with listing_failures():
                        raise
                context.log.warning(f"{exc}; the batch goes on with its other {unit}")
                failed.append((key, str(exc)))
            tracker.show_done(key)
    return listed, failed


def log_listing(context: AssetExecutionContext, partition: str, summary: str,
                skipped: Sequence[str]) -> None:
    """A listing's one line, then a warning per entry it skipped (each says why)."""
    context.log.info(f"{partition}: {summary}")
    for note in skipped:
        context.log.warning(f"{partition}: skipped listing entry: {note}")
