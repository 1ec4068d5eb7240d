"""``fashion-assets editors``: the accounts editors sign in to the review page with."""

from __future__ import annotations

import sys
from datetime import datetime

import click

from fashion_assets.cli.common import catalog_engine, echo_json

_STDIN_HELP = ("Read the password from the first line of standard input (for scripts) "
               "instead of asking for it twice.")


@click.group()
def editors() -> None:
    """Editors' accounts for the review page: each editor signs in with their own name and
    password, and the audit trail records who did what."""


@editors.command("add")
@click.argument("name")
@click.option("--admin", is_flag=True, help="May also manage the other editors.")
@click.option("--password-stdin", is_flag=True, help=_STDIN_HELP)
def editors_add(name: str, admin: bool, password_stdin: bool) -> None:
    """Add an editor NAME (a-z, 0-9, '.', '_', '-'); the password is asked for.

    The name is checked first, its shape and that no editor has it, and the password as
    soon as it is typed: a refusal never comes after the password was typed twice."""
    from fashion_assets.catalog.editors import add_editor, unused_editor_name

    engine = catalog_engine()
    name = _done(lambda: unused_editor_name(engine, name))
    password = _password(password_stdin, name)
    editor = _done(lambda: add_editor(engine, name, password,
                                      role="admin" if admin else "editor"))
    click.echo(f"added {editor.role} {editor.name}")


@editors.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print a machine-readable list.")
def editors_list(as_json: bool) -> None:
    """Every editor: name, role, whether they may sign in, since when."""
    from fashion_assets.catalog.editors import list_editors

    found = list_editors(catalog_engine())
    if as_json:
        echo_json([{"name": e.name, "role": e.role, "active": e.active,
                    "created_at": e.created_at.isoformat(),
                    "disabled_at": e.disabled_at and e.disabled_at.isoformat()}
                   for e in found])
        return
    if not found:
        click.echo("no editors yet: fashion-assets editors add NAME --admin")
    for e in found:
        state = "active" if e.active else f"disabled {_when(e.disabled_at)}"
        click.echo(f"{e.name}\t{e.role}\t{state}\tsince {_when(e.created_at)}")


@editors.command("passwd")
@click.argument("name")
@click.option("--password-stdin", is_flag=True, help=_STDIN_HELP)
def editors_passwd(name: str, password_stdin: bool) -> None:
    """Give editor NAME a new password; every session they have ends."""
    from fashion_assets.catalog.editors import existing_editor, set_password

    engine = catalog_engine()
    known = _done(lambda: existing_editor(engine, name))  # before the password is typed
    password = _password(password_stdin, known.name)
    editor = _done(lambda: set_password(engine, known.name, password))
    click.echo(f"new password for {editor.name}; their sessions ended")


@editors.command("disable")
@click.argument("name")
def editors_disable(name: str) -> None:
    """Stop editor NAME from signing in; their sessions end at once."""
    from fashion_assets.catalog.editors import set_disabled

    editor = _done(lambda: set_disabled(catalog_engine(), name, True))
    click.echo(f"disabled {editor.name}; their sessions ended")


@editors.command("enable")
@click.argument("name")
def editors_enable(name: str) -> None:
    """Let a disabled editor NAME sign in again."""
    from fashion_assets.catalog.editors import set_disabled

    editor = _done(lambda: set_disabled(catalog_engine(), name, False))
    click.echo(f"enabled {editor.name}")


@editors.command("unlock")
@click.argument("name")
def editors_unlock(name: str) -> None:
    """Lift the sign-in lockout of editor NAME (too many failed sign-ins) now."""
    from fashion_assets.catalog.editors import existing_editor
    from fashion_assets.catalog.sign_ins import account_subject, clear_failures

    editor = _done(lambda: existing_editor(catalog_engine(), name))
    lifted = clear_failures(catalog_engine(), account_subject(editor.name))
    click.echo(f"{editor.name} may sign in again" if lifted
               else f"{editor.name} had no failed sign-ins")


def _password(from_stdin: bool, name: str) -> str:
    """The password typed twice, or the first line of standard input, read no further than
    a password may be long (and its line end): input with no line end (/dev/zero) is never
    read whole, and what was read is refused as too long. A typed one too weak for editor
    ``name`` is refused as soon as it is typed, and asked for again, before its repetition."""
    from fashion_assets.domain.passwords import MAX_PASSWORD_CHARS, WeakPassword, check_strength

    if from_stdin:
        return sys.stdin.readline(MAX_PASSWORD_CHARS + 2).rstrip("\r\n")

    def strong(password: str) -> str:
        try:
            check_strength(password, name=name)
        except WeakPassword as exc:
            raise click.UsageError(str(exc)) from None
        return password

    return click.prompt("password", hide_input=True, confirmation_prompt=True,
                        value_proc=strong)


def _done(action):  # type: ignore[no-untyped-def]
    """``action()``, its refusal (a taken name, a weak password) as a usage error."""
    from fashion_assets.catalog.editors import EditorError
    from fashion_assets.domain.passwords import WeakPassword

    try:
        return action()
    except (EditorError, WeakPassword) as exc:
        raise click.ClickException(str(exc)) from None


def _when(moment: datetime | None) -> str:
    return "-" if moment is None else f"{moment:%Y-%m-%d %H:%M}"
