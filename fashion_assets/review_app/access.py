"""Who may use the review page: editors' sign-in and sign-out, and the check every route
makes before it does anything.

Once the catalog has an editor account (``fashion-assets editors add``), every page but
``/login`` needs a signed-in editor, and each action is recorded under that editor's name.
Before the first account exists the page is open, but to this machine only (loopback
clients), and actions are recorded as ``open_editor``.

A sign-in is a session kept in the catalog (``catalog/editors.py``): the cookie holds its
random token only. Sign-in attempts count against the account and the client's address
before the password is checked (``domain/sign_in_limits.py``); past the limit, the sign-in
is refused before any password is hashed, and a few are hashed at a time
(``HASHES_AT_ONCE``).
"""

from __future__ import annotations

import asyncio
import time

from sqlalchemy import Engine
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse, Response

from fashion_assets.catalog.editors import (
    authenticate,
    end_session,
    has_editors,
    session_editor,
    start_session,
)
from fashion_assets.catalog.sign_ins import (
    account_subject,
    address_subject,
    clear_failures,
    forget_spent,
    refund_attempt,
    take_attempt,
)
from fashion_assets.domain.passwords import DEFAULT_COST, Argon2Cost
from fashion_assets.domain.sessions import DEFAULT_SESSION_RULES, SessionRules
from fashion_assets.domain.sign_in_limits import DEFAULT_SIGN_IN_LIMITS, SignInLimits
from fashion_assets.review_app.rendering import Renderer
from fashion_assets.review_app.security import (
    SIGN_IN_COOKIE,
    bind_csrf,
    csrf_ok,
    is_loopback,
    read_form,
)

HASHES_AT_ONCE = 2
"""Passwords checked at once; the others wait their turn. Each check holds 64 MiB while it
runs (Argon2id, one lane: one core), an earlier release's scrypt hash (N = 2^17) 128 MB: 40
guesses at once (the thread pool's size) took the page from 279 MB to 2.2 GB with scrypt.
Two keep both cores busy and the page's memory within 300 MB of its idle figure."""
FORGET_EVERY_S = 300.0
"""How often a sign-in deletes the spent counters (``sign_ins.forget_spent``)."""
_UNKNOWN = object()


class Access:
    """The page's access rules and its sign-in routes (``login``, ``logout``)."""

    def __init__(self, engine: Engine, open_editor: str, *,
                 sessions: SessionRules = DEFAULT_SESSION_RULES,
                 password_cost: Argon2Cost = DEFAULT_COST,
                 sign_in_limits: SignInLimits = DEFAULT_SIGN_IN_LIMITS,
                 secure_cookies: bool = False) -> None:
        self.engine, self.open_editor = engine, open_editor
        self.sessions, self.password_cost = sessions, password_cost
        self.limits, self.secure_cookies = sign_in_limits, secure_cookies
        self.accounts = False  # once the catalog has an editor, it always has one
        self.renderer = Renderer(lambda: not self.accounts)
        self.hashing = asyncio.Semaphore(HASHES_AT_ONCE)
        self.forgotten_at = -FORGET_EVERY_S  # monotonic time of the last forget_spent

    async def is_open(self) -> bool:
        """Whether the page is still open: the catalog has no editor account yet."""
        if not self.accounts:
            self.accounts = await run_in_threadpool(has_editors, self.engine)
        return not self.accounts

    async def editor(self, request: Request) -> str | None:
        """Who makes this request: the signed-in editor, everyone while the page is open,
        None for someone not signed in. Kept on the request for the page it renders, with
        whether they are an admin (``request.state.admin``; nobody is on the open page)."""
        known = getattr(request.state, "editor", _UNKNOWN)
        if known is not _UNKNOWN:
            return known
        admin = False
        if await self.is_open():
            name: str | None = self.open_editor
        else:
            token = request.cookies.get(SIGN_IN_COOKIE, "")
            editor = await run_in_threadpool(session_editor, self.engine, token,
                                             self.sessions) if token else None
            name = None if editor is None else editor.name
            admin = editor is not None and editor.is_admin
        request.state.editor, request.state.admin = name, admin
        return name

    async def refused(self, request: Request, *, writes: bool) -> Response | None:
        """Why this request may not go on (a response), or None when it may."""
        if await self.is_open() and not is_loopback(request.client.host if request.client
                                                    else ""):
            return PlainTextResponse("this page has no editor accounts yet: local only", 403)
        if await self.editor(request) is not None:
            return None
        # No redirect where a page would not follow one: photos, and the JSON a script reads.
        if writes or request.url.path.startswith(("/photos/", "/thumbs/", "/crawler.json")):
            return PlainTextResponse("sign in first", 403)
        return RedirectResponse("/login", 303)

    async def checked_form(self, request: Request) -> dict[str, str] | Response:
        """The POSTed form once access and CSRF token are checked, else the refusal."""
        refused = await self.refused(request, writes=True)
        if refused:
            return refused
        form = await read_form(request)
        if form is None or not csrf_ok(request, form):
            return PlainTextResponse("missing or wrong CSRF token: reload the page", 403)
        return form

    # -- routes ------------------------------------------------------------------------

    async def login(self, request: Request) -> Response:
        if await self.is_open():
            return RedirectResponse("/", 303)
        if request.method == "GET":
            return self.renderer.render(request, "login.html", error="")
        form = await read_form(request)
        if form is None or not csrf_ok(request, form):
            return PlainTextResponse("missing or wrong CSRF token: reload the page", 403)
        if time.monotonic() - self.forgotten_at >= FORGET_EVERY_S:
            self.forgotten_at = time.monotonic()
            await run_in_threadpool(forget_spent, self.engine, self.limits)
        name = form.get("name", "")
        subjects = (account_subject(name),
                    address_subject(request.client.host if request.client else ""))
        # Counted before the password is checked, atomically: of N guesses at once, at most
        # the limit are checked (``sign_in_limits.admit``).
        wait = await run_in_threadpool(
            take_attempt, self.engine, [(subjects[0], self.limits.per_account),
                                        (subjects[1], self.limits.per_address)], self.limits)
        if wait > 0:  # refused before any password is checked: a locked guesser costs no hash
            minutes = max(1, round(wait / 60))
            response = self.renderer.render(
                request, "login.html", 429, error="too many failed sign-ins: try again in "
                f"{minutes} minute{'s' if minutes > 1 else ''}, or ask an admin to unlock"
                " the account")
            response.headers["Retry-After"] = str(int(wait) + 1)
            return response
        async with self.hashing:  # a hash is 64 MiB and 0.15 s of a core
            editor = await run_in_threadpool(authenticate, self.engine, name,
                                             form.get("password", ""), cost=self.password_cost)
        if editor is None:  # counted already
            return self.renderer.render(request, "login.html", 401,
                                        error="wrong name or password")
        await run_in_threadpool(clear_failures, self.engine, subjects[0])
        await run_in_threadpool(refund_attempt, self.engine, subjects[1])
        token = await run_in_threadpool(start_session, self.engine, editor)
        request.session.clear()  # a fresh CSRF token, bound to this sign-in
        bind_csrf(request.session, token)
        response = RedirectResponse("/", 303)
        response.set_cookie(SIGN_IN_COOKIE, token, max_age=int(self.sessions.absolute_s),
                            httponly=True, samesite="lax",
                            secure=self.secure_cookies or request.url.scheme == "https")
        return response

    async def logout(self, request: Request) -> Response:
        form = await read_form(request)
        if form is None or not csrf_ok(request, form):
            return PlainTextResponse("missing or wrong CSRF token: reload the page", 403)
        token = request.cookies.get(SIGN_IN_COOKIE, "")
        if token:
            await run_in_threadpool(end_session, self.engine, token)
        request.session.clear()
        response = RedirectResponse("/" if await self.is_open() else "/login", 303)
        response.delete_cookie(SIGN_IN_COOKIE, httponly=True, samesite="lax")
        return response
