"""The ``/__replica/*`` endpoint on Vogue's site origin: drive a replica running in another
process (``fashion-assets replica``, a benchmark's) over HTTP, as ``ReplicaServer``'s methods
drive one in this process. Its requests are never counted.
"""

from __future__ import annotations

from aiohttp import web

from fashion_assets.replica.faults import FaultPlan
from fashion_assets.replica.handlers import Handlers

CONTROL_PREFIX = "/__replica/"


async def control(handlers: Handlers, request: web.Request) -> web.Response:
    """``GET stats``, ``arrivals?origin=&kind=`` (``ReplicaServer.arrivals``); ``POST faults``
    (a JSON ``FaultPlan``), ``reset``, ``hold?after=N``, ``release``."""
    action = request.path.removeprefix(CONTROL_PREFIX)
    if action == "stats" and request.method == "GET":
        return web.json_response(handlers.stats().to_dict())
    if action == "arrivals" and request.method == "GET":
        try:
            key = (request.query["origin"], request.query["kind"])
        except KeyError as error:
            raise web.HTTPBadRequest(text="arrivals needs ?origin=&kind=") from error
        return web.json_response(list(handlers.counters.arrivals.get(key, [])))
    if request.method != "POST":
        raise web.HTTPMethodNotAllowed(request.method, ["POST"])
    if action == "faults":
        try:
            handlers.set_faults(FaultPlan.from_dict(await request.json()))
        except (ValueError, TypeError) as error:
            raise web.HTTPBadRequest(text=str(error)) from error
    elif action == "reset":
        handlers.reset()
    elif action == "hold":
        try:
            handlers.gate.hold(int(request.query["after"]))
        except (KeyError, ValueError) as error:
            raise web.HTTPBadRequest(text="hold needs ?after=<int>") from error
    elif action == "release":
        handlers.gate.release()
    else:
        raise web.HTTPNotFound()
    return web.json_response({"ok": True})
