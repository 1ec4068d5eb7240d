"""The ``fashion-assets`` command: crawl, brands, status, the demo and the replica.

Commands run the same Dagster definitions as the UI, in-process, on the instance in
``DAGSTER_HOME`` (a persistent folder under ``FASHION_HOME`` when unset), so every run the
CLI makes shows up in ``dagster dev`` afterwards.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import click

from fashion_assets import settings

if TYPE_CHECKING:
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
@click.option("--workers", type=click.IntRange(min=1), default=os.cpu_count() or 1,
              show_default="the number of CPUs",
              help="Partitions crawled at once, each in its own process (1: all in this one).")
@click.option("--json", "as_json", is_flag=True, help="Print a machine-readable summary.")
def crawl(brands: list[str], seasons: list[str], weeks: list[str], workers: int,
          as_json: bool) -> None:
    """Crawl brands (Vogue), seasons (theImpression runway) and fashion weeks (street style).

    One Dagster run per partition, with progress per show or article.
    """
    from fashion_assets.runs import crawl_in_workers, summary_line

    targets = ([("brand", b) for b in brands] + [("season", s) for s in seasons]
               + [("week", w) for w in weeks])
    if not targets:
        raise click.UsageError("name something to crawl: --brand, --season or --week")
    summaries = crawl_in_workers(targets, workers)
    if as_json:
        click.echo(json.dumps({"crawls": summaries}, indent=2))
    else:
        for s in summaries:
            click.echo(summary_line(s))
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
    return text + (f"; draft them with: fashion-assets crawl {crawls}" if crawls else "")


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
    """Brands, shows, drafts by status, photos stored, objects and bytes in the store."""
    from fashion_assets.status import catalog_status

    report = catalog_status(_engine(), settings.store_url(), settings.home_dir())
    if as_json:
        click.echo(json.dumps(report, indent=2))
        return
    click.echo(f"catalog: {report['database']}")
    click.echo(f"store:   {report['store']['url']} - {report['store']['objects']} objects, "
               f"{report['store']['bytes']:,} bytes")
    click.echo(f"brands {report['brands']}, shows {report['shows']}, drafts "
               + ", ".join(f"{k} {v}" for k, v in report["drafts"].items())
               + f", photos in drafts {report['draft_images']}")
    click.echo(f"street style: articles {report['street_articles']}, drafts "
               + ", ".join(f"{k} {v}" for k, v in report["street_drafts"].items()))
    pending = report["pending_names"]
    click.echo(f"names waiting for an editor: {pending['brand']} brands, {pending['city']} "
               f"cities; {report['waiting_for_name']} articles wait for them"
               + (" (fashion-assets names list)" if sum(pending.values()) else ""))
    if report["per_brand"]:
        import pandas as pd

        click.echo("\n" + pd.DataFrame(report["per_brand"]).to_string(index=False))


@main.command()
@click.option("--brands", "brand_count", default=3, show_default=True)
@click.option("--shows", default=4, show_default=True, help="Shows per brand.")
@click.option("--photos", default=12, show_default=True, help="Photos per show.")
def demo(brand_count: int, shows: int, photos: int) -> None:
    """Start the replica, register its brands, crawl them, and say where to look next."""
    from fashion_assets.demo import run_demo

    sys.exit(run_demo(brand_count, shows, photos, echo=click.echo))


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
