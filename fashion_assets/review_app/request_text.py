"""Text from a request, held to ``domain/text.py: refused_character`` where the request is
read, for the review page and the read API alike: its path and query string (an ASGI
middleware, before any route), and the review page's forms (``security.read_form``).

A NUL in a filter, a sign-in name or a cursor reached PostgreSQL, which refuses it in any
string (a 500); an escape sequence in a form reached the terminal or the page showing it.
Here such a request is a 400 that names the character and where it was, and nothing of it
reaches a route.
"""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import parse_qsl

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

from fashion_assets.domain.text import refused_character


class RefusedText(ValueError):
    """A request's text holds a character no request may carry."""

    def __init__(self, where: str, character: str) -> None:
        super().__init__(f"{where} holds the control character U+{ord(character):04X}, "
                         "which no request may carry")


def check_fields(what: str, fields: Iterable[tuple[str, str]]) -> None:
    """Raise ``RefusedText`` for the first name or value of ``fields`` holding a refused
    character; ``what`` says what they are ("query parameter", "form field")."""
    for name, value in fields:
        for text in (name, value):
            character = refused_character(text)
            if character is not None:
                raise RefusedText(f"the {what} {name[:40]!r}", character)


def refused_answer(request: Request, exc: Exception) -> Response:
    """The 400 of a ``RefusedText`` raised while a route read its request."""
    return PlainTextResponse(str(exc), 400)


class RefuseControlCharacters:
    """ASGI middleware: a request whose path or query string holds a refused character
    (percent-encoded or not) is answered 400 before any route sees it."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            try:
                check_fields("path", [("path", scope.get("path", ""))])
                query = scope.get("query_string", b"").decode("latin-1")
                check_fields("query parameter", parse_qsl(query, keep_blank_values=True))
            except RefusedText as refused:
                await PlainTextResponse(str(refused), 400)(scope, receive, send)
                return
        await self.app(scope, receive, send)
