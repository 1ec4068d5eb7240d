"""Thumbnails: the small derivative of a stored photo that lists and metadata show.

A real show is 50 photos of 1-3 MB each; a queue that shows each draft's first photo at
full size moves tens of megabytes to draw 50 thumbnails of 80 x 120 pixels. A derivative is
made once per photo and transform (``THUMBNAIL``: 320 px wide, WebP), kept in the same
store under the sha1 of its own bytes like every object, and found again by the pair
(photo key, transform) (``catalog/derivatives.py``). Only the decision and the pixels are
here: which transform, and the bytes it makes from a photo's bytes.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

from PIL import Image, ImageOps

from fashion_assets.domain.media import WEBP, MediaLimits


@dataclass(frozen=True)
class Transform:
    """How a derivative is made: its name (stored with it), the largest width and height
    it may have, and its format's quality."""

    name: str
    max_width: int
    max_height: int
    quality: int
    content_type: str = WEBP


# Wide enough for a sharp 160 px column on a 2x screen; tall enough for a portrait look.
THUMBNAIL = Transform("w320.webp", max_width=320, max_height=640, quality=75)


_LIMITS = MediaLimits()


class NotAnImage(ValueError):
    """Bytes that Pillow cannot read as an image within the limits: no derivative."""


def make_derivative(data: bytes, transform: Transform = THUMBNAIL,
                    limits: MediaLimits = _LIMITS) -> bytes:
    """The bytes of ``transform`` of the photo ``data``: scaled down to fit (never up),
    turned upright by its EXIF orientation, flattened to RGB, encoded as WebP."""
    try:
        with Image.open(io.BytesIO(data)) as image:
            if image.width * image.height > limits.max_pixels:
                raise NotAnImage(f"{image.width}x{image.height} exceeds the pixel cap")
            # JPEG decodes at 1/2, 1/4 or 1/8 scale when asked: far less work for a thumbnail.
            image.draft("RGB", (transform.max_width, transform.max_height))
            upright = ImageOps.exif_transpose(image)
            rgb = upright.convert("RGB")
            rgb.thumbnail((transform.max_width, transform.max_height), Image.Resampling.LANCZOS)
            out = io.BytesIO()
            rgb.save(out, format="WEBP", quality=transform.quality, method=4)
    except (OSError, SyntaxError, ValueError, Image.DecompressionBombError) as exc:
        if isinstance(exc, NotAnImage):
            raise
        raise NotAnImage(f"{type(exc).__name__}: {exc}") from None
    return out.getvalue()
