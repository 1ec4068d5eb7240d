"""docs/usage.md's table of commands names every ``fashion-assets`` subcommand and no other."""

import re
from pathlib import Path

from fashion_assets.cli import main

USAGE = Path(__file__).parents[2] / "docs" / "usage.md"


def test_the_usage_page_names_every_subcommand_and_no_other() -> None:
    table = re.search(r"\| command \| what it does \|\n\|---\|---\|\n((?:\|.*\n)+)",
                      USAGE.read_text())
    assert table, "docs/usage.md lost its table of commands"
    listed = {re.match(r"\| `([a-z-]+)", row).group(1)  # type: ignore[union-attr]
              for row in table.group(1).splitlines()}
    assert listed == set(main.commands)
