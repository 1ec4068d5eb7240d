"""``fashion-assets store``: the photos the object store lost or holds damaged, and healing them."""

from __future__ import annotations

import sys

import click

from fashion_assets.cli.common import (
    WholeNumber,
    catalog_engine,
    echo_json,
    program,
    run_and_follow,
)
from fashion_assets.domain.wording import counted


@click.group()
def store() -> None:
    """Photos the object store lost or holds damaged: those it could not fetch again, and a
    heal or a scrub now."""


@store.command("missing")
@click.option("--limit", type=WholeNumber(1), default=100, show_default=True,
              help="Lost photos listed at most.")
@click.option("--json", "as_json", is_flag=True, help="Print a machine-readable list.")
def store_missing(limit: int, as_json: bool) -> None:
    """Lost photos the store heal could not fetch again: object key, reason, the source URL
    tried, when, and the detail; then where the heal's walk of the archive stands."""
    from fashion_assets.catalog.store_heal import lost_counts, lost_rows, read_cursor

    engine = catalog_engine()
    total, by_reason = lost_counts(engine)
    rows, cursor = lost_rows(engine, limit), read_cursor(engine)
    walk = {"passes_completed": cursor.passes, "next_after": cursor.after,
            "pass_started_at": cursor.pass_started_at and cursor.pass_started_at.isoformat()}
    if as_json:
        echo_json({"missing": total, "by_reason": by_reason, "walk": walk,
                   "objects": [{**vars(row), "recorded_at": row.recorded_at.isoformat()}
                               for row in rows]})
        return
    reasons = ", ".join(f"{count} {reason}" for reason, count in by_reason.items())
    click.echo(f"{counted(total, 'lost photo')} could not be fetched again"
               + (f": {reasons}" if reasons else ""))
    for row in rows:
        click.echo(f"{row.object_key}\t{row.reason}\t{row.url or '-'}\t"
                   f"{row.recorded_at:%Y-%m-%d %H:%M}\t{row.detail}")
    if len(rows) == limit:
        click.echo("... there may be more (--limit)")
    where = f"after {cursor.after[:12]}..." if cursor.after else "from the first photo"
    click.echo(f"store heal: {counted(cursor.passes, 'pass')} over the archive completed; the "
               f"next tick checks {where} ({program()} store heal runs one now)")


@store.command("heal")
@click.option("--batch", type=WholeNumber(1), default=None,
              help="Referenced photos to check (default FASHION_HEAL_BATCH).")
@click.option("--json", "as_json", is_flag=True, help="Print the tick's figures as JSON.")
def store_heal(batch: int | None, as_json: bool) -> None:
    """Run a tick of store_heal_job now (what store_heal_schedule does): check the next
    referenced photos, fetch the lost ones again from their source URLs."""
    from fashion_assets.jobs.store_heal import JOB_NAME, OP_NAME

    config = {"ops": {OP_NAME: {"config": {"batch": batch}}}} if batch is not None else {}
    summary = run_and_follow(JOB_NAME, step=OP_NAME, run_config=config)
    if as_json:
        echo_json(summary)
    elif summary["success"]:
        reasons = ", ".join(f"{row['objects']} {row['reason']}"
                            for row in summary.get("heal_still_missing_by_reason", []))
        click.echo(f"{counted(summary['heal_checked'], 'photo')} checked, "
                   f"{summary['heal_missing']} missing from the store, "
                   f"{summary['heal_healed']} fetched again, "
                   f"{summary['heal_still_missing']} still missing"
                   + (f" ({reasons}; {program()} store missing)" if reasons else "")
                   + ("; the walk of the archive is complete and starts over"
                      if summary["pass_complete"] else ""))
    else:
        click.echo(f"store heal: FAILED - {summary['error']}")
    if not summary["success"]:
        sys.exit(1)


@store.command("scrub")
@click.option("--budget", type=WholeNumber(1), default=None,
              help="Bytes of stored photos to read (default FASHION_SCRUB_BYTES).")
@click.option("--json", "as_json", is_flag=True, help="Print the tick's figures as JSON.")
def store_scrub(budget: int | None, as_json: bool) -> None:
    """Run a tick of store_scrub_job now (what store_scrub_schedule does): read the next
    referenced photos in full, check each against its key, fetch the damaged ones again."""
    from fashion_assets.jobs.store_scrub import JOB_NAME, OP_NAME

    config = {"ops": {OP_NAME: {"config": {"budget": budget}}}} if budget is not None else {}
    summary = run_and_follow(JOB_NAME, step=OP_NAME, run_config=config)
    if as_json:
        echo_json(summary)
    elif summary["success"]:
        click.echo(f"{counted(summary['scrub_read_objects'], 'photo')} read "
                   f"({counted(summary['scrub_read_bytes'], 'byte')}), "
                   f"{summary['scrub_damaged']} "
                   f"damaged, {summary['heal_healed']} fetched again, "
                   f"{summary['heal_still_missing']} listed as lost"
                   + (f" ({program()} store missing)" if summary["heal_still_missing"] else "")
                   + ("; the walk of the archive is complete and starts over"
                      if summary["pass_complete"] else ""))
    else:
        click.echo(f"store scrub: FAILED - {summary['error']}")
    if not summary["success"]:
        sys.exit(1)
