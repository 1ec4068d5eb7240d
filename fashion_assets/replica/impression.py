"""theImpression in the replica: street-style weeks, runway seasons, articles and their pages.

theImpression is the second source, a WordPress site whose markup only docs/theimpression.md
describes, so the replica must serve every form listed there. As in site.py, everything is
a pure function of ``build_impression``'s arguments: each article draws from its own random
stream, seeded by the site seed and its slug, so article i of a week is the same however many
a week has (a bigger site is a superset of a smaller one). Each markup variation is a stable
hash of the article or photo, so a page renders identically on every run; ``photo_form``,
``entry_href`` and ``designer_tagged`` say which form a page uses, for tests to rely on.
"""

from __future__ import annotations

import hashlib
import random
import unicodedata
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from datetime import date, timedelta
from html import escape

from fashion_assets.domain.titles import TitleParseError, parse_show_title
from fashion_assets.replica.site import (
    HOSTILE_BRAND,
    IMAGE_SIZE,
    PHOTO_FAULTS,
    RESEMBLANCE_ALIKE,
    RESEMBLANCE_SAME,
    ROBOTS_BLOCKED_BRAND,
    ReplicaBrand,
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

_WIDTHS = (640, 1280, 2048)
# Of ten gallery photos, how many show Vogue's look of the same number again, and how many a
# look that resembles it; and the sizes theImpression serves them at, against Vogue's.
_SAME_LOOKS, _ALIKE_LOOKS = 6, 1
_RESIZED = (0.75, 1.25, 1.5)
# The CDN names its files "<slug>-theimpression-NN.jpg"; WordPress keeps the uploader's name,
# so the file name alone says where a photo lives, as on the real site.
_CDN_MARK = "-theimpression-"
_PLACEHOLDER = "data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7"
# Street weeks in menu order: slug, heading as the site spells it, date of the first album.
_WEEKS = (
    ("copenhagen-fashion-week", "Copenhagen Fashion Week", date(2025, 1, 27)),
    ("new-york-fashion-week", "NYFW", date(2025, 2, 7)),
    ("london-fashion-week", "London Fashion Week", date(2025, 2, 21)),
    ("paris-fashion-week", "Paris Fashion Week", date(2025, 3, 3)),
    ("kiev-fashion-week", "Kiev Fashion Week", date(2025, 9, 5)),  # an alias of Kyiv
    ("sao-paulo-fashion-week", "Sao Paulo Fashion Week", date(2025, 4, 8)),  # São Paulo
    ("lagos-fashion-week", "Lagos Fashion Week", date(2025, 10, 23)),  # a city nobody knows
    # A misspelling no normalization repairs: pending until an editor merges it into Stockholm.
    ("stockholm-fashion-week", "Stokholm Fashion Week", date(2025, 8, 26)),
)
# Album titles; only the last shape carries a year, which a crawl must never read.
_STREET_TITLES = (
    "The Best Street Style From {heading}",
    "{heading} Street Style, Day {day}",
    "Street Style: {heading}, Day {day}",
    "{heading} {year} Street Style, Day {day}",
)
_TEXTS = (
    "Outside the shows {{and in the rain}}; layers won; nobody wore the same coat twice.",
    "Guests arrived early {{too early}}; the queue became the show; see you next season;",
    "Tailoring, sneakers; then {{more}} tailoring. The street had opinions {{loud ones}}.",
)
_AUTHORS = ("theImpression Staff", "Jenny Kim", "Marc Dufour")
_EMOJI_SCRIPT = (
    "<script>window._wpemojiSettings = {\"baseUrl\": \"https:\\/\\/s.w.org\\/images\\/core"
    "\\/emoji\\/14.0.0\\/72x72\\/\", \"ext\": \".png\"}; if (window.x) { x(); };</script>"
)


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


# -- building --------------------------------------------------------------------------------


def build_impression(
    vogue_brands: Sequence[ReplicaBrand],
    *,
    seed: int,
    articles_per_week: int = 3,
    photos_per_article: int = 8,
    runway_shows_per_brand: int = 2,
    hostile: bool = True,
) -> ImpressionSite:
    """Build theImpression next to the Vogue brands it shares runway shows with.

    Runway galleries cover the first shows of every brand that serves good input; every
    second brand's designer is spelled in capitals without accents, so crawls must match
    names by normalization, and one gallery is by a designer Vogue does not have.
    ``hostile`` adds a Copenhagen album holding permanently faulty photos.
    """
    if articles_per_week < 0 or photos_per_article < 1 or runway_shows_per_brand < 0:
        raise ValueError(
            "need articles_per_week >= 0, photos_per_article >= 1, runway_shows_per_brand >= 0"
        )
    weeks = tuple(
        _week(seed, slug, heading, start, articles_per_week, photos_per_article, hostile)
        for slug, heading, start in _WEEKS
    )
    normal = [b for b in vogue_brands if b.slug not in (HOSTILE_BRAND, ROBOTS_BLOCKED_BRAND)]
    galleries = []
    for index, brand in enumerate(normal):
        designer = brand.name if index % 2 == 0 else _shouted(brand.name)
        for show in brand.shows[:runway_shows_per_brand]:
            galleries.append(
                _gallery(seed, designer, brand.slug, show.title, show.season_slug,
                         show.event_date + timedelta(days=1), photos_per_article, show.photos)
            )
    first = next((brand.shows[0] for brand in normal if brand.shows), None)
    if first is not None:
        galleries.append(
            _gallery(seed, UNKNOWN_DESIGNER, None, first.title, first.season_slug,
                     first.event_date + timedelta(days=2), photos_per_article)
        )
    return ImpressionSite(weeks=weeks, seasons=_seasons(galleries))


def _week(
    seed: int, slug: str, heading: str, start: date, count: int, photos: int, hostile: bool
) -> StreetWeek:
    """A week's albums, newest first; album i is published i days after the week's start."""
    albums = [_album(seed, slug, heading, start, index, photos) for index in range(count)]
    albums.reverse()
    if hostile and slug == _WEEKS[0][0]:
        rng = _rng(seed, HOSTILE_ARTICLE_SLUG)
        order: list[str | None] = []  # good photos and faulty ones, alternating while both last
        for index in range(max(photos, len(HOSTILE_PHOTO_FAULTS))):
            if index < photos:
                order.append(None)
            if index < len(HOSTILE_PHOTO_FAULTS):
                order.append(HOSTILE_PHOTO_FAULTS[index])
        faulty = tuple(
            _photo(rng, seed, HOSTILE_ARTICLE_SLUG, n, fault)
            for n, fault in enumerate(order, start=1)
        )
        albums.append(ImpressionArticle(HOSTILE_ARTICLE_SLUG, "Hostile Street Style", faulty,
                                        start - timedelta(days=1)))
    return StreetWeek(slug, heading, tuple(albums))


def _album(
    seed: int, week_slug: str, heading: str, start: date, index: int, photos: int
) -> ImpressionArticle:
    slug = f"street-style-{week_slug}-{index + 1}"
    published = start + timedelta(days=index)
    shape = _STREET_TITLES[0 if index == 0 else 1 + (index - 1) % (len(_STREET_TITLES) - 1)]
    title = shape.format(heading=heading, day=index + 1, year=published.year)
    rng = _rng(seed, slug)
    return ImpressionArticle(
        slug, title, tuple(_photo(rng, seed, slug, n) for n in range(1, photos + 1)), published
    )


def _gallery(
    seed: int,
    designer: str,
    brand_slug: str | None,
    show_title: str,
    season_code: str,
    published: date,
    photos: int,
    vogue_looks: Sequence[ReplicaPhoto] = (),
) -> ImpressionArticle:
    stem = (brand_slug or _slugify(designer)).strip("-")
    slug = f"{stem}-{season_code}-collection"
    rng = _rng(seed, slug)
    return ImpressionArticle(
        slug=slug,
        title=f"{designer} {show_title} Collection",
        photos=tuple(_of_vogue_look(_photo(rng, seed, slug, n), slug, n, vogue_looks)
                     for n in range(1, photos + 1)),
        published=published,
        designer=designer,
        brand_slug=brand_slug,
        season_code=season_code,
    )


def _of_vogue_look(photo: ReplicaPhoto, slug: str, number: int,
                   vogue_looks: Sequence[ReplicaPhoto]) -> ReplicaPhoto:
    """theImpression photographs the same runway as Vogue: photo ``number`` of a gallery
    shows Vogue's look ``number`` again in about six galleries' photos out of ten, at
    another size and compression (the merge must recognise it), and in one out of ten a
    look that only resembles it (the merge must not take it for the same)."""
    if number > len(vogue_looks):
        return photo
    look = vogue_looks[number - 1]
    if look.fault is not None or look.pixels is not None:
        return photo
    roll = _pick(f"{slug}/{number}/look", 10)
    if roll >= _SAME_LOOKS + _ALIKE_LOOKS:
        return photo
    scale = _RESIZED[_pick(f"{slug}/{number}/size", len(_RESIZED))]
    return replace(photo, look_of=look.photo_id,
                   resemblance=RESEMBLANCE_SAME if roll < _SAME_LOOKS else RESEMBLANCE_ALIKE,
                   pixels=(round(IMAGE_SIZE[0] * scale), round(IMAGE_SIZE[1] * scale)))


def _seasons(galleries: list[ImpressionArticle]) -> tuple[RunwaySeason, ...]:
    """Group galleries by season, newest gallery first; seasons by their newest gallery."""
    grouped: dict[str, list[ImpressionArticle]] = {}
    for gallery in galleries:
        assert gallery.season_code is not None  # every gallery has its season
        grouped.setdefault(gallery.season_code, []).append(gallery)
    seasons = []
    for code, members in grouped.items():
        members.sort(key=lambda a: (-a.published.toordinal(), a.slug))
        seasons.append(RunwaySeason(code, _show_title(members[0]), tuple(members)))
    seasons.sort(key=lambda s: (-s.articles[0].published.toordinal(), s.code))
    return tuple(seasons)


def _rng(seed: int, slug: str) -> random.Random:
    return random.Random(f"{seed}/theimpression/{slug}")


def _photo(
    rng: random.Random, seed: int, slug: str, number: int, fault: str | None = None
) -> ReplicaPhoto:
    """A photo with an id of its own; about half live on the CDN, the rest are uploads."""
    photo_id = hashlib.sha1(f"{seed}/theimpression/{slug}/{number}".encode()).hexdigest()[:32]
    roll = rng.random()
    image_format = "png" if roll < 0.05 else "webp" if roll < 0.15 else "jpeg"
    widths = _WIDTHS if rng.random() < 0.8 else _WIDTHS[:2]
    mark = _CDN_MARK if rng.random() < 0.5 else "-"
    return ReplicaPhoto(photo_id, f"{slug}{mark}{number:02d}.jpg", image_format, widths, fault)


def _shouted(name: str) -> str:
    """"Agnès b." -> "AGNES B.": how some galleries spell a designer."""
    decomposed = unicodedata.normalize("NFKD", name)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).upper()


def _slugify(name: str) -> str:
    words = "".join(c if c.isalnum() else " " for c in _shouted(name).lower()).split()
    return "-".join(words)


def _show_title(article: ImpressionArticle) -> str:
    """The show title inside a gallery title "<designer> <show title> Collection"."""
    assert article.designer is not None
    return article.title[len(article.designer) + 1 : -len(" Collection")]


# -- variations --------------------------------------------------------------------------------


def _pick(key: str, choices: int) -> int:
    """A stable choice per key; ``hash()`` is salted per process, CRC-32 is not."""
    return zlib.crc32(key.encode()) % choices


def is_upload(photo: ReplicaPhoto) -> bool:
    """Whether a photo is a WordPress upload on the site (else it lives on the CDN)."""
    return _CDN_MARK not in photo.file_name


def photo_form(article: ImpressionArticle, index: int) -> str:
    """How the article page writes its photo at ``index`` (0-based), one of ``PHOTO_FORMS``.

    Consecutive photos take consecutive forms, so any article of five photos or more shows
    every form.
    """
    return PHOTO_FORMS[(_pick(article.slug, len(PHOTO_FORMS)) + index) % len(PHOTO_FORMS)]


def entry_href(article: ImpressionArticle, base_url: str) -> str:
    """The link a listing gives an article: on the public host, on the replica's own host,
    protocol-relative or relative (``HREF_FORMS``), a third of them with a feed query."""
    form = HREF_FORMS[_pick(article.slug, len(HREF_FORMS))]
    href = {
        "public": PUBLIC_BASE_URL + article.path,
        "own": base_url + article.path,
        "protocol_relative": "//" + base_url.split("://", 1)[1] + article.path,
        "relative": article.path,
    }[form]
    return href + "?utm_source=feed" if _pick(article.slug + "#utm", 3) == 0 else href


def designer_tagged(article: ImpressionArticle) -> bool:
    """Whether a runway entry names its designer in a tag; a quarter go without, but only when
    the show title has no place before the season, the one case a title alone can split."""
    if article.designer is None:
        return False
    if _pick(article.slug + "#tag", 4) != 0:
        return True
    try:
        return parse_show_title(_show_title(article)).city is not None
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


# -- pages -----------------------------------------------------------------------------------


def render_page(site: ImpressionSite, path: str, base_url: str, cdn_url: str) -> str | None:
    """The HTML at a site path, or None (the server's 404): listings and their pages,
    articles. ``base_url`` and ``cdn_url`` are the replica's origins, which photo URLs use."""
    parts = path.split("/")
    if path.endswith("/") and len(parts) in (4, 6) and parts[0] == "":
        listing: Listing | None = None
        if parts[1] == "street-style":
            listing = site.week(parts[2])
        elif parts[1] == "runway":
            listing = site.season(parts[2])
        if listing is None:
            return None
        if len(parts) == 4:
            return render_listing(site, listing, 1, base_url, cdn_url)
        number = parts[4]
        if parts[3] != "page" or not number.isdigit() or number != str(int(number)):
            return None
        page = int(number)
        return render_listing(site, listing, page, base_url, cdn_url) if page > 1 else None
    article = site.article(path)
    return None if article is None else render_article(site, article, base_url, cdn_url)


def render_listing(
    site: ImpressionSite, listing: Listing, page: int, base_url: str, cdn_url: str
) -> str | None:
    """One page of a listing, ``PER_PAGE`` entries; None past the last page."""
    pages = max(1, -(-len(listing.articles) // PER_PAGE))
    if not 1 <= page <= pages:
        return None
    shown = listing.articles[(page - 1) * PER_PAGE : page * PER_PAGE]
    entries = "".join(_entry(a, base_url, cdn_url, site) for a in shown)
    links = []
    if page > 1:
        previous = listing.path if page == 2 else f"{listing.path}page/{page - 1}/"
        links.append(f'<a class="prev page-numbers" href="{previous}">Previous</a>')
    links.append(f'<span aria-current="page" class="page-numbers current">{page}</span>')
    if page < pages:
        # Half the listings link the next page on the own host, half relatively.
        host = base_url if _pick(listing.path, 2) else ""
        links.append(
            f'<a class="next page-numbers" href="{host}{listing.path}page/{page + 1}/">Next</a>'
        )
    pagination = f'<nav class="navigation pagination">{"".join(links)}</nav>'
    main = (
        '<main id="main" class="site-main"><header class="page-header">'
        f'<h1 class="page-title">{escape(listing.heading)}</h1></header>'
        f"{entries}{pagination}</main>"
    )
    return _document(site, listing.heading, "archive category", main, base_url, cdn_url)


def _entry(article: ImpressionArticle, base_url: str, cdn_url: str, site: ImpressionSite) -> str:
    href = escape(entry_href(article, base_url))
    tag = ""
    if designer_tagged(article):
        assert article.designer is not None
        tag = (
            f'<span class="designer"><a href="/designer/{_slugify(article.designer)}/" '
            f'rel="tag">{escape(article.designer)}</a></span>'
        )
    return (
        '<article class="post type-post status-publish">'
        f'<a class="post-thumbnail" href="{href}">{_thumbnail(article, base_url, cdn_url)}</a>'
        f'<h2 class="entry-title"><a href="{href}" rel="bookmark">{escape(article.title)}</a>'
        f"</h2>{tag}</article>"
    )


def _thumbnail(article: ImpressionArticle, base_url: str, cdn_url: str) -> str:
    photo = article.photos[0]
    src = photo_url(photo, article, base_url, cdn_url, photo.widths[0])
    return f'<img class="attachment-medium wp-post-image" src="{escape(src)}" alt="">'


def render_article(
    site: ImpressionSite, article: ImpressionArticle, base_url: str, cdn_url: str
) -> str:
    """An album or gallery page: its photos in every image form, among non-photo images."""
    images = [
        _photo_markup(article, index, photo, base_url, cdn_url)
        for index, photo in enumerate(article.photos)
    ]
    ad = (
        '<div class="ad-slot"><img src="https://ads.example.net/banner-300x250.jpg" '
        'width="300" height="250" alt="Advertisement"></div>'
    )
    if article.designer is None:
        body = [f'<figure class="wp-block-image">{img}</figure>{after}' for img, after in images]
        body.insert(min(2, len(body)), ad)
        photos = "".join(body)
    else:
        items = "".join(
            f'<figure class="gallery-item">{img}{after}<figcaption>Look {n}</figcaption></figure>'
            for n, (img, after) in enumerate(images, start=1)
        )
        photos = f'<div class="gallery gallery-columns-3">{items}</div>{ad}'
    text = _TEXTS[_pick(article.slug + "#text", len(_TEXTS))]
    author = _AUTHORS[_pick(article.slug + "#author", len(_AUTHORS))]
    avatar = hashlib.md5(author.encode()).hexdigest()  # how gravatar names avatars
    stamp = article.published
    main = (
        '<main id="main" class="site-main"><article class="post type-post">'
        f'<h1 class="entry-title">{escape(article.title)}</h1>'
        '<div class="entry-meta"><img class="avatar avatar-40 photo" '
        f'src="https://secure.gravatar.com/avatar/{avatar}?s=40&amp;d=mm" width="40" height="40">'
        f'<span class="author">{escape(author)}</span>'
        f'<time class="entry-date published" datetime="{stamp.isoformat()}T10:00:00+00:00">'
        f"{stamp:%B} {stamp.day}, {stamp.year}</time></div>"
        f'<div class="entry-content"><p>{escape(text)}</p>{photos}'
        "<p>More photos below; tell us {which look} won.</p></div>"
        f"{_related(site, article, base_url, cdn_url)}</article></main>"
    )
    return _document(site, article.title, "single single-post", main, base_url, cdn_url)


def _photo_markup(
    article: ImpressionArticle, index: int, photo: ReplicaPhoto, base_url: str, cdn_url: str
) -> tuple[str, str]:
    """The ``img`` of one photo in its form, and what follows it (a noscript copy if lazy)."""

    def url(width: int | None) -> str:
        return escape(photo_url(photo, article, base_url, cdn_url, width))

    widest, smallest = photo.widths[-1], photo.widths[0]
    # The plain source is sometimes the original ("<name>.jpg", the bare CDN URL).
    largest = url(None if _pick(photo.photo_id, 2) else widest)
    alt = f'alt="{escape(article.title)}, photo {index + 1}"'
    form = photo_form(article, index)
    order = photo.widths if form != "srcset_widest_inside" else (*photo.widths[1:], smallest)
    srcset = ", ".join(f"{url(w)} {w}w" for w in order)
    noscript = f'<noscript><img src="{largest}" {alt}></noscript>'
    if form == "src":
        size = f'width="{widest}" height="{widest * 3 // 2}"'
        return f'<img src="{largest}" {size} {alt}>', ""
    if form == "lazy":
        return f'<img class="lazyload" src="{_PLACEHOLDER}" data-src="{largest}" {alt}>', noscript
    if form == "data_srcset":
        return (
            f'<img class="lazyload" src="{_PLACEHOLDER}" data-srcset="{srcset}" '
            f'data-src="{url(smallest)}" {alt}>',
            noscript,
        )
    return f'<img src="{url(smallest)}" srcset="{srcset}" sizes="100vw" {alt}>', ""


def _related(
    site: ImpressionSite, article: ImpressionArticle, base_url: str, cdn_url: str
) -> str:
    """Thumbnails of up to three other articles: photos, but not this article's."""
    others = [a for a in site.iter_articles() if a.slug != article.slug]
    start = _pick(article.slug + "#related", max(1, len(others)))
    chosen = (others[start:] + others[:start])[:3]
    links = "".join(
        f'<a href="{other.path}">{_thumbnail(other, base_url, cdn_url)}'
        f"<span>{escape(other.title)}</span></a>"
        for other in chosen
    )
    return f'<div class="related-posts"><h3>You may also like</h3>{links}</div>'


def _document(
    site: ImpressionSite, title: str, body_class: str, main: str, base_url: str, cdn_url: str
) -> str:
    """The theme around the content: header with logo and menu, sidebar, footer."""
    menu = "".join(
        f'<a href="{week.path}">{escape(week.heading.removesuffix(" Fashion Week"))}</a>'
        for week in site.weeks
    )
    if site.seasons:
        menu += f'<a href="{site.seasons[0].path}">Runway</a>'
    popular = "".join(
        f'<li><a href="{a.path}">{_thumbnail(a, base_url, cdn_url)}{escape(a.title)}</a></li>'
        for a in [week.articles[0] for week in site.weeks if week.articles][:3]
    )
    return (
        '<!DOCTYPE html><html lang="en-US"><head><meta charset="UTF-8">'
        f"<title>{escape(title)} – theImpression</title>{_EMOJI_SCRIPT}</head>"
        f'<body class="{body_class}"><header class="site-header">'
        '<a class="custom-logo-link" href="/"><img class="custom-logo" '
        f'src="{UPLOADS_PREFIX}2019/03/logo.png" alt="theImpression"></a>'
        f"<nav>{menu}</nav></header>{main}"
        '<aside class="widget-area"><section class="widget"><h2 class="widget-title">Popular'
        f"</h2><ul>{popular}</ul></section></aside>"
        '<footer class="site-footer"><a href="/privacy-policy/">Privacy</a></footer>'
        "</body></html>"
    )


def render_not_found() -> str:
    """WordPress's 404 page (``body.error404``): what unknown paths and soft 404s answer."""
    return (
        '<!DOCTYPE html><html lang="en-US"><head><meta charset="UTF-8">'
        "<title>Page not found – theImpression</title></head>"
        '<body class="error404"><main id="main" class="site-main">'
        '<section class="error-404 not-found"><h1 class="page-title">'
        "Oops! That page can’t be found.</h1></section></main></body></html>"
    )


def render_robots() -> str:
    return "User-agent: *\nDisallow: /wp-admin/\n"
