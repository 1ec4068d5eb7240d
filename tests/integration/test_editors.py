"""Editors' accounts and sessions in the catalog (catalog/editors.py) and their command
(``fashion-assets editors``), on SQLite and PostgreSQL."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy import Engine, text

from fashion_assets.catalog import editors as accounts
from fashion_assets.catalog.db import utc_naive
from fashion_assets.catalog.editors import (
    EditorError,
    add_editor,
    authenticate,
    end_session,
    session_editor,
    set_disabled,
    set_password,
    start_session,
)
from fashion_assets.cli import main
from fashion_assets.domain.passwords import Argon2Cost, WeakPassword
from fashion_assets.domain.sessions import SessionRules
from fashion_assets.resources import catalog_engine
from tests.catalog_db import query

CHEAP = Argon2Cost(time_cost=1, memory_kib=1024)
RULES = SessionRules()
PASSWORD = "a long enough password"
# PASSWORD as the previous release kept it: hash_password(PASSWORD, ScryptCost(log2_n=10)).
SCRYPT_HASH = ("scrypt$10$8$1$y4JIFT4iJTvQB5GpgoB8Wg==$"
               "6oA/CYK5tni0axhrU8O0wK+GFWglXQhzsaEJnRRNkmo=")


@pytest.fixture
def engine(database_url: str) -> Engine:
    return catalog_engine(database_url)


def test_an_editor_signs_in_with_their_own_password_kept_only_as_a_hash(
        engine: Engine, database_url: str) -> None:
    added = add_editor(engine, " Ada ", PASSWORD, cost=CHEAP)

    assert (added.name, added.role, added.active) == ("ada", "editor", True)
    assert authenticate(engine, "ADA", PASSWORD, cost=CHEAP) == added
    assert authenticate(engine, "ada", PASSWORD + "!", cost=CHEAP) is None
    assert authenticate(engine, "nobody", PASSWORD, cost=CHEAP) is None
    assert authenticate(engine, "../x", PASSWORD, cost=CHEAP) is None
    [(stored,)] = query(database_url, "SELECT password_hash FROM editors")
    assert PASSWORD not in stored and stored.startswith("$argon2id$v=19$m=1024,t=1,p=1$")


def test_a_taken_name_a_bad_name_a_bad_role_and_a_weak_password_are_refused(
        engine: Engine) -> None:
    add_editor(engine, "ada", PASSWORD, cost=CHEAP)

    with pytest.raises(EditorError, match="exists already"):
        add_editor(engine, "ADA", PASSWORD, cost=CHEAP)
    with pytest.raises(EditorError, match="not an editor name"):
        add_editor(engine, "ada lovelace", PASSWORD, cost=CHEAP)
    with pytest.raises(EditorError, match="role"):
        add_editor(engine, "bob", PASSWORD, role="root", cost=CHEAP)
    with pytest.raises(WeakPassword):
        add_editor(engine, "bob", "short", cost=CHEAP)
    assert [e.name for e in accounts.list_editors(engine)] == ["ada"]


def test_a_sign_in_replaces_a_hash_of_other_costs(engine: Engine, database_url: str) -> None:
    add_editor(engine, "ada", PASSWORD, cost=CHEAP)

    assert authenticate(engine, "ada", PASSWORD, cost=Argon2Cost(2, 1024)) is not None
    [(stored,)] = query(database_url, "SELECT password_hash FROM editors")
    assert stored.startswith("$argon2id$v=19$m=1024,t=2,p=1$")


def test_an_earlier_releases_scrypt_hash_signs_in_once_and_becomes_argon2id(
        engine: Engine, database_url: str) -> None:
    """Issue 38: hashes are Argon2id now; an account kept since an earlier release keeps its
    scrypt hash until its editor next signs in, which stores an Argon2id hash instead."""
    add_editor(engine, "ada", PASSWORD, cost=CHEAP)
    with engine.begin() as conn:
        conn.execute(text("UPDATE editors SET password_hash = :h"), {"h": SCRYPT_HASH})

    def stored() -> str:
        [(value,)] = query(database_url, "SELECT password_hash FROM editors")
        return value

    assert authenticate(engine, "ada", PASSWORD + "!", cost=CHEAP) is None
    assert stored() == SCRYPT_HASH
    assert authenticate(engine, "ada", PASSWORD, cost=CHEAP) is not None
    assert stored().startswith("$argon2id$v=19$m=1024,t=1,p=1$")
    assert authenticate(engine, "ada", PASSWORD + "!", cost=CHEAP) is None
    assert authenticate(engine, "ada", PASSWORD, cost=CHEAP) is not None


def test_two_editors_have_sessions_of_their_own_and_sign_out_ends_one(engine: Engine) -> None:
    ada = add_editor(engine, "ada", PASSWORD, cost=CHEAP)
    bob = add_editor(engine, "bob", PASSWORD, cost=CHEAP)
    ada_token, bob_token = start_session(engine, ada), start_session(engine, bob)

    assert session_editor(engine, ada_token, RULES) == ada
    assert session_editor(engine, bob_token, RULES) == bob
    end_session(engine, ada_token)
    assert session_editor(engine, ada_token, RULES) is None
    assert session_editor(engine, bob_token, RULES) == bob
    assert session_editor(engine, "", RULES) is None
    assert session_editor(engine, "made-up", RULES) is None


def test_disabling_an_editor_ends_their_sessions_at_once_and_bars_sign_in(
        engine: Engine) -> None:
    ada = add_editor(engine, "ada", PASSWORD, cost=CHEAP)
    token = start_session(engine, ada)

    set_disabled(engine, "ada", True)

    assert session_editor(engine, token, RULES) is None
    assert authenticate(engine, "ada", PASSWORD, cost=CHEAP) is None
    set_disabled(engine, "ada", False)
    assert session_editor(engine, token, RULES) is None  # ended for good
    assert authenticate(engine, "ada", PASSWORD, cost=CHEAP) is not None


def test_a_new_password_ends_every_session(engine: Engine) -> None:
    ada = add_editor(engine, "ada", PASSWORD, cost=CHEAP)
    token = start_session(engine, ada)

    set_password(engine, "ada", "another long password", cost=CHEAP)

    assert session_editor(engine, token, RULES) is None
    assert authenticate(engine, "ada", PASSWORD, cost=CHEAP) is None
    assert authenticate(engine, "ada", "another long password", cost=CHEAP) is not None


def test_an_idle_session_ends_and_stays_ended(engine: Engine, database_url: str) -> None:
    ada = add_editor(engine, "ada", PASSWORD, cost=CHEAP)
    token = start_session(engine, ada)
    rules = SessionRules(idle_s=600, absolute_s=3600)
    [(started,)] = query(database_url, "SELECT last_seen_at FROM editor_sessions")
    started = utc_naive(started)

    assert session_editor(engine, token, rules, now=started + timedelta(seconds=599)) == ada
    assert session_editor(engine, token, rules, now=started + timedelta(seconds=1300)) is None
    assert session_editor(engine, token, rules, now=started + timedelta(seconds=1)) is None
    [(ended,)] = query(database_url, "SELECT ended_at FROM editor_sessions")
    assert ended is not None


def test_the_table_keeps_no_token(engine: Engine, database_url: str) -> None:
    token = start_session(engine, add_editor(engine, "ada", PASSWORD, cost=CHEAP))

    [(kept,)] = query(database_url, "SELECT token_hash FROM editor_sessions")
    assert kept != token and token not in kept and len(kept) == 64


# --- the command -------------------------------------------------------------------------


@pytest.fixture
def cli(engine: Engine, database_url: str, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> Engine:
    monkeypatch.setenv("FASHION_HOME", str(tmp_path))
    monkeypatch.setenv("FASHION_DATABASE_URL", database_url)
    return engine


def run(*args: str, stdin: str | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["editors", *args], input=stdin)
    return result.exit_code, result.output


def test_the_command_adds_lists_changes_and_disables_editors(cli: Engine) -> None:
    assert run("list")[1].startswith("no editors yet")
    code, out = run("add", "ada", "--admin", "--password-stdin", stdin=PASSWORD + "\n")
    assert (code, out) == (0, "added admin ada\n")
    code, out = run("add", "bob", stdin=f"{PASSWORD}\n{PASSWORD}\n")  # asked twice
    assert code == 0, out
    assert authenticate(cli, "bob", PASSWORD) is not None

    code, out = run("add", "cy", "--password-stdin", stdin="short\n")
    assert code == 1 and "at least 12 characters" in out
    code, out = run("add", "ada", "--password-stdin", stdin=PASSWORD + "\n")
    assert code == 1 and "exists already" in out

    assert run("passwd", "bob", "--password-stdin", stdin="a brand new password\n")[0] == 0
    assert authenticate(cli, "bob", "a brand new password") is not None
    code, out = run("disable", "bob")
    assert (code, out) == (0, "disabled bob; their sessions ended\n")
    code, out = run("list", "--json")
    assert [(e["name"], e["role"], e["active"]) for e in json.loads(out)] == [
        ("ada", "admin", True), ("bob", "editor", False)]
    assert run("enable", "bob")[0] == 0
    code, out = run("disable", "nobody")
    assert code == 1 and "no editor named 'nobody'" in out


def test_a_password_from_an_endless_input_is_refused_not_read_whole(cli: Engine) -> None:
    """Standard input with no line end (/dev/zero) is read as far as a password may go,
    then refused in one line; under a 1 GB address-space limit reading it whole fails."""
    limit = "import resource; resource.setrlimit(resource.RLIMIT_AS, (2**30, 2**30)); "
    with open("/dev/zero", "rb") as endless:
        done = subprocess.run(
            [sys.executable, "-c", limit + "from fashion_assets.cli import main; main()",
             "editors", "add", "zed", "--password-stdin"], stdin=endless, env=dict(os.environ),
            capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and "Traceback" not in done.stderr, done
    assert "at most 1024 characters" in done.stderr
    assert run("list")[1].startswith("no editors yet")
