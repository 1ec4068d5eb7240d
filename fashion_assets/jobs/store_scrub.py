"""The ``store_scrub_job`` and its schedule: stored objects read again, damaged ones healed.

Each tick reads the next referenced objects in key order (the walk of
``jobs/store_heal.py``, from a cursor of its own) until ``budget`` bytes are read, checks
the sha1 of each one's bytes against its key, and treats a mismatch as a lost object: it is
removed, fetched again from the URLs its rows record and stored back, or listed with the
reason (``fashion-assets store missing``). A thin shell: the walk and the heal are
``crawl/store_scrub.py``, the rules ``domain/store_scrub.py``.
"""

import os
from collections.abc import Mapping, Sequence

from dagster import (
    Field,
    JobDefinition,
    OpExecutionContext,
    ScheduleDefinition,
    job,
    op,
)

from fashion_assets import settings
from fashion_assets.crawl.store_scrub import ScrubTick, scrub_tick
from fashion_assets.domain.wording import counted
from fashion_assets.jobs.store_heal import run_walk_tick
from fashion_assets.jobs.ticks import reporting_schedule
from fashion_assets.report import heal_metadata, table
from fashion_assets.sources.registry import SOURCES, Source

JOB_NAME = "store_scrub_job"
OP_NAME = "scrub_store"
SCHEDULE_NAME = "store_scrub_schedule"


def budget_setting(env: Mapping[str, str] | None = None) -> int:
    """``FASHION_SCRUB_BYTES``, checked at load so a bad value fails with its name."""
    return settings.positive_int(os.environ if env is None else env, "FASHION_SCRUB_BYTES")


def tick_metadata(tick: ScrubTick, store_url: str, budget: int) -> dict[str, object]:
    """The tick's output metadata: the bytes it read, where it was in the walk, the damage
    it found and what fetching the damaged objects again gave."""
    step, walked = tick.step, tick.walked
    return {
        "store": store_url,
        "budget_bytes": budget,
        "scrub_read_objects": len(walked.read),
        "scrub_read_bytes": walked.bytes_read,
        "scrub_damaged": len(tick.damaged),
        **(table("scrub_damaged_table", [("object key", "string"), ("damage", "string"),
                                         ("detail", "string")],
                 [(d.key, d.reason, d.detail) for d in tick.damaged[:100]])
           if tick.damaged else {}),
        "walk_after": step.after or "(first key)",
        "walk_upto": step.upto or "(last key)",
        "pass_complete": step.wrapped,
        "passes_completed": tick.cursor.passes + int(step.wrapped),
        **heal_metadata(tick.report),
        "still_missing_listed_by": "fashion-assets store missing",
    }


def scrub_line(tick: ScrubTick) -> str:
    """What the tick's log line says: what it read, the damage, what the heal gave."""
    return (f"{counted(len(tick.walked.read), 'photo')} read "
            f"({counted(tick.walked.bytes_read, 'byte')}), "
            f"{len(tick.damaged)} damaged; {tick.report.line()}")


def build_store_scrub_job(env: Mapping[str, str] | None = None,
                          sources: Sequence[Source] = SOURCES) -> JobDefinition:
    """The job, its ``budget`` defaulting to ``FASHION_SCRUB_BYTES`` of ``env``; it needs
    the resource of every source in ``sources`` (their photo hosts)."""
    default_budget = budget_setting(env)

    @op(name=OP_NAME,
        required_resource_keys={"catalog", "store", "crawler", *(s.name for s in sources)},
        config_schema={"budget": Field(int, default_value=default_budget,
                                       description="Bytes of stored photos read this tick.")})
    def scrub_store(context: OpExecutionContext) -> ScrubTick:
        """Read the next budget of referenced photos; fetch the damaged ones again."""
        return run_walk_tick(
            context, sources, "budget",
            lambda fetcher, store, engine, budget, limits: scrub_tick(
                fetcher, store, engine, budget, limits=limits),
            scrub_line, tick_metadata)

    @job(name=JOB_NAME, description="Read stored photos again and check each one's bytes "
         "against its key (their sha1); fetch the damaged ones again from the source URLs "
         "their rows record: a byte budget of referenced photos per run, in key order, "
         "starting over after the last one.")
    def store_scrub_job() -> None:
        scrub_store()

    return store_scrub_job


def build_store_scrub_schedule(env: Mapping[str, str] | None = None) -> ScheduleDefinition:
    """A tick at ``FASHION_SCRUB_CRON`` (UTC, hourly by default); starts stopped."""
    cron = settings.setting(os.environ if env is None else env, "FASHION_SCRUB_CRON")
    return reporting_schedule(
        name=SCHEDULE_NAME, cron=cron, job_name=JOB_NAME,
        description="Reads the next FASHION_SCRUB_BYTES of stored photos, checks each "
                    "against its key and fetches the damaged ones again.")
