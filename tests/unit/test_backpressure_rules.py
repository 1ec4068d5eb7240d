"""The backpressure rule: pause, alert and resume with hysteresis, on both backlogs."""

from __future__ import annotations

import pytest

from fashion_assets.domain.backpressure import (
    Backlog,
    BackpressureRules,
    Level,
    decide,
    resume_below,
)

DEFAULT = BackpressureRules()  # pending: pause 500, alert 250; failed: pause 200, alert 100
ODD = BackpressureRules(pause_pending=501, alert_pending=400, pause_failed=3, alert_failed=1)

# (pending review, failed ingests, was paused, rules, level)
TABLE = [
    # not paused before: pause at the threshold, alert from the alert threshold
    (0, 0, False, DEFAULT, Level.OK),
    (249, 99, False, DEFAULT, Level.OK),
    (250, 0, False, DEFAULT, Level.ALERT),       # review alert threshold, exactly
    (0, 100, False, DEFAULT, Level.ALERT),       # failed alert threshold, exactly
    (499, 199, False, DEFAULT, Level.ALERT),     # both just below their pause thresholds
    (500, 0, False, DEFAULT, Level.PAUSED),      # review pause threshold, exactly
    (0, 200, False, DEFAULT, Level.PAUSED),      # failed pause threshold, exactly
    (612, 0, False, DEFAULT, Level.PAUSED),
    (10, 5000, False, DEFAULT, Level.PAUSED),
    # paused before: the band between half and the pause threshold stays paused
    (499, 0, True, DEFAULT, Level.PAUSED),
    (250, 0, True, DEFAULT, Level.PAUSED),       # half, exactly: not below it
    (249, 0, True, DEFAULT, Level.OK),           # below half of 500: resumes
    (0, 100, True, DEFAULT, Level.PAUSED),       # half of 200, exactly
    (0, 99, True, DEFAULT, Level.OK),
    (249, 100, True, DEFAULT, Level.PAUSED),     # every backlog must be below half
    (250, 99, True, DEFAULT, Level.PAUSED),
    (249, 99, True, DEFAULT, Level.OK),
    (0, 0, True, DEFAULT, Level.OK),
    (700, 0, True, DEFAULT, Level.PAUSED),
    # an odd pause threshold: half of 501 is 250.5, half of 3 is 1.5
    (251, 0, True, ODD, Level.PAUSED),
    (250, 0, True, ODD, Level.OK),
    (0, 2, True, ODD, Level.PAUSED),
    (0, 1, True, ODD, Level.ALERT),              # resumed, and still at the alert threshold
    (0, 0, True, ODD, Level.OK),
    (500, 0, False, ODD, Level.ALERT),
    (501, 0, False, ODD, Level.PAUSED),
    (0, 3, False, ODD, Level.PAUSED),
]


@pytest.mark.parametrize(("pending", "failed", "was_paused", "rules", "level"), TABLE)
def test_the_backpressure_rule(pending: int, failed: int, was_paused: bool,
                               rules: BackpressureRules, level: Level) -> None:
    decision = decide(rules, Backlog(pending, failed), was_paused)

    assert decision.level is level
    assert decision.paused is (level is Level.PAUSED)
    assert decision.alert is (level is not Level.OK)
    assert decision.resumed is (was_paused and level is not Level.PAUSED)
    assert decision.backlog == Backlog(pending, failed)
    assert decision.reason.startswith(
        "paused: " if decision.paused else "resumed" if decision.resumed else f"{level}: ")


def test_a_backlog_rising_and_falling_pauses_at_the_threshold_and_resumes_below_half() -> None:
    counts = [0, 300, 499, 500, 400, 250, 249, 400, 499, 500]
    paused, levels = False, []
    for count in counts:
        decision = decide(DEFAULT, Backlog(count, 0), paused)
        paused = decision.paused
        levels.append(decision.level.value)

    assert levels == ["ok", "alert", "alert", "paused", "paused", "paused", "ok", "alert",
                      "alert", "paused"]


# (pending, failed, was paused, reason)
REASONS = [
    (612, 0, False,
     "paused: 612 drafts wait for review (pause at 500, resumes below 250)"),
    (0, 230, False,
     "paused: 230 shows failed their last ingest (pause at 200, resumes below 100)"),
    # newly paused by one backlog, the other one also holding it in the band
    (612, 150, False,
     "paused: 612 drafts wait for review (pause at 500, resumes below 250); "
     "150 shows failed their last ingest (pause at 200, resumes below 100)"),
    # in the band: only what still holds the gate is named
    (300, 20, True, "paused: 300 drafts wait for review (pause at 500, resumes below 250)"),
    (1, 120, True,
     "paused: 120 shows failed their last ingest (pause at 200, resumes below 100)"),
    (260, 0, False, "alert: 260 drafts wait for review (alert at 250, pause at 500)"),
    (1, 100, False, "alert: 100 shows failed their last ingest (alert at 100, pause at 200)"),
    (12, 1, False, "ok: 12 drafts wait for review (alert at 250), "
                   "1 show failed its last ingest (alert at 100)"),
    (1, 0, True, "resumed: 1 draft waits for review (alert at 250), "
                 "0 shows failed their last ingest (alert at 100)"),
]


@pytest.mark.parametrize(("pending", "failed", "was_paused", "reason"), REASONS)
def test_the_reason_names_the_backlog_its_count_and_thresholds(
        pending: int, failed: int, was_paused: bool, reason: str) -> None:
    assert decide(DEFAULT, Backlog(pending, failed), was_paused).reason == reason


def test_a_resumed_gate_still_over_an_alert_threshold_says_both() -> None:
    rules = BackpressureRules(pause_pending=500, alert_pending=100)
    decision = decide(rules, Backlog(200, 0), was_paused=True)

    assert (decision.paused, decision.alert, decision.resumed) == (False, True, True)
    assert decision.reason == "resumed, alert: 200 drafts wait for review (alert at 100, " \
                              "pause at 500)"


@pytest.mark.parametrize(("pause", "below"), [(500, 250), (501, 251), (200, 100), (3, 2),
                                              (2, 1), (1, 1)])
def test_resume_below_is_half_the_pause_threshold_rounded_up(pause: int, below: int) -> None:
    assert resume_below(pause) == below
    assert all((count < below) is (2 * count < pause) for count in range(pause + 2))


def test_a_threshold_of_one_pauses_on_one_item_and_resumes_at_none() -> None:
    rules = BackpressureRules(pause_pending=1, alert_pending=1, pause_failed=1, alert_failed=1)

    assert decide(rules, Backlog(1, 0), False).paused
    assert decide(rules, Backlog(0, 0), True).level is Level.OK


@pytest.mark.parametrize("kwargs", [
    {"pause_pending": 0},
    {"alert_pending": 0},
    {"pause_failed": -1},
    {"alert_failed": 0},
    {"pause_pending": 100, "alert_pending": 101},
    {"pause_failed": 10, "alert_failed": 11},
    {"pause_pending": 2.5},
    {"alert_failed": True},
])
def test_rules_refuse_non_positive_thresholds_and_an_alert_over_the_pause(
        kwargs: dict[str, object]) -> None:
    with pytest.raises(ValueError, match="backpressure"):
        BackpressureRules(**kwargs)  # type: ignore[arg-type]


def test_an_alert_equal_to_the_pause_threshold_is_allowed() -> None:
    rules = BackpressureRules(pause_pending=10, alert_pending=10, pause_failed=5, alert_failed=5)

    assert decide(rules, Backlog(9, 4), False).level is Level.OK
    assert decide(rules, Backlog(10, 0), False).level is Level.PAUSED
