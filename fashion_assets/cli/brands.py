"""``fashion-assets brands``: registering brands (each one a partition) and listing them."""

from __future__ import annotations

import sys

import click

from fashion_assets.cli.common import (
    brand_slug,
    catalog_engine,
    echo_json,
    program,
    run_and_follow,
)
from fashion_assets.domain.wording import counted


@click.group()
def brands() -> None:
    """Register and list brands (each brand is a partition)."""


@brands.command("add")
@click.argument("slug", callback=lambda c, p, v: brand_slug(v))
@click.option("--name", default="", help="Display name (filled from the source when empty).")
def brands_add(slug: str, name: str) -> None:
    """Register brand SLUG (as in its Vogue designer URL, e.g. acne-studios) in the catalog
    and add its partition."""
    from fashion_assets.launch.instance import dagster_instance
    from fashion_assets.launch.partitions import register_brands

    new = register_brands([(slug, name)], dagster_instance())
    click.echo(f"{'added' if new else 'already registered'}: {slug}")


@brands.command("discover")
@click.option("--json", "as_json", is_flag=True, help="Print the discovery's figures as JSON.")
def brands_discover(as_json: bool) -> None:
    """Register the designers Vogue lists that the catalog lacks (what
    designer_discovery_schedule does), within FASHION_DISCOVERY_ALLOW/_DENY."""
    summary = run_and_follow("designer_discovery", asset="vogue_designer_discovery")
    if as_json:
        echo_json(summary)
    elif summary["success"]:
        click.echo(f"{counted(summary['listed'], 'designer')} listed: "
                   f"{summary['new_designers']} new (registered), {summary['known']} known, "
                   f"{summary['out_of_scope']} out of scope, {summary['held_for_editor']} "
                   f"waiting for an editor ({program()} names list), "
                   f"{counted(summary['pages_failed'], 'page')} not read")
    else:
        click.echo(f"discovery: FAILED - {summary['error']}")
    if not summary["success"]:
        sys.exit(1)


@brands.command("list")
def brands_list() -> None:
    """List registered brands."""
    from fashion_assets.catalog.runway import list_brands

    for brand in list_brands(catalog_engine()):
        click.echo(f"{brand.slug}\t{brand.display_name}")
