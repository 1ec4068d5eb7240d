"""``fashion-assets demo``: the whole pipeline over the replica (fashion_assets.demo runs it)."""

from __future__ import annotations

import sys

import click

from fashion_assets.cli.common import WholeNumber
from fashion_assets.demo import run_demo


@click.command()
@click.option("--brands", "brand_count", type=WholeNumber(), default=3, show_default=True,
              help="Brands of the replica to crawl, besides its two hostile ones "
                   "(hostile-house, robots-blocked).")
@click.option("--shows", type=WholeNumber(), default=4, show_default=True,
              help="Shows per brand.")
@click.option("--photos", type=WholeNumber(), default=12, show_default=True,
              help="Photos per show.")
@click.option("--verbose", is_flag=True, help="Print Dagster's event stream of every run too.")
def demo(brand_count: int, shows: int, photos: int, verbose: bool) -> None:
    """Start the replica, crawl its brands, seasons and fashion weeks (a line each), and say
    what to run next."""
    sys.exit(run_demo(brand_count, shows, photos, echo=click.echo, verbose=verbose))
