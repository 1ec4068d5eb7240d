"""theImpression's pages in the replica: listings, articles, the 404 and robots.txt.

They are WordPress's markup as docs/theimpression.md describes it, every form listed there
served somewhere; which form a page uses is a stable choice per article or photo
(``impression_site.py``), so a page renders identically on every run.
"""

from __future__ import annotations

import hashlib
from html import escape

from fashion_assets.replica.impression_site import (
    PER_PAGE,
    UPLOADS_PREFIX,
    ImpressionArticle,
    ImpressionSite,
    Listing,
    designer_tagged,
    entry_href,
    photo_form,
    photo_url,
    pick,
    slugify,
)
from fashion_assets.replica.site import (
    ReplicaPhoto,
)

_PLACEHOLDER = "data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7"
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
        host = base_url if pick(listing.path, 2) else ""
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
            f'<span class="designer"><a href="/designer/{slugify(article.designer)}/" '
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
    text = _TEXTS[pick(article.slug + "#text", len(_TEXTS))]
    author = _AUTHORS[pick(article.slug + "#author", len(_AUTHORS))]
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
    largest = url(None if pick(photo.photo_id, 2) else widest)
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
    start = pick(article.slug + "#related", max(1, len(others)))
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
