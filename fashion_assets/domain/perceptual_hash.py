"""Perceptual hashes of a photo: what two renditions of one look keep in common.

Two sources publish the same runway look as different bytes (another crop, size or
compression), so the sha1 object key stores both. Their perceptual hashes stay close:

- **pHash**: the photo in grayscale at 32 x 32, its 2-D DCT, and of the 8 x 8 lowest
  frequencies, whether each coefficient is above their median (the structure of the picture,
  insensitive to scaling and compression);
- **dHash**: the photo in grayscale at 9 x 8, and whether each pixel is brighter than its
  right-hand neighbour (the gradients, cheap and robust to brightness changes).

Both are the algorithms of the ``imagehash`` library (``imagehash.phash`` and
``imagehash.dhash``, 8 x 8), computed here with numpy alone (the DCT as two matrix products)
so that the project needs neither scipy nor PyWavelets. Given the same grayscale pixels, the
bits are imagehash's exactly: an image already 32 x 32 (pHash) or 9 x 8 (dHash), which
neither side scales, gives the same hex string
(tests/unit/test_perceptual_hash_imagehash.py). Two changes for speed make the bits of a
real photo differ from imagehash's:

- the photo is scaled down by averaging (a box filter) where ``imagehash`` uses Lanczos.
  Every photo compared is hashed, and Lanczos cost more than the rest of the hash; the box
  filter merges the replica's looks as well (``python -m bench.looks``: the same precision,
  one look fewer merged of 940);
- a JPEG is decoded at a reduced scale, straight to grayscale (``Image.draft``: libjpeg
  scales in the DCT domain, here to the smallest size still 32 x 32 or more, and keeps the
  luma channel), where ``imagehash`` decodes every pixel in colour and converts it: a
  fraction of the cost for a full-size photo.

On 60 photo-like JPEGs of 1,000 to 2,000 pixels a side (the test's generator), the pHash
differs from imagehash's by 1.3 bits on average, at most 4: its 64 low frequencies against
their median hardly move with the filter. The dHash differs by 5.8 on average, 11 or fewer
on 58 photos, 13 and 17 on the other two: each bit compares two neighbouring cells of a
9 x 8 image, and where they differ by a grey level or two (a smooth backdrop, a soft focus),
the filter decides the bit (Lanczos sharpens, the box averages); the filter accounts for most of it
(5.4 bits on average with a full decode), the reduced decode for the rest. The hashes are
compared only with each other (``domain/looks.py``), so this matters to nobody who does not
mix them with imagehash's; at a tight threshold they are not interchangeable. The test
bounds the difference on 16 of those photos.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from PIL import Image

if TYPE_CHECKING:
    import numpy as np

# numpy (15 MB) is imported where a photo is hashed, not with this module: every process
# that loads the Dagster definitions imports it, the crawl's workers too, and they never hash.

HASH_SIDE = 8  # bits per side: 64-bit hashes
PHASH_SIDE = 32  # the pHash's grayscale image, before the DCT
HASH_BITS = HASH_SIDE * HASH_SIDE


class UnhashablePhoto(ValueError):
    """The bytes are not an image Pillow can decode: no perceptual hash."""


@dataclass(frozen=True)
class PerceptualHash:
    """A photo's pHash and dHash, 64 bits each, as 16 hex digits (how the catalog keeps
    them: portable across SQLite and PostgreSQL, readable in a query)."""

    phash: str
    dhash: str

    def distance(self, other: PerceptualHash) -> int:
        """The bits in which the two photos differ, both hashes together (0 to 128)."""
        return hamming(self.phash, other.phash) + hamming(self.dhash, other.dhash)


def hamming(a: str, b: str) -> int:
    """The number of bits in which two hex hashes differ."""
    return (int(a, 16) ^ int(b, 16)).bit_count()


def perceptual_hash(data: bytes) -> PerceptualHash:
    """The pHash and dHash of an image's bytes; ``UnhashablePhoto`` if they are none."""
    gray = _gray(data)
    return PerceptualHash(phash=_phash(gray), dhash=_dhash(gray))


def query_hashes(data: bytes) -> tuple[PerceptualHash, PerceptualHash]:
    """The hashes of a photo and of its mirror image, decoded once: a look published
    mirrored is another hash altogether (its gradients reversed), so the look search
    (``domain/look_search.py``) asks with both. ``UnhashablePhoto`` if there are none."""
    gray = _gray(data)
    mirror = gray.transpose(Image.Transpose.FLIP_LEFT_RIGHT)
    return (PerceptualHash(phash=_phash(gray), dhash=_dhash(gray)),
            PerceptualHash(phash=_phash(mirror), dhash=_dhash(mirror)))


def _gray(data: bytes) -> Image.Image:
    """The image in grayscale, decoded at the smallest scale still 32 x 32 or more."""
    try:
        with Image.open(io.BytesIO(data)) as image:
            image.draft("L", (PHASH_SIDE, PHASH_SIDE))
            return image.convert("L")
    except (OSError, ValueError, Image.DecompressionBombError) as error:
        raise UnhashablePhoto(f"not a decodable image: {error}") from error


def _phash(gray: Image.Image) -> str:
    import numpy as np

    pixels = np.asarray(gray.resize((PHASH_SIDE, PHASH_SIDE), Image.Resampling.BOX),
                        dtype=np.float64)
    basis = _dct_basis(PHASH_SIDE)
    low = (basis @ pixels @ basis.T)[:HASH_SIDE, :HASH_SIDE].ravel()
    # The median of 64 values: the mean of the two middle ones (np.median costs 4x more).
    middle = np.partition(low, (HASH_BITS // 2 - 1, HASH_BITS // 2))
    return _hex(low > (middle[HASH_BITS // 2 - 1] + middle[HASH_BITS // 2]) / 2)


def _dhash(gray: Image.Image) -> str:
    import numpy as np

    pixels = np.asarray(gray.resize((HASH_SIDE + 1, HASH_SIDE), Image.Resampling.BOX),
                        dtype=np.int16)
    return _hex(pixels[:, 1:] > pixels[:, :-1])


@lru_cache(maxsize=1)
def _dct_basis(side: int) -> np.ndarray:
    """The DCT-II matrix (as scipy's unnormalized ``dct``: 2 cos(pi k (2n + 1) / 2N)), so
    ``basis @ x`` transforms the columns of ``x``."""
    import numpy as np

    k = np.arange(side)[:, None]
    n = np.arange(side)[None, :]
    return 2 * np.cos(np.pi * k * (2 * n + 1) / (2 * side))


def _hex(bits: np.ndarray) -> str:
    """64 booleans, row by row, the first the most significant bit, as 16 hex digits."""
    import numpy as np

    return np.packbits(bits.ravel()).tobytes().hex()
