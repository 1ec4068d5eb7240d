"""Editors' passwords: the strength rule, and how they are kept (a salted Argon2id hash only).

A new hash is Argon2id (RFC 9106) made by argon2-cffi, the bindings of the reference
implementation, rather than a key derivation the project assembles and encodes by hand.
Argon2id is memory-hard: each guess costs ``memory_kib`` KiB as well as time, which makes
guessing on GPUs expensive. The parameters are RFC 9106's second recommendation (64 MiB,
3 passes) with one lane instead of four, so that a hash keeps one core busy, as the review
page's ``HASHES_AT_ONCE`` reckons: half the memory of the scrypt it replaces (128 MB), and
0.15 s of one core here where scrypt took 0.37 s, far above OWASP's minimums for Argon2id
(19 MiB and 2 passes).

Stored form: Argon2's PHC string, ``$argon2id$v=19$m=<KiB>,t=<passes>,p=<lanes>$<salt>$<key>``.
The parameters are written into each hash, so raising them later leaves old hashes readable;
``needs_rehash`` tells when a sign-in should store one made with the current ones.

Hashes of earlier releases, ``scrypt$<log2 N>$<r>$<p>$<salt, base64>$<key, base64>`` (N =
2^17, r = 8: 128 MB), are still verified, and always need a rehash: the first sign-in that
proves the password replaces one with an Argon2id hash.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import hmac
from dataclasses import dataclass

from argon2 import PasswordHasher, Type, extract_parameters
from argon2.exceptions import InvalidHashError, VerificationError

MIN_PASSWORD_CHARS = 12
MAX_PASSWORD_CHARS = 1024  # hashing a megabyte per guess would be a denial of service
# A stored hash asking for more could make one check take minutes or all memory: refused.
_MAX_MEMORY_KIB, _MAX_PASSES, _MAX_LANES = 1024 * 1024, 64, 16
_SCRYPT = "scrypt"
_SCRYPT_KEY_BYTES = 32


@dataclass(frozen=True)
class Argon2Cost:
    """Argon2id's cost parameters: passes over the memory, the memory in KiB, and lanes
    (threads of one hash)."""

    time_cost: int = 3
    memory_kib: int = 64 * 1024
    parallelism: int = 1

    @property
    def memory_bytes(self) -> int:
        return self.memory_kib * 1024

    def hasher(self) -> PasswordHasher:
        """argon2-cffi's hasher for these costs (16-byte salt, 32-byte key, Argon2id)."""
        return _hasher(self)


DEFAULT_COST = Argon2Cost()


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


def hash_password(password: str, cost: Argon2Cost = DEFAULT_COST) -> str:
    """The stored form of ``password``: an Argon2id hash with a fresh random salt."""
    return cost.hasher().hash(password)


def verify_password(password: str, stored: str) -> bool:
    """Whether ``password`` is the one ``stored`` was made from (an Argon2id hash, or an
    earlier release's scrypt hash); False for a stored value that is neither, or asks for
    out-of-range costs, never an exception."""
    if len(password) > MAX_PASSWORD_CHARS:
        return False
    if stored.startswith(_SCRYPT + "$"):
        return _verify_scrypt(password, stored)
    if not _is_argon2id(stored):
        return False
    try:
        return _hasher(DEFAULT_COST).verify(stored, password)  # the costs come from ``stored``
    except (VerificationError, InvalidHashError):
        return False


def needs_rehash(stored: str, cost: Argon2Cost = DEFAULT_COST) -> bool:
    """Whether ``stored`` should be replaced by a hash made with ``cost``: it was made with
    other parameters, is an earlier release's scrypt hash, or is unreadable."""
    return not _is_argon2id(stored) or cost.hasher().check_needs_rehash(stored)


@functools.cache
def _hasher(cost: Argon2Cost) -> PasswordHasher:
    return PasswordHasher(time_cost=cost.time_cost, memory_cost=cost.memory_kib,
                          parallelism=cost.parallelism, hash_len=32, salt_len=16, type=Type.ID)


def _is_argon2id(stored: str) -> bool:
    """Whether ``stored`` reads as an Argon2id hash of costs this module will pay to check."""
    try:
        params = extract_parameters(stored)
    except InvalidHashError:
        return False
    return (params.type is Type.ID and params.memory_cost <= _MAX_MEMORY_KIB
            and params.time_cost <= _MAX_PASSES and params.parallelism <= _MAX_LANES)


def _verify_scrypt(password: str, stored: str) -> bool:
    """An earlier release's hash: scrypt with the costs it holds (constant-time compare)."""
    parts = stored.split("$")
    if len(parts) != 6:
        return False
    try:
        log2_n, r, p = int(parts[1]), int(parts[2]), int(parts[3])
        salt, key = (base64.b64decode(parts[4], validate=True),
                     base64.b64decode(parts[5], validate=True))
    except ValueError:
        return False
    if not (10 <= log2_n <= 22 and 1 <= r <= 32 and 1 <= p <= 16) or not salt \
            or len(key) != _SCRYPT_KEY_BYTES:
        return False  # out-of-range costs could make one check take minutes or all memory
    derived = hashlib.scrypt(password.encode("utf-8"), salt=salt, n=2 ** log2_n, r=r, p=p,
                             maxmem=2 * 128 * r * 2 ** log2_n, dklen=_SCRYPT_KEY_BYTES)
    return hmac.compare_digest(derived, key)
