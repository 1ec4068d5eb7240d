"""The README's list of the ``fashion-assets`` command's subcommands is the command's own."""

import re
from pathlib import Path

from fashion_assets.cli import main

README = Path(__file__).parents[2] / "README.md"


def test_the_readme_names_every_subcommand_and_no_other() -> None:
    listed = re.search(r"the `fashion-assets` command: (.*?)\.\n", README.read_text(),
                       re.DOTALL)
    assert listed, "README.md lost its list of the command's subcommands"
    assert set(re.findall(r"`([a-z-]+)`", listed.group(1))) == set(main.commands)
