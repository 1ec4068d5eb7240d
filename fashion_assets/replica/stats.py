"""What the replica counts of the requests it serves: the live counters and their snapshot.

Kept apart from the request handling because tests and benchmarks judge a crawl by these
numbers alone (requests per kind, statuses, Retry-After violations, peak concurrency), so
what each number means reads in one place. The counters live on the server's loop; a
``ReplicaStats`` is the frozen copy handed to other threads and processes.
"""

from __future__ import annotations

from collections import Counter, defaultdict, deque
from dataclasses import asdict, dataclass, field
from typing import Any

_ARRIVALS_KEPT = 10_000  # arrival times remembered per origin and kind, the latest


@dataclass(frozen=True)
class ReplicaStats:
    """A snapshot of the counters; ``by_status`` counts answered requests only (a dropped
    request has no status), ``held`` is how many image requests wait at the gate now,
    ``peak_in_flight`` the most requests each origin was serving at once (held ones included)
    since the last reset."""

    page_requests: int = 0
    image_requests: int = 0
    robots_requests: int = 0
    by_status: dict[int, int] = field(default_factory=dict)
    by_path: dict[str, int] = field(default_factory=dict)
    bytes_sent: int = 0
    dropped: int = 0
    truncated: int = 0
    retry_after_violations: int = 0
    in_flight_after_429: int = 0
    held: int = 0
    peak_in_flight: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ReplicaStats:
        """Read the control endpoint's JSON back (JSON turns status codes into strings)."""
        by_status = {int(status): count for status, count in data["by_status"].items()}
        return cls(**{**data, "by_status": by_status})


class Counters:
    """Mutable counters, touched only on the server's loop.

    ``peak_in_flight`` starts at the requests each origin is serving when the counters are
    made (a reset mid-crawl measures from there); ``arrivals`` holds the loop time at which
    each request arrived, per (origin, kind), the latest ``_ARRIVALS_KEPT``.
    """

    def __init__(self, in_flight: Counter[str] | None = None) -> None:
        self.peak_in_flight: Counter[str] = Counter(
            {origin: n for origin, n in (in_flight or {}).items() if n > 0})
        self.arrivals: defaultdict[tuple[str, str], deque[float]] = defaultdict(
            lambda: deque(maxlen=_ARRIVALS_KEPT))
        self.requests: Counter[str] = Counter()
        self.by_status: Counter[int] = Counter()
        self.by_path: Counter[str] = Counter()
        self.bytes_sent = 0
        self.dropped = 0
        self.truncated = 0
        self.violations = 0
        self.in_flight = 0

    def snapshot(self, held: int) -> ReplicaStats:
        """Freeze the counters, with ``held`` the requests waiting at the gate now."""
        return ReplicaStats(
            page_requests=self.requests["page"],
            image_requests=self.requests["image"],
            robots_requests=self.requests["robots"],
            by_status=dict(self.by_status),
            by_path=dict(self.by_path),
            bytes_sent=self.bytes_sent,
            dropped=self.dropped,
            truncated=self.truncated,
            retry_after_violations=self.violations,
            in_flight_after_429=self.in_flight,
            held=held,
            peak_in_flight=dict(self.peak_in_flight),
        )
