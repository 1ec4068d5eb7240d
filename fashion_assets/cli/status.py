"""``fashion-assets status``: the crawler, the automation and the catalog at a glance."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import click

from fashion_assets import settings
from fashion_assets.cli.common import (
    catalog_engine,
    echo_json,
    program,
    queue_instance,
    text_table,
)

if TYPE_CHECKING:
    from sqlalchemy import Engine


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print a machine-readable status.")
@click.option("--store", "count_store", is_flag=True,
              help="Also count the objects and bytes in the store (lists all of it: slow on "
                   "a big store, minutes on an archive in S3).")
def status(as_json: bool, count_store: bool) -> None:
    """The crawler's status line and progress, then brands, shows, drafts by status, photos
    stored, and with --store the objects and bytes in the store."""
    from fashion_assets.domain.automation_text import automation_line
    from fashion_assets.domain.promotion_text import waiting_hint
    from fashion_assets.domain.wording import agreeing, counted
    from fashion_assets.status import catalog_status, crawler_status

    engine = catalog_engine()
    with queue_instance() as (instance, note):
        crawler = crawler_status(engine, instance)
        switches = _switches(instance)
    if note:
        crawler["queue_note"] = note
    report = catalog_status(engine, settings.store_url(), settings.home_dir(),
                            count_store=count_store)
    automation = {**_automation(engine), "switches": switches}
    if as_json:
        echo_json({**report, "crawler": crawler, **automation})
        return
    click.echo(crawler["line"] + (f" ({crawler['queue_note']})" if crawler["queue_note"]
                                  else ""))
    _echo_crawls(crawler)
    _echo_automation(automation)
    click.echo(automation_line(switches["schedules_on"], switches["sensors_off"], program()))
    click.echo(f"database: {report['database']}")
    store = report["store"]
    click.echo(f"store:   {store['url']} - " + (
        f"{store['objects']} objects, {store['bytes']:,} bytes" if count_store
        else f"not counted ({program()} status --store counts its objects)"))
    click.echo(f"brands {report['brands']}, shows {report['shows']}, drafts "
               + ", ".join(f"{k} {v}" for k, v in report["drafts"].items())
               + f", photos in drafts {report['draft_images']}")
    click.echo(f"street style: articles {report['street_articles']}, drafts "
               + ", ".join(f"{k} {v}" for k, v in report["street_drafts"].items()))
    shown = report["catalog"]
    click.echo(f"promoted into the catalog: {counted(shown['shows'], 'show')} "
               f"({counted(shown['show_photos'], 'photo')}), "
               f"{counted(shown['street_albums'], 'street album')} "
               f"({counted(shown['street_photos'], 'photo')})")
    waiting = waiting_hint(sum(report["promotion_waiting"].values()), program())
    if waiting:
        click.echo(waiting)
    pending = report["pending_names"]
    click.echo(f"names waiting for an editor: {counted(pending['brand'], 'brand')}, "
               f"{counted(pending['city'], 'city')}; "
               f"{counted(report['waiting_for_name'], 'article')} "
               f"{agreeing(report['waiting_for_name'], 'waits', 'wait')} for them"
               + (f" ({program()} names list)" if sum(pending.values()) else ""))
    if report["per_brand"]:
        click.echo("\n" + text_table(report["per_brand"]))


def _switches(instance: Any) -> dict[str, list[str]]:
    """The schedules turned on and the sensors turned off in the instance (none without
    one: every one at its default)."""
    from fashion_assets.domain.automation_text import switched

    states = [] if instance is None else instance.all_instigator_state()
    return switched((s.name, s.instigator_type.value, s.status.value) for s in states)


def _automation(engine: Engine) -> dict[str, Any]:
    """Backpressure and coverage under the rules the crawler resource runs with."""
    from fashion_assets import crawler_settings
    from fashion_assets.status import automation_status

    crawler = crawler_settings.from_env()
    return automation_status(engine, crawler_settings.coverage_rules(crawler),
                             crawler_settings.backpressure_rules(crawler))


def _echo_automation(automation: Mapping[str, Any], limit: int = 5) -> None:
    """Backpressure's reason, then coverage: incomplete, backing off, given up and why."""
    gate, coverage = automation["backpressure"], automation["coverage"]
    since = f" (since {gate['changed_at']})" if gate["paused"] and gate["changed_at"] else ""
    click.echo(f"backpressure: {gate['reason']}{since}")
    click.echo(f"coverage: {coverage['incomplete']} incomplete shows ({coverage['backing_off']}"
               f" backing off), {coverage['given_up']} given up"
               + (f" ({program()} coverage list)" if coverage["given_up"] else ""))
    for show in coverage["given_up_shows"][:limit]:
        click.echo(f"  gave up {show['source_url']}: {show['reason']}")


def _echo_crawls(crawler: Mapping[str, Any]) -> None:
    """Per running crawl (brand, season or week): its step and how far it got (``manifests
    12/30 shows``), photos, the last thing done, heartbeat age; per run whose step waits for
    its retry, why and when; per row whose run Dagster has ended, how (never as running);
    then the queue."""
    for c in crawler["running"]:
        click.echo(f"  running {_crawl(c)}" + (
            " STALE (heartbeat older than the stuck threshold)" if c["stale"] else "")
            + f" [run {c['run_id']}]")
    for r in crawler["retrying"]:
        click.echo(f"  waiting {r['partition_key'] or '-'} ({r['job_name']}): {r['line']}"
                   f" [run {r['run_id']}]")
    for c in crawler["ended"]:
        click.echo(f"  ended {c['partition_key']} ({c['kind']}): Dagster ended its run "
                   f"({c['dagster_status']}) while its step was at {c['step']} "
                   f"{c['shows_done']}/{c['shows_total']} {c['unit']}; stuck_runs_sensor "
                   f"closes the row [run {c['run_id']}]")
    for q in crawler["queued"]:
        click.echo(f"  queued {q['partition_key'] or '-'} ({q['job_name']}): waiting "
                   f"{q['waiting']} [run {q['run_id']}]")


def _crawl(c: Mapping[str, Any]) -> str:
    """A running crawl's progress in words."""
    return (f"{c['partition_key']} ({c['kind']}): {c['step']} {c['shows_done']}/"
            f"{c['shows_total']} {c['unit']}, photos {c['photos_done']}/{c['photos_total']}, "
            f"last {c['current_show'] or '-'}, heartbeat {c['heartbeat_age']} ago")
