"""A step waiting for its retry (domain/retries.py): which steps of a run wait, and the one
way the command, status and /crawler say why and when."""

from __future__ import annotations

from datetime import UTC, datetime

from fashion_assets.domain.retries import RetryWait, StepEvent, pending_retries

FAILED_AT = datetime(2026, 12, 7, 20, 0, 0, tzinfo=UTC).timestamp()


def test_a_step_up_for_retry_waits_until_it_starts_again_or_ends() -> None:
    up = StepEvent("STEP_UP_FOR_RETRY", "listings", FAILED_AT, "refused\ntraceback", 30.0)
    assert pending_retries([up]) == [RetryWait("listings", "refused\ntraceback", FAILED_AT,
                                               30.0)]
    for again in ("STEP_RESTARTED", "STEP_START", "STEP_SUCCESS", "STEP_FAILURE"):
        assert pending_retries([up, StepEvent(again, "listings", FAILED_AT + 31)]) == []
    # Another step's start does not end this one's wait; a later retry replaces it.
    later = StepEvent("STEP_UP_FOR_RETRY", "listings", FAILED_AT + 60, "refused", 90.0)
    assert pending_retries([up, StepEvent("STEP_START", "drafts", FAILED_AT + 1)]) != []
    assert pending_retries([up, StepEvent("STEP_RESTARTED", "listings", FAILED_AT + 31),
                            later]) == [RetryWait("listings", "refused", FAILED_AT + 60, 90.0)]


def test_the_wait_says_why_and_when_from_the_failure_or_from_now() -> None:
    wait = RetryWait("listings", "robots_unavailable: not read\nmore", FAILED_AT, 30.0)
    assert wait.line() == ("step listings failed (robots_unavailable: not read); Dagster "
                           "runs it again in 30 s (at 20:00:30 UTC)")
    ten_later = datetime(2026, 12, 7, 20, 0, 10, tzinfo=UTC)
    assert wait.in_s(ten_later) == 20.0
    assert wait.line(ten_later).endswith("again in 20 s (at 20:00:30 UTC)")
    assert wait.in_s(datetime(2026, 12, 7, 21, tzinfo=UTC)) == 0.0  # due: starting
    assert RetryWait("", "", FAILED_AT, None).line() == "step ? failed (?); Dagster runs it again"
