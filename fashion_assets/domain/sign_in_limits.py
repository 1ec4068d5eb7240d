"""How many failed sign-ins the review page allows before it stops asking: the rule.

Two counters, each over a window of ``window_s``: one per account (a guesser trying one
editor's passwords from many addresses) and one per client address (one guesser trying many
editors). When either reaches its limit, that account or address is locked out for
``lockout_s``: every sign-in for it is refused before any password is checked (so a locked
guesser costs the server no hash). A success clears the account's counter; an admin can
lift an account's lockout early (``fashion-assets editors unlock``).

A sign-in attempt is counted as a failure **before** its password is checked (``admit``),
in one transaction over its subjects' rows: N guesses sent at once for one account are
admitted one after the other, and at most the limit of them reach the password check (the
lock was read before any failure was recorded, so 16 parallel guesses were all checked).
A success then clears the account's counter and takes its attempt back from the address's
(``refunded``), so signing in never counts against an address.

With the defaults an online guesser gets at most 5 tries per account per 15 minutes, about
480 a day, whatever the number of addresses it uses against one editor.

A counter whose window and lockout are both over is **spent** (``is_spent``): forgetting it
changes no later decision, so the catalog deletes such rows now and then
(``catalog/sign_ins.py: forget_spent``); else every name and address ever tried would keep
a row, and a guesser inventing names would grow the table without end.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timedelta


@dataclass(frozen=True)
class SignInLimits:
    per_account: int = 5
    per_address: int = 20
    window_s: float = 15 * 60.0
    lockout_s: float = 15 * 60.0


DEFAULT_SIGN_IN_LIMITS = SignInLimits()


@dataclass(frozen=True)
class Failures:
    """The failed sign-ins of one account or one address in the current window."""

    count: int = 0
    first_at: datetime | None = None
    locked_until: datetime | None = None


def locked_for(failures: Failures, now: datetime) -> float:
    """Seconds until ``failures``' subject may sign in again; 0 when it may now."""
    if failures.locked_until is None or now >= failures.locked_until:
        return 0.0
    return (failures.locked_until - now).total_seconds()


def after_failure(failures: Failures, now: datetime, limit: int,
                  rules: SignInLimits) -> Failures:
    """The counter once one more sign-in failed at ``now``: a window that ran out starts
    again at this failure; reaching ``limit`` locks the subject out from ``now``."""
    window = timedelta(seconds=rules.window_s)
    if failures.first_at is None or now - failures.first_at >= window:
        failures = Failures(0, now, None)
    failures = replace(failures, count=failures.count + 1)
    if failures.count >= limit:
        failures = replace(failures, locked_until=now + timedelta(seconds=rules.lockout_s))
    return failures


def admit(failures: Failures, now: datetime, limit: int, rules: SignInLimits
          ) -> tuple[bool, Failures]:
    """Whether one more attempt of ``failures``' subject may check a password at ``now``,
    and the counter afterwards: a locked subject is refused and unchanged; an admitted
    attempt is counted as a failure now (``after_failure``), so the one that reaches the
    limit is still checked and every later one is refused until the lockout ends."""
    if locked_for(failures, now) > 0:
        return False, failures
    return True, after_failure(failures, now, limit, rules)


def refunded(failures: Failures) -> Failures:
    """The counter with one admitted attempt taken back (it succeeded); a lockout it led to
    stays, the other attempts having failed."""
    return replace(failures, count=max(0, failures.count - 1))


def is_spent(failures: Failures, now: datetime, rules: SignInLimits) -> bool:
    """Whether ``failures`` may be forgotten at ``now``: its window is over and no lockout
    runs, so a fresh counter would be admitted and counted the same from now on."""
    window_over = failures.first_at is None or (
        now - failures.first_at >= timedelta(seconds=rules.window_s))
    return window_over and locked_for(failures, now) == 0


def spent_cutoffs(now: datetime, rules: SignInLimits) -> tuple[datetime, datetime]:
    """``is_spent`` as two bounds a query can use: a counter is spent when its window began
    at or before the first and its lockout (if any) ended at or before the second."""
    return now - timedelta(seconds=rules.window_s), now
