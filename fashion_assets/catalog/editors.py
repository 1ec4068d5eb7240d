"""Editors' accounts and their review-page sessions, kept in the catalog.

The rules are pure and live elsewhere: a password's strength and its hash in
``domain/passwords.py``, when a session ends in ``domain/sessions.py``. This module reads and
writes. A session is known by the sha256 of its random token (the cookie holds the token),
so it can be ended from anywhere at once: sign-out, ``editors disable``, a new password.
"""

from __future__ import annotations

import functools
import hashlib
import re
import secrets
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Engine, text
from sqlalchemy.exc import IntegrityError

from fashion_assets.catalog.db import utc_naive, utc_naive_now
from fashion_assets.domain.passwords import (
    DEFAULT_COST,
    Argon2Cost,
    check_strength,
    hash_password,
    needs_rehash,
    verify_password,
)
from fashion_assets.domain.sessions import SessionRules, SessionTimes, session_end_reason

ROLES = ("editor", "admin")
_NAME_RE = re.compile(r"[a-z0-9][a-z0-9._-]{0,63}")
# A session's last request is written at most this often: a page of thumbnails would
# otherwise write the same row once per photo.
_SEEN_WRITE_EVERY_S = 60.0


class EditorError(ValueError):
    """An account operation that cannot be done; the message says why."""


@dataclass(frozen=True)
class Editor:
    id: int
    name: str
    role: str
    created_at: datetime
    disabled_at: datetime | None

    @property
    def active(self) -> bool:
        return self.disabled_at is None

    @property
    def is_admin(self) -> bool:
        return self.role == "admin"


def editor_name(name: str) -> str:
    """``name`` as accounts are known by: trimmed, lowercase, 1-64 of ``a-z 0-9 . _ -``
    starting with a letter or digit; raises ``EditorError`` otherwise."""
    normalized = name.strip().lower()
    if not _NAME_RE.fullmatch(normalized):
        raise EditorError(f"{name!r} is not an editor name: 1-64 characters of a-z, 0-9, '.',"
                          " '_', '-', starting with a letter or digit")
    return normalized


def add_editor(engine: Engine, name: str, password: str, *, role: str = "editor",
               cost: Argon2Cost = DEFAULT_COST) -> Editor:
    """A new account; raises ``EditorError`` (a taken name, a bad role) or ``WeakPassword``."""
    name = editor_name(name)
    if role not in ROLES:
        raise EditorError(f"role must be one of {', '.join(ROLES)}, not {role!r}")
    check_strength(password, name=name)
    try:
        with engine.begin() as conn:
            conn.execute(text("INSERT INTO editors (name, password_hash, role, created_at,"
                              " password_changed_at) VALUES (:name, :hash, :role, :now, :now)"),
                         {"name": name, "hash": hash_password(password, cost), "role": role,
                          "now": utc_naive_now()})
    except IntegrityError:  # taken since unused_editor_name said it was not
        raise EditorError(_taken(name)) from None
    editor = get_editor(engine, name)
    assert editor is not None
    return editor


def unused_editor_name(engine: Engine, name: str) -> str:
    """``name`` as accounts know it, if no editor has it; ``EditorError`` otherwise (not a
    name, or taken): what ``editors add`` checks before it asks for a password."""
    name = editor_name(name)
    if get_editor(engine, name) is not None:
        raise EditorError(_taken(name))
    return name


def _taken(name: str) -> str:
    return f"an editor named {name!r} exists already"


def list_editors(engine: Engine) -> list[Editor]:
    with engine.connect() as conn:
        rows = conn.execute(text(f"SELECT {_COLUMNS} FROM editors e ORDER BY e.name")).all()
    return [_editor(row) for row in rows]


def has_editors(engine: Engine) -> bool:
    """Whether any account exists, disabled ones included: from the first one on, the
    review page needs a sign-in."""
    with engine.connect() as conn:
        return conn.execute(text("SELECT 1 FROM editors LIMIT 1")).first() is not None


def get_editor(engine: Engine, name: str) -> Editor | None:
    with engine.connect() as conn:
        row = conn.execute(text(f"SELECT {_COLUMNS} FROM editors e WHERE e.name = :name"),
                           {"name": name.strip().lower()}).first()
    return None if row is None else _editor(row)


def set_password(engine: Engine, name: str, password: str, *,
                 cost: Argon2Cost = DEFAULT_COST) -> Editor:
    """Give ``name`` a new password; every session they have ends (a password changed
    because it leaked must shut out whoever used it)."""
    editor = existing_editor(engine, name)
    check_strength(password, name=editor.name)
    now = utc_naive_now()
    with engine.begin() as conn:
        conn.execute(text("UPDATE editors SET password_hash = :hash, password_changed_at = :now"
                          " WHERE id = :id"),
                     {"hash": hash_password(password, cost), "now": now, "id": editor.id})
        _end_sessions(conn, editor.id, now)
    return editor


def set_disabled(engine: Engine, name: str, disabled: bool) -> Editor:
    """Disable ``name`` (no sign-in; their sessions end at once) or enable them again."""
    editor = existing_editor(engine, name)
    now = utc_naive_now()
    with engine.begin() as conn:
        conn.execute(text("UPDATE editors SET disabled_at = :at WHERE id = :id"),
                     {"at": now if disabled else None, "id": editor.id})
        if disabled:
            _end_sessions(conn, editor.id, now)
    updated = get_editor(engine, editor.name)
    assert updated is not None
    return updated


def authenticate(engine: Engine, name: str, password: str, *,
                 cost: Argon2Cost = DEFAULT_COST) -> Editor | None:
    """The active editor whose name and password these are, or None. A hash made with other
    costs than ``cost`` is replaced by one made with them, now that the password is known."""
    try:
        name = editor_name(name)
    except EditorError:
        name = ""
    with engine.connect() as conn:
        row = conn.execute(text(f"SELECT {_COLUMNS}, e.password_hash FROM editors e"
                                " WHERE e.name = :name"), {"name": name}).first()
    if row is None:
        verify_password(password, _unknown_name_hash(cost))
        return None
    editor, stored = _editor(row), str(row.password_hash)
    if not verify_password(password, stored) or not editor.active:
        return None
    if needs_rehash(stored, cost):
        with engine.begin() as conn:
            conn.execute(text("UPDATE editors SET password_hash = :hash WHERE id = :id"),
                         {"hash": hash_password(password, cost), "id": editor.id})
    return editor


def start_session(engine: Engine, editor: Editor) -> str:
    """A new session of ``editor``: the token for the cookie (only its hash is kept)."""
    token = secrets.token_urlsafe(32)
    now = utc_naive_now()
    with engine.begin() as conn:
        conn.execute(text("INSERT INTO editor_sessions (token_hash, editor_id, created_at,"
                          " last_seen_at) VALUES (:hash, :editor, :now, :now)"),
                     {"hash": _token_hash(token), "editor": editor.id, "now": now})
    return token


def session_editor(engine: Engine, token: str, rules: SessionRules,
                   now: datetime | None = None) -> Editor | None:
    """The editor signed in by ``token``, or None when the session is unknown or over (it is
    then marked ended); a live session's last request time moves to ``now``."""
    if not token:
        return None
    now = now or utc_naive_now()
    with engine.begin() as conn:
        row = conn.execute(text(
            f"SELECT {_COLUMNS}, s.created_at AS s_created, s.last_seen_at, s.ended_at"
            " FROM editor_sessions s JOIN editors e ON e.id = s.editor_id"
            " WHERE s.token_hash = :hash"), {"hash": _token_hash(token)}).first()
        if row is None:
            return None
        editor = _editor(row)
        times = SessionTimes(utc_naive(row.s_created), utc_naive(row.last_seen_at),
                             None if row.ended_at is None else utc_naive(row.ended_at))
        reason = session_end_reason(times, now, rules) or (None if editor.active else "ended")
        if reason is not None:
            if times.ended_at is None:
                conn.execute(text("UPDATE editor_sessions SET ended_at = :now"
                                  " WHERE token_hash = :hash"),
                             {"now": now, "hash": _token_hash(token)})
            return None
        if (now - times.last_seen_at).total_seconds() >= _SEEN_WRITE_EVERY_S:
            conn.execute(text("UPDATE editor_sessions SET last_seen_at = :now"
                              " WHERE token_hash = :hash"),
                         {"now": now, "hash": _token_hash(token)})
    return editor


def end_session(engine: Engine, token: str) -> None:
    """Sign-out: the session of ``token`` ends (nothing happens for an unknown one)."""
    with engine.begin() as conn:
        conn.execute(text("UPDATE editor_sessions SET ended_at = :now"
                          " WHERE token_hash = :hash AND ended_at IS NULL"),
                     {"now": utc_naive_now(), "hash": _token_hash(token)})


_COLUMNS = "e.id, e.name, e.role, e.created_at, e.disabled_at"


def _editor(row) -> Editor:  # type: ignore[no-untyped-def]
    return Editor(int(row.id), str(row.name), str(row.role), utc_naive(row.created_at),
                  None if row.disabled_at is None else utc_naive(row.disabled_at))


def existing_editor(engine: Engine, name: str) -> Editor:
    """The editor named ``name``; ``EditorError`` when there is none."""
    editor = get_editor(engine, name)
    if editor is None:
        raise EditorError(f"no editor named {name.strip().lower()!r}")
    return editor


def _end_sessions(conn, editor_id: int, now: datetime) -> None:  # type: ignore[no-untyped-def]
    conn.execute(text("UPDATE editor_sessions SET ended_at = :now"
                      " WHERE editor_id = :id AND ended_at IS NULL"),
                 {"now": now, "id": editor_id})


@functools.cache
def _unknown_name_hash(cost: Argon2Cost) -> str:
    """Checked when a name is unknown, so that a sign-in takes as long for a name that does
    not exist as for a wrong password: the time tells nobody which names exist."""
    return hash_password(secrets.token_urlsafe(16), cost)


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()
