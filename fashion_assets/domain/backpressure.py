"""Backpressure: when the crawl schedule and the coverage sensor stop launching crawls.

Crawls make work for editors (every new article is a draft to review) and retries (every
failed show is fetched again). Two backlogs say when that work piles up faster than it is
done:

- the **review backlog**: drafts waiting for an editor, runway and street together: status
  ``pending`` and not soft-deleted;
- the **failed-ingest backlog**: source articles (``source``, ``source_url``) whose latest
  ingest-log entry of stage ``ingest`` or ``manifest`` has outcome ``failed`` and that have
  no draft. "Latest" is by log id, and the ``manifest`` stage counts because a show whose
  page cannot be read fails there and never reaches ``ingest``. A later ``ingest`` or
  ``manifest`` entry of any other outcome (a draft created, a manifest fetched, a skip)
  clears the failure, and so does a draft of the article in any status: an article with a
  draft is ingested, and a failed re-fetch of its missing photos is the coverage sensor's
  business (it backs off and gives up on its own), not a reason to stop crawling. Listing
  failures (stage ``listing``) are about a brand's page, not an article, and are left out,
  and so are shows the coverage sensor gave up on: a known loss, listed in status.
  The SQL of this definition is ``catalog/backpressure.py: read_backlog``.

The rule (``decide``), one gate with hysteresis so it does not flap around a threshold:

- not paused: pause when **any** backlog reaches its pause threshold (``>=``);
- paused: stay paused until **every** backlog is below half its pause threshold (``2 *
  count < pause``, so an odd threshold needs no rounding), then resume;
- alert when paused, or when any backlog reaches its alert threshold.

Whether the gate was paused comes from the previous decision (stored per gate in
``backpressure_state``), so the band between half and the full threshold keeps whatever
state it was entered in.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Level(StrEnum):
    OK = "ok"
    ALERT = "alert"
    PAUSED = "paused"


@dataclass(frozen=True)
class BackpressureRules:
    """``FASHION_BACKPRESSURE_PAUSE_PENDING``, ``..._ALERT_PENDING``, ``..._PAUSE_FAILED`` and
    ``..._ALERT_FAILED``."""

    pause_pending: int = 500
    alert_pending: int = 250
    pause_failed: int = 200
    alert_failed: int = 100

    def __post_init__(self) -> None:
        for name in ("pause_pending", "alert_pending", "pause_failed", "alert_failed"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"backpressure {name} must be a positive integer, "
                                 f"got {value!r}")
        for backlog in ("pending", "failed"):
            alert, pause = getattr(self, f"alert_{backlog}"), getattr(self, f"pause_{backlog}")
            if alert > pause:
                raise ValueError(f"backpressure alert_{backlog} ({alert}) must not exceed "
                                 f"pause_{backlog} ({pause})")


def resume_below(pause: int) -> int:
    """The smallest count a paused gate does not resume at: counts below it are below half
    of ``pause`` (``count < pause / 2`` is ``count < ceil(pause / 2)`` for whole counts)."""
    return (pause + 1) // 2


@dataclass(frozen=True)
class Backlog:
    """The two backlogs, as ``catalog/backpressure.py: read_backlog`` counts them."""

    pending_review: int
    failed_ingests: int


@dataclass(frozen=True)
class _Measure:
    count: int
    pause: int
    alert: int
    one: str  # what one item of the backlog is, for the sentence
    many: str

    def describe(self) -> str:
        return f"{self.count} {self.one if self.count == 1 else self.many}"


def _measures(rules: BackpressureRules, backlog: Backlog) -> tuple[_Measure, _Measure]:
    return (_Measure(backlog.pending_review, rules.pause_pending, rules.alert_pending,
                     "draft waits for review", "drafts wait for review"),
            _Measure(backlog.failed_ingests, rules.pause_failed, rules.alert_failed,
                     "show failed its last ingest", "shows failed their last ingest"))


@dataclass(frozen=True)
class Backpressure:
    """The gate's decision. ``reason`` is one sentence for a sensor's ``SkipReason``, a log
    line and ``fashion-assets status``; it names the backlogs that decide the level, with
    their counts and thresholds."""

    paused: bool
    alert: bool
    reason: str
    backlog: Backlog
    resumed: bool = False  # it was paused and resumes with this decision

    @property
    def level(self) -> Level:
        if self.paused:
            return Level.PAUSED
        return Level.ALERT if self.alert else Level.OK


def decide(rules: BackpressureRules, backlog: Backlog, was_paused: bool) -> Backpressure:
    """Pause, alert or carry on, with hysteresis (see the module's docstring)."""
    measures = _measures(rules, backlog)
    if was_paused or any(m.count >= m.pause for m in measures):
        # Named: every backlog that keeps the gate shut, not only the one that shut it.
        holding = [m for m in measures if m.count >= resume_below(m.pause)]
    else:
        holding = []
    if holding:
        return Backpressure(True, True, "paused: " + "; ".join(
            f"{m.describe()} (pause at {m.pause}, resumes below {resume_below(m.pause)})"
            for m in holding), backlog)
    prefix = "resumed" if was_paused else ""
    alerting = [m for m in measures if m.count >= m.alert]
    if alerting:
        reason = ("alert: " + "; ".join(
            f"{m.describe()} (alert at {m.alert}, pause at {m.pause})" for m in alerting))
        return Backpressure(False, True, f"{prefix}, {reason}" if prefix else reason,
                            backlog, resumed=was_paused)
    reason = ", ".join(f"{m.describe()} (alert at {m.alert})" for m in measures)
    return Backpressure(False, False, f"{prefix or 'ok'}: {reason}", backlog,
                        resumed=was_paused)
