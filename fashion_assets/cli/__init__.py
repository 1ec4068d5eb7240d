"""The ``fashion-assets`` command: crawl, brands, status, the store, the look search, the
demo and the replica.

The commands that crawl submit their runs to a Dagster deployment (``fashion_assets.launch``),
on the instance in ``DAGSTER_HOME`` (a persistent folder under ``FASHION_HOME`` when unset),
so every run the CLI makes shows up in ``dagster dev``. A user's mistake (a database that
is not there, a deployment out of reach) ends in one line (``cli/errors.py``).

Each command group has its module here; this one only assembles them under ``main``, the
entry point (``fashion_assets.cli:main``, ``python -m fashion_assets``).
"""

from __future__ import annotations

import click

from fashion_assets.cli.api import api
from fashion_assets.cli.brands import brands
from fashion_assets.cli.coverage import coverage
from fashion_assets.cli.crawl import crawl
from fashion_assets.cli.demo import demo
from fashion_assets.cli.editors import editors
from fashion_assets.cli.errors import OneLineErrors
from fashion_assets.cli.home import home, ui
from fashion_assets.cli.looks import looks
from fashion_assets.cli.names import names
from fashion_assets.cli.replica import replica
from fashion_assets.cli.review import review
from fashion_assets.cli.status import status
from fashion_assets.cli.store import store

__all__ = ["main"]


@click.group(cls=OneLineErrors)
def main() -> None:
    """fashion-assets: a reviewed archive of fashion imagery, as a Dagster code location."""


for _command in (crawl, brands, names, status, coverage, store, review, api, looks, editors,
                 demo, replica, home, ui):
    main.add_command(_command)
