"""When an editor's review-page session ends: the rule, apart from where sessions are kept.

A session ends at the first of: sign-out (or its editor disabled, or their password changed),
``idle_s`` without a request, ``absolute_s`` after sign-in. Idle expiry limits what a
forgotten open browser can do; absolute expiry limits what a stolen cookie can, however
busy its thief keeps it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta


@dataclass(frozen=True)
class SessionRules:
    idle_s: float = 2 * 3600.0
    absolute_s: float = 12 * 3600.0


DEFAULT_SESSION_RULES = SessionRules()


@dataclass(frozen=True)
class SessionTimes:
    created_at: datetime
    last_seen_at: datetime
    ended_at: datetime | None


def session_end_reason(times: SessionTimes, now: datetime, rules: SessionRules) -> str | None:
    """Why the session is over at ``now`` (``ended``, ``idle``, ``expired``), or None while
    it is alive."""
    if times.ended_at is not None:
        return "ended"
    if now - times.created_at >= timedelta(seconds=rules.absolute_s):
        return "expired"
    if now - times.last_seen_at >= timedelta(seconds=rules.idle_s):
        return "idle"
    return None
