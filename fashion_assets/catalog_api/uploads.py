"""The photo of a look search, read from its request under a size cap, in either shape a
client sends it: the image itself as the body (``Content-Type: image/...``), or the file
field ``photo`` of a ``multipart/form-data`` form (the browse page's upload form).

The search is open to anyone the read API is, so a body over the cap is refused from its
``Content-Length`` before a byte of it is read, and a body that does not say its length (or
says less than it sends) as soon as it went past the cap: never read whole into memory.
A form is parsed by python-multipart, through Starlette's own parser (one file at most, a
few small fields), from the same counted stream; a file part over 1 MiB is spooled to a
temporary file rather than held in memory.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator

from starlette.datastructures import UploadFile
from starlette.formparsers import MultiPartException, MultiPartParser
from starlette.requests import ClientDisconnect, Request

from fashion_assets.domain.look_answers import TOO_LARGE, RefusedPhoto
from fashion_assets.domain.numbers import whole_number

PHOTO_FIELD = "photo"
GONE = "client_gone"
# What a form may add to the photo's bytes: boundaries, part headers, a few small fields.
FORM_OVERHEAD = 64 * 1024
_RAW_TYPES = ("image/", "application/octet-stream")
_SHAPES = (f"send the photo as the body (Content-Type image/...) or as the file field "
           f"{PHOTO_FIELD!r} of a multipart/form-data form")


async def read_photo(request: Request, max_bytes: int) -> bytes:
    """The uploaded photo's bytes, ``max_bytes`` at most; ``RefusedPhoto`` for a body over
    the cap (``too_large``), of another type (``content_type``), or a form that cannot be
    read (``multipart``) or holds no photo (``no_photo``)."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    form = kind == "multipart/form-data"
    if not form and not kind.startswith(_RAW_TYPES):
        raise RefusedPhoto("content_type", f"a body of type {kind[:60] or 'none'!r}: {_SHAPES}")
    cap = max_bytes + FORM_OVERHEAD if form else max_bytes
    declared = whole_number(request.headers.get("content-length", "").strip())
    if declared is not None and declared > cap:
        raise _too_large(max_bytes)
    body = _counted(request, cap, max_bytes)
    try:
        data = await _form_photo(request, body) if form else b"".join([c async for c in body])
    except ClientDisconnect:  # nobody reads the answer; without this, a 500 and a traceback
        raise RefusedPhoto(GONE, "the client closed the connection before its upload "
                                 "ended") from None
    if len(data) > max_bytes:
        raise _too_large(max_bytes)
    return data


async def _counted(request: Request, cap: int, max_bytes: int
                   ) -> AsyncGenerator[bytes, None]:
    """The request's body a chunk at a time, refused once past ``cap`` bytes."""
    total = 0
    async for chunk in request.stream():
        total += len(chunk)
        if total > cap:
            raise _too_large(max_bytes)
        yield chunk


async def _form_photo(request: Request, body: AsyncGenerator[bytes, None]) -> bytes:
    parser = MultiPartParser(request.headers, body, max_files=1, max_fields=8,
                             max_part_size=FORM_OVERHEAD)
    try:
        form = await parser.parse()
    except MultiPartException as error:
        raise RefusedPhoto("multipart", f"the form cannot be read ({error.message}): "
                                        f"{_SHAPES}") from None
    try:
        photo = form.get(PHOTO_FIELD)
        if not isinstance(photo, UploadFile):
            raise RefusedPhoto("no_photo", f"the form has no file field {PHOTO_FIELD!r}")
        return await photo.read()
    finally:
        await form.close()


def _too_large(max_bytes: int) -> RefusedPhoto:
    return RefusedPhoto(TOO_LARGE, f"the photo is over the {max_bytes} bytes the search "
                                   "takes (FASHION_LOOK_SEARCH_MAX_BYTES)")
