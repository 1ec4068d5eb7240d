"""The whole replica: Vogue's brands and theImpression built from them, indexed once.

``site.py`` models Vogue's side (``vogue_brands.py`` builds it) and ``impression_site.py``
theImpression's (``impression_build.py`` builds it from the Vogue brands, because its runway
galleries are second sources of the same shows). This module puts them together, so neither
of the two imports the other's builder and the imports go one way:
site <- impression_site <- build.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from fashion_assets.replica.impression_build import build_impression
from fashion_assets.replica.impression_site import ImpressionSite
from fashion_assets.replica.site import ReplicaBrand, ReplicaPhoto, ReplicaShow
from fashion_assets.replica.vogue_brands import build_brands


def _no_impression() -> ImpressionSite:
    return ImpressionSite(weeks=(), seasons=())


@dataclass(frozen=True)
class ReplicaSite:
    """The whole replica, Vogue's brands and theImpression; lookups are indexed once because
    the server answers every request from them."""

    brands: tuple[ReplicaBrand, ...]
    seed: int
    impression: ImpressionSite = field(default_factory=_no_impression)
    _by_slug: dict[str, ReplicaBrand] = field(init=False, repr=False, compare=False)
    _by_path: dict[str, ReplicaShow] = field(init=False, repr=False, compare=False)
    _by_photo: dict[str, ReplicaPhoto] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        shows = [show for brand in self.brands for show in brand.shows]
        photos = {
            photo.photo_id: photo
            for show in shows
            for photo in (show.cover, *show.photos, *_side_photos(show))
        }
        photos.update((photo.photo_id, photo) for photo in self.impression.iter_photos())
        object.__setattr__(self, "_by_slug", {brand.slug: brand for brand in self.brands})
        object.__setattr__(self, "_by_path", {show.path: show for show in shows})
        object.__setattr__(self, "_by_photo", photos)

    def brand(self, slug: str) -> ReplicaBrand | None:
        return self._by_slug.get(slug)

    def show(self, path: str) -> ReplicaShow | None:
        return self._by_path.get(path)

    def photo(self, photo_id: str) -> ReplicaPhoto | None:
        """A photo of either site (their ids never collide: theImpression's are longer)."""
        return self._by_photo.get(photo_id)

    def iter_shows(self) -> Iterator[ReplicaShow]:
        for brand in self.brands:
            yield from brand.shows

    def iter_photos(self) -> Iterator[ReplicaPhoto]:
        """Every photo of both sites, each once: Vogue's (looks, covers, side galleries), then
        theImpression's."""
        return iter(self._by_photo.values())


def _side_photos(show: ReplicaShow) -> Iterator[ReplicaPhoto]:
    for gallery in show.side_galleries:
        yield from gallery.photos


def build_site(
    *,
    brands: int = 3,
    shows_per_brand: int = 4,
    photos_per_show: int = 12,
    seed: int = 0,
    hostile: bool = True,
    articles_per_week: int = 3,
    photos_per_article: int | None = None,
) -> ReplicaSite:
    """Build the replica; ``hostile`` adds the two brands that exercise bad input, and
    theImpression's album of faulty photos.

    theImpression gets ``articles_per_week`` albums per fashion week and a runway gallery for
    the first two shows of each good brand, each of ``photos_per_article`` photos (default:
    ``photos_per_show``).
    """
    built = build_brands(brands=brands, shows_per_brand=shows_per_brand,
                         photos_per_show=photos_per_show, seed=seed, hostile=hostile)
    impression = build_impression(
        built,
        seed=seed,
        articles_per_week=articles_per_week,
        photos_per_article=photos_per_show if photos_per_article is None else photos_per_article,
        hostile=hostile,
    )
    return ReplicaSite(brands=built, seed=seed, impression=impression)


def with_changed_looks(site: ReplicaSite, changes: Mapping[str, Mapping[str, Any]]
                       ) -> ReplicaSite:
    """``site`` with the Vogue looks named by photo id changed (``ReplicaPhoto`` fields, such
    as a ``fault`` or another ``format``), the rest as it was: the source between two
    visits, when a photo was taken down or replaced (``ReplicaServer.replace_site``)."""
    def look(photo: ReplicaPhoto) -> ReplicaPhoto:
        return replace(photo, **changes[photo.photo_id]) if photo.photo_id in changes else photo

    brands = tuple(replace(brand, shows=tuple(replace(show, photos=tuple(map(look, show.photos)))
                                              for show in brand.shows))
                   for brand in site.brands)
    return ReplicaSite(brands=brands, seed=site.seed, impression=site.impression)
