"""robots.txt, as the HTTP client obeys it: each origin's rules read once per client, and
shared with every other client for ``ROBOTS_MAX_AGE_S`` (``crawl/budget.py``).

The rules are read by Protego (Scrapy's parser), which follows RFC 9309: the ``*`` and ``$``
wildcards real sites write (``Disallow: /*.pdf$``) and the longest match deciding between
``Allow`` and ``Disallow``. The standard library's ``urllib.robotparser`` read both wrong: a
wildcard as a literal character, and the first rule listed as the one that counts.

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

from protego import Protego

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

# The fields of lines that can never make an Allow or Disallow rule, however Protego spells
# them (its aliases included); any other line with a value might be one.
_NOT_RULES = frozenset({"user-agent", "useragent", "user agent", "sitemap", "sitemaps",
                        "site-map", "crawl-delay", "crawl delay", "request-rate",
                        "request rate", "visit-time", "visit time", "host"})


@dataclass(frozen=True)
class RobotsFile:
    """An origin's robots.txt as read: its text, or None for no rules (a 4xx, a redirect)."""

    text: str | None


@dataclass(frozen=True)
class Rules:
    """An origin's rules: Protego's reading of its robots.txt, and whether they allow every
    URL to every agent (``allows_every_url``), so that no URL needs judging."""

    parser: Protego
    allow_all: bool

    def allows(self, url: str, user_agent: str) -> bool:
        """Whether ``user_agent`` may fetch ``url``: Protego's answer, unasked when the file
        has no rule to give another."""
        return self.allow_all or self.parser.can_fetch(url, user_agent)


def rules_from(text: str | None) -> Rules:
    """The rules a robots.txt gives; None (a 4xx, a redirect): no rules at all."""
    text = text or ""
    return Rules(Protego.parse(text), allows_every_url(text))


def allows_every_url(text: str) -> bool:
    """Whether robots.txt ``text`` holds no Allow or Disallow rule at all, for any agent
    (``Disallow:`` with no path is none): then Protego allows every URL, and the client need
    not ask it. Read conservatively: a line that might be a rule in Protego's generous reading
    (a misspelt ``Dissalow``, ``Disallow /x`` without a colon) answers False.

    Why: judging a URL costs Protego a quoting of it per request, though most hosts' rules
    (an image CDN's 404, ``Disallow:``) allow everything; docs/performance.md measured the
    standard library's per-URL check at 11% of a fetch's CPU. Nothing here reads Protego's
    internals: tests/unit/test_robots_verdict.py holds this to Protego's own answers.
    """
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        field, colon, value = line.partition(":")
        if not colon:
            return False
        if value.strip() and field.strip().lower() not in _NOT_RULES:
            return False
    return True


class RobotsRules:
    """Each origin's rules, read through ``read`` (the client's own fetch with its retries:
    the rules, or None when robots.txt could not be read) once, one reader per origin."""

    def __init__(self, user_agent: str, read: Callable[[str], Awaitable[Rules | None]],
                 clock: Callable[[], float]) -> None:
        self._user_agent, self._read, self._clock = user_agent, read, clock
        # An origin's rules, or the clock time until which it is kept out because its
        # robots.txt could not be read.
        self._known: dict[str, Rules | float] = {}
        self._locks: dict[str, asyncio.Lock] = defaultdict(asyncio.Lock)

    async def refusal(self, url: str) -> tuple[str, str] | None:
        """Why robots.txt keeps ``url`` out (reason, detail), or None."""
        parts = urlsplit(url)
        origin = f"{parts.scheme}://{parts.netloc}"
        known = self._known.get(origin)
        if not isinstance(known, Rules):  # not read yet, or kept out for now
            async with self._locks[origin]:
                known = self._known.get(origin)
                if known is None or (isinstance(known, float) and self._clock() >= known):
                    rules = await self._read(origin)
                    known = self._clock() + ROBOTS_UNREADABLE_RETRY_S if rules is None else rules
                    self._known[origin] = known
        if isinstance(known, float):
            return ("robots_unavailable",
                    f"robots.txt of {parts.netloc} could not be read; the host is kept out "
                    f"and robots.txt read again after {ROBOTS_UNREADABLE_RETRY_S:.0f} s")
        if known.allows(url, self._user_agent):
            return None
        return "robots_disallowed", f"robots.txt of {parts.netloc} disallows {url}"
