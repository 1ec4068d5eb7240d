"""The progress row of a crawl step, shared by every crawl asset: each step of a run
(listing, manifests, drafts, discovery) writes the run's row, so the status page, the CLI
and the stuck-run sensor see the run from its first request to its last write."""

from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

from dagster import AssetExecutionContext
from sqlalchemy import Engine

from fashion_assets.assets.policies import listing_failures
from fashion_assets.crawl import loop
from fashion_assets.crawl.http import Fetcher
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


def run_listing(context: AssetExecutionContext, engine: Engine, crawler: CrawlerResource,
                hosts: HostPolicy, *, unit: str, later: Sequence[str],
                read: Callable[[Fetcher], Awaitable[T]]) -> T:
    """The listing of the run's one partition (a season, a week), read by ``read`` with the
    run's fetcher, in the progress row; one that failed for good fails the step unretried."""
    tracker = step_progress(context, engine, crawler, "listing", 1, unit=unit, later=later)

    async def run() -> T:
        async with crawler.fetcher(hosts, engine) as fetcher, tracker.beating():
            return await read(fetcher)

    with listing_failures(), tracker:
        listing = loop.run(run())
        tracker.show_done(context.partition_key)
    return listing


def log_listing(context: AssetExecutionContext, partition: str, summary: str,
                skipped: Sequence[str]) -> None:
    """A listing's one line, then a warning per entry it skipped (each says why)."""
    context.log.info(f"{partition}: {summary}")
    for note in skipped:
        context.log.warning(f"{partition}: skipped listing entry: {note}")
