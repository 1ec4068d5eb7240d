"""A store that heals: what to do with an object the catalog references and the store lost.

Objects are named by the sha1 of their bytes, and every draft and catalog photo records the
URL it was fetched from (``source_image_url``), so a lost object can be fetched again. The
bytes fetched are accepted only when their sha1 is the lost key: anything else means the
source now serves another photo at that URL, and storing it under the old key would break
content addressing (the store refuses such a put anyway), while storing it under its own key
would leave the catalog pointing at the lost one. Each URL a photo row records for the key
is tried in turn until one gives the bytes back; what each failed try said is kept as the
fetch or the image check gave it (``not_found``, ``html``, ``timeout``...), plus the two
reasons of this rule: ``changed_at_source`` and ``no_source_url``.

The scheduled heal walks every referenced key in key order, a bounded batch per tick, from
a cursor kept in the catalog (``advance``): successive ticks cover the whole archive, then
start over. Pure functions and plain data: the fetch, the store and the catalog are the
caller's (``crawl/store_heal.py``, ``catalog/store_heal.py``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from fashion_assets.domain.wording import counted

CHANGED_AT_SOURCE = "changed_at_source"
"""The URL answered with an image whose sha1 is not the lost key: the photo changed there."""
NO_SOURCE_URL = "no_source_url"
"""No photo row that references the key records where it came from."""
MAX_LISTED = 100
"""Unhealed objects a report keeps as examples; its counts cover the rest."""


@dataclass(frozen=True)
class LostObject:
    """An object the store no longer has, and the source URLs to fetch it from, in order;
    ``damage`` says what was wrong with it when the store held damaged bytes ("" when it
    held none: ``domain/store_scrub.py``)."""

    key: str
    urls: tuple[str, ...]
    damage: str = ""


def lost_object(key: str, urls: Iterable[str], damage: str = "") -> LostObject:
    """The lost ``key`` with each distinct non-empty URL once, sorted: the same order on
    every tick and every machine, whichever table or row each URL was read from."""
    return LostObject(key, tuple(sorted({url for url in urls if url})), damage)


@dataclass(frozen=True)
class Refetch:
    """What one source URL gave back: the reason the fetch or the image check refused it
    (as they gave it), or the sha1 and size of image bytes."""

    url: str
    reason: str | None = None
    detail: str = ""
    sha1: str | None = None
    size: int = 0


@dataclass(frozen=True)
class Unhealed:
    """A try that did not give a lost object back: the URL tried and why."""

    key: str
    url: str
    reason: str
    detail: str


def judge(key: str, got: Refetch) -> Unhealed | None:
    """None when ``got`` is the lost object's own bytes, to be stored under ``key``; else why
    not. A refusal keeps its reason; an image with another sha1 is ``changed_at_source``."""
    if got.reason is not None:
        return Unhealed(key, got.url, got.reason, got.detail)
    if got.sha1 != key:
        return Unhealed(key, got.url, CHANGED_AT_SOURCE,
                        f"the URL now serves another image ({got.size} bytes, sha1 {got.sha1})")
    return None


def nowhere_to_fetch(key: str) -> Unhealed:
    """A lost object no row records a source URL for (old catalog rows may have none)."""
    return Unhealed(key, "", NO_SOURCE_URL,
                    "no draft or catalog photo referencing it records a source URL")


@dataclass(frozen=True)
class Healing:
    """One lost object's outcome: the URL it was fetched again from, or none and every
    failed try (in the order tried)."""

    key: str
    healed_from: str | None
    failures: tuple[Unhealed, ...] = ()
    damaged: bool = False

    @property
    def healed(self) -> bool:
        return self.healed_from is not None

    @property
    def reason(self) -> str:
        """Why it is still missing: what its last try said ("" once healed)."""
        return "" if self.healed or not self.failures else self.failures[-1].reason


@dataclass
class HealReport:
    """The tally of a heal (a tick of the scheduled job, or a crawl's shows): keys checked,
    missing from the store (damaged ones among them: removed, so lost), healed, still
    missing by reason, and the first unhealed tries."""

    checked: int = 0
    missing: int = 0
    damaged: int = 0
    healed: int = 0
    still_missing: Counter[str] = field(default_factory=Counter)
    unhealed: list[Unhealed] = field(default_factory=list)

    def add(self, checked: int, outcomes: Sequence[Healing]) -> None:
        """Count ``checked`` keys, the missing ones among them being ``outcomes``."""
        self.checked += checked
        self.missing += len(outcomes)
        for outcome in outcomes:
            self.damaged += outcome.damaged
            if outcome.healed:
                self.healed += 1
                continue
            self.still_missing[outcome.reason] += 1
            room = MAX_LISTED - len(self.unhealed)
            self.unhealed += list(outcome.failures[:max(0, room)])

    @property
    def unhealed_count(self) -> int:
        return sum(self.still_missing.values())

    def line(self) -> str:
        """The report in one line, for logs and the terminal."""
        reasons = ", ".join(f"{count} {reason}"
                            for reason, count in sorted(self.still_missing.items()))
        damaged = f" ({self.damaged} of them damaged)" if self.damaged else ""
        return (f"{counted(self.checked, 'photo')} checked, {self.missing} missing from the store"
                f"{damaged}, "
                f"{self.healed} fetched again, {self.unhealed_count} still missing"
                + (f" ({reasons})" if reasons else ""))


@dataclass(frozen=True)
class Step:
    """One tick's place in the walk of every referenced key: the keys after ``after`` up to
    ``upto`` (inclusive; None: to the end) were checked, the next tick starts after
    ``next_after`` ("" : a new pass from the first key), and ``wrapped`` says this tick
    finished a pass."""

    after: str
    upto: str | None
    next_after: str
    wrapped: bool


def advance(after: str, page: Sequence[str], batch: int) -> Step:
    """Where the walk stands once ``page`` (the first ``batch`` keys after ``after``, in key
    order) was checked. A page shorter than the batch reached the last key: the pass is
    complete and the next tick starts over, so a key added behind the cursor is found by
    the next pass and none waits for ever."""
    if batch < 1:
        raise ValueError(f"the heal batch must be at least 1, got {batch}")
    if len(page) > batch:
        raise ValueError(f"a page of {len(page)} keys is longer than the batch of {batch}")
    if list(page) != sorted(page) or (page and page[0] <= after):
        raise ValueError("a page must hold keys after the cursor, in key order")
    if len(page) < batch:
        return Step(after, None, "", True)
    return Step(after, page[-1], page[-1], False)
