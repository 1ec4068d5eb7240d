"""How the review page's HTML is made: its templates, the headers every page carries, and
the filters that show a draft's values to a person.

Values are shown as an editor reads them, not as Python writes them: nothing is "None" or
"False" on a page (``readable``), and a heading keeps to one line however long the title
a source sent (``heading``: the whole title stays in its ``title`` attribute).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from jinja2 import Environment, PackageLoader
from starlette.requests import Request
from starlette.responses import HTMLResponse

from fashion_assets.review_app.security import CSRF_FIELD, csrf_token

HEADING_CHARS = 120  # a title longer than this is cut in headings and lists
EMPTY = "—"
# Pages only load their own stylesheet, script and photos, and may not be framed
# (clickjacking); the script is the page's own keyboard shortcuts (static/review.js).
HTML_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; img-src 'self'; style-src 'self';"
                               " script-src 'self'; form-action 'self';"
                               " frame-ancestors 'none'; base-uri 'none'",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}
# The crawler page's script also fetches /crawler.json.
CRAWLER_HEADERS = {
    **HTML_HEADERS,
    "Content-Security-Policy": HTML_HEADERS["Content-Security-Policy"] + "; connect-src 'self'",
}


def readable(value: Any) -> str:
    """A field's value as a person reads it: a dash for nothing, yes or no for a flag."""
    if value is None or value == "":
        return EMPTY
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def heading(title: str) -> str:
    """``title`` cut to ``HEADING_CHARS`` characters, with an ellipsis where it was cut."""
    title = title or EMPTY
    return title if len(title) <= HEADING_CHARS else title[:HEADING_CHARS - 1].rstrip() + "…"


class Renderer:
    """Renders the page templates. ``open_mode`` says whether the page has no editor
    accounts yet (every page then carries a banner saying so)."""

    def __init__(self, open_mode: Callable[[], bool]) -> None:
        self.open_mode = open_mode
        self.templates = Environment(loader=PackageLoader("fashion_assets.review_app"),
                                     autoescape=True)
        self.templates.filters.update(readable=readable, heading=heading)

    def render(self, request: Request, name: str, status_code: int = 200, *,
               page_headers: dict[str, str] = HTML_HEADERS, **context: Any) -> HTMLResponse:
        editor = getattr(request.state, "editor", None)
        html = self.templates.get_template(name).render(
            csrf_field=CSRF_FIELD, csrf_token=csrf_token(request),
            flashes=request.session.pop("flash", []), signed_in=editor is not None,
            open_mode=self.open_mode(), editor=editor,
            admin=getattr(request.state, "admin", False), **context)
        return HTMLResponse(html, status_code, headers=page_headers)

    @staticmethod
    def flash(request: Request, ok: bool, text: str) -> None:
        """A message for the next page this browser renders."""
        request.session["flash"] = [*request.session.get("flash", []), {"ok": ok, "text": text}]
