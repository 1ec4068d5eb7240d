"""What the replica answers and how the bytes leave: the reply model and the broken sends.

The routes say what to answer as a ``Reply``; this module owns the ways one goes out that a
real server would never choose (half a body then a hang-up, a body too large to keep,
a dropped connection), so every origin breaks a response the same way.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field

from aiohttp import web

from fashion_assets.replica.images import HUGE_BODY_HEAD

HTML = "text/html; charset=utf-8"
_STREAM_CHUNK = 256 * 1024


@dataclass
class Reply:
    """What to answer, before transient faults decide how (or whether) it is sent."""

    status: int
    body: bytes = b""
    content_type: str = HTML
    headers: dict[str, str] = field(default_factory=dict)
    cut: bool = False  # send half the body, then close (the "truncated" photo)
    raw: bool = False  # ``body`` is the whole HTTP response, sent as is, then close
    stream_size: int = 0  # stream this many bytes instead of ``body`` (the "huge" photo)
    stream_head: bytes = HUGE_BODY_HEAD  # what the streamed bytes open with
    declare_length: bool = True  # False: stream chunked, without Content-Length


async def cut(
    request: web.Request, reply: Reply, on_sent: Callable[[int], None]
) -> web.StreamResponse:
    """Promise the whole body in Content-Length, send half, then hang up."""
    response = _stream_response(reply, len(reply.body))
    await response.prepare(request)
    half = reply.body[: len(reply.body) // 2]
    await response.write(half)
    on_sent(len(half))
    return drop(request, response)


async def stream(
    request: web.Request,
    reply: Reply,
    stopping: asyncio.Event,
    on_sent: Callable[[int], None],
) -> web.StreamResponse:
    """Stream a huge body from one reused chunk; stop quietly when the client hangs up or
    the server stops."""
    length = reply.stream_size if reply.declare_length else None
    response = _stream_response(reply, length)
    await response.prepare(request)
    if request.method == "HEAD":
        return response
    chunk = bytes(_STREAM_CHUNK)
    remaining = reply.stream_size
    first = reply.stream_head + chunk[len(reply.stream_head) :]
    try:
        while remaining and not stopping.is_set():
            piece = first if remaining == reply.stream_size else chunk
            piece = piece[:remaining]
            await response.write(piece)
            on_sent(len(piece))
            remaining -= len(piece)
    except ConnectionError:  # the client reached its byte cap and hung up, as it should
        return drop(request, response)
    if remaining:
        return drop(request, response)
    await response.write_eof()
    return response


def drop(request: web.Request, response: web.StreamResponse | None = None) -> web.StreamResponse:
    """Close the connection with nothing more sent; aiohttp then finds nothing to write to."""
    if request.transport is not None:
        request.transport.close()
    return response or web.Response()


def _stream_response(reply: Reply, length: int | None) -> web.StreamResponse:
    """A response to write by hand; without a length it is sent chunked."""
    response = web.StreamResponse(status=reply.status, headers=reply.headers)
    response.content_type = reply.content_type.split(";")[0]
    response.content_length = length
    return response
