"""The drafts step every crawl ends with, runway shows and street articles alike: ingest the
run's items through the one ingest path, with progress per item in the run's log and in its
``crawl_progress`` row (for the status command, the /crawler page and the stuck-run rule).

The step's asset says what its items are called and how each is planned; this module runs
them, then heals the store for the items it touched (their photos the store lost, fetched
again: ``crawl/store_heal.py``), and hands back the results, the fetcher's counters and the
heal's report for the metadata.
"""

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from dagster import AssetExecutionContext
from sqlalchemy import Engine

from fashion_assets.assets.policies import interruptions_not_retried
from fashion_assets.assets.steps import step_progress
from fashion_assets.catalog.entities import EntityTables
from fashion_assets.crawl import loop
from fashion_assets.crawl.http import Fetcher
from fashion_assets.crawl.ingest import IngestResult
from fashion_assets.crawl.responses import FetchCounters
from fashion_assets.crawl.store_heal import heal_after_ingest
from fashion_assets.domain.hosts import HostPolicy
from fashion_assets.domain.ingest import draft_photos_gained
from fashion_assets.domain.store_heal import HealReport
from fashion_assets.domain.wording import counted
from fashion_assets.progress import ProgressLog
from fashion_assets.resources import CrawlerResource
from fashion_assets.storage import ObjectStore

R = TypeVar("R", bound=IngestResult[Any])


@dataclass(frozen=True)
class DraftsRun(Generic[R]):
    results: list[R]
    counters: FetchCounters
    done: int  # items of the progress row done, and its total
    total: int
    healed: HealReport  # the store heal of the items' photos


def run_drafts(context: AssetExecutionContext, engine: Engine, crawler: CrawlerResource,
               hosts: HostPolicy, count: int, *, store: ObjectStore, tables: EntityTables,
               unit: str, photos_planned: int,
               label: Callable[[R], tuple[str, str]], planned: Callable[[R], int],
               ingest: Callable[[Fetcher, Callable[[R], None]], Awaitable[list[R]]]
               ) -> DraftsRun[R]:
    """Ingest ``count`` items (``ingest`` with a fetcher and the per-item callback).

    ``label``: a result's line prefix in the log and its name in the progress row;
    ``planned``: the photos its item was planned with in ``photos_planned`` (each result
    corrects its share, so the total ends as the photos really handled). Then the photos of
    the items (``tables``' drafts and catalog entries) that ``store`` lost are fetched again.
    """
    progress = ProgressLog(context.log.info, count)
    tracker = step_progress(context, engine, crawler, "drafts", count, unit=unit,
                            photos_total=photos_planned)

    def on_result(result: R) -> None:
        line, name = label(result)
        progress.add(f"{line}: {result.outcome.value} ({_photos(result)}, "
                     f"{result.images_missing} missing)"
                     f"{' - ' + result.reason if result.reason else ''}")
        handled = result.images_stored + result.images_missing
        tracker.show_done(name, photos_done_delta=handled,
                          photos_total_delta=handled - planned(result))

    async def run() -> tuple[list[R], FetchCounters, HealReport]:
        async with crawler.fetcher(hosts, engine) as fetcher, tracker.beating():
            results = await ingest(fetcher, on_result)
            return results, fetcher.counters, await heal_after_ingest(
                fetcher, store, engine, tables, results, limits=crawler.limits(),
                on_done=tracker.progressed)

    with interruptions_not_retried(), tracker:
        results, counters, healed = loop.run(run())
    progress.flush()
    if healed.missing:
        context.log.warning(f"store heal: {healed.line()}")
    return DraftsRun(results, counters, tracker.shows_done, tracker.shows_total, healed)


def _photos(result: IngestResult[Any]) -> str:
    """The photos the item's draft gained (``draft_photos_gained``), and those fetched for
    it when they differ (a repair fetches photos the draft holds already, under new URLs)."""
    added = draft_photos_gained(result.outcome, result.images_stored, result.photos_added)
    return f"{counted(added, 'photo')} added" + (
        f" of {result.images_stored} fetched" if added != result.images_stored else "")
