"""Discovery: which designers a source lists that the catalog does not have yet.

The directory of designers and the season pages name every house the source covers; the
catalog knows only the brands registered so far. Discovery is the difference, narrowed by a
team's scope: an allow list and a deny list of slug patterns (``fnmatch``: ``maison-*``), for
archives that keep only some houses. An empty allow list admits every slug; the deny list
wins over the allow list. Links from a show page's ``runwayRecommendations`` are never an
input: they are other houses' shows picked for the reader, not the source's listing.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from fnmatch import fnmatchcase


def _patterns(text: str) -> tuple[str, ...]:
    return tuple(p.strip().lower() for p in text.split(",") if p.strip())


@dataclass(frozen=True)
class DiscoveryScope:
    """Which brand slugs a team archives: ``allow`` (empty: all) minus ``deny``."""

    allow: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()

    @classmethod
    def from_lists(cls, allow: str = "", deny: str = "") -> DiscoveryScope:
        """From comma-separated patterns, as a setting holds them."""
        return cls(_patterns(allow), _patterns(deny))

    def admits(self, slug: str) -> bool:
        slug = slug.lower()
        if any(fnmatchcase(slug, pattern) for pattern in self.deny):
            return False
        return not self.allow or any(fnmatchcase(slug, pattern) for pattern in self.allow)


@dataclass(frozen=True)
class Discovery:
    """What one look at the source's listings found: the designers to register, in the
    order first seen, and the new ones the scope leaves out (reported, never registered)."""

    new: tuple[tuple[str, str], ...]  # (display name, brand slug)
    out_of_scope: tuple[tuple[str, str], ...]
    known: int  # listed designers the catalog already has


def discover(listed: Iterable[tuple[str, str]], known_slugs: Iterable[str],
             scope: DiscoveryScope) -> Discovery:
    """The designers of ``listed`` (display name, slug; the directory's, then the season
    pages', so the directory's name wins) that are not among ``known_slugs``.

    A slug listed twice counts once. Known brands are left alone even when the scope would
    not admit them now: narrowing the scope stops discovering houses, it deletes nothing.
    """
    known = set(known_slugs)
    seen: set[str] = set()
    new: list[tuple[str, str]] = []
    out_of_scope: list[tuple[str, str]] = []
    already = 0
    for name, slug in listed:
        if slug in seen:
            continue
        seen.add(slug)
        if slug in known:
            already += 1
        elif scope.admits(slug):
            new.append((name, slug))
        else:
            out_of_scope.append((name, slug))
    return Discovery(tuple(new), tuple(out_of_scope), already)
