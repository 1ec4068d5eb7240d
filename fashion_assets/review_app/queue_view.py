"""What an editor looks at in the queue: its filters, its order and the place of a draft in
it, read from a URL's query and written back into the links of every page.

A draft opened from the queue keeps its place (``pos``) and the queue's filters, so that
approving or rejecting it can open the next draft of the same queue: the draft just acted on
leaves a queue that shows pending drafts only, so the next one then takes its place; in any
other queue it stays, and the next one is one further.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from urllib.parse import parse_qsl, urlencode

from fashion_assets.domain.numbers import whole_number
from fashion_assets.domain.review import (
    KINDS,
    QUEUE_SORTS,
    STATUSES,
    DraftRef,
    DraftRefError,
    parse_draft_ref,
)
from fashion_assets.review_app.request_text import check_fields

MAX_OFFSET = 10 ** 9  # far beyond any archive; larger offsets overflow the database's integers
FILTERS = ("kind", "brand", "city", "source")
DEFAULT_SORT = "waiting"  # a leading "-" reverses any of QUEUE_SORTS
ANY_STATUS = "any"


class QueueViewError(ValueError):
    """A query the queue cannot show (a bad offset, sort or kind): the page answers 400."""


@dataclass(frozen=True)
class QueueView:
    """A queue: its filters, the status shown (``any`` for all), deleted drafts or not, its
    order, and a position in it (the first draft of the page, or the draft opened)."""

    kind: str = ""
    brand: str = ""
    city: str = ""
    source: str = ""
    status: str = "pending"
    deleted: bool = False
    complete: bool = False  # only the drafts complete by the coverage rule
    sort: str = DEFAULT_SORT
    pos: int = 0

    @classmethod
    def from_query(cls, query: Mapping[str, str], *, position: str = "offset") -> QueueView:
        """The view a query asks for; ``position`` names the parameter holding the place
        (``offset`` in the queue's own links, ``pos`` in a draft's)."""
        kind = query.get("kind", "").strip()
        if kind and kind not in KINDS:
            raise QueueViewError(f"kind must be one of {', '.join(KINDS)}")
        status = query.get("status", "pending").strip() or "pending"
        if status not in (*STATUSES, ANY_STATUS):
            raise QueueViewError(f"status must be one of {', '.join(STATUSES)} or any")
        sort = query.get("sort", DEFAULT_SORT).strip() or DEFAULT_SORT
        if sort.removeprefix("-") not in QUEUE_SORTS:
            raise QueueViewError(f"sort must be one of {', '.join(QUEUE_SORTS)}, '-' to reverse")
        return cls(kind=kind, brand=query.get("brand", "").strip(),
                   city=query.get("city", "").strip(), source=query.get("source", "").strip(),
                   status=status, deleted=query.get("deleted", "") == "1",
                   complete=query.get("complete", "") == "1", sort=sort,
                   pos=_position(query.get(position, "0")))

    @property
    def status_filter(self) -> str | None:
        return None if self.status == ANY_STATUS else self.status

    def query(self, *, position: str = "offset", pos: int | None = None,
              **changes: str) -> str:
        """This view as a query string, with ``pos`` and ``changes`` (a filter, a sort)
        instead of its own; defaults are left out, so links stay short."""
        view = replace(self, **changes) if changes else self
        defaults = QueueView()
        fields = {name: getattr(view, name) for name in (*FILTERS, "status", "sort")
                  if getattr(view, name) != getattr(defaults, name)}
        fields.update({flag: "1" for flag in ("deleted", "complete") if getattr(view, flag)})
        place = view.pos if pos is None else pos
        if place:
            fields[position] = str(place)
        return urlencode(fields)

    def sort_link(self, column: str) -> str:
        """The query a column header links to: sorted by it, reversed if it is already."""
        sort = f"-{column}" if self.sort == column else column
        return self.query(pos=0, sort=sort)

    def next_pos(self, new_status: str) -> int:
        """Where the next draft is once the draft at ``pos`` is now ``new_status``: in its
        place if the draft left this queue, one further if it is still in it."""
        stays = self.status_filter in (None, new_status)
        return self.pos + 1 if stays else self.pos


def _position(text: str) -> int:
    position = whole_number(text.strip() or "0", high=MAX_OFFSET)
    if position is None:
        raise QueueViewError(f"the position must be a whole number from 0 to {MAX_OFFSET}")
    return position


def form_query(text: str) -> dict[str, str]:
    """A queue's query string, as a form's hidden field carries it back: held to the rule
    for request text once decoded (``request_text.py``), as the page's own query is."""
    pairs = parse_qsl(text, keep_blank_values=False)[:20]
    check_fields("queue parameter", pairs)
    return dict(pairs)


def page_url(path: str, query: str) -> str:
    return f"{path}?{query}" if query else path


def draft_ref(text: str) -> DraftRef | None:
    """The draft a URL's ``kind:id`` names, or None when it names none."""
    try:
        return parse_draft_ref(text)
    except DraftRefError:
        return None


def draft_link(ref: DraftRef) -> str:
    """Always ``kind:id`` in URLs, so a link says which sequence its number is from."""
    return f"{ref.kind}:{ref.id}"
