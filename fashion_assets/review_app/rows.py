"""What the review page shows of each draft it lists (the queue's rows, a draft and its
siblings): its first photo's thumbnail and the heading it is named by, each read for all of
them at once, one query per kind.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import Engine

from fashion_assets.catalog.draft_headings import draft_headings
from fashion_assets.catalog.review import DraftSummary
from fashion_assets.domain.display_names import DraftHeading
from fashion_assets.review_app.media import first_photos


@dataclass(frozen=True)
class Rows:
    """By draft ref (``DraftSummary.ref``): the first photo's key, and the heading."""

    thumbs: dict[str, str]
    headings: dict[str, DraftHeading]


def rows(engine: Engine, drafts: Sequence[DraftSummary]) -> Rows:
    """The thumbnails and headings of ``drafts``."""
    return Rows(first_photos(engine, drafts), draft_headings(engine, drafts))
