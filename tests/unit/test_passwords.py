"""Editors' passwords (domain/passwords.py) and when their sessions end (domain/sessions.py)."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from fashion_assets.domain.passwords import (
    DEFAULT_COST,
    MIN_PASSWORD_CHARS,
    ScryptCost,
    WeakPassword,
    check_strength,
    hash_password,
    needs_rehash,
    verify_password,
)
from fashion_assets.domain.sessions import SessionRules, SessionTimes, session_end_reason

CHEAP = ScryptCost(log2_n=10)  # the rule is the same at any cost; tests need not wait


def test_a_hash_verifies_its_password_only_and_never_holds_it() -> None:
    stored = hash_password("correct horse battery", CHEAP)

    assert verify_password("correct horse battery", stored)
    assert not verify_password("correct horse batterY", stored)
    assert not verify_password("", stored)
    assert "horse" not in stored and stored.startswith("scrypt$10$8$1$")


def test_each_hash_has_its_own_salt() -> None:
    assert hash_password("correct horse battery", CHEAP) != hash_password(
        "correct horse battery", CHEAP)


def test_the_default_cost_is_owasps_for_scrypt() -> None:
    assert (DEFAULT_COST.log2_n, DEFAULT_COST.r, DEFAULT_COST.p) == (17, 8, 1)
    assert DEFAULT_COST.memory_bytes == 128 * 1024 * 1024


@pytest.mark.parametrize("stored", [
    "", "plain text", "scrypt$10$8$1$c2FsdA==", "bcrypt$10$8$1$c2FsdA==$" + "A" * 44,
    "scrypt$30$8$1$c2FsdA==$" + "A" * 44,  # 2^30: gigabytes per check, refused
    "scrypt$10$8$1$not base64!$" + "A" * 44, "scrypt$x$8$1$c2FsdA==$" + "A" * 44,
])
def test_a_stored_value_that_is_no_hash_of_ours_matches_nothing(stored: str) -> None:
    assert not verify_password("correct horse battery", stored)
    assert needs_rehash(stored)


def test_a_hash_of_other_costs_needs_a_new_one() -> None:
    stored = hash_password("correct horse battery", CHEAP)

    assert needs_rehash(stored) and not needs_rehash(stored, CHEAP)


def test_the_strength_rule() -> None:
    check_strength("x" * MIN_PASSWORD_CHARS)
    with pytest.raises(WeakPassword, match="at least 12"):
        check_strength("x" * (MIN_PASSWORD_CHARS - 1))
    with pytest.raises(WeakPassword, match="at most"):
        check_strength("x" * 2000)
    with pytest.raises(WeakPassword, match="name"):
        check_strength("Marguerite.Duras", name="marguerite.duras")


T0 = datetime(2026, 12, 4, 9, 0)
RULES = SessionRules(idle_s=3600, absolute_s=8 * 3600)


@pytest.mark.parametrize(("created", "seen", "ended", "now", "reason"), [
    (T0, T0, None, T0 + timedelta(minutes=59), None),
    (T0, T0, None, T0 + timedelta(hours=1), "idle"),
    (T0, T0 + timedelta(hours=7), None, T0 + timedelta(hours=7, minutes=30), None),
    (T0, T0 + timedelta(hours=7, minutes=59), None, T0 + timedelta(hours=8), "expired"),
    (T0, T0, T0 + timedelta(minutes=1), T0 + timedelta(minutes=2), "ended"),
])
def test_when_a_session_ends(created: datetime, seen: datetime, ended: datetime | None,
                             now: datetime, reason: str | None) -> None:
    assert session_end_reason(SessionTimes(created, seen, ended), now, RULES) == reason
