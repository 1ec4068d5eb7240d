"""The daemon's path benchmark's arithmetic: a run's phases from its event times, and where
the runs' seconds go (bench/phases.py, for bench/daemon_path.py), without any Dagster process."""

import pytest

from bench.phases import PHASE_LABELS, phase_summary, run_phases

MARKS = {"submitted": 100.0, "created": 100.5, "enqueued": 100.6, "starting": 101.6,
         "started": 103.6, "ended": 108.6}


def test_each_phase_runs_from_one_mark_to_the_next() -> None:
    assert run_phases(MARKS) == pytest.approx(dict(zip(PHASE_LABELS, (0.5, 0.1, 1.0, 2.0, 5.0),
                                                       strict=True)))


def test_a_phase_whose_mark_is_missing_is_left_out() -> None:
    marks = {k: v for k, v in MARKS.items() if k != "starting"}  # no RUN_STARTING event
    phases = run_phases(marks)
    assert "enqueued → starting (queue)" not in phases
    assert "starting → started (launch)" not in phases
    assert phases["started → ended (run)"] == pytest.approx(5.0)


def test_medians_per_phase_and_shares_of_all_the_runs_seconds() -> None:
    slow = {**MARKS, "ended": 118.6}  # the same run with 15 s of execution instead of 5
    summary = phase_summary([run_phases(MARKS), run_phases(slow), run_phases(slow)])
    median, share = summary["started → ended (run)"]
    assert median == pytest.approx(15.0)
    assert share == pytest.approx(35 / (3 * 3.6 + 35))
    assert sum(share for _, share in summary.values()) == pytest.approx(1.0)


def test_no_run_no_phase() -> None:
    assert phase_summary([]) == {}
    assert phase_summary([run_phases({"submitted": 1.0})]) == {}
