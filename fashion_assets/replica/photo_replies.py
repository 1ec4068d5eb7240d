"""The answer for a photo found at the URL asked, bent by its permanent fault if it has one.

Vogue's CDN, theImpression's uploads and theImpression's CDN all answer through here, so a
photo fault ("gone", an offsite redirect, a length conflict...) means the same on every
photo origin and the crawlers' defences are tested alike for both sources.
"""

from __future__ import annotations

import gzip

from aiohttp import web

from fashion_assets.replica.images import HUGE_BODY_SIZE, photo_body
from fashion_assets.replica.replies import HTML, Reply
from fashion_assets.replica.site import ReplicaPhoto

_PHOTO_HEADERS = {"Cache-Control": "public, max-age=31536000, immutable"}
_REDIRECTS = {
    "redirect_offsite": "http://169.254.169.254/latest/meta-data/",
    "redirect_private": "http://10.0.0.1/x.jpg",
    "redirect_metadata_ipv6": "http://[::ffff:169.254.169.254]/latest/meta-data/",
    "redirect_decimal_loopback": "http://2130706433/x.jpg",
    "redirect_not_allowed": "http://example.com/x.jpg",
    "redirect_file_scheme": "file:///etc/passwd",
}


def stored_photo_reply(request: web.Request, photo: ReplicaPhoto, not_found: bytes) -> Reply:
    """Answer for ``photo``, with ``not_found`` the origin's 404 page."""
    fault = photo.fault
    if fault == "gone":
        return Reply(404, not_found)
    if fault in _REDIRECTS:
        return Reply(302, headers={"Location": _REDIRECTS[fault]})
    if fault == "redirect_loop":
        return Reply(302, headers={"Location": request.raw_path})
    if fault == "redirect_no_location":
        return Reply(302)
    headers = dict(_PHOTO_HEADERS)
    if fault in ("huge", "huge_chunked"):
        return Reply(200, content_type="image/jpeg", headers=headers,
                     stream_size=HUGE_BODY_SIZE, declare_length=fault == "huge")
    body = photo_body(photo)
    if fault == "gzip_encoded":
        headers["Content-Encoding"] = "gzip"
        return Reply(200, gzip.compress(body, mtime=0), "image/jpeg", headers)
    if fault == "wrong_content_type":
        return Reply(200, body, HTML, headers)
    if fault == "length_conflict":
        return Reply(200, _conflicting_lengths(body), raw=True)
    # Every photo claims to be a JPEG, whatever it is: the real CDN lies, clients sniff.
    return Reply(200, body, "image/jpeg", headers, cut=fault == "truncated")


def _conflicting_lengths(body: bytes) -> bytes:
    """A response no HTTP server may send: two Content-Length headers, half and whole."""
    head = (
        "HTTP/1.1 200 OK\r\nContent-Type: image/jpeg\r\n"
        f"Content-Length: {len(body) // 2}\r\nContent-Length: {len(body)}\r\n"
        "Connection: close\r\n\r\n"
    )
    return head.encode() + body
