"""Every command of ``fashion-assets``, and every option and argument of each, says what it
is in ``--help``: the command tree walked, so a command or option added later without a
help text fails here, not in front of a newcomer."""

from __future__ import annotations

from collections.abc import Iterator

import click
import pytest

from fashion_assets.cli import main


def commands(command: click.Command = main, path: tuple[str, ...] = ("fashion-assets",)
             ) -> Iterator[tuple[str, click.Command]]:
    """Each command of the tree, groups included, with the words that call it."""
    yield " ".join(path), command
    if isinstance(command, click.Group):
        for name, sub in command.commands.items():
            yield from commands(sub, (*path, name))


COMMANDS = dict(commands())


@pytest.mark.parametrize("path", COMMANDS)
def test_every_command_says_what_it_does(path: str) -> None:
    command = COMMANDS[path]

    assert (command.help or "").strip() and (command.get_short_help_str() or "").strip()


@pytest.mark.parametrize("path", COMMANDS)
def test_every_option_has_a_help_text(path: str) -> None:
    command = COMMANDS[path]

    bare = [option.opts for option in command.params
            if isinstance(option, click.Option) and not (option.help or "").strip()]

    assert bare == []


@pytest.mark.parametrize("path", COMMANDS)
def test_every_argument_is_named_in_its_commands_help(path: str) -> None:
    command = COMMANDS[path]

    unnamed = [argument.human_readable_name for argument in command.params
               if isinstance(argument, click.Argument)
               and argument.human_readable_name not in (command.help or "")]

    assert unnamed == []


@pytest.mark.parametrize("path", COMMANDS)
def test_help_is_printed_without_an_error(path: str) -> None:
    from click.testing import CliRunner

    result = CliRunner().invoke(main, [*path.split()[1:], "--help"])

    assert result.exit_code == 0 and result.output.startswith("Usage: "), result.output
