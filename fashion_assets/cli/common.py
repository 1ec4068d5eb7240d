"""What the command groups share: slug checks, the catalog, the editor, JSON output, the queue.

Each command group's module takes these from here rather than from another group, so the
groups stay independent of one another and of the package that assembles them.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import click

from fashion_assets import settings
from fashion_assets.commands import typed_command
from fashion_assets.domain.numbers import INT64_MAX, whole_number

if TYPE_CHECKING:
    from sqlalchemy import Engine

BRAND_SLUG = re.compile(r"^[a-z0-9][a-z0-9-]{0,119}$")


def brand_slug(value: str) -> str:
    """``value`` if it is a brand slug; a usage error that shows the expected shape if not,
    before anything is crawled or registered under a key no source URL can have."""
    if not BRAND_SLUG.match(value):
        raise click.BadParameter(
            f"{value!r} is not a brand slug (lowercase letters, digits and '-', as in the "
            "source's designer URL, e.g. 'maison-martin-margiela')")
    return value


def checked_slug(value: str, what: str) -> str:
    """``value`` if it has a slug's shape; a usage error naming ``what`` was expected if not."""
    if not BRAND_SLUG.match(value):
        raise click.BadParameter(
            f"{value!r} is not a {what} (lowercase letters, digits and '-', as in the "
            "source's URL)")
    return value


def slugs(what: str) -> Callable[[click.Context, click.Parameter, Sequence[str]], list[str]]:
    """A callback that checks every value of a repeated option is a slug (``what`` it is)."""
    return lambda ctx, param, values: [checked_slug(v, what) for v in values]


class WholeNumber(click.ParamType):
    """A whole number option or argument from ``low`` to ``high``, by the one rule for
    numbers from outside (``domain/numbers.py``): click's own ``int`` takes any script's
    digits, signs and underscores, and numbers no catalog column holds."""

    name = "integer"

    def __init__(self, low: int = 0, high: int = INT64_MAX) -> None:
        self.low, self.high = low, high

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> int:
        if isinstance(value, int) and not isinstance(value, bool):
            number: int | None = value if self.low <= value <= self.high else None
        else:
            number = whole_number(str(value).strip(), self.low, self.high)
        if number is None:
            self.fail(f"{str(value)[:40]!r} is not a whole number from {self.low} to "
                      f"{self.high}", param, ctx)
        return number


PORT = WholeNumber(0, 65535)
"""A TCP port, 0 asking the system for any free one."""


def catalog_engine() -> Engine:
    """The catalog the settings name, migrated: the one the pipeline writes.

    Imported late: the engine's modules are heavy, and ``--help`` needs none of them.
    """
    from fashion_assets.catalog import engines

    return engines.catalog_engine(settings.database_url())


def editor() -> str:
    """Who a review or name decision made from the shell is recorded as."""
    return os.environ.get("FASHION_EDITOR") or os.environ.get("USER") or "cli"


def program() -> str:
    """``fashion-assets`` as the user must type it, for the hints that name another command."""
    return typed_command("fashion-assets")


def echo_json(value: Any, default: Callable[[Any], Any] | None = None) -> None:
    """Print ``value`` indented, the one shape of every ``--json`` output (for scripts)."""
    click.echo(json.dumps(value, indent=2, default=default))


def text_table(rows: Sequence[Mapping[str, Any]]) -> str:
    """``rows`` as a table under their keys, every column right-aligned to its widest cell,
    two spaces apart: the per-brand counts of ``status`` (pandas printed them, and its
    import was more than half a second of the command's CPU)."""
    if not rows:
        return ""
    cells = [list(rows[0]), *([str(value) for value in row.values()] for row in rows)]
    widths = [max(len(str(line[column])) for line in cells) for column in range(len(cells[0]))]
    return "\n".join("  ".join(str(cell).rjust(width) for cell, width in zip(line, widths,
                                                                             strict=True))
                     for line in cells)


@contextlib.contextmanager
def queue_instance() -> Iterator[tuple[Any, str]]:
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


def run_and_follow(job: str, *, asset: str = "", step: str = "",
                   run_config: dict[str, Any] | None = None,
                   join: dict[str, str] | None = None) -> dict[str, Any]:
    """One run of ``job`` through the Dagster deployment (``launch.crawl.run_job``), its log
    lines and notes on stderr; its summary. A stop signal or a missing deployment ends the
    command with its one line (``cli/errors.py``)."""
    from fashion_assets.launch.crawl import command_session, run_job

    with command_session(note=lambda line: click.echo(line, err=True)) as session:
        return run_job(session, job, run_config=run_config, asset=asset, step=step,
                       on_line=lambda line: click.echo(line, err=True), join=join)
