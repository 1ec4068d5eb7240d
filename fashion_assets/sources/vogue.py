"""Vogue Runway site adapter: turns fetched pages into plain values, with no I/O.

This module is the adapter's one public face (``from fashion_assets.sources import vogue``);
the work is split by job so that each part stays readable: ``vogue_state`` finds and walks
the ``window.__PRELOADED_STATE__`` JSON every page carries, ``vogue_listings`` reads the
designer, directory, season and landing pages, ``vogue_show`` a show page and its gallery.

The parser is written against the variations listed in ``shared/sources.md``: it finds the
state script by content, decodes it with a real JSON decoder, tolerates unknown keys and
missing optional fields, and skips (and reports) malformed entries instead of failing a whole
page. It fails loudly, with a :class:`PageParseError`, only when the page does not have the
structure it claims to have, so a broken page is never mistaken for an empty one.
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
from fashion_assets.sources.vogue_listings import (
    DIRECTORY_PATH,
    LANDING_PATH,
    DesignerPage,
    Landing,
    ListedShow,
    designer_path,
    parse_designer_directory,
    parse_designer_page,
    parse_landing_page,
    parse_season_page,
    season_path,
)
from fashion_assets.sources.vogue_show import (
    COLLECTION_GALLERY_TITLE,
    ShowImage,
    ShowPage,
    parse_show_page,
)
from fashion_assets.sources.vogue_state import (
    IMAGE_SIZES,
    PUBLIC_BASE_URL,
    ParseErrorReason,
    extract_preloaded_state,
)

SOURCE = "vogue"

__all__ = [
    "COLLECTION_GALLERY_TITLE",
    "DIRECTORY_PATH",
    "IMAGE_SIZES",
    "LANDING_PATH",
    "MAX_DIMENSION",
    "MAX_HTML_CHARS",
    "MAX_QUOTE_CHARS",
    "MAX_TEXT_CHARS",
    "MAX_URL_CHARS",
    "PUBLIC_BASE_URL",
    "SOURCE",
    "DesignerPage",
    "Landing",
    "ListedShow",
    "PageParseError",
    "ParseErrorReason",
    "ShowImage",
    "ShowPage",
    "designer_path",
    "extract_preloaded_state",
    "parse_designer_directory",
    "parse_designer_page",
    "parse_landing_page",
    "parse_season_page",
    "parse_show_page",
    "season_path",
]
