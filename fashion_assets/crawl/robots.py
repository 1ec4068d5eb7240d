"""robots.txt, as the HTTP client obeys it: each origin's rules read once per client, and
shared with every other client for ``ROBOTS_MAX_AGE_S`` (``crawl/budget.py``).

A site whose robots.txt cannot be read (timeouts, 5xx, dropped connections after every
retry) is kept out, as RFC 9309 asks, but only for ``ROBOTS_UNREADABLE_RETRY_S``: the refusal
is ``robots_unavailable`` (an outage, retried later), not the site's answer
``robots_disallowed``, and robots.txt is read again once the pause is over, so one bad minute
does not shut a host out of a whole crawl. A 4xx or a redirected robots.txt means no rules.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from urllib.parse import urlsplit
from urllib.robotparser import RobotFileParser

# How long a host whose robots.txt could not be read is kept out before it is read again.
ROBOTS_UNREADABLE_RETRY_S = 60.0
# How long a robots.txt one client read serves every other client. An hour: well within the
# day RFC 9309 allows a cache, and short enough that a site's new rules reach the next crawl.
ROBOTS_MAX_AGE_S = 3600.0
# How long one client's claim to read an origin's robots.txt keeps the others from reading
# it themselves. Once the file is kept they find it there; the claim ends early when the
# client gives up (an unreadable file) or closes. So this bounds the others' wait only when
# the reading client died mid-read, or its read outlasts the claim (then a second reader
# starts: a duplicate request, never a wrong answer).
ROBOTS_READ_CLAIM_S = 60.0
# How often a client waiting for another's read of robots.txt looks whether it was kept.
ROBOTS_READ_POLL_S = 0.05


@dataclass(frozen=True)
class RobotsFile:
    """An origin's robots.txt as read: its text, or None for no rules (a 4xx, a redirect)."""

    text: str | None


def rules_from(text: str | None) -> RobotFileParser:
    """The rules a robots.txt gives; None (a 4xx, a redirect): no rules at all."""
    parser = RobotFileParser()
    parser.parse([] if text is None else text.splitlines())
    return parser


def blanket_verdict(rules: RobotFileParser, user_agent: str) -> bool | None:
    """What ``rules.can_fetch(user_agent, url)`` answers for every URL, when the answer does
    not depend on the URL (no rules for the agent, or a first rule that matches every path,
    like ``Disallow:``); None when it does.

    Why: ``can_fetch`` unquotes, splits and quotes each URL again before it looks at a rule,
    a tenth of the client's CPU per photo, though most hosts' rules (an image CDN's) answer
    the same for every path. The steps are ``can_fetch``'s own, in its order.
    """
    if rules.disallow_all:
        return False
    if rules.allow_all:
        return True
    if not rules.last_checked:
        return False
    entry = next((e for e in rules.entries if e.applies_to(user_agent)), rules.default_entry)
    if entry is None or not entry.rulelines:
        return True
    first = entry.rulelines[0]
    return first.allowance if first.path in ("", "*") else None


class RobotsRules:
    """Each origin's rules, read through ``read`` (the client's own fetch with its retries:
    the rules, or None when robots.txt could not be read) once, one reader per origin."""

    def __init__(self, user_agent: str, read: Callable[[str], Awaitable[RobotFileParser | None]],
                 clock: Callable[[], float]) -> None:
        self._user_agent, self._read, self._clock = user_agent, read, clock
        # An origin's rules, or the clock time until which it is kept out because its
        # robots.txt could not be read.
        self._known: dict[str, RobotFileParser | float] = {}
        # Each origin's verdict for every URL, where its rules give one (``blanket_verdict``).
        self._blanket: dict[str, bool | None] = {}
        self._locks: dict[str, asyncio.Lock] = defaultdict(asyncio.Lock)

    async def refusal(self, url: str) -> tuple[str, str] | None:
        """Why robots.txt keeps ``url`` out (reason, detail), or None."""
        parts = urlsplit(url)
        origin = f"{parts.scheme}://{parts.netloc}"
        known = self._known.get(origin)
        if not isinstance(known, RobotFileParser):  # not read yet, or kept out for now
            async with self._locks[origin]:
                known = self._known.get(origin)
                if known is None or (isinstance(known, float) and self._clock() >= known):
                    rules = await self._read(origin)
                    if rules is None:
                        known = self._clock() + ROBOTS_UNREADABLE_RETRY_S
                    else:
                        known = rules
                        self._blanket[origin] = blanket_verdict(rules, self._user_agent)
                    self._known[origin] = known
        if isinstance(known, float):
            return ("robots_unavailable",
                    f"robots.txt of {parts.netloc} could not be read; the host is kept out "
                    f"and robots.txt read again after {ROBOTS_UNREADABLE_RETRY_S:.0f} s")
        verdict = self._blanket.get(origin)
        if verdict is None:
            verdict = known.can_fetch(self._user_agent, url)
        if verdict:
            return None
        return "robots_disallowed", f"robots.txt of {parts.netloc} disallows {url}"
