"""``fashion-assets coverage``: the shows the coverage sensor repairs, gave up on, retries."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING

import click

from fashion_assets.cli.common import WholeNumber, catalog_engine, echo_json, program
from fashion_assets.domain.wording import counted

if TYPE_CHECKING:
    from fashion_assets.catalog.coverage import IncompleteShow


@click.group()
def coverage() -> None:
    """Incomplete shows: those the coverage sensor still repairs or gave up on, and letting
    it try again."""


@coverage.command("list")
@click.option("--limit", type=WholeNumber(1), default=100, show_default=True,
              help="Shows listed at most.")
@click.option("--json", "as_json", is_flag=True, help="Print a machine-readable list.")
def coverage_list(limit: int, as_json: bool) -> None:
    """Incomplete shows: brand, season, photos stored of expected, and the coverage sensor's
    next attempt, or why it gave up; those it still repairs first."""
    from dataclasses import asdict

    from fashion_assets import crawler_settings
    from fashion_assets.catalog.coverage import coverage_report, incomplete_shows

    rules = crawler_settings.coverage_rules(crawler_settings.from_env())
    engine, now = catalog_engine(), datetime.now(UTC)
    report = coverage_report(engine, rules, now, limit=limit)
    shows = incomplete_shows(engine, rules, limit=limit)
    if as_json:
        echo_json({"incomplete": report.incomplete, "backing_off": report.backing_off,
                   "given_up": report.given_up, "shows": [asdict(show) for show in shows],
                   "given_up_shows": [vars(g) for g in report.given_up_shows]})
        return
    click.echo(f"{counted(report.incomplete, 'incomplete show')} ({report.backing_off} "
               f"backing off), {report.given_up} given up")
    for show in shows:
        expected = show.expected or "?"
        click.echo(f"show {show.show_id}\t{show.brand_slug}\t{show.season_code}\t{show.source}"
                   f"\t{show.stored}/{expected} photos\t{_repair_state(show, now)}")
    unlisted = report.incomplete + report.given_up - len(shows)
    if unlisted > 0:
        click.echo(f"... and {unlisted} more (--limit)")


def _repair_state(show: IncompleteShow, now: datetime) -> str:
    """Where the coverage sensor stands with an incomplete show, and why it is incomplete
    (why it gave up, else the latest reason the ingest log has), in words."""
    tries = counted(show.attempts, "re-fetch")
    if show.gave_up_at:
        return f"gave up {show.gave_up_at} after {tries}: {show.reason or show.last_reason}"
    why = f": {show.last_reason}" if show.last_reason else ""
    if show.next_attempt_at and datetime.fromisoformat(show.next_attempt_at) > now:
        return f"next attempt {show.next_attempt_at} ({tries} so far){why}"
    return "due now" + (f" ({tries} so far)" if show.attempts else " (never re-fetched)") + why


@coverage.command("retry")
@click.option("--brand", default=None, help="Every given-up show of this brand slug.")
@click.option("--show-id", "show_ids", type=WholeNumber(), multiple=True,
              help="A given-up show by id (see coverage list); repeat for several.")
def coverage_retry(brand: str | None, show_ids: tuple[int, ...]) -> None:
    """Let the coverage sensor re-fetch given-up shows again, from a fresh back-off."""
    from fashion_assets.catalog.coverage import UnknownShows, retry_given_up

    if not brand and not show_ids:
        raise click.UsageError("name the shows to retry: --brand or --show-id")
    try:
        count = retry_given_up(catalog_engine(), brand_slug=brand, show_ids=show_ids)
    except UnknownShows as exc:
        raise click.ClickException(f"{exc}: {program()} coverage list shows the given-up "
                                   "ones") from None
    click.echo(f"{counted(count, 'given-up show')} will be re-fetched by the coverage sensor")
