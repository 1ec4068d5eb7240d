"""The sign-in limit rule (domain/sign_in_limits.py)."""

from __future__ import annotations

from datetime import datetime, timedelta

from fashion_assets.domain.sign_in_limits import (
    DEFAULT_SIGN_IN_LIMITS,
    Failures,
    SignInLimits,
    after_failure,
    locked_for,
)

T0 = datetime(2026, 12, 4, 9, 0)
RULES = SignInLimits(per_account=3, per_address=10, window_s=600, lockout_s=300)


def fail(times: int, start: datetime = T0, every_s: float = 1.0) -> Failures:
    failures = Failures()
    for n in range(times):
        failures = after_failure(failures, start + timedelta(seconds=n * every_s), 3, RULES)
    return failures


def test_the_limit_locks_the_subject_out_from_the_failure_that_reached_it() -> None:
    assert locked_for(fail(2), T0 + timedelta(seconds=2)) == 0
    third = fail(3)
    assert third.count == 3 and third.locked_until == T0 + timedelta(seconds=2 + 300)
    assert locked_for(third, T0 + timedelta(seconds=2)) == 300
    assert locked_for(third, T0 + timedelta(seconds=302)) == 0


def test_failures_spread_beyond_the_window_never_lock() -> None:
    spread = fail(10, every_s=300)  # the window restarts every second failure
    assert spread.locked_until is None and spread.count <= 2


def test_a_failure_after_the_window_starts_a_new_count() -> None:
    two = fail(2)
    later = after_failure(two, T0 + timedelta(seconds=600), 3, RULES)
    assert (later.count, later.first_at, later.locked_until) == (
        1, T0 + timedelta(seconds=600), None)


def test_the_defaults_give_five_tries_per_account_per_quarter_hour() -> None:
    rules = DEFAULT_SIGN_IN_LIMITS
    failures = Failures()
    for n in range(5):
        assert locked_for(failures, T0 + timedelta(seconds=n)) == 0
        failures = after_failure(failures, T0 + timedelta(seconds=n), rules.per_account, rules)
    assert locked_for(failures, T0 + timedelta(seconds=5)) > 14 * 60
    assert rules.per_address > rules.per_account
