"""The per-host politeness rule: photo caps halved on throttling and restored step by step,
pages spaced apart; plain numbers for the clock."""

from __future__ import annotations

import itertools
from dataclasses import replace

import pytest

from fashion_assets.domain.politeness import (
    HostPace,
    PaceRules,
    after_answer,
    after_success,
    after_throttle,
    page_turn,
    start,
)

RULES = PaceRules(page_delay_s=0.25, image_cap=8, restore_successes=3, restore_s=30.0)


def at_limit(limit: int, *, rules: PaceRules = RULES, changed_at: float = 0.0) -> HostPace:
    return replace(start(rules, 0.0), image_limit=limit, changed_at=changed_at)


def test_a_new_host_starts_at_the_full_cap() -> None:
    pace = start(RULES, 5.0)

    assert (pace.image_limit, pace.changed_at, pace.successes) == (8, 5.0, 0)
    assert pace.cut_at is None


@pytest.mark.parametrize(("cap", "limit", "halved"), [
    (8, 8, 4),
    (8, 4, 2),
    (8, 5, 2),
    (8, 3, 1),
    (8, 2, 1),
    (8, 1, 1),   # never below 1
    (1, 1, 1),
    (16, 16, 8),
])
def test_a_throttle_halves_the_limit_in_force_never_below_one(
        cap: int, limit: int, halved: int) -> None:
    rules = replace(RULES, image_cap=cap)

    pace = after_throttle(at_limit(limit, rules=rules), 10.0, sent_at=9.0)

    assert pace.image_limit == halved
    assert (pace.changed_at, pace.cut_at, pace.successes) == (10.0, 10.0, 0)


@pytest.mark.parametrize(("sent_at", "limit"), [
    (9.5, 4),    # sent before the cut at 10.0: already in flight then, no second cut
    (10.0, 2),   # sent at the cut's instant: it may have been sent after it, so it cuts
    (10.5, 2),   # sent after the cut: the host still throttles the halved pace
    (None, 2),   # send time unknown: every throttle cuts
])
def test_one_cut_per_round_answers_to_requests_sent_before_the_last_cut_change_nothing(
        sent_at: float | None, limit: int) -> None:
    cut = after_throttle(start(RULES, 0.0), 10.0, sent_at=9.0)

    assert after_throttle(cut, 11.0, sent_at=sent_at).image_limit == limit


def test_a_burst_of_429s_to_one_round_of_requests_halves_once() -> None:
    pace = start(RULES, 0.0)
    for now in (10.0, 10.1, 10.2, 10.3):  # four photos sent at 9.0, all answered 429
        pace = after_throttle(pace, now, sent_at=9.0)

    assert pace.image_limit == 4


@pytest.mark.parametrize(("successes", "limit"), [(0, 4), (1, 4), (2, 4), (3, 5), (5, 5),
                                                  (6, 6), (12, 8), (30, 8)])
def test_the_limit_comes_back_one_step_per_run_of_successes_up_to_the_cap(
        successes: int, limit: int) -> None:
    pace = after_throttle(start(RULES, 0.0), 10.0)  # 8 -> 4
    for i in range(successes):
        pace = after_success(pace, 10.0 + i * 0.01)  # fast: the time rule stays out

    assert pace.image_limit == limit


@pytest.mark.parametrize(("now", "limit"), [(39.9, 4), (40.0, 5), (100.0, 5)])
def test_the_limit_comes_back_one_step_once_restore_seconds_passed_without_throttling(
        now: float, limit: int) -> None:
    """One step only, however long the host was quiet: restoring is gradual."""
    pace = after_throttle(start(RULES, 0.0), 10.0)

    assert after_success(pace, now).image_limit == limit


def test_each_step_restarts_both_restore_clocks() -> None:
    pace = after_success(after_throttle(start(RULES, 0.0), 10.0), 40.0)  # 4 -> 5 at 40.0

    assert (pace.image_limit, pace.changed_at, pace.successes) == (5, 40.0, 0)
    assert after_success(pace, 69.9).image_limit == 5
    assert after_success(pace, 70.0).image_limit == 6


def test_a_throttle_resets_the_run_of_successes() -> None:
    pace = after_throttle(start(RULES, 0.0), 10.0)  # 8 -> 4
    pace = after_success(after_success(pace, 10.1), 10.2)  # two of three
    pace = after_throttle(pace, 10.3, sent_at=10.25)  # 4 -> 2

    assert (pace.image_limit, pace.successes) == (2, 0)
    assert after_success(after_success(pace, 10.4), 10.5).image_limit == 2
    assert after_success(after_success(after_success(pace, 10.4), 10.5), 10.6).image_limit == 3


def test_at_the_cap_a_success_leaves_the_state_as_it_is() -> None:
    pace = start(RULES, 0.0)

    assert after_success(pace, 100.0) is pace


@pytest.mark.parametrize(("status", "limit"), [
    (200, 5), (304, 5), (302, 5), (404, 5), (403, 5),  # the host answered: a success
    (429, 2), (503, 2),                                 # the host throttles
    (500, 4), (502, 4), (504, 4),                       # says nothing about load
])
def test_answers_are_classified_by_status(status: int, limit: int) -> None:
    rules = replace(RULES, restore_successes=1)
    pace = after_throttle(start(rules, 0.0), 10.0)  # 8 -> 4

    assert after_answer(pace, status, 11.0, sent_at=10.5).image_limit == limit


@pytest.mark.parametrize(("next_at", "now", "send_at"), [
    (0.0, 10.0, 10.0),     # no page sent yet: go now
    (10.25, 10.0, 10.25),  # the last page went at 10.0: wait for its delay
    (10.25, 10.1, 10.25),
    (10.25, 10.25, 10.25),
    (10.25, 12.0, 12.0),   # the delay is long over: go now
])
def test_a_page_is_sent_at_the_hosts_next_free_moment_or_now(
        next_at: float, now: float, send_at: float) -> None:
    assert page_turn(next_at, now, 0.25) == pytest.approx((send_at, send_at + 0.25))


def test_pages_asking_at_once_get_turns_spaced_by_the_delay() -> None:
    next_at, sent = 0.0, []
    for _ in range(4):  # four clients ask at the same moment
        send_at, next_at = page_turn(next_at, 5.0, 0.25)
        sent.append(send_at)

    assert sent == pytest.approx([5.0, 5.25, 5.5, 5.75])
    assert [b - a for a, b in itertools.pairwise(sent)] == pytest.approx([0.25] * 3)


def test_no_delay_means_every_turn_is_now() -> None:
    assert page_turn(10.0, 10.0, 0.0) == (10.0, 10.0)


@pytest.mark.parametrize("changes", [{"page_delay_s": -0.1}, {"image_cap": 0},
                                     {"restore_successes": 0}, {"restore_s": 0.0}])
def test_rules_that_make_no_sense_are_refused(changes: dict[str, float]) -> None:
    with pytest.raises(ValueError):
        PaceRules(**changes)  # type: ignore[arg-type]
