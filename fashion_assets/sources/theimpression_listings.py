"""theImpression's listing pages: a fashion week's street style, a season's runway galleries.

The crawl pages through these to learn which articles to read; they name articles and the
next page, never photos, so they are read apart from the article pages that hold the photos.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fashion_assets.sources import theimpression_markup as markup
from fashion_assets.sources.errors import PageParseError
from fashion_assets.sources.fields import SLUG_RE, UNSTORABLE_RE, clean_text, quote
from fashion_assets.sources.pages import ListedArticle, ListingPage

if TYPE_CHECKING:
    from parsel import Selector

# Where the listing's entries and headings are never found.
_NOT_CONTENT_TAGS = frozenset({"aside", "nav", "footer", "header", "template"})
# SEO plugins announce the next page of an archive in the head too.
_HEAD_NEXT_XPATH = "//link[@href][contains(concat(' ', normalize-space(@rel), ' '), ' next ')]"


def street_listing_path(week_slug: str, page: int = 1) -> str:
    """Site path of one page of a fashion week's street style; checked as it ends up in a URL."""
    return _listing_path("street-style", week_slug, page)


def runway_listing_path(season_code: str, page: int = 1) -> str:
    """Site path of one page of a season's runway galleries (Vogue's season slug as code)."""
    return _listing_path("runway", season_code, page)


def _listing_path(section: str, slug: str, page: int) -> str:
    if not isinstance(slug, str) or not SLUG_RE.fullmatch(slug):
        raise ValueError(f"not a {section} slug: {quote(slug)}")
    if isinstance(page, bool) or not isinstance(page, int) or page < 1:
        raise ValueError(f"page must be an integer >= 1, not {quote(page)}")
    return f"/{section}/{slug}/" if page == 1 else f"/{section}/{slug}/page/{page}/"


def parse_listing_page(html: str, *, page_url: str) -> ListingPage:
    """Read one listing page: its heading, its entries in page order, and the next page.

    Entries are the ``article`` elements of the page's main content; header, sidebar and
    footer links never are. A page with neither a main element nor any article, or the
    site's 404 page, is not a listing (``no_listing``): an empty week still has its heading.
    """
    page = markup.page_parts(page_url)
    selector = markup.page_selector(html)
    if _is_not_found_page(selector):
        raise PageParseError("no_listing", "the page is the site's 'not found' page")
    main = markup.first(selector.xpath("//main | //*[@role='main']"))
    scope = main if main is not None else selector
    stop = main if main is not None else markup.first(selector.xpath("//body"))
    articles = [
        article
        for article in scope.xpath(".//article[not(ancestor::article)]")
        if not markup.inside(article, _NOT_CONTENT_TAGS, markup.OTHER_POSTS_CLASSES, stop=stop)
    ]
    if main is None and not articles:
        raise PageParseError("no_listing", "the page has no main content and no article")
    heading = _listing_heading(scope) or _listing_heading(selector)
    if not articles and not heading:
        raise PageParseError("no_listing", "the main content has no article and no page title")
    notes = markup.Notes()
    entries: dict[str, ListedArticle] = {}
    for index, article in enumerate(articles, start=1):
        entry = _listed_article(article, page)
        if isinstance(entry, str):
            notes.add(f"article {index}: {entry}")
        else:
            entries.setdefault(entry.path.rstrip("/") or "/", entry)
    return ListingPage(
        heading=heading,
        articles=tuple(entries.values()),
        next_path=_next_path(selector, page, notes),
        skipped=notes.result(),
    )


def _listing_heading(scope: Selector) -> str:
    """The listing's title; a 'nothing found' block's own title is not a week's name."""
    for query in ("h1.page-title", ".page-header h1", "h1.archive-title", ".archive-title"):
        for node in scope.css(query):
            if node.xpath("ancestor::*[has-class('no-results')]"):
                continue
            text = clean_text(markup.text_of(node))
            if text:
                return text
    return ""


def _is_not_found_page(selector: Selector) -> bool:
    """WordPress marks its 404 template with ``body.error404`` and ``section.error-404``."""
    return bool(selector.xpath("//body[has-class('error404')] | //*[has-class('error-404')]"))


def _listed_article(article: Selector, page: markup.Target) -> ListedArticle | str:
    """An entry, or the reason it is left out."""
    link = markup.first(
        article.css("h2.entry-title a[href]")
        or article.css(".entry-title a[href]")
        or article.css("a[rel~=bookmark][href]")
    )
    href = link.attrib.get("href", "") if link is not None else ""
    if link is None or not href.strip():
        return "no entry link"
    target = _link_target(href, page)
    if isinstance(target, str):
        return target
    path = target.parts.path
    if path in ("", "/"):
        return f"link {quote(href)} points to the home page, not an article"
    title = (
        clean_text(markup.text_of(link))
        or clean_text(markup.text_of(markup.first(article.css(".entry-title"))))
        or clean_text(link.attrib.get("title"))
        or ""
    )
    designer_tag = markup.first(article.css(".designer a[rel~=tag]"))
    return ListedArticle(title=title, path=path, designer=clean_text(markup.text_of(designer_tag)))


def _link_target(href: str, page: markup.Target) -> markup.Target | str:
    """A page link on the site (public host or the host the page came from), or why not."""
    target = markup.absolute_url(href, page.url)
    if isinstance(target, str):
        return target
    if target.netloc not in markup.PUBLIC_HOSTS and target.netloc != page.netloc:
        return f"link {quote(href)} is off-site (host {quote(target.netloc)})"
    if UNSTORABLE_RE.search(target.parts.path) or " " in target.parts.path:
        return f"link {quote(href)} has a path no page has"
    return target


def _next_path(selector: Selector, page: markup.Target, notes: markup.Notes) -> str | None:
    """The pagination's "next" link; the last page has none, and an off-site one is ignored."""
    links = [
        node
        for node in selector.xpath("//a[has-class('next')][@href] | //a[@rel][@href]")
        if (
            "next" in node.attrib.get("class", "").split()
            or "next" in node.attrib.get("rel", "").lower().split()
        )
        and not markup.inside(node, markup.SIDEBAR_TAGS, markup.OTHER_POSTS_CLASSES, stop=None)
    ] or selector.xpath(_HEAD_NEXT_XPATH)
    if not links:
        return None
    href = links[0].attrib.get("href", "")
    target = _link_target(href, page)
    if isinstance(target, str):
        notes.add(f"next page: {target}")
        return None
    path = target.parts.path
    return None if path in ("", page.parts.path) else path
