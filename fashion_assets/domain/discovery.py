"""Discovery: which designers a source lists that the catalog does not have yet.

The directory of designers and the season pages name every house the source covers; the
catalog knows only the brands registered so far. Discovery is the difference, narrowed by a
team's scope: an allow list and a deny list of slug patterns (``fnmatch``: ``maison-*``), for
archives that keep only some houses. An empty allow list admits every slug; the deny list
wins over the allow list. Links from a show page's ``runwayRecommendations`` are never an
input: they are other houses' shows picked for the reader, not the source's listing.

A new slug's name goes through name resolution like every other name: when it already
spells a registered brand (``Saint Laurent`` listed as ``saint-laurent`` while the catalog
has ``yves-saint-laurent`` with that alias), registering it would make one house two brands,
so it is held for an editor instead of registered.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fnmatch import fnmatchcase

from fashion_assets.domain.names import resolve_name


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
class HeldDesigner:
    """A new slug whose name already spells registered brands (``candidates``): an editor
    decides whether it is one of them or a house of its own."""

    name: str
    slug: str
    candidates: tuple[str, ...]


@dataclass(frozen=True)
class Discovery:
    """What one look at the source's listings found: the designers to register, in the
    order first seen; the new ones held for an editor; the new ones the scope leaves out
    (reported, never registered); and how many listed designers the catalog has."""

    new: tuple[tuple[str, str], ...]  # (display name, brand slug)
    held: tuple[HeldDesigner, ...]
    out_of_scope: tuple[tuple[str, str], ...]
    known: int


def discover(listed: Iterable[tuple[str, str]], brands: Mapping[str, Iterable[str]],
             scope: DiscoveryScope) -> Discovery:
    """The designers of ``listed`` (display name, slug; the directory's, then the season
    pages', so the directory's name wins) that are not among ``brands`` (slug -> its
    spellings: slug, display name, aliases).

    A slug listed twice counts once. Known brands are left alone even when the scope would
    not admit them now: narrowing the scope stops discovering houses, it deletes nothing.
    A new designer whose name spells a registered brand, or one found earlier in this same
    listing, is held (see the module docstring).
    """
    book = {slug: list(names) for slug, names in brands.items()}
    seen: set[str] = set()
    new: list[tuple[str, str]] = []
    held: list[HeldDesigner] = []
    out_of_scope: list[tuple[str, str]] = []
    already = 0
    for name, slug in listed:
        if slug in seen:
            continue
        seen.add(slug)
        if slug in book:
            already += 1
        elif not scope.admits(slug):
            out_of_scope.append((name, slug))
        else:
            resolution = resolve_name(name, book)
            owners = resolution.candidates or (
                (resolution.entity,) if resolution.entity is not None else ())
            if owners:
                held.append(HeldDesigner(name, slug, owners))
            else:
                new.append((name, slug))
                book[slug] = [slug, name]
    return Discovery(tuple(new), tuple(held), tuple(out_of_scope), already)
