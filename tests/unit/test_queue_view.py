"""The review queue's view (``review_app/queue_view.py``): read from a query, written back
into links, and where the next draft is after an action."""

from __future__ import annotations

from urllib.parse import parse_qs

import pytest

from fashion_assets.review_app.queue_view import MAX_OFFSET, QueueView, QueueViewError


def fields(query: str) -> dict[str, str]:
    return {name: values[0] for name, values in parse_qs(query).items()}


def test_a_view_survives_its_own_links() -> None:
    view = QueueView.from_query({"kind": "runway", "brand": " chloe ", "status": "any",
                                 "deleted": "1", "complete": "1", "sort": "-photos",
                                 "offset": "50"})
    assert view == QueueView(kind="runway", brand="chloe", status="any", deleted=True,
                             complete=True, sort="-photos", pos=50)
    assert QueueView.from_query(fields(view.query())) == view
    assert QueueView.from_query(fields(view.query(position="pos", pos=7)),
                                position="pos") == QueueView(
        kind="runway", brand="chloe", status="any", deleted=True, complete=True,
        sort="-photos", pos=7)


def test_defaults_stay_out_of_links() -> None:
    assert QueueView().query() == ""
    assert QueueView(status="approved").query(pos=0) == "status=approved"


def test_a_column_header_sorts_by_it_then_reverses_it() -> None:
    assert QueueView().sort_link("photos") == "sort=photos"
    assert QueueView(sort="photos", pos=100).sort_link("photos") == "sort=-photos"
    assert QueueView(sort="-photos").sort_link("photos") == "sort=photos"


@pytest.mark.parametrize(("status", "new_status", "next_pos"), [
    ("pending", "approved", 4), ("pending", "rejected", 4), ("any", "approved", 5),
    ("approved", "approved", 5), ("approved", "rejected", 4), ("rejected", "approved", 4),
])
def test_the_next_draft_takes_the_place_of_one_that_left_the_queue(
        status: str, new_status: str, next_pos: int) -> None:
    assert QueueView(status=status, pos=4).next_pos(new_status) == next_pos


@pytest.mark.parametrize("query", [
    {"offset": "-1"}, {"offset": "x"}, {"offset": str(MAX_OFFSET + 1)},
    {"offset": "9" * 30}, {"sort": "size"}, {"sort": "--title"}, {"kind": "catwalk"},
    {"status": "lost"},
])
def test_a_query_the_queue_cannot_show_is_refused(query: dict[str, str]) -> None:
    with pytest.raises(QueueViewError):
        QueueView.from_query(query)
