"""``fashion-assets looks find PHOTO``: which show, which look, whose photo, from the shell.

The search the read API answers (``catalog/look_search.py``), on the catalog the settings
name, with the same settings (``FASHION_LOOK_SEARCH_WITHIN``, ``_MAX_BYTES``). A file that
cannot be read, or is not a photo the search takes, ends the command in one line that says
what to do, never a traceback; no match is an answer, not an error (exit 0).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import click

from fashion_assets.cli.common import WholeNumber, catalog_engine, echo_json, program
from fashion_assets.domain.wording import counted

if TYPE_CHECKING:
    from fashion_assets.catalog.look_search import FoundLook


@click.group()
def looks() -> None:
    """Find a look of the catalog by its picture."""


@looks.command("find")
@click.argument("photo", type=click.Path(path_type=Path))
# 50 and 10: catalog/look_search.py's MAX_LIMIT and DEFAULT_LIMIT, not imported for --help
# (numpy comes with it); tests/unit/test_look_answers.py holds them equal.
@click.option("--limit", type=WholeNumber(1, 50), default=10, show_default=True,
              help="Looks listed at most.")
@click.option("--json", "as_json", is_flag=True, help="Print the answer as JSON.")
def looks_find(photo: Path, limit: int, as_json: bool) -> None:
    """The catalog's looks closest to PHOTO (an image file), closest first: promoted shows
    and street-style albums only, their shown photos and alternates, the mirror image too;
    "no match" when none is within FASHION_LOOK_SEARCH_WITHIN bits, or when the catalog has
    no look yet (drafts are looks once promoted: review promote)."""
    from fashion_assets.catalog.look_search import RefusedPhoto, SearchRules, find_looks

    try:
        rules = SearchRules.from_env(os.environ)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    data = _read_capped(photo, rules.upload.max_bytes)
    try:
        found = find_looks(catalog_engine(), data, limit=limit, rules=rules)
    except RefusedPhoto as refused:
        raise click.ClickException(f"{photo} is not a photo the search takes "
                                   f"({refused.reason}: {refused.detail}); give a JPEG, PNG, "
                                   "WebP, GIF or AVIF photo") from None
    if as_json:
        echo_json({"within": found.within, "match": found.match,
                   "looks": [{**look.fields(), "object_key": look.object_key}
                             for look in found.looks]})
    elif not found.photos:
        from fashion_assets.domain.promotion_text import empty_catalog

        click.echo(empty_catalog(program()))
    elif not found.looks:
        click.echo(f"no match: no look of the catalog within {counted(found.within, 'bit')}")
    else:
        for look in found.looks:
            click.echo(_line(look))


def _read_capped(photo: Path, max_bytes: int) -> bytes:
    """The file's bytes, refused once past ``max_bytes``: never read whole to be refused,
    whether its size says so (a file) or not (a device such as /dev/zero, a pipe)."""
    try:
        with photo.open("rb") as file:
            data = file.read(max_bytes + 1)
    except OSError as exc:
        raise click.ClickException(f"cannot read {photo}: {exc.strerror or exc}; give the "
                                   "path of a photo file") from None
    if len(data) > max_bytes:
        raise click.ClickException(
            f"{photo} is over the {max_bytes} bytes the search takes: give a smaller copy, "
            "or raise FASHION_LOOK_SEARCH_MAX_BYTES")
    return data


def _line(look: FoundLook) -> str:
    """A look as a line: distance, entry, position, source, the photo shown for it."""
    e = look.entry
    where = (f"{e['brand']} {e['season_code']}" if look.kind == "runway"
             else f"{e['city']} {e['year']}-{e['month']:02d}")
    return (f"{look.distance:>3} bits\t{look.kind}\t{where}\tlook {look.position}"
            f"\t{look.source}\t{look.object_key}")
