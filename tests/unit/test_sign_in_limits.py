"""The sign-in limit rule (domain/sign_in_limits.py)."""

from __future__ import annotations

from datetime import datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from fashion_assets.domain.sign_in_limits import (
    DEFAULT_SIGN_IN_LIMITS,
    Failures,
    SignInLimits,
    admit,
    after_failure,
    is_spent,
    locked_for,
    refunded,
    spent_cutoffs,
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


@given(st.lists(st.floats(min_value=0, max_value=10), min_size=1, max_size=60),
       st.integers(1, 10))
def test_of_a_burst_of_attempts_the_limit_is_admitted_and_no_more(
        gaps: list[float], limit: int) -> None:
    """Attempts ``gaps`` apart (seconds), all within one window: each admitted attempt
    counts before its check, so exactly ``min(attempts, limit)`` are admitted, the first
    ones, and a refused one changes nothing."""
    rules = SignInLimits(per_account=limit, window_s=900, lockout_s=900)
    failures, now, admitted = Failures(), T0, []
    for gap in gaps:
        now += timedelta(seconds=gap)
        ok, after = admit(failures, now, limit, rules)
        assert ok or after == failures
        failures = after
        admitted.append(ok)
    expected = min(len(gaps), limit)
    assert admitted == [True] * expected + [False] * (len(gaps) - expected)


def test_a_refund_takes_one_attempt_back_and_keeps_the_lockout() -> None:
    rules = SignInLimits(per_account=2)
    _, one = admit(Failures(), T0, 2, rules)
    _, two = admit(one, T0, 2, rules)
    assert refunded(one).count == 0 and refunded(Failures()).count == 0
    assert refunded(two).count == 1 and refunded(two).locked_until == two.locked_until


moments = st.integers(0, 4_000).map(lambda s: T0 + timedelta(seconds=s))


@given(st.integers(0, 12), moments, st.one_of(st.none(), moments), moments,
       st.lists(st.integers(0, 2_000), max_size=8), st.integers(1, 6))
def test_a_spent_counter_decides_as_no_counter_does(
        count: int, first_at: datetime, locked_until: datetime | None, now: datetime,
        later: list[int], limit: int) -> None:
    """Forgetting a spent counter changes no decision from then on: any attempts after
    ``now`` are admitted and counted alike with it and without it. And the cutoffs a query
    uses say what the rule says."""
    failures = Failures(count, first_at, locked_until)
    window_began, lock_ended = spent_cutoffs(now, RULES)
    assert is_spent(failures, now, RULES) == (
        first_at <= window_began and (locked_until is None or locked_until <= lock_ended))
    if not is_spent(failures, now, RULES):
        return
    kept, fresh = failures, Failures()
    for gap in sorted(later):
        moment = now + timedelta(seconds=gap)
        (ok_kept, kept), (ok_fresh, fresh) = (admit(kept, moment, limit, RULES),
                                              admit(fresh, moment, limit, RULES))
        assert ok_kept == ok_fresh and kept == fresh
