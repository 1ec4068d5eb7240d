"""``catalog_api/uploads.py: read_photo`` driven through the ASGI interface itself: a
client that leaves before its upload ended is a refusal with its reason, not Starlette's
``ClientDisconnect`` reaching uvicorn as an error of the application (a 500 and a
traceback in the log, for an answer nobody reads)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from starlette.requests import Request

from fashion_assets.catalog_api.uploads import GONE, read_photo
from fashion_assets.domain.look_answers import RefusedPhoto

BOUNDARY = "b0undary"
FORM_HEAD = (f"--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"photo\"; "
             "filename=\"look.jpg\"\r\nContent-Type: image/jpeg\r\n\r\n").encode()


def request_leaving_after(content_type: str, sent: bytes, length: int) -> Request:
    """A request whose client sent ``sent`` of a body of ``length`` bytes, then left."""
    messages: list[dict[str, Any]] = [{"type": "http.request", "body": sent,
                                       "more_body": True}, {"type": "http.disconnect"}]

    async def receive() -> dict[str, Any]:
        return messages.pop(0) if messages else {"type": "http.disconnect"}

    scope = {"type": "http", "method": "POST", "path": "/api/v1/looks/search",
             "headers": [(b"content-type", content_type.encode()),
                         (b"content-length", str(length).encode())]}
    return Request(scope, receive)


@pytest.mark.parametrize("content_type, sent", [
    ("image/jpeg", b"\xff\xd8\xff\xe0" + b"\0" * 1000),
    (f"multipart/form-data; boundary={BOUNDARY}", FORM_HEAD + b"\xff\xd8" + b"\0" * 1000)],
    ids=["raw", "form"])
def test_a_client_gone_mid_upload_is_a_refusal_with_its_reason(content_type: str,
                                                               sent: bytes) -> None:
    request = request_leaving_after(content_type, sent, length=len(sent) * 4)
    with pytest.raises(RefusedPhoto) as refused:
        asyncio.run(read_photo(request, max_bytes=1 << 20))
    assert refused.value.reason == GONE
