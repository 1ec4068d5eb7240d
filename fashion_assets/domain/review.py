"""The review of drafts: which action an editor may take on a draft, and what it changes.

Runway and street drafts are reviewed the same way, so one pure rule decides for both, from
the draft's status and deleted flag alone; the catalog only loads the row, asks, and writes
what the decision says. Keeping it pure lets the unit tests cover every (status, deleted,
action) combination without a database.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from fashion_assets.domain.numbers import INT64_MAX, whole_number
from fashion_assets.domain.text import clean_text
from fashion_assets.domain.titles import (
    COLLECTION_TYPES,
    MAX_STORED_TITLE_CHARS,
    MAX_YEAR,
    MIN_YEAR,
    SEASONS,
    TitleParseError,
    parse_season_slug,
    stored_title,
)

KINDS = ("runway", "street")
ACTIONS = ("approve", "reject", "edit", "delete", "restore")
STATUSES = ("pending", "approved", "rejected", "promoted")
# The orders the review queue can be listed in; "waiting" (oldest first) is the default.
QUEUE_SORTS = ("waiting", "title", "source", "status", "photos")
# The fields an editor may change, per kind; the entity key fields are among them.
EDITABLE = {
    "runway": ("brand_slug", "season_code", "title", "season", "year", "collection_type",
               "city"),
    "street": ("city", "year", "month", "title"),
}
# Fields that name another entity: the catalog checks they exist before writing.
REFERENCES = {"brand_slug": "brands", "city": "cities"}
_SLUG = re.compile(r"[a-z0-9][a-z0-9-]{0,119}")
_REF = re.compile(r"(?:(?P<kind>[a-z]+):)?(?P<id>[0-9]+)")


class DraftRefError(ValueError):
    """A draft reference that is not ``runway:12``, ``street:7`` or a bare number."""


@dataclass(frozen=True)
class DraftRef:
    """A draft as editors address it: runway and street drafts have separate id sequences."""

    kind: str
    id: int

    def __str__(self) -> str:
        # Runway is the default kind, so its bare number is what people type and read.
        return str(self.id) if self.kind == "runway" else f"{self.kind}:{self.id}"


# The largest id a draft can have: PostgreSQL's BIGSERIAL, SQLite's INTEGER.
MAX_DRAFT_ID = INT64_MAX


MAX_REASON_CHARS = 2000


def kept_reason(reason: str) -> str:
    """An editor's reason (a rejection's, an edit's, a bulk action's) as the catalog keeps
    it: by the rule for kept text (``text.py: clean_text``), so no escape sequence or
    reordering mark reaches the terminal of ``review show`` or the page's audit trail."""
    return clean_text(reason, MAX_REASON_CHARS)


def parse_draft_ref(text: str) -> DraftRef:
    """Read ``runway:12``, ``street:7`` or ``12`` (a bare number is a runway draft)."""
    match = _REF.fullmatch(text.strip().lower())
    if match is None:
        raise DraftRefError(f"{text!r} is not a draft reference (runway:12, street:7 or 12)")
    kind = match["kind"] or "runway"
    if kind not in KINDS:
        raise DraftRefError(f"{text!r}: unknown draft kind {kind!r} (runway or street)")
    # By the rule for numbers from outside: ``int`` refuses 4,300 digits and more with a
    # ValueError (a 500 for /drafts/runway:999...), and no draft id is past 64 bits.
    draft_id = whole_number(match["id"], high=MAX_DRAFT_ID)
    if draft_id is None:  # no draft has it, and the database could not even compare it
        raise DraftRefError(f"{text[:40]!r}: no draft id is that large")
    if draft_id <= 0:
        raise DraftRefError(f"{text!r}: draft ids start at 1")
    return DraftRef(kind, draft_id)


@dataclass(frozen=True)
class ReviewDecision:
    """What an action does to a draft; ``ok`` False means refused, and nothing is written.

    ``changes`` maps each field that changes (status and is_deleted included) to
    ``(old, new)``: the catalog writes the new values and records the pairs in the audit trail.
    ``needs_confirmation``: refused only for want of the editor's confirmation that a draft
    without photos should have none, which each way of approving asks for in its own words
    (the command line's ``--confirm-no-photos``, the page's check box).
    """

    ok: bool
    new_status: str
    new_is_deleted: bool
    message: str
    changes: dict[str, tuple[Any, Any]] = field(default_factory=dict)
    needs_confirmation: bool = False


def _refuse(status: str, is_deleted: bool, message: str) -> ReviewDecision:
    return ReviewDecision(False, status, is_deleted, message)


def decide_review(*, ref: DraftRef, status: str, is_deleted: bool, action: str,
                  reason: str = "", changes: Mapping[str, Any] | None = None,
                  current: Mapping[str, Any] | None = None, photos: int | None = None,
                  confirm_no_photos: bool = False) -> ReviewDecision:
    """Decide ``action`` on the draft ``ref``, now ``status`` and ``is_deleted``.

    ``changes`` are an edit's new values and ``current`` the draft's present ones (only the
    editable fields are read), so the decision can say exactly what changes. ``photos`` is
    how many photos the draft holds: a draft with none is approved only with
    ``confirm_no_photos`` (a show whose every photo failed looks like any other in a list,
    and promoted it would be a catalog entry with nothing to show).
    """
    if action not in ACTIONS:
        return _refuse(status, is_deleted, f"unknown action {action!r} ({', '.join(ACTIONS)})")
    name = f"draft {ref}"
    problem = _state_problem(name, status, is_deleted, action, reason)
    if problem:
        return _refuse(status, is_deleted, problem)
    if action == "approve" and photos == 0 and not confirm_no_photos:
        return ReviewDecision(False, status, is_deleted, f"{name} has no photos: approve it "
                              "only if it should have none, and confirm that",
                              needs_confirmation=True)
    if action == "edit":
        return _decide_edit(ref, name, status, is_deleted, changes or {}, current or {})
    new_status = {"approve": "approved", "reject": "rejected"}.get(action, status)
    new_deleted = {"delete": True, "restore": False}.get(action, is_deleted)
    diff: dict[str, tuple[Any, Any]] = {}
    if new_status != status:
        diff["status"] = (status, new_status)
    if new_deleted != is_deleted:
        diff["is_deleted"] = (is_deleted, new_deleted)
    return ReviewDecision(True, new_status, new_deleted, f"{name}: {_DONE[action]}", diff)


_DONE = {"approve": "approved", "reject": "rejected", "delete": "deleted",
         "restore": "restored", "edit": "edited"}


def _state_problem(name: str, status: str, is_deleted: bool, action: str,
                   reason: str) -> str | None:
    """Why ``action`` may not be taken on a draft in this state, or None if it may."""
    promoted = f"{name} is promoted: it is in the catalog already"
    deleted = f"{name} is deleted: restore it first"
    if action == "restore":
        return None if is_deleted else f"{name} is not deleted"
    if action in ("edit", "delete") and status == "promoted":
        return promoted
    if is_deleted:
        return f"{name} is deleted already" if action == "delete" else deleted
    if action == "approve" and status not in ("pending", "rejected"):
        return promoted if status == "promoted" else f"{name} is {status} already"
    if action == "reject":
        if status not in ("pending", "approved"):
            return promoted if status == "promoted" else f"{name} is {status} already"
        if not reason.strip():
            return f"{name}: a rejection needs a reason"
    return None


def _decide_edit(ref: DraftRef, name: str, status: str, is_deleted: bool,
                 changes: Mapping[str, Any], current: Mapping[str, Any]) -> ReviewDecision:
    if not changes:
        return _refuse(status, is_deleted, f"{name}: nothing to edit")
    try:
        values = validate_changes(ref.kind, changes)
    except ValueError as exc:
        return _refuse(status, is_deleted, f"{name}: {exc}")
    diff = {k: (current.get(k), v) for k, v in values.items() if current.get(k) != v}
    if not diff:
        return _refuse(status, is_deleted, f"{name}: the edit changes nothing")
    fields = ", ".join(diff)
    return ReviewDecision(True, status, is_deleted, f"{name}: edited {fields}", diff)


def validate_changes(kind: str, changes: Mapping[str, Any]) -> dict[str, Any]:
    """An edit's new values, checked and normalized; raises ValueError saying what is wrong.

    A new runway season code also sets season, year and collection type from the code, unless
    the edit gives them, so the draft never contradicts its own key.
    """
    editable = EDITABLE.get(kind)
    if editable is None:
        raise ValueError(f"unknown draft kind {kind!r}")
    unknown = sorted(set(changes) - set(editable))
    if unknown:
        raise ValueError(f"cannot edit {', '.join(unknown)} of a {kind} draft"
                         f" (editable: {', '.join(editable)})")
    values = {name: _CHECKS[(kind, name)](value) for name, value in changes.items()}
    if "season_code" in values:
        code = parse_season_slug(values["season_code"])
        derived = {"season": code.season, "year": code.year,
                   "collection_type": code.collection_type}
        values = {"season_code": code.code, **derived, **values}
    return values


def _slug(what: str):  # -> Callable[[Any], str]
    def check(value: Any) -> str:
        if not isinstance(value, str) or _SLUG.fullmatch(value) is None:
            raise ValueError(f"{value!r} is not a {what} slug (lowercase letters, digits, '-')")
        return value
    return check


def _season_code(value: Any) -> str:
    try:
        return parse_season_slug(str(value)).code
    except TitleParseError as exc:
        raise ValueError(f"bad season code: {exc}") from None


def _title(value: Any) -> str:
    """An edited title, cleaned by the rule every source's titles go through (no control
    characters or terminal escapes), refused when empty or too long to store whole."""
    text = str(value)
    if len(" ".join(text.split())) > MAX_STORED_TITLE_CHARS:
        raise ValueError(f"the title is longer than {MAX_STORED_TITLE_CHARS} characters")
    title = stored_title(text)
    if not title:
        raise ValueError("the title may not be empty")
    return title


def _one_of(what: str, allowed: tuple[str, ...]):  # -> Callable[[Any], str]
    def check(value: Any) -> str:
        if value not in allowed:
            raise ValueError(f"{value!r} is not a {what} ({', '.join(allowed)})")
        return str(value)
    return check


def _integer(what: str, low: int, high: int):  # -> Callable[[Any], int]
    def check(value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int | str):
            raise ValueError(f"{what} must be a whole number, not {value!r}"[:200])
        number = value if isinstance(value, int) else whole_number(value.strip())
        if number is None:
            raise ValueError(f"{what} must be a whole number, not {value!r}"[:200])
        if not low <= number <= high:
            raise ValueError(f"{what} {number} is outside {low}..{high}"[:200])
        return number
    return check


_CHECKS = {
    ("runway", "brand_slug"): _slug("brand"),
    ("runway", "season_code"): _season_code,
    ("runway", "title"): _title,
    ("runway", "season"): _one_of("season", SEASONS),
    ("runway", "year"): _integer("year", MIN_YEAR, MAX_YEAR),
    ("runway", "collection_type"): _one_of("collection type", COLLECTION_TYPES),
    ("runway", "city"): _slug("city"),
    ("street", "city"): _slug("city"),
    ("street", "year"): _integer("year", 1, 9999),
    ("street", "month"): _integer("month", 1, 12),
    ("street", "title"): _title,
}
