"""theImpression's article pages: one street-style album or runway gallery each, and its photos.

These are the pages the photos come from, so this is where most of the care goes: the photos
of the article body are told from ads, share buttons and related posts, each is taken at its
widest offered size, and the many sizes and ``noscript`` copies of one upload count once.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from fashion_assets.domain.hosts import HostPolicy, check_url
from fashion_assets.sources import theimpression_markup as markup
from fashion_assets.sources.errors import PageParseError
from fashion_assets.sources.fields import clean_text, dimension, quote

if TYPE_CHECKING:
    from parsel import Selector

_DENSITY_RE = re.compile(r"[0-9]{1,4}(?:\.[0-9]{1,4})?")
# Blocks inside an article body whose images are not gallery photos. "ad" is matched as a
# whole dash/underscore-separated word ("ad-slot", "inline-ad", "ads") so that classes such
# as "lead-image" or "head-shot" keep their photos.
_NOT_GALLERY_CLASS_RE = re.compile(
    r"(?:^|[\s_-])ads?(?:$|[\s_-])|adsbygoogle|advert|sponsor|share|related"
)
_NOT_GALLERY_TAGS = frozenset({"aside", "nav", "footer", "template"})
_NOT_PHOTO_IMG_CLASSES = frozenset({"avatar", "emoji", "wp-smiley"})
# WordPress writes sized copies of one upload as "<name>-640x960.jpg" and big originals as
# "<name>-scaled.jpg" (or "-rotated"); they are one photo.
_WP_SIZE_SUFFIX_RE = re.compile(r"-(?:[0-9]{1,5}x[0-9]{1,5}|scaled|rotated)$")


@dataclass(frozen=True)
class ArticleImage:
    """One gallery photo of an article, at the largest size the page offers."""

    url: str
    width: int | None
    caption: str | None
    position: int


@dataclass(frozen=True)
class ArticlePage:
    """An article page (a street-style album or a runway gallery): its text and photos."""

    title: str
    published: str | None
    images: tuple[ArticleImage, ...]
    expected_images: int
    skipped: tuple[str, ...]


@dataclass(frozen=True)
class _Candidate:
    """One address an ``img`` offers, with what the markup says about its width."""

    value: str
    width: int | None = None
    density: float | None = None


def parse_article_page(html: str, *, page_url: str, image_hosts: Collection[str]) -> ArticlePage:
    """Read an article page: its title, date and gallery photos in document order.

    Photos are the images of the article body (``div.entry-content``, else the article),
    less ads, share buttons, related posts, avatars and emoji; each at its widest offered
    size, kept only on the site or an image host, and counted once however many sizes or
    ``noscript`` copies the page carries. A page with no article at all is ``no_article``.
    """
    if isinstance(image_hosts, str):  # a lone host would be read as its characters
        raise TypeError("image_hosts must be a collection of hosts, not one string")
    page = markup.page_parts(page_url)
    # The crawl's one host rule (domain/hosts.py), so a photo kept here is one the client
    # may fetch, with the same normalizing of names and ports.
    hosts = HostPolicy.from_config(page.url, image_hosts)
    selector = markup.page_selector(html)
    article = markup.first(
        selector.xpath("//main//article") or selector.xpath("//article[not(ancestor::aside)]")
    )
    content = _article_content(selector, article)
    if content is None:
        raise PageParseError("no_article", "the page has no entry content and no article")
    scope = article if article is not None else content
    notes = markup.Notes()
    images: list[ArticleImage] = []
    seen: set[tuple[str, str]] = set()
    for index, img in enumerate(content.xpath(".//img"), start=1):
        if _is_not_a_photo(img, content):
            continue
        found = _image_source(img, page.url)
        if isinstance(found, str):
            notes.add(f"img {index}: {found}")
            continue
        target, width = found
        if not check_url(hosts, target.url).allowed:
            notes.add(
                f"img {index}: {quote(target.url)} is on host {quote(target.netloc)}, "
                "neither the site nor an image host"
            )
            continue
        key = _photo_key(target)
        if key in seen:
            continue
        seen.add(key)
        images.append(
            ArticleImage(
                url=target.url, width=width, caption=_caption(img), position=len(images) + 1
            )
        )
    return ArticlePage(
        title=_article_title(selector, scope),
        published=_published(selector, scope),
        images=tuple(images),
        expected_images=len(images),
        skipped=notes.result(),
    )


def _article_content(selector: Selector, article: Selector | None) -> Selector | None:
    """The article body: ``.entry-content`` (of the article first), else the article."""
    if article is not None:
        for node in article.xpath(".//*[has-class('entry-content')]"):
            if not markup.inside(node, markup.SIDEBAR_TAGS, _NOT_GALLERY_CLASS_RE, stop=article):
                return node
    for node in selector.xpath("//*[has-class('entry-content')]"):
        if not markup.inside(node, markup.SIDEBAR_TAGS, markup.OTHER_POSTS_CLASSES, stop=None):
            return node
    return article


def _is_not_a_photo(img: Selector, content: Selector) -> bool:
    """Avatars, emoji, and images of ad, share or related-post blocks inside the body."""
    classes = set(img.attrib.get("class", "").lower().split())
    if classes & _NOT_PHOTO_IMG_CLASSES:
        return True
    return markup.inside(img, _NOT_GALLERY_TAGS, _NOT_GALLERY_CLASS_RE, stop=content, itself=True)


def _image_source(img: Selector, base: str) -> tuple[markup.Target, int | None] | str:
    """The address of an ``img`` at its widest size and that size, or why there is none.

    Lazy loaders keep the real address in ``data-*`` attributes and put a ``data:``
    placeholder in ``src``/``srcset``; placeholders are never photos.
    """
    attrs = img.attrib
    declared_width = dimension(attrs.get("width"))
    srcset = [
        candidate
        for name in ("srcset", "data-srcset", "data-lazy-srcset")
        for candidate in _srcset_candidates(attrs.get(name, ""))
    ]
    choice = _widest(srcset, base)
    if choice is not None:
        candidate, target = choice
        width = candidate.width
        if width is None and declared_width is not None:
            density = candidate.density or 1.0
            width = dimension(round(declared_width * density))
        return target, width
    reasons: list[str] = []
    for name in ("data-src", "data-lazy-src", "data-original", "src"):
        value = attrs.get(name)
        if value is None or not value.strip():
            continue
        target = markup.absolute_url(value, base)
        if isinstance(target, markup.Target):
            return target, declared_width
        reasons.append(target)
    if srcset or reasons:
        return reasons[-1] if reasons else "no usable url in srcset"
    return "no image url"


def _widest(candidates: list[_Candidate], base: str) -> tuple[_Candidate, markup.Target] | None:
    """The widest ``w`` candidate (first of equal widths), else the last usable one."""
    usable = [
        (candidate, target)
        for candidate in candidates
        if isinstance(target := markup.absolute_url(candidate.value, base), markup.Target)
    ]
    if not usable:
        return None
    with_width = [pair for pair in usable if pair[0].width is not None]
    if with_width:
        return max(with_width, key=lambda pair: pair[0].width or 0)
    return usable[-1]


def _srcset_candidates(value: str) -> Iterator[_Candidate]:
    """Split a ``srcset`` as the HTML standard does: URLs may hold commas ("w_640,c_limit").

    A URL is a run of non-space characters; its descriptors run to the next comma outside
    parentheses. Unknown or malformed descriptors leave the candidate without a size.
    """
    position, end = 0, len(value)
    while position < end:
        while position < end and (value[position].isspace() or value[position] == ","):
            position += 1
        start = position
        while position < end and not value[position].isspace():
            position += 1
        url = value[start:position]
        descriptors: list[str] = []
        if url.endswith(","):
            url = url.rstrip(",")
        else:
            depth, stop = 0, position
            while stop < end and (value[stop] != "," or depth):
                if value[stop] == "(":
                    depth += 1
                elif value[stop] == ")" and depth:
                    depth -= 1
                stop += 1
            descriptors = value[position:stop].split()
            position = stop + 1
        if url:
            yield _candidate(url, descriptors)


def _candidate(url: str, descriptors: list[str]) -> _Candidate:
    width = density = None
    for descriptor in descriptors:
        number, unit = descriptor[:-1], descriptor[-1:].lower()
        if unit == "w":
            width = dimension(number)
        elif unit == "x" and _DENSITY_RE.fullmatch(number) and float(number) > 0:
            density = float(number)
    return _Candidate(url, width, density)


def _photo_key(target: markup.Target) -> tuple[str, str]:
    """One key for every size of a photo: WordPress size suffixes and the query are dropped."""
    folder, _, name = target.parts.path.rpartition("/")
    stem, dot, extension = name.rpartition(".")
    if not dot:
        stem, extension = name, ""
    previous = None
    while previous != stem:
        previous, stem = stem, _WP_SIZE_SUFFIX_RE.sub("", stem)
    return target.netloc, f"{folder}/{stem}{dot}{extension}"


def _caption(img: Selector) -> str | None:
    """The caption of the photo's own figure (or classic WordPress caption block)."""
    figure = markup.first(img.xpath("ancestor::figure[1]"))
    if figure is not None:
        return clean_text(markup.text_of(markup.first(figure.xpath("./figcaption"))))
    block = markup.first(
        img.xpath("ancestor::*[has-class('wp-caption') or has-class('gallery-item')][1]")
    )
    if block is not None:
        return clean_text(
            markup.text_of(
                markup.first(
                    block.xpath(
                        ".//*[has-class('wp-caption-text') or has-class('gallery-caption')]"
                    )
                )
            )
        )
    return None


def _article_title(selector: Selector, scope: Selector) -> str:
    for node in (
        markup.first(scope.css("h1.entry-title") or scope.css(".entry-title") or scope.css("h1")),
        markup.first(selector.css("h1.entry-title") or selector.css("h1")),
    ):
        text = clean_text(markup.text_of(node))
        if text:
            return text
    return (
        clean_text(selector.xpath("//meta[@property='og:title']/@content").get())
        or clean_text(markup.text_of(markup.first(selector.xpath("//title"))))
        or ""
    )


def _published(selector: Selector, scope: Selector) -> str | None:
    node = markup.first(
        scope.css("time.published[datetime]")
        or scope.css("time[datetime]")
        or selector.css("time[datetime]")
    )
    if node is not None:
        return clean_text(node.attrib.get("datetime"))
    return clean_text(selector.xpath("//meta[@property='article:published_time']/@content").get())
