"""theImpression in the replica: its street-style weeks, runway seasons and articles, and
where each of their photos lives.

theImpression is the second source, a WordPress site whose markup only docs/theimpression.md
describes, so the replica must serve every form listed there. ``impression_build.py`` makes
the site and ``impression_pages.py`` writes its pages. Each markup variation is a stable hash
of the article or photo, so a page renders identically on every run; ``photo_form``,
``entry_href`` and ``designer_tagged`` say which form a page uses, for tests to rely on.
"""

from __future__ import annotations

import unicodedata
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import date

from fashion_assets.domain.titles import TitleParseError, parse_show_title
from fashion_assets.replica.site import (
    PHOTO_FAULTS,
    ReplicaPhoto,
)

PUBLIC_BASE_URL = "https://theimpression.com"
UPLOADS_PREFIX = "/wp-content/uploads/"
PER_PAGE = 2  # entries per listing page: even the default site has a second page
UNKNOWN_DESIGNER = "Maison Inconnue"  # a runway designer Vogue does not have
HOSTILE_ARTICLE_SLUG = "hostile-street-style"
# The permanent photo faults of the hostile street album, in the hostile table's order.
HOSTILE_PHOTO_FAULTS = tuple(
    fault for fault in PHOTO_FAULTS if fault in {"gone", "html", "empty", "truncated", "not_image"}
)
# How one gallery photo is written (see ``photo_form``).
PHOTO_FORMS = ("src", "lazy", "srcset", "srcset_widest_inside", "data_srcset")
# How a listing entry links its article (see ``entry_href``).
HREF_FORMS = ("public", "own", "protocol_relative", "relative")
# The CDN names its files "<slug>-theimpression-NN.jpg"; WordPress keeps the uploader's name,
# so the file name alone says where a photo lives, as on the real site.
CDN_MARK = "-theimpression-"


@dataclass(frozen=True)
class ImpressionArticle:
    """A street album (no designer) or a runway gallery, at ``/<slug>/``.

    ``designer`` is the name as theImpression spells it, ``brand_slug`` the Vogue replica
    brand of the same show (None for a designer Vogue does not have) and ``season_code``
    the Vogue season slug of the show.
    """

    slug: str
    title: str
    photos: tuple[ReplicaPhoto, ...]
    published: date
    designer: str | None = None
    brand_slug: str | None = None
    season_code: str | None = None

    @property
    def path(self) -> str:
        return f"/{self.slug}/"


@dataclass(frozen=True)
class StreetWeek:
    """One fashion week's street-style listing, newest album first."""

    slug: str
    heading: str
    articles: tuple[ImpressionArticle, ...]

    @property
    def path(self) -> str:
        return f"/street-style/{self.slug}/"


@dataclass(frozen=True)
class RunwaySeason:
    """One season's runway listing (keyed by Vogue's season slug), newest gallery first."""

    code: str
    heading: str
    articles: tuple[ImpressionArticle, ...]

    @property
    def path(self) -> str:
        return f"/runway/{self.code}/"


Listing = StreetWeek | RunwaySeason


@dataclass(frozen=True)
class ImpressionSite:
    """All of theImpression; indexed once because the server answers every request from it."""

    weeks: tuple[StreetWeek, ...]
    seasons: tuple[RunwaySeason, ...]
    _weeks: dict[str, StreetWeek] = field(init=False, repr=False, compare=False)
    _seasons: dict[str, RunwaySeason] = field(init=False, repr=False, compare=False)
    _articles: dict[str, ImpressionArticle] = field(init=False, repr=False, compare=False)
    _photos: dict[str, ReplicaPhoto] = field(init=False, repr=False, compare=False)
    _homes: dict[str, ImpressionArticle] = field(init=False, repr=False, compare=False)
    _uploads: dict[str, ReplicaPhoto] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        articles = [a for listing in (*self.weeks, *self.seasons) for a in listing.articles]
        homes = {photo.photo_id: a for a in articles for photo in a.photos}
        uploads = {
            path: photo
            for a in articles
            for photo in a.photos
            if is_upload(photo)
            for path in (_upload_path(photo, a, w) for w in (None, *photo.widths))
        }
        indexes = {
            "_weeks": {week.slug: week for week in self.weeks},
            "_seasons": {season.code: season for season in self.seasons},
            "_articles": {a.path: a for a in articles},
            "_photos": {photo.photo_id: photo for a in articles for photo in a.photos},
            "_homes": homes,
            "_uploads": uploads,
        }
        for name, index in indexes.items():
            object.__setattr__(self, name, index)

    def week(self, slug: str) -> StreetWeek | None:
        return self._weeks.get(slug)

    def season(self, code: str) -> RunwaySeason | None:
        return self._seasons.get(code)

    def article(self, path: str) -> ImpressionArticle | None:
        return self._articles.get(path)

    def photo(self, photo_id: str) -> ReplicaPhoto | None:
        return self._photos.get(photo_id)

    def home(self, photo_id: str) -> ImpressionArticle | None:
        """The article a photo belongs to (its upload folder is the article's month)."""
        return self._homes.get(photo_id)

    def iter_articles(self) -> Iterator[ImpressionArticle]:
        return iter(self._articles.values())

    def iter_photos(self) -> Iterator[ReplicaPhoto]:
        """Every photo of every article, each once: what the site and its CDN serve."""
        return iter(self._photos.values())

    def upload(self, path: str) -> ReplicaPhoto | None:
        """The photo at a WordPress upload path, any of its sizes; None for anything else."""
        return self._uploads.get(path)

    def cdn_photo(self, path: str, widths: Sequence[str]) -> ReplicaPhoto | None:
        """The photo at CDN path ``/<photo_id>/<file name>`` asked with those ``w=`` values:
        at most one, and one of the photo's widths."""
        parts = path.split("/")
        photo = self.photo(parts[1]) if len(parts) == 3 else None
        if photo is None or is_upload(photo) or parts[2] != photo.file_name:
            return None
        if not widths:
            return photo
        ok = len(widths) == 1 and widths[0].isdigit() and int(widths[0]) in photo.widths
        return photo if ok else None


def shouted(name: str) -> str:
    """"Agnès b." -> "AGNES B.": how some galleries spell a designer."""
    decomposed = unicodedata.normalize("NFKD", name)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).upper()


def slugify(name: str) -> str:
    """A designer's slug on theImpression: its shouted name, lower case, words joined by ``-``."""
    words = "".join(c if c.isalnum() else " " for c in shouted(name).lower()).split()
    return "-".join(words)


def gallery_show_title(article: ImpressionArticle) -> str:
    """The show title inside a gallery title "<designer> <show title> Collection"."""
    assert article.designer is not None
    return article.title[len(article.designer) + 1 : -len(" Collection")]


def pick(key: str, choices: int) -> int:
    """A stable choice per key; ``hash()`` is salted per process, CRC-32 is not."""
    return zlib.crc32(key.encode()) % choices


def is_upload(photo: ReplicaPhoto) -> bool:
    """Whether a photo is a WordPress upload on the site (else it lives on the CDN)."""
    return CDN_MARK not in photo.file_name


def photo_form(article: ImpressionArticle, index: int) -> str:
    """How the article page writes its photo at ``index`` (0-based), one of ``PHOTO_FORMS``.

    Consecutive photos take consecutive forms, so any article of five photos or more shows
    every form.
    """
    return PHOTO_FORMS[(pick(article.slug, len(PHOTO_FORMS)) + index) % len(PHOTO_FORMS)]


def entry_href(article: ImpressionArticle, base_url: str) -> str:
    """The link a listing gives an article: on the public host, on the replica's own host,
    protocol-relative or relative (``HREF_FORMS``), a third of them with a feed query."""
    form = HREF_FORMS[pick(article.slug, len(HREF_FORMS))]
    href = {
        "public": PUBLIC_BASE_URL + article.path,
        "own": base_url + article.path,
        "protocol_relative": "//" + base_url.split("://", 1)[1] + article.path,
        "relative": article.path,
    }[form]
    return href + "?utm_source=feed" if pick(article.slug + "#utm", 3) == 0 else href


def designer_tagged(article: ImpressionArticle) -> bool:
    """Whether a runway entry names its designer in a tag; a quarter go without, but only when
    the show title has no place before the season, the one case a title alone can split."""
    if article.designer is None:
        return False
    if pick(article.slug + "#tag", 4) != 0:
        return True
    try:
        return parse_show_title(gallery_show_title(article)).city is not None
    except TitleParseError:
        return True


def photo_url(
    photo: ReplicaPhoto, article: ImpressionArticle, base_url: str, cdn_url: str,
    width: int | None = None,
) -> str:
    """One size of a photo (``None``: the original); uploads name the largest "-scaled"."""
    if not is_upload(photo):
        query = "" if width is None else f"?w={width}"
        return f"{cdn_url}/{photo.photo_id}/{photo.file_name}{query}"
    return base_url + _upload_path(photo, article, width)


def photo_urls(
    photo: ReplicaPhoto, article: ImpressionArticle, base_url: str, cdn_url: str
) -> list[str]:
    """Every URL the replica serves the photo at, all with the same bytes."""
    return [photo_url(photo, article, base_url, cdn_url, w) for w in (None, *photo.widths)]


def _upload_path(photo: ReplicaPhoto, article: ImpressionArticle, width: int | None) -> str:
    """Where WordPress keeps one size of an upload: in the article's month, the largest as
    "<name>-scaled.jpg", the others as "<name>-<W>x<H>.jpg" (portrait, 2:3)."""
    stem = photo.file_name.removesuffix(".jpg")
    if width is None:
        name = photo.file_name
    elif width == photo.widths[-1]:
        name = f"{stem}-scaled.jpg"
    else:
        name = f"{stem}-{width}x{width * 3 // 2}.jpg"
    return f"{UPLOADS_PREFIX}{article.published:%Y/%m}/{name}"
