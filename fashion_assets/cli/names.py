"""``fashion-assets names``: the editor's decisions on names no brand or city matched."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import click

from fashion_assets.cli.common import (
    WholeNumber,
    catalog_engine,
    checked_slug,
    echo_json,
    editor,
    program,
)
from fashion_assets.domain.wording import counted

if TYPE_CHECKING:
    from sqlalchemy import Engine

    from fashion_assets.catalog.names import Release

T = TypeVar("T")

_CRAWL_FLAG = {"runway": "--season", "street": "--week"}


class NameRef(click.ParamType):
    """A pending name: its id (ASCII digits, by the one rule for numbers), else the name as
    written."""

    name = "name"

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> int | str:
        if isinstance(value, int) or re.fullmatch(r"\s*[0-9]+\s*", str(value)):
            return WholeNumber().convert(value, param, ctx)
        return str(value)


NAME = NameRef()


@click.group()
def names() -> None:
    """Brand and city names no entity matched, waiting for an editor."""


@names.command("list")
@click.option("--status", type=click.Choice(["pending", "approved", "merged", "dismissed",
                                             "all"]), default="pending", show_default=True,
              help="Only names an editor left in this status (all: every name).")
@click.option("--kind", type=click.Choice(["brand", "city"]), default=None,
              help="Only brands or only cities.")
@click.option("--json", "as_json", is_flag=True, help="Print a machine-readable list.")
def names_list(status: str, kind: str | None, as_json: bool) -> None:
    """List names by status, with how many articles or shows wait for each."""
    from dataclasses import asdict

    from fashion_assets.catalog.names import list_pending
    from fashion_assets.domain.names import NameKind

    found = list_pending(catalog_engine(), status=None if status == "all" else status,
                         kind=NameKind(kind) if kind else None)
    if as_json:
        echo_json({"names": [asdict(n) for n in found]})
        return
    if not found:
        click.echo(f"no {status if status != 'all' else ''} names".replace("  ", " "))
        return
    for n in found:
        also = f", matches {', '.join(n.candidates)}" if n.candidates else ""
        done = f" -> {n.entity_slug}" if n.entity_slug else ""
        click.echo(f"{n.id}\t{n.kind}\t{n.name!r}\t{n.status}{done}\t{n.waiting} waiting\t"
                   f"from {n.source} ({n.example_url}){also}")


def _release_line(release: Release, became: str) -> str:
    """What the name ``became`` ("the new", "another name of the") its entity, what that
    let go on, and the crawl that drafts the released shows and weeks. Only a city is given
    to shows (those whose title named it): a brand's line says nothing of shows, rather
    than "0 shows given the city"."""
    crawls = " ".join(f"{_CRAWL_FLAG[kind]} {key}" for kind, key in release.partitions)
    done = [counted(release.articles_released, "waiting article") + " released"]
    if release.name.kind == "city":
        done.append(counted(release.shows_updated, "show") + " given the city")
    text = (f"{release.name.name!r} is {became} {release.name.kind} {release.entity_slug}: "
            + ", ".join(done))
    return text + (f"; draft {'it' if release.articles_released == 1 else 'them'} with: "
                   f"{program()} crawl {crawls}" if crawls else "")


@names.command("approve")
@click.argument("name", type=NAME)
@click.option("--slug", default=None, help="Slug of the new entity (default: from the name).")
@click.option("--display-name", default=None, help="Display name (default: the name).")
def names_approve(name: int | str, slug: str | None, display_name: str | None) -> None:
    """Approve pending name NAME (its id, or the name as names list writes it) as a new
    brand or city; the articles waiting for it go on."""
    from fashion_assets.catalog.names import approve_name

    if slug is not None:
        checked_slug(slug, "slug")
    release = _name_action(lambda e: approve_name(e, _pending_id(e, name), editor=editor(),
                                                  slug=slug, display_name=display_name))
    click.echo("approved: " + _release_line(release, "the new"))


@names.command("merge")
@click.argument("name", type=NAME)
@click.argument("into")
def names_merge(name: int | str, into: str) -> None:
    """Merge pending name NAME (its id, or the name as names list writes it) into an
    existing brand or city (INTO is its slug): the name becomes an alias, and the articles
    waiting for it go on under that entity."""
    from fashion_assets.catalog.names import merge_name

    release = _name_action(lambda e: merge_name(e, _pending_id(e, name), into,
                                                editor=editor()))
    click.echo("merged: " + _release_line(release, "now another name of the"))


@names.command("dismiss")
@click.argument("name", type=NAME)
def names_dismiss(name: int | str) -> None:
    """Dismiss pending name NAME (its id, or the name as names list writes it): it is no
    brand or city, and its waiting articles are dropped."""
    from fashion_assets.catalog.names import dismiss_name

    dismissed = _name_action(lambda e: dismiss_name(e, _pending_id(e, name), editor=editor()))
    click.echo(f"dismissed: {dismissed.name!r}")


def _name_action(action: Callable[[Engine], T]) -> T:
    """Run a decision on the catalog; a refused one (no such name, decided already) is the
    user's error to read, not a traceback."""
    from fashion_assets.catalog.names import NameActionError

    try:
        return action(catalog_engine())
    except NameActionError as exc:
        raise click.ClickException(str(exc)) from None


def _pending_id(engine: Engine, name: int | str) -> int:
    """The pending name an editor means: its id, or the name as ``names list`` writes it,
    matched as sources' names are; two pending names of one spelling (a brand and a city)
    need the id."""
    from fashion_assets.catalog.names import NameActionError
    from fashion_assets.catalog.pending_names import list_pending
    from fashion_assets.domain.names import named_by

    if isinstance(name, int):
        return name
    found = named_by(name, ((n.id, n.name) for n in list_pending(engine)))
    if not found:
        raise NameActionError(f"no pending name {name!r} (`{program()} names list` shows them)")
    if len(found) > 1:
        raise NameActionError(f"{name!r} is {len(found)} pending names (ids "
                              f"{', '.join(map(str, found))}): give the id")
    return found[0]
