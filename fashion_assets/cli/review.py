"""``fashion-assets review``: the editor's work on drafts, from the shell or the review page."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

from fashion_assets import settings
from fashion_assets.cli.common import (
    PORT,
    WholeNumber,
    catalog_engine,
    echo_json,
    editor,
    program,
    queue_instance,
    run_and_follow,
)
from fashion_assets.domain.wording import counted

if TYPE_CHECKING:
    from sqlalchemy import Engine


@click.group()
def review() -> None:
    """Review drafts: list, show, approve, reject, edit, delete, restore; promote the
    approved ones into the catalog.

    A draft is addressed as runway:12 or street:7 (runway and street drafts are numbered
    apart); a bare number is a runway draft. Every action is recorded with its editor
    (FASHION_EDITOR, else the login name).
    """


def _draft_refs(ctx: click.Context, param: click.Parameter, values: Any) -> Any:
    """Parse one draft reference or several (``runway:12``, ``street:7``, ``12``), so that a
    mistyped one is a usage error before any draft is touched."""
    from fashion_assets.domain.review import DraftRefError, parse_draft_ref

    try:
        if isinstance(values, str):
            return parse_draft_ref(values)
        return [parse_draft_ref(v) for v in values]
    except DraftRefError as exc:
        raise click.BadParameter(str(exc)) from None


def _review_action(refs: list[Any], action: str, reason: str = "",
                   changes: dict[str, Any] | None = None, *,
                   confirm_no_photos: bool = False,
                   then: Callable[[Engine], None] = lambda engine: None) -> None:
    """Act on each draft in turn, report each, ``then`` say what follows; exit 1 if any
    was refused."""
    from fashion_assets.catalog.review import review as review_drafts

    engine, refused = catalog_engine(), 0
    for ref in refs:
        [result] = review_drafts(engine, ref.kind, [ref.id], action, editor=editor(),
                                 reason=reason, changes=changes,
                                 confirm_no_photos=confirm_no_photos)
        refused += not result.ok
        confirm = " with --confirm-no-photos" if result.needs_confirmation else ""
        click.echo(result.message if result.ok else f"refused: {result.message}{confirm}",
                   err=not result.ok)
    then(engine)
    if refused:
        sys.exit(1)


def _summary_line(d: Any) -> str:
    """One draft on one tab-separated line, the same in the list, a detail and its siblings."""
    key = (f"{d.brand_slug} {d.season_code}" if d.kind == "runway"
           else f"{d.city} {d.year}-{d.month:02d}")
    state = d.status + (" deleted" if d.is_deleted else "")
    return f"{d.ref}\t{state}\t{key}\t{d.source}\t{counted(d.photos, 'photo')}\t{d.title!r}"


@review.command("list")
@click.option("--kind", type=click.Choice(["runway", "street"]), default=None,
              help="Only runway or only street drafts (default: both).")
@click.option("--status", type=click.Choice(["pending", "approved", "rejected", "promoted"]),
              default=None, help="Only drafts in this status (default: any).")
@click.option("--brand", default=None, help="Only runway drafts of this brand slug.")
@click.option("--city", default=None, help="Only drafts of this city slug.")
@click.option("--source", default=None, help="Only drafts from this source (vogue, ...).")
@click.option("--deleted", is_flag=True, help="Include deleted drafts.")
@click.option("--limit", type=WholeNumber(1), default=100, show_default=True,
              help="Drafts listed at most.")
@click.option("--offset", type=WholeNumber(0), default=0, show_default=True,
              help="Drafts skipped first (the next hundred: --offset 100).")
@click.option("--json", "as_json", is_flag=True, help="Print a machine-readable list.")
def review_list(kind: str | None, status: str | None, brand: str | None, city: str | None,
                source: str | None, deleted: bool, limit: int, offset: int,
                as_json: bool) -> None:
    """List drafts, oldest first, with their entity key, status and photo count."""
    from dataclasses import asdict

    from fashion_assets.catalog.review import list_drafts

    found = list_drafts(catalog_engine(), kind=kind, status=status, brand=brand, city=city,
                        source=source, include_deleted=deleted, limit=limit, offset=offset)
    if as_json:
        echo_json({"drafts": [asdict(d) for d in found]})
    elif not found:
        click.echo("no drafts")
    for d in [] if as_json else found:
        click.echo(_summary_line(d))


@review.command("show")
@click.argument("ref", callback=_draft_refs)
@click.option("--json", "as_json", is_flag=True, help="Print machine-readable details.")
def review_show(ref: Any, as_json: bool) -> None:
    """Show draft REF: its fields, photos, audit trail and sibling drafts of the same
    entity."""
    from dataclasses import asdict

    from fashion_assets.catalog.review import ReviewError, get_draft

    try:
        detail = get_draft(catalog_engine(), ref.kind, ref.id)
    except ReviewError as exc:
        raise click.ClickException(str(exc)) from None
    if as_json:
        echo_json(asdict(detail), default=str)
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


def _plain_action(action: str, help_text: str) -> None:
    """A review command that applies ``action`` to the drafts named, with an optional
    reason: approve, delete and restore differ in nothing else."""
    @review.command(action, help=help_text)
    @click.argument("refs", nargs=-1, required=True, callback=_draft_refs)
    @_REASON
    def command(refs: list[Any], reason: str) -> None:
        _review_action(refs, action, reason)


@review.command("approve")
@click.argument("refs", nargs=-1, required=True, callback=_draft_refs)
@_REASON
@click.option("--confirm-no-photos", is_flag=True,
              help="Approve drafts that hold no photo too (refused without it).")
def review_approve(refs: list[Any], reason: str, confirm_no_photos: bool) -> None:
    """Approve drafts REFS (pending or rejected); promotion then takes them into the catalog
    (review promote, or the approved_drafts_sensor). A draft without photos is refused
    unless --confirm-no-photos says it should have none."""
    _review_action(refs, "approve", reason, confirm_no_photos=confirm_no_photos,
                   then=_promotion_hint)


def _promotion_hint(engine: Engine) -> None:
    """How the approved drafts that wait get promoted: nothing promotes them until a run of
    promote_approved_drafts, and its sensor starts stopped."""
    from fashion_assets.catalog.promotion import waiting_for_promotion
    from fashion_assets.domain.promotion_text import waiting_hint

    hint = waiting_hint(sum(waiting_for_promotion(engine).values()), program())
    if hint:
        click.echo(hint)


@review.command("promote")
@click.option("--json", "as_json", is_flag=True, help="Print the run's figures as JSON.")
def review_promote(as_json: bool) -> None:
    """Promote the approved drafts into the catalog now: a run of promote_approved_drafts
    (what the approved_drafts_sensor launches once turned on) through the Dagster
    deployment's run queue, its figures printed. When no approved draft waits, nothing is
    run."""
    from fashion_assets.catalog.promotion import waiting_for_promotion
    from fashion_assets.domain.promotion_text import (
        failed_line,
        nothing_waits,
        promoted_counts,
        promoted_line,
    )

    waiting = waiting_for_promotion(catalog_engine())
    if not sum(waiting.values()):
        if as_json:
            echo_json({"waiting": waiting, "launched": False})
        else:
            click.echo(nothing_waits(program()))
        return
    summary = run_and_follow("promote_approved_drafts", asset="catalog_entries")
    counts = promoted_counts(summary, list(waiting))
    if as_json:
        echo_json({"waiting": waiting, "launched": True, "run_id": summary["run_id"],
                   "success": summary["success"], "promoted": counts,
                   **({} if summary["success"] else {"error": summary["error"]})})
    elif summary["success"]:
        click.echo(promoted_line(counts))
    else:
        click.echo(failed_line(summary["error"]))
    if not summary["success"]:
        sys.exit(1)


@review.command("reject")
@click.argument("refs", nargs=-1, required=True, callback=_draft_refs)
@click.option("--reason", required=True, help="Why the drafts are rejected (required).")
def review_reject(refs: list[Any], reason: str) -> None:
    """Reject drafts REFS (pending or approved), saying why."""
    _review_action(refs, "reject", reason)


@review.command("edit")
@click.argument("ref", callback=_draft_refs)
@click.option("--brand", "brand_slug", default=None, help="Brand slug (runway).")
@click.option("--season-code", default=None,
              help="Season code (runway); also sets season, year and type unless given.")
@click.option("--title", default=None, help="Title, as the review page and the catalog "
                                            "show it.")
@click.option("--season", default=None, help="Season word (runway), e.g. fall.")
@click.option("--year", type=WholeNumber(), default=None,
              help="Year (runway: the season's; street: the fashion week's).")
@click.option("--collection-type", default=None, help="Collection type (runway).")
@click.option("--city", default=None, help="City slug (either kind: a runway show's city).")
@click.option("--month", type=WholeNumber(), default=None, help="Month 1-12 (street).")
@_REASON
def review_edit(ref: Any, reason: str, **fields: Any) -> None:
    """Edit the fields of draft REF (a draft not promoted and not deleted)."""
    changes = {name: value for name, value in fields.items() if value is not None}
    if not changes:
        raise click.UsageError("name a field to edit, e.g. --title or --season-code")
    _review_action([ref], "edit", reason, changes)


_plain_action("delete", "Delete drafts REFS (softly: restore brings them back); promoted "
                        "drafts stay.")
_plain_action("restore", "Restore deleted drafts REFS, in the status they had.")


@review.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=PORT, default=8810, show_default=True, help="Port to listen on.")
def review_serve(host: str, port: int) -> None:
    """Serve the review page: queue, drafts with their photos, and the review forms.

    Editors sign in with their accounts (fashion-assets editors add) and actions are recorded
    under their names. Before the first account exists anyone who reaches the page is an
    editor, recorded as FASHION_EDITOR, else "web", so the page may then only listen on
    loopback.
    """
    import uvicorn

    from fashion_assets.catalog.editors import has_editors
    from fashion_assets.resources import resources_from_env
    from fashion_assets.review_app import create_app, is_loopback
    from fashion_assets.review_app.hosts import answered_hosts, trusted_proxies, url_host
    from fashion_assets.review_app.server import listening_socket, timed_config
    from fashion_assets.storage import answering_store

    try:
        head_s = settings.positive_int(os.environ, "FASHION_REVIEW_HEAD_TIMEOUT")
        body_s = settings.positive_int(os.environ, "FASHION_REVIEW_BODY_TIMEOUT")
        proxies = trusted_proxies(settings.setting(os.environ, "FASHION_TRUSTED_PROXIES"))
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    engine = catalog_engine()
    accounts = has_editors(engine)
    if not accounts and not is_loopback(host):
        raise click.UsageError(
            f"refusing to serve on {host}: there is no editor account yet, so anyone who "
            "reaches the page could review drafts; add one (fashion-assets editors add NAME "
            "--admin) or use --host 127.0.0.1")
    sock = listening_socket(host, port)
    port = sock.getsockname()[1]  # the port it got, when asked for any (0)
    store = answering_store(settings.store_url(), home=settings.home_dir())
    with queue_instance() as (instance, note):  # the /crawler page's run queue
        app = create_app(engine, store, editor_name=os.environ.get("FASHION_EDITOR") or "web",
                         instance=instance, secure_cookies=settings.parse_bool(
                             settings.setting(os.environ, "FASHION_REVIEW_SECURE_COOKIES")),
                         hosts=answered_hosts(host, settings.setting(os.environ,
                                                                     "FASHION_REVIEW_HOSTS")),
                         coverage=resources_from_env()["crawler"].coverage_rules())
        click.echo(f"review page on http://{url_host(host)}:{port}/"
                   + ("" if accounts else " (no editor accounts yet: open to this machine)"))
        if note:
            click.echo(note, err=True)
        uvicorn.Server(timed_config(app, host=host, port=port, log_level="info",
                                    head_timeout_s=head_s, body_timeout_s=body_s,
                                    proxies=proxies)).run(sockets=[sock])
