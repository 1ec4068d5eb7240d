"""Per-show progress lines for a run's log, sent in batches.

Every log line of a Dagster run is an event written to the instance's storage: one event per
show cost a sixth of a crawl's time. Lines are grouped into one event every few seconds, so
the log still shows every show's outcome, in order, as the run goes.
"""

from __future__ import annotations

import time
from collections.abc import Callable


class ProgressLog:
    def __init__(self, emit: Callable[[str], None], total: int, *, interval_s: float = 2.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._emit = emit
        self._total = total
        self._interval_s = interval_s
        self._clock = clock
        self._lines: list[str] = []
        self._done = 0
        self._last = clock()

    def add(self, line: str) -> None:
        """Record one finished show; send the batch when the interval has passed."""
        self._done += 1
        self._lines.append(f"[{self._done}/{self._total}] {line}")
        if self._clock() - self._last >= self._interval_s:
            self.flush()

    def flush(self) -> None:
        """Send what is waiting (call once more at the end of the step)."""
        if self._lines:
            self._emit("\n".join(self._lines))
            self._lines = []
        self._last = self._clock()
