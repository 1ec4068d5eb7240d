"""The ``store_heal_job`` and its schedule: objects the store lost, fetched again.

Each tick checks the next ``batch`` object keys that drafts and catalog photos reference (in
key order, from the cursor the catalog keeps; a pass ends at the last key and the next tick
starts over), fetches the lost ones again from the URLs their rows record and stores them
back under their keys; what cannot be fetched is listed with the reason
(``fashion-assets store missing``). The crawl heals the photos of the shows it touches
itself (``assets/drafts_step.py``); this job covers the rest of the archive. A thin shell:
the walk and the heal are ``crawl/store_heal.py``, the rule ``domain/store_heal.py``.
"""

import os
from collections.abc import Callable, Coroutine, Mapping, Sequence
from typing import Any, Protocol, TypeVar

from dagster import (
    Field,
    JobDefinition,
    OpExecutionContext,
    ScheduleDefinition,
    job,
    op,
)
from sqlalchemy import Engine

from fashion_assets import settings
from fashion_assets.crawl import loop
from fashion_assets.crawl.base import CrawlLimits
from fashion_assets.crawl.http import Fetcher
from fashion_assets.crawl.store_heal import Tick, heal_tick
from fashion_assets.domain.hosts import HostPolicy
from fashion_assets.domain.store_heal import Step
from fashion_assets.jobs.ticks import reporting_schedule
from fashion_assets.report import heal_metadata
from fashion_assets.sources.registry import SOURCES, Source
from fashion_assets.storage import ObjectStore

JOB_NAME = "store_heal_job"
OP_NAME = "heal_store"
SCHEDULE_NAME = "store_heal_schedule"


def batch_setting(env: Mapping[str, str] | None = None) -> int:
    """``FASHION_HEAL_BATCH``, checked at load so a bad value fails with its name."""
    return settings.positive_int(os.environ if env is None else env, "FASHION_HEAL_BATCH")


def every_source(resources: Any, sources: Sequence[Source]) -> HostPolicy:
    """The hosts any source's photos may come from: a lost photo is fetched from the URL its
    row records, whichever source that was, through the host policy that allowed it then."""
    allowed: frozenset[str] = frozenset()
    for source in sources:
        allowed |= getattr(resources, source.name).host_policy().allowed
    return HostPolicy(allowed)


class WalkTick(Protocol):
    """What both walks' ticks (the heal's, the scrub's) give the op: where the walk stands."""

    @property
    def step(self) -> Step: ...


T = TypeVar("T", bound=WalkTick)


def run_walk_tick(context: OpExecutionContext, sources: Sequence[Source], amount_key: str,
                  tick_of: Callable[[Fetcher, ObjectStore, Engine, int, CrawlLimits],
                                    Coroutine[Any, Any, T]],
                  line: Callable[[T], str],
                  metadata: Callable[[T, str, int], dict[str, object]]) -> T:
    """The body of the heal's and the scrub's ops, which differ only in the tick they run
    (``tick_of(fetcher, store, engine, amount, limits)``), what they log of it (``line``)
    and its metadata: the op config's ``amount_key`` checked, the crawl's client opened on
    every source's photo hosts, the tick run, logged and its metadata recorded."""
    amount = int(context.op_config[amount_key])
    if amount < 1:
        raise ValueError(f"{amount_key} must be at least 1, got {amount}")
    resources = context.resources
    crawler, store = resources.crawler, resources.store.open()
    hosts = every_source(resources, sources)
    engine = resources.catalog.engine()

    async def run() -> T:
        async with crawler.fetcher(hosts, engine) as fetcher:
            return await tick_of(fetcher, store, engine, amount, crawler.limits())

    tick = loop.run(run())
    context.log.info(f"{store.url}: {line(tick)}"
                     + ("; the pass is complete, the next tick starts over"
                        if tick.step.wrapped else ""))
    context.add_output_metadata(metadata(tick, store.url, amount))
    return tick


def tick_metadata(tick: Tick, store_url: str, batch: int) -> dict[str, object]:
    """The tick's output metadata: where in the walk it was, and the heal's counts."""
    step = tick.step
    return {
        "store": store_url,
        "batch": batch,
        "walk_after": step.after or "(first key)",
        "walk_upto": step.upto or "(last key)",
        "pass_complete": step.wrapped,
        "passes_completed": tick.cursor.passes + int(step.wrapped),
        **heal_metadata(tick.report),
        "still_missing_listed_by": "fashion-assets store missing",
    }


def build_store_heal_job(env: Mapping[str, str] | None = None,
                         sources: Sequence[Source] = SOURCES) -> JobDefinition:
    """The job, its ``batch`` defaulting to ``FASHION_HEAL_BATCH`` of ``env``; it needs the
    resource of every source in ``sources`` (their photo hosts)."""
    default_batch = batch_setting(env)

    @op(name=OP_NAME,
        required_resource_keys={"catalog", "store", "crawler", *(s.name for s in sources)},
        config_schema={"batch": Field(int, default_value=default_batch,
                                      description="Referenced photos checked this tick.")})
    def heal_store(context: OpExecutionContext) -> Tick:
        """Check the next batch of referenced photos; fetch the lost ones again."""
        return run_walk_tick(
            context, sources, "batch",
            lambda fetcher, store, engine, batch, limits: heal_tick(
                fetcher, store, engine, batch, limits=limits),
            lambda tick: tick.report.line(), tick_metadata)

    @job(name=JOB_NAME, description="Fetch again the photos the object store lost, from the "
         "source URLs their drafts and catalog rows record: a batch of referenced photos per "
         "run, in key order, starting over after the last one.")
    def store_heal_job() -> None:
        heal_store()

    return store_heal_job


def build_store_heal_schedule(env: Mapping[str, str] | None = None) -> ScheduleDefinition:
    """A tick at ``FASHION_HEAL_CRON`` (UTC, hourly by default); starts stopped."""
    cron = settings.setting(os.environ if env is None else env, "FASHION_HEAL_CRON")
    return reporting_schedule(
        name=SCHEDULE_NAME, cron=cron, job_name=JOB_NAME,
        description="Fetches again the next FASHION_HEAL_BATCH photos the store lost, by the "
                    "walk of every referenced photo.")
