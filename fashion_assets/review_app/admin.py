"""The review page's editor administration (``/editors``), for admins only: what
``fashion-assets editors add|list|passwd|disable|enable|unlock`` does, in the page.

Every action goes through ``catalog/editors.py`` like the CLI's, so the same rules hold:
names, password strength, a new password or a disabled account ending that editor's
sessions at once. An admin cannot disable their own account (the page would lose its last
way in for them); another admin, or the CLI, can.
"""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse, Response

from fashion_assets.catalog.editors import (
    EditorError,
    add_editor,
    existing_editor,
    list_editors,
    set_disabled,
    set_password,
)
from fashion_assets.catalog.sign_ins import account_subject, clear_failures, locked_each
from fashion_assets.domain.passwords import WeakPassword
from fashion_assets.review_app.access import Access

ACTIONS = ("disable", "enable", "unlock", "passwd")


class EditorAdmin:
    """The ``/editors`` routes on ``access``'s catalog, sign-in and rendering."""

    def __init__(self, access: Access) -> None:
        self.access = access
        self.engine = access.engine

    async def _refused(self, request: Request, *, writes: bool) -> Response | None:
        refused = await self.access.refused(request, writes=writes)
        if refused:
            return refused
        if not request.state.admin:
            return PlainTextResponse("admins only: an admin manages editors here, or anyone"
                                     " with the fashion-assets editors command", 403)
        return None

    async def page(self, request: Request) -> Response:
        if await self.access.is_open():
            return PlainTextResponse("no editor accounts yet: add the first admin with"
                                     " fashion-assets editors add NAME --admin", 403)
        refused = await self._refused(request, writes=False)
        if refused:
            return refused
        editors = await run_in_threadpool(list_editors, self.engine)
        waits = await run_in_threadpool(
            locked_each, self.engine, [account_subject(e.name) for e in editors])
        locked = {e.name: waits[account_subject(e.name)] for e in editors}
        return self.access.renderer.render(request, "editors.html", editors=editors,
                                           locked=locked)

    async def _admin_form(self, request: Request) -> dict[str, str] | Response:
        """The POSTed form of an admin, CSRF token checked; else the refusal."""
        form = await self.access.checked_form(request)
        if isinstance(form, Response):
            return form
        return await self._refused(request, writes=True) or form

    async def add(self, request: Request) -> Response:
        form = await self._admin_form(request)
        if isinstance(form, Response):
            return form
        role = "admin" if form.get("admin") == "1" else "editor"
        try:
            editor = await run_in_threadpool(
                lambda: add_editor(self.engine, form.get("name", ""), form.get("password", ""),
                                   role=role, cost=self.access.password_cost))
        except (EditorError, WeakPassword) as exc:
            return self._back(request, False, f"not added: {exc}")
        return self._back(request, True, f"added {editor.role} {editor.name}")

    async def act(self, request: Request) -> Response:
        form = await self._admin_form(request)
        if isinstance(form, Response):
            return form
        name, action = request.path_params["name"], request.path_params["action"]
        if action not in ACTIONS:
            return PlainTextResponse("no such action", 404)
        try:
            editor = await run_in_threadpool(existing_editor, self.engine, name)
            if action == "disable" and editor.name == request.state.editor:
                return self._back(request, False, "you cannot disable your own account")
            if action in ("disable", "enable"):
                await run_in_threadpool(set_disabled, self.engine, editor.name,
                                        action == "disable")
                done = f"{editor.name} {action}d"
            elif action == "unlock":
                lifted = await run_in_threadpool(clear_failures, self.engine,
                                                 account_subject(editor.name))
                done = (f"{editor.name} may sign in again" if lifted
                        else f"{editor.name} had no failed sign-ins")
            else:
                await run_in_threadpool(lambda: set_password(
                    self.engine, editor.name, form.get("password", ""),
                    cost=self.access.password_cost))
                done = f"{editor.name} has a new password; their sessions ended"
        except (EditorError, WeakPassword) as exc:
            return self._back(request, False, f"refused: {exc}")
        return self._back(request, True, done)

    def _back(self, request: Request, ok: bool, message: str) -> Response:
        self.access.renderer.flash(request, ok, message)
        return RedirectResponse("/editors", 303)
