"""The ``fashion-assets`` command: crawl, brands, status, the demo and the replica.

Commands run the same Dagster definitions as the UI, in-process, on the instance in
``DAGSTER_HOME`` (a persistent folder under ``FASHION_HOME`` when unset), so every run the
CLI makes shows up in ``dagster dev`` afterwards.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sys
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import click

from fashion_assets import settings
from fashion_assets.commands import typed_command

if TYPE_CHECKING:
    from fashion_assets.catalog.coverage import IncompleteShow
    from fashion_assets.catalog.names import Release

BRAND_SLUG = re.compile(r"^[a-z0-9][a-z0-9-]{0,119}$")


def _brand_slug(value: str) -> str:
    if not BRAND_SLUG.match(value):
        raise click.BadParameter(
            f"{value!r} is not a brand slug (lowercase letters, digits and '-', as in the "
            "source's designer URL, e.g. 'maison-martin-margiela')")
    return value


def _engine(env: Mapping[str, str] | None = None):  # -> Engine
    from fashion_assets.resources import catalog_engine

    return catalog_engine(settings.database_url(env))


@click.group()
def main() -> None:
    """fashion-assets: a reviewed archive of fashion imagery, as a Dagster code location."""


def _slugs(what: str) -> object:
    return lambda ctx, param, values: [_checked_slug(v, what) for v in values]


def _checked_slug(value: str, what: str) -> str:
    if not BRAND_SLUG.match(value):
        raise click.BadParameter(
            f"{value!r} is not a {what} (lowercase letters, digits and '-', as in the "
            "source's URL)")
    return value


@main.command()
@click.option("--brand", "brands", multiple=True, callback=lambda c, p, v:
              [_brand_slug(b) for b in v], help="Vogue brand slug to crawl; repeat for several.")
@click.option("--season", "seasons", multiple=True, callback=_slugs("season code"),
              help="theImpression runway season to crawl (a season code such as "
                   "spring-2020-ready-to-wear); repeat for several.")
@click.option("--week", "weeks", multiple=True, callback=_slugs("fashion week slug"),
              help="theImpression street-style week to crawl (its listing slug, such as "
                   "copenhagen-fashion-week); repeat for several.")
@click.option("--all", "crawl_all", is_flag=True,
              help="Every brand of the catalog, in batches of FASHION_CRAWL_BATCH_BRANDS "
                   "brands per run.")
@click.option("--workers", type=click.IntRange(min=1), default=os.cpu_count() or 1,
              show_default="the number of CPUs",
              help="Partitions crawled at once, each in its own process (1: all in this one).")
@click.option("--json", "as_json", is_flag=True, help="Print a machine-readable summary.")
@click.option("--verbose", is_flag=True,
              help="Print Dagster's event stream (every step's events, stack traces) instead "
                   "of the progress per show.")
def crawl(brands: list[str], seasons: list[str], weeks: list[str], crawl_all: bool,
          workers: int, as_json: bool, verbose: bool) -> None:
    """Crawl brands (Vogue), seasons (theImpression runway) and fashion weeks (street style).

    One Dagster run per partition, with progress per show or article on stderr and a line
    per partition as its run ends; --all crawls every brand of the catalog in runs of
    FASHION_CRAWL_BATCH_BRANDS brands (partition ranges).
    """
    from fashion_assets.runs import RunLog, crawl_in_workers, summary_line

    targets = ([("brand", b) for b in brands] + [("season", s) for s in seasons]
               + [("week", w) for w in weeks])
    if crawl_all:
        from fashion_assets.runs import all_brand_targets, dagster_instance

        targets += all_brand_targets(dagster_instance())
    if not targets:
        raise click.UsageError("name something to crawl: --brand, --season, --week or --all")
    program = typed_command("fashion-assets")
    summaries = crawl_in_workers(
        targets, workers, run_log=RunLog.EVENTS if verbose else RunLog.PROGRESS,
        on_summary=lambda s: None if as_json else click.echo(summary_line(s, program=program)))
    if as_json:
        click.echo(json.dumps({"crawls": summaries}, indent=2))
    if not all(s["success"] for s in summaries):
        sys.exit(1)


@main.group()
def brands() -> None:
    """Register and list brands (each brand is a partition)."""


@brands.command("add")
@click.argument("slug", callback=lambda c, p, v: _brand_slug(v))
@click.option("--name", default="", help="Display name (filled from the source when empty).")
def brands_add(slug: str, name: str) -> None:
    """Register a brand in the catalog and add its partition."""
    from fashion_assets.runs import dagster_instance, register_brands

    new = register_brands([(slug, name)], dagster_instance())
    click.echo(f"{'added' if new else 'already registered'}: {slug}")


@brands.command("discover")
@click.option("--json", "as_json", is_flag=True, help="Print the discovery's figures as JSON.")
def brands_discover(as_json: bool) -> None:
    """Register the designers Vogue lists that the catalog lacks (what
    designer_discovery_schedule does), within FASHION_DISCOVERY_ALLOW/_DENY."""
    from fashion_assets.runs import RunLog, dagster_instance, discover_designers

    summary = discover_designers(dagster_instance(), run_log=RunLog.PROGRESS)
    if as_json:
        click.echo(json.dumps(summary, indent=2))
    elif summary["success"]:
        click.echo(f"{summary['listed']} designers listed: {summary['new_designers']} new "
                   f"(registered), {summary['known']} known, {summary['out_of_scope']} out of "
                   f"scope, {summary['held_for_editor']} waiting for an editor "
                   f"({typed_command('fashion-assets')} names list), "
                   f"{summary['pages_failed']} pages not read")
    else:
        click.echo(f"discovery: FAILED - {summary['error']}")
    if not summary["success"]:
        sys.exit(1)


@brands.command("list")
def brands_list() -> None:
    """List registered brands."""
    from fashion_assets.catalog.runway import list_brands

    for brand in list_brands(_engine()):
        click.echo(f"{brand.slug}\t{brand.display_name}")


@main.group()
def names() -> None:
    """Brand and city names no entity matched, waiting for an editor."""


def _editor() -> str:
    return os.environ.get("FASHION_EDITOR") or os.environ.get("USER") or "cli"


@names.command("list")
@click.option("--status", type=click.Choice(["pending", "approved", "merged", "dismissed",
                                             "all"]), default="pending", show_default=True)
@click.option("--kind", type=click.Choice(["brand", "city"]), default=None,
              help="Only brands or only cities.")
@click.option("--json", "as_json", is_flag=True, help="Print a machine-readable list.")
def names_list(status: str, kind: str | None, as_json: bool) -> None:
    """List names by status, with how many articles or shows wait for each."""
    from dataclasses import asdict

    from fashion_assets.catalog.names import list_pending
    from fashion_assets.domain.names import NameKind

    found = list_pending(_engine(), status=None if status == "all" else status,
                         kind=NameKind(kind) if kind else None)
    if as_json:
        click.echo(json.dumps({"names": [asdict(n) for n in found]}, indent=2))
        return
    if not found:
        click.echo(f"no {status if status != 'all' else ''} names".replace("  ", " "))
        return
    for n in found:
        also = f", matches {', '.join(n.candidates)}" if n.candidates else ""
        done = f" -> {n.entity_slug}" if n.entity_slug else ""
        click.echo(f"{n.id}\t{n.kind}\t{n.name!r}\t{n.status}{done}\t{n.waiting} waiting\t"
                   f"from {n.source} ({n.example_url}){also}")


_CRAWL_FLAG = {"runway": "--season", "street": "--week"}


def _release_line(release: Release) -> str:
    crawls = " ".join(f"{_CRAWL_FLAG[kind]} {key}" for kind, key in release.partitions)
    text = (f"{release.name.name!r} -> {release.entity_slug}: {release.articles_released} "
            f"waiting articles released, {release.shows_updated} shows given the city")
    return text + (f"; draft them with: {typed_command('fashion-assets')} crawl {crawls}"
                   if crawls else "")


@names.command("approve")
@click.argument("name_id", type=int)
@click.option("--slug", default=None, help="Slug of the new entity (default: from the name).")
@click.option("--display-name", default=None, help="Display name (default: the name).")
def names_approve(name_id: int, slug: str | None, display_name: str | None) -> None:
    """Approve a pending name as a new brand or city; the articles waiting for it go on."""
    from fashion_assets.catalog.names import approve_name

    if slug is not None:
        _checked_slug(slug, "slug")
    release = _name_action(lambda e: approve_name(e, name_id, editor=_editor(), slug=slug,
                                                  display_name=display_name))
    click.echo("approved: " + _release_line(release))


@names.command("merge")
@click.argument("name_id", type=int)
@click.argument("into")
def names_merge(name_id: int, into: str) -> None:
    """Merge a pending name into an existing brand or city (INTO is its slug): the name
    becomes an alias, and the articles waiting for it go on under that entity."""
    from fashion_assets.catalog.names import merge_name

    release = _name_action(lambda e: merge_name(e, name_id, into, editor=_editor()))
    click.echo("merged: " + _release_line(release))


@names.command("dismiss")
@click.argument("name_id", type=int)
def names_dismiss(name_id: int) -> None:
    """Dismiss a pending name (it is no brand or city): its waiting articles are dropped."""
    from fashion_assets.catalog.names import dismiss_name

    dismissed = _name_action(lambda e: dismiss_name(e, name_id, editor=_editor()))
    click.echo(f"dismissed: {dismissed.name!r}")


def _name_action(action: Any) -> Any:
    from fashion_assets.catalog.names import NameActionError

    try:
        return action(_engine())
    except NameActionError as exc:
        raise click.ClickException(str(exc)) from None


@main.command()
@click.option("--json", "as_json", is_flag=True, help="Print a machine-readable status.")
def status(as_json: bool) -> None:
    """The crawler's status line and progress, then brands, shows, drafts by status, photos
    stored, objects and bytes in the store."""
    from fashion_assets.status import catalog_status, crawler_status

    engine = _engine()
    with _queue_instance() as (instance, note):
        crawler = crawler_status(engine, instance)
    if note:
        crawler["queue_note"] = note
    report = catalog_status(engine, settings.store_url(), settings.home_dir())
    automation = _automation(engine)
    if as_json:
        click.echo(json.dumps({**report, "crawler": crawler, **automation}, indent=2))
        return
    click.echo(crawler["line"] + (f" ({crawler['queue_note']})" if crawler["queue_note"]
                                  else ""))
    _echo_crawls(crawler)
    _echo_automation(automation)
    click.echo(f"catalog: {report['database']}")
    click.echo(f"store:   {report['store']['url']} - {report['store']['objects']} objects, "
               f"{report['store']['bytes']:,} bytes")
    click.echo(f"brands {report['brands']}, shows {report['shows']}, drafts "
               + ", ".join(f"{k} {v}" for k, v in report["drafts"].items())
               + f", photos in drafts {report['draft_images']}")
    click.echo(f"street style: articles {report['street_articles']}, drafts "
               + ", ".join(f"{k} {v}" for k, v in report["street_drafts"].items()))
    shown = report["catalog"]
    click.echo(f"catalog: {shown['shows']} shows ({shown['show_photos']} photos), "
               f"{shown['street_albums']} street albums ({shown['street_photos']} photos)")
    pending = report["pending_names"]
    click.echo(f"names waiting for an editor: {pending['brand']} brands, {pending['city']} "
               f"cities; {report['waiting_for_name']} articles wait for them"
               + (f" ({typed_command('fashion-assets')} names list)"
                  if sum(pending.values()) else ""))
    if report["per_brand"]:
        import pandas as pd

        click.echo("\n" + pd.DataFrame(report["per_brand"]).to_string(index=False))


def _automation(engine: Any) -> dict[str, Any]:
    from fashion_assets.resources import resources_from_env
    from fashion_assets.status import automation_status

    crawler = resources_from_env()["crawler"]
    return automation_status(engine, crawler.coverage_rules(), crawler.backpressure_rules())


def _echo_automation(automation: Mapping[str, Any], limit: int = 5) -> None:
    """Backpressure's reason, then coverage: incomplete, backing off, given up and why."""
    gate, coverage = automation["backpressure"], automation["coverage"]
    since = f" (since {gate['changed_at']})" if gate["paused"] and gate["changed_at"] else ""
    click.echo(f"backpressure: {gate['reason']}{since}")
    click.echo(f"coverage: {coverage['incomplete']} incomplete shows ({coverage['backing_off']}"
               f" backing off), {coverage['given_up']} given up"
               + (f" ({typed_command('fashion-assets')} coverage list)"
                  if coverage["given_up"] else ""))
    for show in coverage["given_up_shows"][:limit]:
        click.echo(f"  gave up {show['source_url']}: {show['reason']}")


@contextlib.contextmanager
def _queue_instance() -> Iterator[tuple[Any, str]]:
    """The Dagster instance ``crawl`` runs on (``settings.dagster_home``) for the run queue,
    and a note when there is none.

    A folder that does not exist yet is not created (status only reads: nothing was crawled
    from this FASHION_HOME and no DAGSTER_HOME names one); the queue then counts 0, with why.
    """
    home = settings.dagster_home()
    if not home.is_dir():
        yield None, f"no Dagster instance in {home} yet: queued runs not counted"
        return
    from dagster import DagsterInstance

    try:
        instance = DagsterInstance.from_config(str(home))
    except Exception as exc:  # a broken instance must not hide the rest of the status
        yield None, f"Dagster instance in {home} unavailable, queue not counted: {exc}"
        return
    with instance:
        yield instance, ""


def _echo_crawls(crawler: Mapping[str, Any]) -> None:
    """Per running crawl (brand, season or week): its step and how far it got (``manifests
    12/30 shows``), photos, the last thing done, heartbeat age."""
    for c in crawler["running"]:
        click.echo(f"  running {c['partition_key']} ({c['kind']}): {c['step']} "
                   f"{c['shows_done']}/{c['shows_total']} {c['unit']}, photos "
                   f"{c['photos_done']}/{c['photos_total']}, last "
                   f"{c['current_show'] or '-'}, heartbeat {c['heartbeat_age']}"
                   " ago" + (" STALE (heartbeat older than the stuck threshold)"
                             if c["stale"] else "") + f" [run {c['run_id']}]")
    for q in crawler["queued"]:
        click.echo(f"  queued {q['partition_key'] or '-'} ({q['job_name']}): waiting "
                   f"{q['waiting']} [run {q['run_id']}]")


@main.group()
def coverage() -> None:
    """Shows the coverage sensor gave up on, and letting it try them again."""


@coverage.command("list")
@click.option("--limit", type=click.IntRange(min=1), default=100, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print a machine-readable list.")
def coverage_list(limit: int, as_json: bool) -> None:
    """Incomplete shows: brand, season, photos stored of expected, and the coverage sensor's
    next attempt, or why it gave up; those it still repairs first."""
    from dataclasses import asdict

    from fashion_assets.catalog.coverage import coverage_report, incomplete_shows
    from fashion_assets.resources import resources_from_env

    rules = resources_from_env()["crawler"].coverage_rules()
    engine, now = _engine(), datetime.now(UTC)
    report = coverage_report(engine, rules, now, limit=limit)
    shows = incomplete_shows(engine, rules, limit=limit)
    if as_json:
        click.echo(json.dumps({"incomplete": report.incomplete,
                               "backing_off": report.backing_off, "given_up": report.given_up,
                               "shows": [asdict(show) for show in shows],
                               "given_up_shows": [vars(g) for g in report.given_up_shows]},
                              indent=2))
        return
    click.echo(f"{report.incomplete} incomplete shows ({report.backing_off} backing off),"
               f" {report.given_up} given up")
    for show in shows:
        expected = show.expected or "?"
        click.echo(f"show {show.show_id}\t{show.brand_slug}\t{show.season_code}\t{show.source}"
                   f"\t{show.stored}/{expected} photos\t{_repair_state(show, now)}")
    unlisted = report.incomplete + report.given_up - len(shows)
    if unlisted > 0:
        click.echo(f"... and {unlisted} more (--limit)")


def _repair_state(show: IncompleteShow, now: datetime) -> str:
    """Where the coverage sensor stands with an incomplete show, in words."""
    tries = f"{show.attempts} re-fetch{'es' if show.attempts != 1 else ''}"
    if show.gave_up_at:
        return f"gave up {show.gave_up_at} after {tries}: {show.reason}"
    if show.next_attempt_at and datetime.fromisoformat(show.next_attempt_at) > now:
        return f"next attempt {show.next_attempt_at} ({tries} so far)"
    return "due now" + (f" ({tries} so far)" if show.attempts else " (never re-fetched)")


@coverage.command("retry")
@click.option("--brand", default=None, help="Every given-up show of this brand slug.")
@click.option("--show-id", "show_ids", type=int, multiple=True,
              help="A given-up show by id (see coverage list); repeat for several.")
def coverage_retry(brand: str | None, show_ids: tuple[int, ...]) -> None:
    """Let the coverage sensor re-fetch given-up shows again, from a fresh back-off."""
    from fashion_assets.catalog.coverage import retry_given_up

    if not brand and not show_ids:
        raise click.UsageError("name the shows to retry: --brand or --show-id")
    count = retry_given_up(_engine(), brand_slug=brand, show_ids=show_ids)
    click.echo(f"{count} given-up shows will be re-fetched by the coverage sensor")


@main.group()
def review() -> None:
    """Review drafts: list, show, approve, reject, edit, delete, restore.

    A draft is addressed as runway:12 or street:7 (runway and street drafts are numbered
    apart); a bare number is a runway draft. Every action is recorded with its editor
    (FASHION_EDITOR, else the login name).
    """


def _draft_refs(ctx: click.Context, param: click.Parameter, values: Any) -> Any:
    from fashion_assets.domain.review import DraftRefError, parse_draft_ref

    try:
        if isinstance(values, str):
            return parse_draft_ref(values)
        return [parse_draft_ref(v) for v in values]
    except DraftRefError as exc:
        raise click.BadParameter(str(exc)) from None


def _review_action(refs: list[Any], action: str, reason: str = "",
                   changes: dict[str, Any] | None = None) -> None:
    """Act on each draft in turn, report each; exit 1 if any was refused."""
    from fashion_assets.catalog.review import review as review_drafts

    engine, refused = _engine(), 0
    for ref in refs:
        [result] = review_drafts(engine, ref.kind, [ref.id], action, editor=_editor(),
                                 reason=reason, changes=changes)
        refused += not result.ok
        click.echo(result.message if result.ok else f"refused: {result.message}",
                   err=not result.ok)
    if refused:
        sys.exit(1)


def _summary_line(d: Any) -> str:
    key = (f"{d.brand_slug} {d.season_code}" if d.kind == "runway"
           else f"{d.city} {d.year}-{d.month:02d}")
    state = d.status + (" deleted" if d.is_deleted else "")
    return f"{d.ref}\t{state}\t{key}\t{d.source}\t{d.photos} photos\t{d.title!r}"


@review.command("list")
@click.option("--kind", type=click.Choice(["runway", "street"]), default=None)
@click.option("--status", type=click.Choice(["pending", "approved", "rejected", "promoted"]),
              default=None, help="Only drafts in this status (default: any).")
@click.option("--brand", default=None, help="Only runway drafts of this brand slug.")
@click.option("--city", default=None, help="Only drafts of this city slug.")
@click.option("--source", default=None, help="Only drafts from this source (vogue, ...).")
@click.option("--deleted", is_flag=True, help="Include deleted drafts.")
@click.option("--limit", type=click.IntRange(min=1), default=100, show_default=True)
@click.option("--offset", type=click.IntRange(min=0), default=0, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print a machine-readable list.")
def review_list(kind: str | None, status: str | None, brand: str | None, city: str | None,
                source: str | None, deleted: bool, limit: int, offset: int,
                as_json: bool) -> None:
    """List drafts, oldest first, with their entity key, status and photo count."""
    from dataclasses import asdict

    from fashion_assets.catalog.review import list_drafts

    found = list_drafts(_engine(), kind=kind, status=status, brand=brand, city=city,
                        source=source, include_deleted=deleted, limit=limit, offset=offset)
    if as_json:
        click.echo(json.dumps({"drafts": [asdict(d) for d in found]}, indent=2))
    elif not found:
        click.echo("no drafts")
    for d in [] if as_json else found:
        click.echo(_summary_line(d))


@review.command("show")
@click.argument("ref", callback=_draft_refs)
@click.option("--json", "as_json", is_flag=True, help="Print machine-readable details.")
def review_show(ref: Any, as_json: bool) -> None:
    """Show a draft: its fields, photos, audit trail and sibling drafts of the same entity."""
    from dataclasses import asdict

    from fashion_assets.catalog.review import ReviewError, get_draft

    try:
        detail = get_draft(_engine(), ref.kind, ref.id)
    except ReviewError as exc:
        raise click.ClickException(str(exc)) from None
    if as_json:
        click.echo(json.dumps(asdict(detail), indent=2, default=str))
        return
    click.echo(_summary_line(detail.summary) + f"\t{detail.summary.source_url}")
    for name, value in detail.fields.items():
        click.echo(f"  {name}: {value}")
    click.echo(f"photos ({len(detail.photos)}):")
    for p in detail.photos:
        click.echo(f"  {p.position}\t{p.object_key}\t{p.content_type}\t{p.width}x{p.height}"
                   f"\t{p.source_image_url}")
    click.echo(f"audit trail ({len(detail.trail)}):")
    for e in detail.trail:
        why = f" ({e.reason})" if e.reason else ""
        click.echo(f"  {e.created_at}\t{e.editor}\t{e.action}{why}\t{json.dumps(e.changes)}")
    click.echo(f"siblings ({len(detail.siblings)}):")
    for s in detail.siblings:
        click.echo("  " + _summary_line(s))


_REASON = click.option("--reason", default="", help="Why; recorded in the audit trail.")


@review.command("approve")
@click.argument("refs", nargs=-1, required=True, callback=_draft_refs)
@_REASON
def review_approve(refs: list[Any], reason: str) -> None:
    """Approve drafts (pending or rejected); promotion then takes them into the catalog."""
    _review_action(refs, "approve", reason)


@review.command("reject")
@click.argument("refs", nargs=-1, required=True, callback=_draft_refs)
@click.option("--reason", required=True, help="Why the drafts are rejected (required).")
def review_reject(refs: list[Any], reason: str) -> None:
    """Reject drafts (pending or approved), saying why."""
    _review_action(refs, "reject", reason)


@review.command("edit")
@click.argument("ref", callback=_draft_refs)
@click.option("--brand", "brand_slug", default=None, help="Brand slug (runway).")
@click.option("--season-code", default=None,
              help="Season code (runway); also sets season, year and type unless given.")
@click.option("--title", default=None)
@click.option("--season", default=None, help="Season word (runway), e.g. fall.")
@click.option("--year", type=int, default=None)
@click.option("--collection-type", default=None, help="Collection type (runway).")
@click.option("--city", default=None, help="City slug (street).")
@click.option("--month", type=int, default=None, help="Month 1-12 (street).")
@_REASON
def review_edit(ref: Any, reason: str, **fields: Any) -> None:
    """Edit a draft's fields (a draft not promoted and not deleted)."""
    changes = {name: value for name, value in fields.items() if value is not None}
    if not changes:
        raise click.UsageError("name a field to edit, e.g. --title or --season-code")
    _review_action([ref], "edit", reason, changes)


@review.command("delete")
@click.argument("refs", nargs=-1, required=True, callback=_draft_refs)
@_REASON
def review_delete(refs: list[Any], reason: str) -> None:
    """Delete drafts (softly: restore brings them back); promoted drafts stay."""
    _review_action(refs, "delete", reason)


@review.command("restore")
@click.argument("refs", nargs=-1, required=True, callback=_draft_refs)
@_REASON
def review_restore(refs: list[Any], reason: str) -> None:
    """Restore deleted drafts, in the status they had."""
    _review_action(refs, "restore", reason)


@review.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=8810, show_default=True, help="Port to listen on.")
def review_serve(host: str, port: int) -> None:
    """Serve the review page: queue, drafts with their photos, and the review forms.

    Editors sign in with FASHION_REVIEW_SECRET; without it anyone who reaches the page is an
    editor, so it may then only listen on loopback. Actions are recorded as FASHION_EDITOR,
    else "web".
    """
    import uvicorn

    from fashion_assets.review_app import create_app, is_loopback
    from fashion_assets.storage import open_store

    secret = settings.setting(os.environ, "FASHION_REVIEW_SECRET") or None
    if secret is None and not is_loopback(host):
        raise click.UsageError(
            f"refusing to serve on {host}: no FASHION_REVIEW_SECRET is set, so anyone who "
            "reaches the page could review drafts; set it or use --host 127.0.0.1")
    store = open_store(settings.store_url(), home=settings.home_dir())
    with _queue_instance() as (instance, note):  # the /crawler page's run queue
        app = create_app(_engine(), store, secret=secret,
                         editor_name=os.environ.get("FASHION_EDITOR") or "web",
                         instance=instance)
        click.echo(f"review page on http://{host}:{port}/"
                   + ("" if secret else " (no FASHION_REVIEW_SECRET: open to this machine)"))
        if note:
            click.echo(note, err=True)
        uvicorn.run(app, host=host, port=port, log_level="info")


@main.command()
@click.option("--brands", "brand_count", default=3, show_default=True)
@click.option("--shows", default=4, show_default=True, help="Shows per brand.")
@click.option("--photos", default=12, show_default=True, help="Photos per show.")
@click.option("--verbose", is_flag=True, help="Print Dagster's event stream of every run too.")
def demo(brand_count: int, shows: int, photos: int, verbose: bool) -> None:
    """Start the replica, crawl its brands, seasons and fashion weeks (a line each), and say
    what to run next."""
    from fashion_assets.demo import run_demo

    sys.exit(run_demo(brand_count, shows, photos, echo=click.echo, verbose=verbose))


@main.group()
def replica() -> None:
    """The project's offline replica of the source sites."""


@replica.command("serve")
@click.option("--port", default=8801, show_default=True, help="Site origin port (0: any free).")
@click.option("--cdn-port", default=8802, show_default=True, help="CDN origin port (0: any).")
@click.option("--impression-port", default=8803, show_default=True,
              help="theImpression site origin port (0: any free).")
@click.option("--impression-cdn-port", default=8804, show_default=True,
              help="theImpression CDN origin port (0: any free).")
@click.option("--brands", "brand_count", default=3, show_default=True)
@click.option("--shows", default=4, show_default=True, help="Shows per brand.")
@click.option("--photos", default=12, show_default=True, help="Photos per show.")
@click.option("--seed", default=0, show_default=True)
@click.option("--hostile/--no-hostile", default=True, show_default=True,
              help="Include the brands that serve bad input.")
@click.option("--warm", is_flag=True, help="Encode every photo before announcing readiness.")
def replica_serve(port: int, cdn_port: int, impression_port: int, impression_cdn_port: int,
                  brand_count: int, shows: int, photos: int, seed: int, hostile: bool,
                  warm: bool) -> None:
    """Serve the replica (Vogue and theImpression) until interrupted.

    The first line printed is the four origins as JSON (for scripts); the settings that point
    the pipeline at the replica follow on stderr.
    """
    from fashion_assets.replica.server import origins, serve_forever

    def announce(server: Any) -> None:
        click.echo(json.dumps(origins(server)))
        click.echo("point the pipeline at the replica with:\n" + "\n".join(
            f"  export {k}={v}" for k, v in replica_env(server).items()), err=True)

    serve_forever(port=port, cdn_port=cdn_port, impression_port=impression_port,
                  impression_cdn_port=impression_cdn_port, brands=brand_count, shows=shows,
                  photos=photos, seed=seed, hostile=hostile, warm=warm, announce=announce)


def replica_env(server: Any) -> dict[str, str]:
    """The settings that point both sources at a running replica; theImpression's photos
    come from its CDN and from the site's own uploads."""
    def host(url: str) -> str:
        return url.split("://", 1)[1]

    return {
        "FASHION_VOGUE_BASE_URL": server.base_url,
        "FASHION_VOGUE_IMAGE_HOSTS": host(server.cdn_url),
        "FASHION_THEIMPRESSION_BASE_URL": server.impression_url,
        "FASHION_THEIMPRESSION_IMAGE_HOSTS": (
            f"{host(server.impression_cdn_url)},{host(server.impression_url)}"),
    }
