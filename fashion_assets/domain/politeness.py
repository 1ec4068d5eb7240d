"""Per-host politeness: how fast the crawler may call one host, as plain data.

Why: a ``Retry-After`` window only stops a client once a host has complained, and only for as
long as the host said. A host that throttles us (429, or 503 from an origin that is
overloaded) is saying that we send too much at once; waiting the window out and coming back
at full concurrency gets us throttled again, and in the end blocked. So, per host:

- pages (anything that is not a photo: listings, show pages, robots.txt) are sent at least
  ``page_delay_s`` apart (``page_turn``), as a site expects of a crawler;
- photo downloads in flight are capped at ``image_cap``; a throttling answer (``THROTTLE_STATUS``)
  halves the cap in force, never below 1 (``after_throttle``). One cut per round: an answer to
  a request sent before the last cut was already in flight when that cut was made, so it
  says nothing new and does not cut again (otherwise one burst of 429s to the requests of a
  single moment would take a cap of 8 straight to 1);
- the cap comes back gradually (``after_success``): one more download in flight after
  ``restore_successes`` successful answers since the last change (a throttle resets the
  count), or at the first success once ``restore_s`` seconds passed since the last change,
  whichever comes first, up to ``image_cap``.

Every answer of a host counts, pages' and photos' alike: the host is the one that throttles.
Answers that say nothing about load (500, 502, 504, a dropped connection) change nothing.
Times are seconds on a monotonic clock the caller passes in as ``now``; nothing here reads a
clock or sleeps, so the rule is tested with plain numbers.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

# Answers that mean "slow down": too many requests, or the origin is overloaded.
THROTTLE_STATUS = frozenset({429, 503})


@dataclass(frozen=True)
class PaceRules:
    """The configured pace (see ``FASHION_PAGE_DELAY`` and the settings after it)."""

    page_delay_s: float = 0.25
    image_cap: int = 8
    restore_successes: int = 100
    restore_s: float = 30.0

    def __post_init__(self) -> None:
        if self.page_delay_s < 0:
            raise ValueError(f"page_delay_s must not be negative, got {self.page_delay_s}")
        if self.image_cap < 1 or self.restore_successes < 1:
            raise ValueError("image_cap and restore_successes must be at least 1")
        if self.restore_s <= 0:
            raise ValueError(f"restore_s must be positive, got {self.restore_s}")


@dataclass(frozen=True)
class HostPace:
    """One host's pace: the photo downloads it may have in flight now, and its history.

    ``changed_at`` is when ``image_limit`` last changed (or the state began), ``successes``
    the successful answers since then, ``cut_at`` when the limit was last halved.
    """

    rules: PaceRules
    image_limit: int
    changed_at: float
    successes: int = 0
    cut_at: float | None = None


def start(rules: PaceRules, now: float) -> HostPace:
    """A host not called yet: the full cap."""
    return HostPace(rules, rules.image_cap, now)


def page_turn(next_at: float, now: float, delay_s: float) -> tuple[float, float]:
    """A page asks for its turn at ``now``; the host's next free moment is ``next_at``.

    Returns when the page may be sent (``next_at``, or now if that has passed) and the next
    free moment after it (``delay_s`` later). Turns are handed out in the order asked, so
    pages of one host are never sent less than the delay apart, whoever sends them; the
    catalog database applies this rule in one statement (``catalog/host_budget.py``).
    """
    send_at = max(next_at, now)
    return send_at, send_at + delay_s


def is_throttle(status: int) -> bool:
    return status in THROTTLE_STATUS


def after_throttle(state: HostPace, now: float, *, sent_at: float | None = None) -> HostPace:
    """The host throttled a request sent at ``sent_at``: halve the photo cap (never below 1).

    An answer to a request sent before the last cut changes nothing (see the module's
    docstring). Every cut restarts the restore clock and the count of successes.
    """
    if sent_at is not None and state.cut_at is not None and sent_at < state.cut_at:
        return state
    return replace(state, image_limit=max(1, state.image_limit // 2), changed_at=now,
                   successes=0, cut_at=now)


def after_success(state: HostPace, now: float) -> HostPace:
    """The host answered normally: one step towards the full cap when one is due."""
    rules = state.rules
    if state.image_limit >= rules.image_cap:
        return state  # the usual case: nothing to restore, nothing allocated
    successes = state.successes + 1
    if successes >= rules.restore_successes or now - state.changed_at >= rules.restore_s:
        return replace(state, image_limit=state.image_limit + 1, changed_at=now, successes=0)
    return replace(state, successes=successes)


def after_answer(state: HostPace, status: int, now: float, *,
                 sent_at: float | None = None) -> HostPace:
    """The state after the host answered ``status`` to a request sent at ``sent_at``.

    429 and 503 throttle; other answers below 500 (a page, a photo, a redirect, a 404) are
    successes; other 5xx say nothing about load and change nothing.
    """
    if is_throttle(status):
        return after_throttle(state, now, sent_at=sent_at)
    if status < 500:
        return after_success(state, now)
    return state
