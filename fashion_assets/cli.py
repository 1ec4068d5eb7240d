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
from typing import Any

import click

from fashion_assets import settings

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


@main.command()
@click.option("--brand", "brands", multiple=True, required=True, callback=lambda c, p, v:
              [_brand_slug(b) for b in v], help="Brand slug to crawl; repeat for several.")
@click.option("--workers", type=click.IntRange(min=1), default=os.cpu_count() or 1,
              show_default="the number of CPUs",
              help="Brands crawled at once, each in its own process (1: all in this one).")
@click.option("--json", "as_json", is_flag=True, help="Print a machine-readable summary.")
def crawl(brands: list[str], workers: int, as_json: bool) -> None:
    """Crawl brands: listing, image manifests and drafts, with progress per show."""
    from fashion_assets.runs import crawl_in_workers, summary_line

    summaries = crawl_in_workers(brands, workers)
    if as_json:
        click.echo(json.dumps({"brands": summaries}, indent=2))
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
@click.option("--brands", "brand_count", default=3, show_default=True)
@click.option("--shows", default=4, show_default=True, help="Shows per brand.")
@click.option("--photos", default=12, show_default=True, help="Photos per show.")
@click.option("--seed", default=0, show_default=True)
@click.option("--hostile/--no-hostile", default=True, show_default=True,
              help="Include the brands that serve bad input.")
@click.option("--warm", is_flag=True, help="Encode every photo before announcing readiness.")
def replica_serve(port: int, cdn_port: int, brand_count: int, shows: int, photos: int,
                  seed: int, hostile: bool, warm: bool) -> None:
    """Serve the replica until interrupted.

    The first line printed is the two origins as JSON (for scripts); the settings that point
    the pipeline at the replica follow on stderr.
    """
    from fashion_assets.replica.server import serve_forever

    def announce(server: Any) -> None:
        click.echo(json.dumps({"base_url": server.base_url, "cdn_url": server.cdn_url}))
        click.echo("point the pipeline at the replica with:\n" + "\n".join(
            f"  export {k}={v}" for k, v in replica_env(server).items()), err=True)

    serve_forever(port=port, cdn_port=cdn_port, brands=brand_count, shows=shows,
                  photos=photos, seed=seed, hostile=hostile, warm=warm, announce=announce)


def replica_env(server: Any) -> dict[str, str]:
    """The settings that point the Vogue source at a running replica."""
    return {
        "FASHION_VOGUE_BASE_URL": server.base_url,
        "FASHION_VOGUE_IMAGE_HOSTS": server.cdn_url.split("://", 1)[1],
    }
