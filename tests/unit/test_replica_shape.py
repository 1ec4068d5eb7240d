"""The replica's shape rule (``replica/vogue_brands.py: check_shape``): what it refuses is
exactly what is out of bounds, and every option of the command line that takes a number
goes through the one rule for numbers (``cli/common.py: WholeNumber``)."""

from __future__ import annotations

from collections.abc import Iterator

import click
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fashion_assets.cli import main
from fashion_assets.cli.common import WholeNumber
from fashion_assets.replica.build import build_site
from fashion_assets.replica.vogue_brands import (
    MAX_BRANDS,
    MAX_PHOTOS,
    MAX_PHOTOS_PER_SHOW,
    MAX_SHOWS_PER_BRAND,
    ShapeError,
    check_shape,
)

NUMBERS = st.integers(-10, 2**70)


@given(NUMBERS, NUMBERS, NUMBERS)
def test_a_shape_is_refused_exactly_when_out_of_bounds(brands: int, shows: int,
                                                       photos: int) -> None:
    fits = (0 <= brands <= MAX_BRANDS and 1 <= shows <= MAX_SHOWS_PER_BRAND
            and 1 <= photos <= MAX_PHOTOS_PER_SHOW and brands * shows * photos <= MAX_PHOTOS)
    try:
        check_shape(brands, shows, photos)
    except ShapeError:
        assert not fits
    else:
        assert fits


def test_the_build_refuses_before_building() -> None:
    with pytest.raises(ShapeError, match="100,000,000 photos"):
        build_site(brands=1, shows_per_brand=1, photos_per_show=100_000_000)
    assert len(build_site(brands=0, shows_per_brand=1, photos_per_show=1,
                          hostile=False).brands) == 0


def _params(command: click.Command, path: tuple[str, ...] = ()
            ) -> Iterator[tuple[str, click.Parameter]]:
    if isinstance(command, click.Group):
        for name, sub in command.commands.items():
            yield from _params(sub, (*path, name))
        return
    for param in command.params:
        yield " ".join(path), param


def test_every_whole_number_of_the_command_line_is_read_by_the_one_rule() -> None:
    """click's own int takes '٣' and '1_000'; a port past 65535 reached the bind."""
    typed = [(where, p.name) for where, p in _params(main)
             if isinstance(p.type, click.types.IntParamType)]
    assert typed == []
    ports = [p.type for where, p in _params(main) if (p.name or "").endswith("port")]
    # 0 asks for any free port; `ui` must know its port to say it, so it starts at 1.
    assert ports and all(isinstance(t, WholeNumber) and (t.low, t.high) in {(0, 65535),
                                                                             (1, 65535)}
                         for t in ports)
