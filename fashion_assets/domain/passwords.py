"""Editors' passwords: the strength rule, and how they are kept (a salted scrypt hash only).

scrypt (standard library) is memory-hard: each guess costs ``2 ** log2_n * 128 * r`` bytes
of memory as well as time, which makes guessing on GPUs expensive. The parameters are
OWASP's recommendation for scrypt (N = 2^17, r = 8, p = 1: 128 MB and a few tenths of a
second per hash here), and they are written into each hash, so raising them later leaves old
hashes readable; ``needs_rehash`` tells when a sign-in should store a stronger one.

Stored form: ``scrypt$<log2 N>$<r>$<p>$<salt, base64>$<key, base64>``.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from dataclasses import dataclass

MIN_PASSWORD_CHARS = 12
MAX_PASSWORD_CHARS = 1024  # hashing a megabyte per guess would be a denial of service
_SCHEME = "scrypt"
_SALT_BYTES = 16
_KEY_BYTES = 32


@dataclass(frozen=True)
class ScryptCost:
    """scrypt's cost parameters: N = 2 ** log2_n, block size r, parallelism p."""

    log2_n: int = 17
    r: int = 8
    p: int = 1

    @property
    def memory_bytes(self) -> int:
        return 128 * self.r * (2 ** self.log2_n)


DEFAULT_COST = ScryptCost()


class WeakPassword(ValueError):
    """A password the strength rule refuses; the message says why."""


def check_strength(password: str, *, name: str = "") -> None:
    """Refuse a password too short, too long, or the editor's own name; raises
    ``WeakPassword``. Length is what resists guessing; composition rules do not."""
    if len(password) < MIN_PASSWORD_CHARS:
        raise WeakPassword(f"a password needs at least {MIN_PASSWORD_CHARS} characters")
    if len(password) > MAX_PASSWORD_CHARS:
        raise WeakPassword(f"a password has at most {MAX_PASSWORD_CHARS} characters")
    if name and password.strip().lower() == name.strip().lower():
        raise WeakPassword("a password may not be the editor's name")


def hash_password(password: str, cost: ScryptCost = DEFAULT_COST) -> str:
    """The stored form of ``password``, with a fresh random salt."""
    salt = secrets.token_bytes(_SALT_BYTES)
    key = _derive(password, salt, cost)
    return "$".join((_SCHEME, str(cost.log2_n), str(cost.r), str(cost.p), _b64(salt), _b64(key)))


def verify_password(password: str, stored: str) -> bool:
    """Whether ``password`` is the one ``stored`` was made from (constant-time comparison);
    False for a stored value that is not a hash of this scheme, never an exception."""
    parsed = _parse(stored)
    if parsed is None or len(password) > MAX_PASSWORD_CHARS:
        return False
    cost, salt, key = parsed
    return hmac.compare_digest(_derive(password, salt, cost), key)


def needs_rehash(stored: str, cost: ScryptCost = DEFAULT_COST) -> bool:
    """Whether ``stored`` was made with other parameters than ``cost`` (or is unreadable)."""
    parsed = _parse(stored)
    return parsed is None or parsed[0] != cost


def _derive(password: str, salt: bytes, cost: ScryptCost) -> bytes:
    return hashlib.scrypt(password.encode("utf-8"), salt=salt, n=2 ** cost.log2_n, r=cost.r,
                          p=cost.p, maxmem=2 * cost.memory_bytes, dklen=_KEY_BYTES)


def _parse(stored: str) -> tuple[ScryptCost, bytes, bytes] | None:
    parts = stored.split("$")
    if len(parts) != 6 or parts[0] != _SCHEME:
        return None
    try:
        cost = ScryptCost(int(parts[1]), int(parts[2]), int(parts[3]))
        salt, key = base64.b64decode(parts[4], validate=True), base64.b64decode(
            parts[5], validate=True)
    except ValueError:
        return None
    if not (10 <= cost.log2_n <= 22 and 1 <= cost.r <= 32 and 1 <= cost.p <= 16) or not salt \
            or len(key) != _KEY_BYTES:
        return None  # out-of-range costs could make one check take minutes or all memory
    return cost, salt, key


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")
