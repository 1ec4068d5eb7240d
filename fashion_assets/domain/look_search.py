"""Find a look by its picture: the catalog photos whose perceptual hashes are closest to a
query's, without measuring the query against every photo.

A photo's code is its 128 bits of pHash and dHash (``domain/perceptual_hash.py``); two
renditions of one look lie a few bits apart (``domain/looks.py``). The index is multi-index
hashing (Norouzi, Punjani and Fleet, "Fast search in Hamming space with multi-index
hashing", CVPR 2012): the code is cut into ``SEGMENTS`` segments of 16 bits, and a code
within ``within`` bits of the query has, by the pigeonhole principle, at least one segment
within ``within // SEGMENTS`` bits of the query's same segment. Each segment's values are
sorted once; a search looks up, in each segment, every value within that radius of the
query's (the query's value XOR each mask of so many bits), and measures only the photos
found there. The answer is exact: every photo within ``within`` bits, none missed.

The bound is tighter than that, and the search uses it: with ``within`` = 8 s + a (a < 8),
a code within reach has one of any a + 1 chosen segments within s bits, or one of the other
7 - a within s - 1 (else it would differ by (a + 1)(s + 1) + (7 - a) s = within + 1 bits at
least). So only a + 1 segments are probed at the full radius, the others one bit short, and
the query picks them: the segments where the full radius's outer ring holds the fewest
photos (the table of where each value starts tells, before any photo is fetched). Real
codes crowd some segments (a backdrop's flat rows make the same dHash bits again and
again); on the archive-shaped bench (``python -m bench.look_search``, within 20 bits) a
search measured two fifths of the photos the plain bound made it measure, in half the time.

Why this and not a BK-tree or a library: on a million codes a BK-tree at radius 20-28 of
128 bits visits most of its nodes (the triangle inequality prunes little at such a radius),
and the libraries that do Hamming search (FAISS' binary indexes) are a large native
dependency for what is a few numpy calls here. The peer to beat is the plain scan, every
code XORed and counted, which numpy does well: on the archive-shaped million of
``python -m bench.look_search`` (docs/performance.md) it answers in about 3.5 ms, the index
within 20 bits in 1.4-2 ms at the median and less than the scan's at the 95th percentile,
for three times the memory (48 bytes a photo, not 16). The edge is modest, and the
threshold's: within 24 bits (seven segments probed within 2 bits, not five) the index took
4.6-5.2 ms, no faster than the scan; and with 16-bit segments the photos a search measures
(about 2% of a million within 20) grow with the catalog as the scan's work does. So a search
whose probes would reach more than ``SCAN_ABOVE`` of the photos (the table tells before any
is fetched) scans them all instead. Within 24 bits the index had taken 4.2-5.1 ms at the
median against the scan's 3.3; with the switch 2.7 ms for copies of indexed photos and 3.8
for looks the catalog does not hold, against the scan's 3.0 (same bench, ``--within 24``).

A mirrored photo is another code altogether (its gradients reversed), so a search takes
several query codes (the photo and its mirror image) and answers each photo's best.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations

import numpy as np

from fashion_assets.domain.perceptual_hash import PerceptualHash

CODE_BITS = 128
SEGMENTS = 8
SEGMENT_BITS = CODE_BITS // SEGMENTS
# The widest search the index answers: at 40 bits a segment is probed within 5 bits, 6,885
# values each; past that a search would probe most of a segment's 65,536 values.
MAX_WITHIN = 47
# A search's answer: the looks within this many bits, none beyond ("no match"); the reach of the
# merge's "same look" too (``LookRules.same_within``). Measured against all of the replica's
# Vogue photos (``python -m bench.looks``, docs/performance.md), the two sides overlap a
# little: 99.5% of the second source's copies of a look, as served and mirrored, lie within
# 20 bits of it, a few up to 28; the photos that only resemble a look come within 21-22 bits
# of some Vogue photo, an unrelated one now and then within 19. 24, the first guess (from the
# resembled looks alone), let a resemblance match. Issue 39's bar (precision at 1 of 0.99
# or more, no resemblance matched) holds from 18 to 21 bits on the default replica and from
# 19 to 20 on one of 40 brands x 5 shows (8,000 photos); 20 is the widest of both, and lets
# 3 or 4 of 1,500-2,000 unrelated photos match at 19-20 bits (docs/performance.md).
DEFAULT_SEARCH_WITHIN = 20
# A search measures its probes' photos (gathered, then two popcounts each) or, when they
# would be more than this share of all, every photo (two popcounts each, in order): on a
# million clustered codes the index answered in 1.9 ms at 20 bits and, without the switch,
# lost to the plain scan at 24, where its probes reach a tenth of the photos
# (``python -m bench.look_search``).
SCAN_ABOVE = 0.1


@dataclass(frozen=True)
class Hit:
    """A photo of the index (its position in the codes it was built from) and its distance
    in bits to the closest query code."""

    photo: int
    distance: int


def code_of(hashes: PerceptualHash) -> tuple[int, int]:
    """A photo's code: its pHash and dHash as two 64-bit integers."""
    return int(hashes.phash, 16), int(hashes.dhash, 16)


class LookIndex:
    """The codes of a set of photos, searchable by Hamming distance (see the module's
    docstring). Photos are numbered by their place in the ``codes`` the index was built
    from; the caller keeps what each one is."""

    def __init__(self, codes: Sequence[tuple[int, int]] | np.ndarray, *,
                 scan_above: float = SCAN_ABOVE) -> None:
        """``codes``: each photo's ``code_of``, or an (n, 2) uint64 array of them (a
        million pairs of Python integers cost 150 MB on their way in). A search whose
        probes would measure more than ``scan_above`` of the photos measures them all."""
        self._scan_above = scan_above
        pairs = np.array(codes, dtype=np.uint64).reshape(-1, 2)
        # The pHashes and the dHashes as two arrays: a search measures its candidates with
        # two XORs and popcounts of one value each, five times faster than summing a pair's
        # (numpy's reduction over an axis of two is slow).
        self._phash, self._dhash = pairs[:, 0].copy(), pairs[:, 1].copy()
        segments = pairs.view(np.uint16)  # (n, SEGMENTS), each row in a fixed order
        # Per segment, the photos ordered by their value there, and where each of the 65,536
        # values starts in that order (a value's photos: order[starts[v]:starts[v + 1]]).
        self._order = np.argsort(segments, axis=0, kind="stable").astype(np.uint32).T.copy()
        counts = np.stack([np.bincount(segments[:, i], minlength=1 << SEGMENT_BITS)
                           for i in range(SEGMENTS)]) if len(pairs) else np.zeros(
            (SEGMENTS, 1 << SEGMENT_BITS), dtype=np.int64)
        self._starts = np.zeros((SEGMENTS, (1 << SEGMENT_BITS) + 1), dtype=np.uint32)
        np.cumsum(counts, axis=1, out=self._starts[:, 1:])

    def __len__(self) -> int:
        return len(self._phash)

    @property
    def nbytes(self) -> int:
        """The memory the index holds: the codes and each segment's order of the photos (48
        bytes a photo), and each segment's table of where its values start (2 MiB)."""
        return int(self._phash.nbytes + self._dhash.nbytes + self._order.nbytes
                   + self._starts.nbytes)

    def search(self, queries: Sequence[tuple[int, int]], *, within: int,
               limit: int) -> list[Hit]:
        """The photos within ``within`` bits of any of ``queries``, closest first (a photo's
        distance is to its closest query; ties in photo order), ``limit`` at most."""
        if not 0 <= within <= MAX_WITHIN:
            raise ValueError(f"within must be between 0 and {MAX_WITHIN} bits, not {within}")
        if limit < 1 or not queries or not len(self):
            return []
        best: dict[int, int] = {}
        for query in np.array(queries, dtype=np.uint64).reshape(-1, 2):
            candidates = self._candidates(query, within)
            if candidates is None:  # a plain scan costs less than these probes' photos
                distances = np.bitwise_count(self._phash ^ query[0])
                distances += np.bitwise_count(self._dhash ^ query[1])
                candidates = np.arange(len(self), dtype=np.uint32)
            else:
                distances = np.bitwise_count(self._phash[candidates] ^ query[0])
                distances += np.bitwise_count(self._dhash[candidates] ^ query[1])
            near = distances <= within  # distances: 128 at most, in uint64s' popcounts
            # A photo found through several segments is measured once for each: the few
            # within reach are merged here rather than every candidate made unique.
            for photo, bits in zip(candidates[near].tolist(), distances[near].tolist(),
                                   strict=True):
                if bits < best.get(photo, CODE_BITS + 1):
                    best[photo] = bits
        ranked = sorted(best.items(), key=lambda item: (item[1], item[0]))[:limit]
        return [Hit(photo, bits) for photo, bits in ranked]

    def _candidates(self, query: np.ndarray, within: int) -> np.ndarray | None:
        """The photos sharing a segment near enough ``query``'s that they may lie within
        ``within`` bits (see the module's docstring), a photo once for each such segment;
        None when they are more than ``scan_above`` of the photos (measure them all)."""
        radius, spare = divmod(within, SEGMENTS)
        masks = segment_masks(radius)
        inner = len(segment_masks(radius - 1)) if radius else 0  # masks(r) begins masks(r-1)
        segments = np.arange(SEGMENTS)[:, None]
        probes = (masks[None, :] ^ query.view(np.uint16)[:, None]).astype(np.intp)
        starts = self._starts[segments, probes].astype(np.intp)
        lengths = self._starts[segments, probes + 1].astype(np.intp) - starts
        probed = np.zeros(lengths.shape, dtype=bool)
        probed[:, :inner] = True
        probed[np.argsort(lengths[:, inner:].sum(axis=1), kind="stable")[:spare + 1]] = True
        # Where each probed value's photos start in the segments' orders laid end to end.
        starts = (starts + segments * len(self))[probed]
        lengths = lengths[probed]
        total = int(lengths.sum())
        if total > self._scan_above * len(self):
            return None
        if not total:
            return np.empty(0, dtype=np.uint32)
        # Every position of every [start, start + length) range, in one array.
        offsets = np.repeat(starts - np.cumsum(lengths) + lengths, lengths)
        return self._order.ravel()[offsets + np.arange(total)]


@lru_cache(maxsize=MAX_WITHIN // SEGMENTS + 1)
def segment_masks(radius: int) -> np.ndarray:
    """Every 16-bit mask of at most ``radius`` set bits."""
    masks = [sum(1 << bit for bit in bits)
             for count in range(radius + 1)
             for bits in combinations(range(SEGMENT_BITS), count)]
    return np.array(masks, dtype=np.uint16)
