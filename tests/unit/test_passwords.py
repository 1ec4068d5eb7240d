"""Editors' passwords (domain/passwords.py) and when their sessions end (domain/sessions.py)."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from fashion_assets.domain.passwords import (
    DEFAULT_COST,
    MIN_PASSWORD_CHARS,
    Argon2Cost,
    WeakPassword,
    check_strength,
    hash_password,
    needs_rehash,
    verify_password,
)
from fashion_assets.domain.sessions import SessionRules, SessionTimes, session_end_reason

# The rule is the same at any cost; tests need not wait (1 MiB, one pass).
CHEAP = Argon2Cost(time_cost=1, memory_kib=1024)
# "correct horse battery" as the previous release kept it (scrypt, N = 2^10, r = 8, p = 1).
SCRYPT_HASH = ("scrypt$10$8$1$qdUQTrbov3esGDa146qDzg==$"
               "t/oi+BYO2iPEf9Sx70vW+HZjC6czxjli158W7KZ69fc=")
SCRYPT_SUFFIX = "$c2FsdA==$" + "A" * 44
# "correct horse battery" at CHEAP: fixed, so that the parameters below are the same in every
# test process.
ARGON2_HASH = ("$argon2id$v=19$m=1024,t=1,p=1$FjVDdTmMvnWfZJtNPrkohA$"
               "OttRl4vnan40GkJBgTqG6xFjOfXFM2B/avzSmY/KxkA")


def test_a_hash_verifies_its_password_only_and_never_holds_it() -> None:
    stored = hash_password("correct horse battery", CHEAP)

    assert verify_password("correct horse battery", stored)
    assert not verify_password("correct horse batterY", stored)
    assert not verify_password("", stored)
    assert "horse" not in stored and stored.startswith("$argon2id$v=19$m=1024,t=1,p=1$")
    assert verify_password("correct horse battery", ARGON2_HASH)


def test_each_hash_has_its_own_salt() -> None:
    assert hash_password("correct horse battery", CHEAP) != hash_password(
        "correct horse battery", CHEAP)


def test_the_default_cost_holds_no_more_memory_than_the_scrypt_it_replaced() -> None:
    """RFC 9106's second recommendation on one lane: 64 MiB and 3 passes, where scrypt at
    N = 2^17, r = 8 held 128 MB (``HASHES_AT_ONCE`` counts on it)."""
    assert (DEFAULT_COST.time_cost, DEFAULT_COST.memory_kib, DEFAULT_COST.parallelism) == (
        3, 64 * 1024, 1)
    assert DEFAULT_COST.memory_bytes <= 128 * 1024 * 1024
    assert hash_password("correct horse battery").startswith("$argon2id$v=19$m=65536,t=3,p=1$")


def test_an_earlier_releases_scrypt_hash_still_verifies_and_always_needs_a_rehash() -> None:
    assert verify_password("correct horse battery", SCRYPT_HASH)
    assert not verify_password("correct horse batterY", SCRYPT_HASH)
    assert needs_rehash(SCRYPT_HASH) and needs_rehash(SCRYPT_HASH, CHEAP)


def _argon2id_of_costs(memory_kib: int, passes: int) -> str:
    """A well-formed Argon2id hash that claims other costs than it was made with."""
    return ARGON2_HASH.replace("m=1024,t=1,", f"m={memory_kib},t={passes},")


@pytest.mark.parametrize("stored", [
    "", "plain text", "scrypt$10$8$1$c2FsdA==", "bcrypt$10$8$1" + SCRYPT_SUFFIX,
    "scrypt$30$8$1" + SCRYPT_SUFFIX,  # 2^30: gigabytes per check, refused
    "scrypt$10$8$1$not base64!$" + "A" * 44, "scrypt$x$8$1" + SCRYPT_SUFFIX,
    "$argon2id$v=19$m=1024,t=1,p=1$c2FsdA", "$argon2id$v=19$m=x,t=1,p=1$c2FsdGVk$" + "A" * 43,
    _argon2id_of_costs(4 * 1024 * 1024, 1),  # 4 GiB per check, refused
    _argon2id_of_costs(1024, 1000),  # a thousand passes, refused
    ARGON2_HASH.replace("$argon2id$", "$argon2i$"),
])
def test_a_stored_value_that_is_no_hash_of_ours_matches_nothing(stored: str) -> None:
    assert not verify_password("correct horse battery", stored)
    assert needs_rehash(stored)


def test_a_hash_of_other_costs_needs_a_new_one() -> None:
    stored = hash_password("correct horse battery", CHEAP)

    assert needs_rehash(stored) and not needs_rehash(stored, CHEAP)
    assert needs_rehash(stored, Argon2Cost(time_cost=2, memory_kib=1024))


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
