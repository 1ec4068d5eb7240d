"""theImpression site adapter: turns fetched pages into plain values, with no I/O.

theImpression is a WordPress site whose markup no public scraper documents, so the contract
is ``docs/theimpression.md``: listing pages (a fashion week's street style, a season's
runway galleries) and article pages (one album or gallery each). The parser reads every form
listed there and tolerates common WordPress variations beyond it (lazy-loading attributes,
classic gallery captions, archive-title prefixes). Like the Vogue adapter it skips and
reports single bad entries, and fails with a :class:`PageParseError` only when a page is not
the kind of page it claims to be, so a broken page is never mistaken for an empty one.

This module is the adapter's one public face (``from fashion_assets.sources import
theimpression``); the work is split by job so that each part stays readable:
``theimpression_listings`` reads listing pages, ``theimpression_articles`` article pages and
their photos, ``theimpression_titles`` the city, designer and show in headings and titles,
and ``theimpression_markup`` holds the markup and URL handling the page readers share.
"""

from __future__ import annotations

from fashion_assets.sources.errors import PageParseError
from fashion_assets.sources.fields import (
    MAX_DIMENSION,
    MAX_HTML_CHARS,
    MAX_QUOTE_CHARS,
    MAX_TEXT_CHARS,
    MAX_URL_CHARS,
)
from fashion_assets.sources.theimpression_articles import (
    ArticleImage,
    ArticlePage,
    parse_article_page,
)
from fashion_assets.sources.theimpression_listings import (
    ListedArticle,
    ListingPage,
    parse_listing_page,
    runway_listing_path,
    street_listing_path,
)
from fashion_assets.sources.theimpression_markup import MAX_NOTES, PUBLIC_HOSTS, ParseErrorReason
from fashion_assets.sources.theimpression_titles import (
    runway_season_code,
    split_runway_title,
    week_city_name,
)

SOURCE = "theimpression"
PUBLIC_BASE_URL = "https://theimpression.com"

__all__ = [
    "MAX_DIMENSION",
    "MAX_HTML_CHARS",
    "MAX_NOTES",
    "MAX_QUOTE_CHARS",
    "MAX_TEXT_CHARS",
    "MAX_URL_CHARS",
    "PUBLIC_BASE_URL",
    "PUBLIC_HOSTS",
    "SOURCE",
    "ArticleImage",
    "ArticlePage",
    "ListedArticle",
    "ListingPage",
    "PageParseError",
    "ParseErrorReason",
    "parse_article_page",
    "parse_listing_page",
    "runway_listing_path",
    "runway_season_code",
    "split_runway_title",
    "street_listing_path",
    "week_city_name",
]
