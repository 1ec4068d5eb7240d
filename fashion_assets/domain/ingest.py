"""The ingest decision: what to do with one show, decided before anything is downloaded."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum


class Outcome(StrEnum):
    """Per-show outcomes, as written to the ingest log and to run metadata."""

    CREATED = "created"
    SKIPPED_ALREADY_INGESTED = "skipped_already_ingested"
    SKIPPED_IN_CATALOG = "skipped_in_catalog"
    SKIPPED_CONFLICT = "skipped_conflict"
    REPAIRED = "repaired"  # photos a draft or its catalog entry lacked were added
    UNREPAIRED = "unrepaired"  # re-fetched to repair, but no missing photo could be added
    FAILED = "failed"


class ListingOutcome(StrEnum):
    """What a listing did with an entry whose name (brand or city) did not resolve."""

    WAITING_FOR_NAME = "waiting_for_name"  # held until an editor resolves the name
    SKIPPED_DISMISSED_NAME = "skipped_dismissed_name"  # an editor said the name is no entity
    SKIPPED_UNUSABLE_NAME = "skipped_unusable_name"  # no letters or digits to match at all


def listing_outcome(name_status: str) -> ListingOutcome:
    """The outcome of an entry whose name resolved with ``name_status`` (not ``resolved``)."""
    return {"pending": ListingOutcome.WAITING_FOR_NAME,
            "dismissed": ListingOutcome.SKIPPED_DISMISSED_NAME}.get(
        name_status, ListingOutcome.SKIPPED_UNUSABLE_NAME)


class Action(StrEnum):
    SKIP = "skip"
    CREATE = "create"  # download every photo, write a new draft
    REPAIR = "repair"  # download the photos the show's draft lacks, add them


@dataclass(frozen=True)
class IngestDecision:
    action: Action
    outcome: Outcome | None  # the outcome when nothing is downloaded
    reason: str

    @property
    def download(self) -> bool:
        return self.action is not Action.SKIP


def decide_ingest(*, source_key_drafted: bool, entity_in_catalog: bool,
                  complete: bool = True, repairable: bool = False) -> IngestDecision:
    """Whether to download a show, and whether to draft it or repair its draft.

    The source key is checked against drafts in every status (rejected and soft-deleted
    included): an article is ingested once, ever. The entity key is checked against the
    catalog only, never against drafts, so a second source for the same show still gets its
    own draft for promotion to merge.

    ``complete`` is the show's coverage (``domain/coverage.py``); ``repairable`` says its
    draft is one an editor has not turned down. An incomplete show with such a draft is
    repaired, never skipped: "incomplete, so re-crawl; already ingested, so skip" would loop
    forever. An incomplete catalog entry does not stop a source that has no draft yet from
    drafting its photos, for promotion to merge into the entry.
    """
    if source_key_drafted and repairable and not complete:
        return IngestDecision(Action.REPAIR, None, "")
    if source_key_drafted:
        return IngestDecision(Action.SKIP, Outcome.SKIPPED_ALREADY_INGESTED,
                              "a draft with this source key exists")
    if entity_in_catalog and complete:
        return IngestDecision(Action.SKIP, Outcome.SKIPPED_IN_CATALOG,
                              "this show is already in the catalog")
    return IngestDecision(Action.CREATE, None, "")


def photos_added(held: Mapping[int, str], fetched: Iterable[tuple[int, str]]) -> int:
    """How many photos a repair gave a draft: its photos after the write minus before.

    ``held`` is the draft's photos whose objects are in the store (position -> source URL);
    ``fetched`` the photos the repair stored, as (position, source URL). A fetched photo
    takes its position, replacing the draft's photo there or the one from the same URL, as
    the write does. Counting downloads instead would call a show repaired when the source
    only moved its photos to new URLs (a new CDN host, another width): the same photos are
    fetched and written again, and the draft has not one more than before.
    """
    fetched = list(fetched)
    positions = {position for position, _ in fetched}
    urls = {url for _, url in fetched}
    kept = {position for position, url in held.items()
            if position not in positions and url not in urls}
    return len(kept | positions) - len(held)


def repair_outcome(*, draft_photos_added: int, entry_photos_added: int) -> Outcome:
    """``repaired`` when the draft or its catalog entry gained a photo (``photos_added``),
    else ``unrepaired``: photos fetched again in place of ones the draft held do not count,
    and the photos the show lacks could not be fetched, so the coverage sensor backs off."""
    if draft_photos_added > 0 or entry_photos_added > 0:
        return Outcome.REPAIRED
    return Outcome.UNREPAIRED


def draft_photos_gained(outcome: Outcome, fetched: int, repair_added: int) -> int:
    """The photos drafts gained from one item's ingest: every photo of a draft it created
    (``fetched``: those put in the store for it), the photos a repair added
    (``repair_added``, ``photos_added``: not those fetched again in place of ones the draft
    held), none otherwise.

    "Photos added" is what a crawl reports per show, per run and in total: a re-crawl
    that fetched 33 photos again for drafts that had them adds 0, where "33 photos stored"
    beside "0 photos added" read as a contradiction."""
    if outcome is Outcome.CREATED:
        return fetched
    if outcome in (Outcome.REPAIRED, Outcome.UNREPAIRED):
        return repair_added
    return 0


def count_outcomes(outcomes: Iterable[Outcome]) -> dict[str, int]:
    """Counts per outcome, every outcome present (zeros included) for stable metadata."""
    counts = Counter(outcomes)
    return {outcome.value: counts.get(outcome, 0) for outcome in Outcome}


# Reasons that say the source could not answer right now, as opposed to a bad photo.
TRANSIENT_REASONS = frozenset({"timeout", "connection", "truncated", "bad_response", "http_429",
                               "http_500", "http_502", "http_503", "http_504",
                               "robots_disallowed", "robots_unavailable"})


def is_transient(reason: str) -> bool:
    """Whether a failed page fetch is worth retrying later: the source could not answer.
    A robots.txt refusal is the site's answer, not an outage, for a page; a robots.txt that
    could not be read (``robots_unavailable``) is an outage."""
    return reason in TRANSIENT_REASONS and reason != "robots_disallowed"


def show_failure(*, expected: int, stored: int, missing_reasons: Iterable[str]) -> str | None:
    """Why a show must not be drafted yet, or None when its draft should be written.

    Photos that still fail after every retry are recorded as missing and the draft gets the
    rest (the coverage repair fetches them again later). But when not one photo of a show
    could be stored and the source was unavailable rather than serving bad photos, a draft
    would be an empty shell that blocks the article forever: the show fails instead and the
    next run tries it again.
    """
    reasons = list(missing_reasons)
    if expected > 0 and stored == 0 and any(r in TRANSIENT_REASONS for r in reasons):
        return f"no photo could be fetched ({', '.join(sorted(set(reasons)))})"
    return None


# The first wait after our own store, database or disk failed; doubled per retry, up to the cap.
INFRA_RETRY_FIRST_S = 0.5
INFRA_RETRY_CAP_S = 10.0


def infra_retry_delay(*, failures: int, failing_s: float, budget_s: float) -> float | None:
    """Seconds to wait before calling our own store, database or disk again after its
    ``failures``-th failure in a row, ``failing_s`` after the first attempt; None once
    ``budget_s`` is spent.

    Backing off exponentially rides out a short outage without hammering a system that is
    coming back; the wait never runs past the budget, so the last attempt is made right at
    its end and a longer outage fails the run rather than any show (the source is not at
    fault, and the next run tries every show again).
    """
    remaining = budget_s - failing_s
    if remaining <= 0:
        return None
    return min(INFRA_RETRY_FIRST_S * 2 ** (failures - 1), INFRA_RETRY_CAP_S, remaining)
