"""Who may use the review page, and proof that a form came from it.

Sign-in is one shared secret (``FASHION_REVIEW_SECRET``); the session lives in a cookie signed
with a key derived from it, so no server-side state is needed and changing the secret signs
everyone out. Every form carries a per-session random CSRF token, compared in constant time:
a signed-in editor's browser cannot be made to approve a draft by another site's page.
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

CSRF_FIELD = "csrf_token"
MAX_FORM_BYTES = 64 * 1024  # the forms hold a few short fields; more is not a review form


def session_key(secret: str | None) -> str:
    """The cookie-signing key: derived from the secret (never the secret itself), or random.

    Without a secret the key is per process: sessions only carry CSRF tokens then, and a
    restart invalidating them costs nothing.
    """
    if not secret:
        return secrets.token_hex(32)
    return hmac.new(secret.encode(), b"fashion-assets review session", hashlib.sha256).hexdigest()


def secret_matches(given: str, secret: str) -> bool:
    """Constant-time comparison, so response timing tells nothing about the secret."""
    return hmac.compare_digest(given.encode(), secret.encode())


def csrf_token(session: MutableMapping[str, Any]) -> str:
    """The session's CSRF token, made on first use."""
    token = session.get("csrf")
    if not isinstance(token, str) or not token:
        token = secrets.token_urlsafe(32)
        session["csrf"] = token
    return token


def csrf_ok(session: MutableMapping[str, Any], form: dict[str, str]) -> bool:
    """True when the form's token is the session's; a missing token on either side is False."""
    expected = session.get("csrf")
    given = form.get(CSRF_FIELD, "")
    if not isinstance(expected, str) or not expected or not given:
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
        return dict(parse_qsl(body.decode("utf-8"), keep_blank_values=True))
    except (UnicodeDecodeError, ValueError):
        return None


def is_loopback(host: str) -> bool:
    """Whether ``host`` (an address or 'localhost') is only reachable from this machine."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip().strip("[]")).is_loopback
    except ValueError:
        return False
