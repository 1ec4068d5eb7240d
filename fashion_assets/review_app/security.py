"""Who may use the review page, and proof that a form came from it.

Editors sign in with their own accounts (``catalog/editors.py``): the sign-in cookie holds a
random session token, known to the catalog by its hash, so it can be ended from anywhere and
carries nothing derived from a password. A second cookie, signed with a random key of this
process (``form_cookie_key``), carries each browser's CSRF token and its flash messages:
every form carries the token, compared in constant time, so a signed-in editor's browser
cannot be made to approve a draft by another site's page.

The CSRF token is bound to the sign-in it was made for (the digest of the sign-in cookie,
kept beside it): a form cookie planted in an editor's browser (one an attacker got from
the page for themselves, with its token) does not go with the editor's sign-in, so the
attacker's token is refused there (issue 36).
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import secrets
from collections.abc import MutableMapping
from typing import Any
from urllib.parse import parse_qsl

from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from fashion_assets.review_app.request_text import check_fields

# On every answer, static files and errors included: no type sniffing (a photo or a script
# is read as what it is declared), no framing, no referrer beyond this site.
EVERY_ANSWER_HEADERS = {
    b"x-content-type-options": b"nosniff",
    b"x-frame-options": b"DENY",
    b"referrer-policy": b"same-origin",
}

SIGN_IN_COOKIE = "fashion_review_session"  # the random token of an editor's session
CSRF_FIELD = "csrf_token"
MAX_FORM_BYTES = 64 * 1024  # the forms hold a few short fields; more is not a review form


def form_cookie_key() -> str:
    """The key that signs the forms' cookie (CSRF token, flash messages): random, per
    process. A restart costs an open form its token (reload the page), never a sign-in."""
    return secrets.token_hex(32)


def _sign_in_digest(request: Request) -> str:
    """The digest of the request's sign-in cookie ('' without one): what its CSRF token is
    bound to. A digest, so the form cookie (signed, not secret) never holds the token."""
    sign_in = request.cookies.get(SIGN_IN_COOKIE, "")
    return hashlib.sha256(sign_in.encode()).hexdigest() if sign_in else ""


def bind_csrf(session: MutableMapping[str, Any], sign_in: str) -> str:
    """A fresh CSRF token in ``session``, bound to the sign-in token ``sign_in``."""
    token = secrets.token_urlsafe(32)
    session["csrf"] = token
    session["csrf_for"] = hashlib.sha256(sign_in.encode()).hexdigest() if sign_in else ""
    return token


def csrf_token(request: Request) -> str:
    """The CSRF token of the request's session and sign-in, made on first use (and made
    again when the sign-in is not the one the session's token was made for)."""
    session = request.session
    token = session.get("csrf")
    if isinstance(token, str) and token and session.get("csrf_for") == _sign_in_digest(
            request):
        return token
    return bind_csrf(session, request.cookies.get(SIGN_IN_COOKIE, ""))


def csrf_ok(request: Request, form: dict[str, str]) -> bool:
    """True when the form's token is the session's, made for the request's sign-in; a
    missing token on either side is False."""
    session = request.session
    expected = session.get("csrf")
    given = form.get(CSRF_FIELD, "")
    if not isinstance(expected, str) or not expected or not given:
        return False
    bound = session.get("csrf_for")
    if not isinstance(bound, str) or not hmac.compare_digest(
            bound.encode(), _sign_in_digest(request).encode()):
        return False
    return hmac.compare_digest(given.encode(), expected.encode())


async def read_form(request: Request) -> dict[str, str] | None:
    """An url-encoded form body as a dict (last value wins), or None if it is not one.

    Parsed here rather than with ``request.form()``, which needs python-multipart: the page's
    forms are all url-encoded, and a size cap keeps a huge body out of memory.
    """
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if content_type != "application/x-www-form-urlencoded":
        return None
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_FORM_BYTES:
            return None
    try:
        fields = parse_qsl(body.decode("utf-8"), keep_blank_values=True)
    except (UnicodeDecodeError, ValueError):
        return None
    check_fields("form field", fields)  # RefusedText: a 400 (``request_text.py``)
    return dict(fields)


def is_loopback(host: str) -> bool:
    """Whether ``host`` (an address or 'localhost') is only reachable from this machine."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip().strip("[]")).is_loopback
    except ValueError:
        return False


class EveryAnswerHeaders:
    """ASGI middleware: ``EVERY_ANSWER_HEADERS`` on each response that does not set them."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {name.lower() for name, _ in headers}
                headers += [(name, value) for name, value in EVERY_ANSWER_HEADERS.items()
                            if name not in present]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, with_headers)
