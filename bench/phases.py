"""A run's phases from the times Dagster's event log gives it, and where the runs' seconds go
(``bench/daemon_path.py``): plain arithmetic, tested without any Dagster process
(tests/unit/test_daemon_path.py)."""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence

MARKS = ("submitted", "created", "enqueued", "starting", "started", "ended")
PHASE_LABELS = ("POST → created", "created → enqueued", "enqueued → starting (queue)",
                "starting → started (launch)", "started → ended (run)")


def run_phases(marks: Mapping[str, float]) -> dict[str, float]:
    """Seconds of each phase of a run, from the epoch times of its ``MARKS``: each phase runs
    from one mark to the next, and is left out when either is missing."""
    return {label: marks[end] - marks[start]
            for label, start, end in zip(PHASE_LABELS, MARKS[:-1], MARKS[1:], strict=True)
            if start in marks and end in marks}


def phase_summary(runs: Sequence[Mapping[str, float]]) -> dict[str, tuple[float, float]]:
    """Each phase's median over ``runs`` and its share of all the runs' seconds (from the
    POST to the end), so the shares of a run's phases add up to 1."""
    total = sum(sum(phases.values()) for phases in runs)
    return {label: (statistics.median(values), sum(values) / total if total else 0.0)
            for label in PHASE_LABELS
            if (values := [phases[label] for phases in runs if label in phases])}
