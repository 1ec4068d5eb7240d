"""The plain shapes of pages that several sources share in form: a paged listing of
articles (theImpression's weeks and seasons, any source listed like them). An adapter reads
its listing pages into these, so the pipeline's paged-listing step (``crawl/listings.py``)
reads every such source alike."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ListedArticle:
    """One entry of a listing: an article to read later, named by its site path, with the
    designer its markup names (runway galleries), if any."""

    title: str
    path: str
    designer: str | None


@dataclass(frozen=True)
class ListingPage:
    """One page of a listing: its heading, its entries in page order, the next page's path
    and the entries that could not be read."""

    heading: str
    articles: tuple[ListedArticle, ...]
    next_path: str | None
    skipped: tuple[str, ...]
