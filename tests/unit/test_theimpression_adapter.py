"""Unit tests of the theImpression adapter against every markup form in docs/theimpression.md.

Pages are built inline from small helpers, one variation at a time, so that each failure
points at one cause. No network: the adapter is pure.
"""

from __future__ import annotations

import pickle

import pytest

from fashion_assets.domain.titles import TitleParseError
from fashion_assets.sources import theimpression
from fashion_assets.sources.theimpression import (
    ArticlePage,
    ListedArticle,
    ListingPage,
    PageParseError,
    parse_article_page,
    parse_listing_page,
    runway_listing_path,
    runway_season_code,
    split_runway_title,
    street_listing_path,
    week_city_name,
)

REPLICA = "http://127.0.0.1:8080"
LISTING_URL = f"{REPLICA}/street-style/copenhagen-fashion-week/"
ARTICLE_URL = f"{REPLICA}/street-style-copenhagen-3/"
CDN = "https://img.theimpression.com"
UPLOADS = "/wp-content/uploads/2026/02"
# The default of FASHION_THEIMPRESSION_IMAGE_HOSTS.
HOSTS = ("img.theimpression.com", "theimpression.com")
PLACEHOLDER = "data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7"


def cdn_photo(number: int, width: int | None = None) -> str:
    name = f"{CDN}/0123456789abcdef0123456789abcdef/copenhagen-theimpression-{number:02d}.jpg"
    return name if width is None else f"{name}?w={width}"


# --------------------------------------------------------------------------- page builders


def entry(href: str, title: str = "An article", *, designer: str | None = None) -> str:
    """One listing entry as the theme writes it, thumbnail link first."""
    tag = (
        f'<span class="designer"><a href="/designer/x/" rel="tag">{designer}</a></span>'
        if designer is not None
        else ""
    )
    return f"""<article class="post type-post status-publish">
    <a class="post-thumbnail" href="{href}"><img src="{UPLOADS}/thumb-300x200.jpg"></a>
    <h2 class="entry-title"><a href="{href}" rel="bookmark">{title}</a></h2>
    {tag}
  </article>"""


def listing_page(
    *entries: str,
    heading: str | None = "Copenhagen Fashion Week",
    next_href: str | None = None,
    main: bool = True,
) -> str:
    """A listing with the site's header, sidebar and footer around the entries."""
    title = (
        f'<header class="page-header"><h1 class="page-title">{heading}</h1></header>'
        if heading is not None
        else ""
    )
    pagination = (
        f'<nav class="navigation pagination"><div class="nav-links">'
        f'<a class="page-numbers" href="/street-style/copenhagen-fashion-week/">1</a>'
        f'<a class="next page-numbers" href="{next_href}">Next</a></div></nav>'
        if next_href is not None
        else ""
    )
    body = f"{title}\n{''.join(entries)}\n{pagination}"
    content = f'<main id="main" class="site-main">{body}</main>' if main else body
    return f"""<!DOCTYPE html><html lang="en-US"><head><meta charset="utf-8">
<title>Copenhagen Fashion Week - theImpression</title></head>
<body class="archive category category-copenhagen-fashion-week">
<header class="site-header"><a class="custom-logo-link" href="/">
  <img class="custom-logo" src="/wp-content/uploads/2019/03/logo.png"></a>
  <nav><a href="/street-style/paris-fashion-week/">Paris</a>
  <a href="/street-style/milan-fashion-week/">Milan</a></nav></header>
{content}
<aside class="widget-area"><section class="widget widget_recent_entries">
  <a href="/some-popular-post/">A popular post</a>
  <article><h2 class="entry-title"><a href="/sidebar-post/" rel="bookmark">Sidebar</a></h2>
  </article></section></aside>
<footer class="site-footer"><a href="/about/">About</a></footer>
</body></html>"""


def article_page(content: str, *, title: str = "The Best Street Style From Copenhagen") -> str:
    """An article with its meta (avatar, date), body and related posts."""
    return f"""<!DOCTYPE html><html><head><title>{title}</title></head>
<body class="post-template-default single single-post">
<header class="site-header"><a class="custom-logo-link" href="/">
  <img class="custom-logo" src="/wp-content/uploads/2019/03/logo.png"></a></header>
<main id="main"><article class="post type-post tag-sponsored tag-share category-street-style">
  <h1 class="entry-title">{title}</h1>
  <div class="entry-meta"><img class="avatar avatar-40"
    src="https://secure.gravatar.com/avatar/0123456789abcdef?s=40">
    <time datetime="2026-02-03T10:00:00+00:00">February 3, 2026</time></div>
  <div class="entry-content">
    <p>Free text, with {{ braces }} and ; semicolons.</p>
    {content}
  </div>
  <div class="related-posts"><img src="{UPLOADS}/another-post-300x200.jpg"></div>
</article></main></body></html>"""


def figure(img: str, caption: str | None = None) -> str:
    figcaption = f"<figcaption>{caption}</figcaption>" if caption is not None else ""
    return f'<figure class="wp-block-image">{img}{figcaption}</figure>'


def read_article(content: str, **kwargs: str) -> ArticlePage:
    return parse_article_page(
        article_page(content, **kwargs), page_url=ARTICLE_URL, image_hosts=HOSTS
    )


def urls(page: ArticlePage) -> list[str]:
    return [image.url for image in page.images]


def read_listing(html: str, page_url: str = LISTING_URL) -> ListingPage:
    return parse_listing_page(html, page_url=page_url)


def paths(page: ListingPage) -> list[str]:
    return [article.path for article in page.articles]


# --------------------------------------------------------------------------- paths


def test_listing_paths_of_first_and_later_pages() -> None:
    assert (
        street_listing_path("copenhagen-fashion-week") == "/street-style/copenhagen-fashion-week/"
    )
    assert street_listing_path("copenhagen-fashion-week", 3) == (
        "/street-style/copenhagen-fashion-week/page/3/"
    )
    assert runway_listing_path("spring-2020-ready-to-wear") == "/runway/spring-2020-ready-to-wear/"
    assert runway_listing_path("resort-2026", 2) == "/runway/resort-2026/page/2/"


@pytest.mark.parametrize("slug", ["", "Copenhagen", "a/b", "../x", "a b", "x?y=1", "é", "a" * 121])
def test_listing_paths_refuse_bad_slugs(slug: str) -> None:
    with pytest.raises(ValueError, match="slug"):
        street_listing_path(slug)
    with pytest.raises(ValueError, match="slug"):
        runway_listing_path(slug)


@pytest.mark.parametrize("page", [0, -1, True])
def test_listing_paths_refuse_bad_pages(page: int) -> None:
    with pytest.raises(ValueError, match="page"):
        street_listing_path("oslo-fashion-week", page)


# --------------------------------------------------------------------------- listings


def test_listing_reads_heading_entries_in_order_and_next_page() -> None:
    html = listing_page(
        entry(
            "https://theimpression.com/street-style-copenhagen-3/",
            "The Best Street Style From Copenhagen Fashion Week",
        ),
        entry("/street-style-copenhagen-2/", "Day 2"),
        next_href="/street-style/copenhagen-fashion-week/page/2/",
    )
    page = read_listing(html)
    assert page.heading == "Copenhagen Fashion Week"
    assert page.articles == (
        ListedArticle(
            "The Best Street Style From Copenhagen Fashion Week",
            "/street-style-copenhagen-3/",
            None,
        ),
        ListedArticle("Day 2", "/street-style-copenhagen-2/", None),
    )
    assert page.next_path == "/street-style/copenhagen-fashion-week/page/2/"
    assert page.skipped == ()


@pytest.mark.parametrize(
    ("href", "expected"),
    [
        ("/relative-slug/", "/relative-slug/"),
        ("https://theimpression.com/public-host/", "/public-host/"),
        ("https://www.theimpression.com/www-host/", "/www-host/"),
        ("http://127.0.0.1:8080/fetched-host/", "/fetched-host/"),
        ("//theimpression.com/protocol-relative/", "/protocol-relative/"),
        ("//127.0.0.1:8080/protocol-relative-replica/", "/protocol-relative-replica/"),
        ("/with-query/?utm_source=newsletter&utm_medium=email#comments", "/with-query/"),
        ("  /padded/\n", "/padded/"),
        ("HTTPS://TheImpression.com/upper-case-host/", "/upper-case-host/"),
    ],
)
def test_listing_entry_link_forms(href: str, expected: str) -> None:
    page = read_listing(listing_page(entry(href)))
    assert paths(page) == [expected]
    assert page.skipped == ()


@pytest.mark.parametrize(
    "href",
    [
        "https://other.example.com/street-style-copenhagen-3/",
        "//other.example.com/protocol-relative/",
        "http://127.0.0.1:9999/other-port/",
        "https://theimpression.com.evil.net/lookalike/",
        "https://theimpression.com@evil.net/credentials/",
        "https://editor:secret@theimpression.com/credentials/",
        "javascript:alert(1)",
        "mailto:editor@theimpression.com",
    ],
)
def test_listing_entry_off_site_or_unusable_links_are_skipped_with_a_note(href: str) -> None:
    page = read_listing(listing_page(entry(href), entry("/kept/")))
    assert paths(page) == ["/kept/"]
    assert len(page.skipped) == 1
    assert page.skipped[0].startswith("article 1: ")


def test_listing_entry_without_link_is_noted() -> None:
    html = listing_page(
        "<article class='post'><h2 class='entry-title'>No link</h2></article>", entry("/kept/")
    )
    page = read_listing(html)
    assert paths(page) == ["/kept/"]
    assert page.skipped == ("article 1: no entry link",)


def test_listing_falls_back_to_bookmark_link() -> None:
    html = listing_page(
        "<article><h3><a href='/bookmarked/' rel='bookmark'>Bookmarked</a></h3></article>"
    )
    assert read_listing(html).articles == (ListedArticle("Bookmarked", "/bookmarked/", None),)


def test_listing_header_sidebar_and_footer_links_are_not_entries() -> None:
    page = read_listing(listing_page(entry("/only-entry/")))
    assert paths(page) == ["/only-entry/"]
    assert "/sidebar-post/" not in paths(page)


def test_listing_without_main_reads_articles_of_the_body_but_not_the_sidebar() -> None:
    page = read_listing(listing_page(entry("/a/"), entry("/b/"), main=False))
    assert paths(page) == ["/a/", "/b/"]
    assert page.heading == "Copenhagen Fashion Week"


def test_listing_removes_duplicate_entries_first_wins() -> None:
    html = listing_page(
        entry("/same/", "First"),
        entry("https://theimpression.com/same/?p=2", "Second"),
        entry("/other/"),
    )
    page = read_listing(html)
    assert [(a.path, a.title) for a in page.articles] == [
        ("/same/", "First"),
        ("/other/", "An article"),
    ]


def test_runway_listing_reads_designer_tag() -> None:
    html = listing_page(
        entry(
            "/chloe-spring-2020/", "Chloé Spring 2020 Ready-to-Wear Collection", designer="Chloé"
        ),
        entry("/acme-spring-2020/", "Acme Spring 2020 Ready-to-Wear Collection"),
        heading="Spring 2020 Ready-to-Wear",
    )
    page = read_listing(html, f"{REPLICA}/runway/spring-2020-ready-to-wear/")
    assert [a.designer for a in page.articles] == ["Chloé", None]
    assert page.articles[0].title == "Chloé Spring 2020 Ready-to-Wear Collection"


def test_last_listing_page_has_no_next_path() -> None:
    page = read_listing(listing_page(entry("/a/")), f"{LISTING_URL}page/4/")
    assert page.next_path is None


@pytest.mark.parametrize(
    ("href", "expected"),
    [
        (
            "https://theimpression.com/street-style/copenhagen-fashion-week/page/3/?x=1",
            "/street-style/copenhagen-fashion-week/page/3/",
        ),
        ("https://other.example.com/street-style/copenhagen-fashion-week/page/3/", None),
        ("/street-style/copenhagen-fashion-week/", None),  # the page itself: no loop
    ],
)
def test_listing_next_path_forms(href: str, expected: str | None) -> None:
    page = read_listing(listing_page(entry("/a/"), next_href=href))
    assert page.next_path == expected


def test_off_site_next_link_is_noted() -> None:
    page = read_listing(listing_page(entry("/a/"), next_href="https://evil.net/page/2/"))
    assert page.next_path is None
    assert len(page.skipped) == 1
    assert page.skipped[0].startswith("next page: ")


def test_next_link_is_found_whatever_the_body_classes_say() -> None:
    # WordPress writes the archive's term slug as a body class ("category-related-looks").
    html = listing_page(entry("/a/"), next_href="/street-style/copenhagen-fashion-week/page/2/")
    html = html.replace('<body class="archive', '<body class="archive category-related-looks')
    assert read_listing(html).next_path == "/street-style/copenhagen-fashion-week/page/2/"


def test_empty_week_listing_is_valid() -> None:
    page = read_listing(listing_page(heading="Tbilisi Fashion Week"))
    assert page == ListingPage("Tbilisi Fashion Week", (), None, ())


@pytest.mark.parametrize(
    "html",
    [
        "",
        "   ",
        "Too many requests",
        '{"error": {"code": 404}}',
        "<html><body><h1>Oops</h1><p>Not here.</p></body></html>",
        # WordPress's own 404 template, which has a main and a page title.
        '<html><body class="error404"><main id="main"><section class="error-404 not-found">'
        '<header class="page-header"><h1 class="page-title">Oops! That page can&rsquo;t be '
        "found.</h1></header></section></main></body></html>",
        # A page title alone, outside any main, is no listing.
        '<html><body><h1 class="page-title">Copenhagen Fashion Week</h1></body></html>',
        # A main without any article nor page title is no listing either.
        "<html><body><main><p>Maintenance</p></main></body></html>",
    ],
)
def test_not_a_listing_raises(html: str) -> None:
    with pytest.raises(PageParseError) as caught:
        read_listing(html)
    assert caught.value.reason == "no_listing"


def test_listing_titles_lose_control_characters_and_are_capped() -> None:
    long_title = "Street { style }; " * 60
    html = listing_page(
        entry("/a/", "Copen\x01hagen\x7f <br>Day\t1"),
        entry("/b/", long_title),
        heading="Copenhagen\x00 Fashion Week",
    )
    page = read_listing(html)
    assert page.articles[0].title == "Copen hagen Day 1"
    assert len(page.articles[1].title) == theimpression.MAX_TEXT_CHARS
    assert page.articles[1].title.startswith("Street { style }; Street { style };")
    assert page.heading == "Copenhagen Fashion Week"


def test_listing_skips_too_long_links() -> None:
    html = listing_page(entry("/" + "a" * 3000 + "/"), entry("/kept/"))
    page = read_listing(html)
    assert paths(page) == ["/kept/"]
    assert "more than the 2048 allowed" in page.skipped[0]


def test_listing_survives_lone_surrogates() -> None:
    page = read_listing(listing_page(entry("/a/", "Day\ud800 1")))
    assert page.articles[0].title == "Day\ufffd 1"


def test_listing_needs_an_absolute_page_url() -> None:
    with pytest.raises(ValueError, match="page_url"):
        parse_listing_page(listing_page(entry("/a/")), page_url="/street-style/")


# --------------------------------------------------------------------------- article pages


def test_article_reads_title_date_and_plain_src() -> None:
    page = read_article(figure(f'<img src="{cdn_photo(1)}" width="1280" height="1920">'))
    assert page.title == "The Best Street Style From Copenhagen"
    assert page.published == "2026-02-03T10:00:00+00:00"
    assert [(i.url, i.width, i.caption, i.position) for i in page.images] == [
        (cdn_photo(1), 1280, None, 1)
    ]
    assert page.expected_images == 1
    assert page.skipped == ()


def test_lazy_image_uses_data_src_not_placeholder() -> None:
    page = read_article(
        figure(f'<img class="lazyload" src="{PLACEHOLDER}" data-src="{cdn_photo(2)}">')
    )
    assert urls(page) == [cdn_photo(2)]


def test_lazy_image_with_data_lazy_src() -> None:
    page = read_article(figure(f'<img src="{PLACEHOLDER}" data-lazy-src="{cdn_photo(3)}">'))
    assert urls(page) == [cdn_photo(3)]


def test_data_src_wins_over_a_non_data_placeholder_src() -> None:
    page = read_article(
        figure(f'<img src="{UPLOADS}/lazy-placeholder.png" data-src="{cdn_photo(3)}">')
    )
    assert urls(page) == [cdn_photo(3)]


def test_image_url_loses_its_fragment_but_keeps_its_query() -> None:
    page = read_article(figure(f'<img src="{cdn_photo(1, 640)}#zoom">'))
    assert urls(page) == [cdn_photo(1, 640)]


def test_placeholder_without_real_url_is_noted_and_not_counted() -> None:
    page = read_article(
        figure(f'<img class="lazyload" src="{PLACEHOLDER}">')
        + figure(f'<img src="{cdn_photo(1)}">')
    )
    assert urls(page) == [cdn_photo(1)]
    assert page.expected_images == 1
    assert page.skipped == ("img 1: data: placeholder and no real url",)


def test_srcset_widest_candidate_wins_whatever_its_order() -> None:
    srcset = f"{cdn_photo(4, 640)} 640w, {cdn_photo(4, 2048)} 2048w, {cdn_photo(4, 1280)} 1280w"
    page = read_article(figure(f'<img src="{cdn_photo(4, 640)}" srcset="{srcset}">'))
    assert [(i.url, i.width) for i in page.images] == [(cdn_photo(4, 2048), 2048)]


def test_data_srcset_widest_candidate_wins() -> None:
    srcset = f"{UPLOADS}/look-640x960.jpg 640w, {UPLOADS}/look-scaled.jpg 2048w"
    page = read_article(
        figure(
            f'<img src="{PLACEHOLDER}" data-srcset="{srcset}" '
            f'data-src="{UPLOADS}/look-640x960.jpg">'
        )
    )
    assert [(i.url, i.width) for i in page.images] == [
        (f"{REPLICA}{UPLOADS}/look-scaled.jpg", 2048)
    ]


def test_srcset_with_density_descriptors_takes_the_last() -> None:
    srcset = f"{UPLOADS}/a-640x960.jpg 1x, {UPLOADS}/a-1280x1920.jpg 2x"
    page = read_article(
        figure(f'<img src="{UPLOADS}/a-640x960.jpg" srcset="{srcset}" width="640">')
    )
    assert [(i.url, i.width) for i in page.images] == [
        (f"{REPLICA}{UPLOADS}/a-1280x1920.jpg", 1280)
    ]


def test_srcset_urls_may_hold_commas() -> None:
    small = f"{CDN}/w_640,c_limit/look.jpg"
    large = f"{CDN}/w_2048,c_limit/look.jpg"
    page = read_article(figure(f'<img srcset="{small} 640w, {large} 2048w">'))
    assert urls(page) == [large]


def test_noscript_copy_is_the_same_photo() -> None:
    lazy = figure(f'<img class="lazyload" src="{PLACEHOLDER}" data-src="{cdn_photo(5)}">')
    page = read_article(
        lazy
        + f'<noscript><img src="{cdn_photo(5)}"></noscript>'
        + figure(f'<img src="{cdn_photo(6)}">')
    )
    assert [(i.url, i.position) for i in page.images] == [(cdn_photo(5), 1), (cdn_photo(6), 2)]
    assert page.expected_images == 2


def test_noscript_copy_counts_when_the_lazy_image_has_no_real_url() -> None:
    page = read_article(
        figure(f'<img src="{PLACEHOLDER}">') + f'<noscript><img src="{cdn_photo(7)}"></noscript>'
    )
    assert urls(page) == [cdn_photo(7)]


def test_wordpress_size_variants_of_one_upload_are_one_photo() -> None:
    variants = ["look-640x960.jpg", "look-scaled.jpg", "look.jpg", "look-1280x1920.jpg"]
    content = "".join(figure(f'<img src="{UPLOADS}/{name}">') for name in variants)
    content += figure(f'<img src="{UPLOADS}/other-look-640x960.jpg">')
    page = read_article(content)
    assert [(i.url, i.position) for i in page.images] == [
        (f"{REPLICA}{UPLOADS}/look-640x960.jpg", 1),
        (f"{REPLICA}{UPLOADS}/other-look-640x960.jpg", 2),
    ]


def test_cdn_width_variants_are_one_photo() -> None:
    content = "".join(figure(f'<img src="{cdn_photo(8, w)}">') for w in (640, 1280, 2048))
    page = read_article(content + figure(f'<img src="{cdn_photo(9, 640)}">'))
    assert urls(page) == [cdn_photo(8, 640), cdn_photo(9, 640)]
    assert [i.position for i in page.images] == [1, 2]


def test_gallery_captions_come_from_each_figure() -> None:
    gallery = (
        '<figure class="wp-block-gallery"><figure class="gallery-item">'
        f'<img src="{cdn_photo(1)}"><figcaption>Look <em>1</em></figcaption></figure>'
        f'<figure class="gallery-item"><img src="{cdn_photo(2)}"></figure>'
        f'<figure class="gallery-item"><img src="{cdn_photo(3)}"><figcaption>  Look\n3; {{x}}'
        "</figcaption></figure>"
        '<figcaption class="blocks-gallery-caption">Whole gallery</figcaption></figure>'
    )
    page = read_article(gallery)
    assert [(i.position, i.caption) for i in page.images] == [
        (1, "Look 1"),
        (2, None),
        (3, "Look 3; {x}"),
    ]


def test_classic_wordpress_caption_block() -> None:
    page = read_article(
        f'<div class="wp-caption"><img src="{cdn_photo(1)}">'
        '<p class="wp-caption-text">Look 12</p></div>'
    )
    assert [i.caption for i in page.images] == ["Look 12"]


def test_logo_avatar_related_posts_ads_emoji_and_off_host_images_are_left_out() -> None:
    content = (
        figure(f'<img src="{cdn_photo(1)}">')
        + '<div class="ad-slot"><img src="https://ads.example.net/banner.jpg"></div>'
        + f'<div class="ad"><img src="{cdn_photo(20)}"></div>'
        + f'<div class="advertisement"><img src="{cdn_photo(21)}"></div>'
        + f'<div class="sponsored-content"><img src="{cdn_photo(22)}"></div>'
        + f'<div class="sharedaddy share-buttons"><img src="{UPLOADS}/pin-it.png"></div>'
        + f'<div id="jp-relatedposts" class="jp-relatedposts"><img src="{cdn_photo(23)}"></div>'
        + f'<img class="avatar avatar-96" src="{UPLOADS}/author.jpg">'
        + '<img class="emoji" src="https://s.w.org/images/core/emoji/1f60d.svg">'
        + '<img src="https://www.googletagmanager.com/pixel.gif">'
        + figure(f'<img src="{cdn_photo(2)}">')
    )
    page = read_article(content)
    assert urls(page) == [cdn_photo(1), cdn_photo(2)]
    assert len(page.skipped) == 1
    assert "www.googletagmanager.com" in page.skipped[0]


def test_photo_blocks_with_ad_like_words_are_kept() -> None:
    page = read_article(
        f'<div class="lead-image"><img src="{cdn_photo(1)}"></div>'
        f'<div class="head-shot"><img src="{cdn_photo(2)}"></div>'
    )
    assert urls(page) == [cdn_photo(1), cdn_photo(2)]


def test_image_hosts_decide_and_the_fetched_host_is_allowed() -> None:
    content = (
        figure('<img src="https://theimpression.com/wp-content/uploads/a.jpg">')
        + figure('<img src="//img.theimpression.com/abc/b.jpg">')
        + figure(f'<img src="{UPLOADS}/c.jpg">')
        + figure('<img src="http://127.0.0.1:9090/d.jpg">')
    )
    page = read_article(content)
    assert urls(page) == [
        "https://theimpression.com/wp-content/uploads/a.jpg",
        "http://img.theimpression.com/abc/b.jpg",
        f"{REPLICA}{UPLOADS}/c.jpg",
    ]
    only_cdn = parse_article_page(
        article_page(content), page_url=ARTICLE_URL, image_hosts=["IMG.theimpression.com"]
    )
    assert urls(only_cdn) == ["http://img.theimpression.com/abc/b.jpg", f"{REPLICA}{UPLOADS}/c.jpg"]


def test_photo_hosts_are_judged_by_the_crawls_host_rule() -> None:
    """The rule the HTTP client fetches by (domain/hosts.py): a host in capitals or with
    its scheme's default port is the host, another port or a metadata address is not."""
    content = (
        figure('<img src="https://IMG.theimpression.com:443/abc/a.jpg">')
        + figure('<img src="https://img.theimpression.com:8443/abc/b.jpg">')
        + figure('<img src="http://169.254.169.254/latest/c.jpg">')
    )
    page = read_article(content)
    assert urls(page) == ["https://img.theimpression.com/abc/a.jpg"]
    assert sum("neither the site nor an image host" in note for note in page.skipped) == 2


def test_image_hosts_must_not_be_a_lone_string() -> None:
    with pytest.raises(TypeError, match="image_hosts"):
        parse_article_page(article_page(""), page_url=ARTICLE_URL, image_hosts="theimpression.com")


def test_unusable_image_urls_are_noted() -> None:
    content = (
        figure(f'<img src="{CDN}/{"a" * 3000}.jpg">')
        + figure('<img src="javascript:void(0)">')
        + figure("<img>")
        + figure(f'<img src="{cdn_photo(1)}">')
    )
    page = read_article(content)
    assert urls(page) == [cdn_photo(1)]
    assert [note.split(":")[0] for note in page.skipped] == ["img 1", "img 2", "img 3"]
    assert "more than the 2048 allowed" in page.skipped[0]


def test_image_url_with_control_characters_is_unusable() -> None:
    # Tabs and line breaks inside a URL are dropped, as browsers do; other controls are not.
    page = read_article(
        figure(f'<img src="{CDN}/abc/look\x01-01.jpg">')
        + figure(f'<img src="{CDN}/abc/look-\n02.jpg">')
    )
    assert urls(page) == [f"{CDN}/abc/look-02.jpg"]
    assert len(page.skipped) == 1
    assert "control characters" in page.skipped[0]


def test_images_outside_entry_content_and_in_related_posts_are_not_photos() -> None:
    page = read_article(figure(f'<img src="{cdn_photo(1)}">'))
    assert f"{REPLICA}/wp-content/uploads/2019/03/logo.png" not in urls(page)
    assert f"{REPLICA}{UPLOADS}/another-post-300x200.jpg" not in urls(page)
    assert len(page.images) == 1


def test_article_classes_of_the_post_do_not_exclude_its_photos() -> None:
    # article_page() gives the article "tag-sponsored tag-share": its photos stay photos.
    page = read_article(figure(f'<img src="{cdn_photo(1)}">'))
    assert urls(page) == [cdn_photo(1)]


def test_article_without_entry_content_falls_back_to_the_article() -> None:
    html = (
        f'<html><body><main><article><h1 class="entry-title">Album</h1>'
        f'<img src="{cdn_photo(1)}"><div class="related-posts"><img src="{cdn_photo(9)}"></div>'
        f"</article></main></body></html>"
    )
    page = parse_article_page(html, page_url=ARTICLE_URL, image_hosts=HOSTS)
    assert (page.title, page.published, urls(page)) == ("Album", None, [cdn_photo(1)])


def test_article_with_no_photos_is_valid_and_empty() -> None:
    page = read_article("<p>Only words.</p>")
    assert (page.images, page.expected_images, page.skipped) == ((), 0, ())


@pytest.mark.parametrize(
    "html",
    ["", "Not found", listing_page(heading=None), "<html><body><p>x</p></body></html>"],
)
def test_page_without_article_raises(html: str) -> None:
    with pytest.raises(PageParseError) as caught:
        parse_article_page(html, page_url=ARTICLE_URL, image_hosts=HOSTS)
    assert caught.value.reason == "no_article"


def test_article_text_keeps_braces_and_semicolons_and_loses_control_characters() -> None:
    page = read_article(
        figure(f'<img src="{cdn_photo(1)}">', "Look {1};\x0b done\x85"),
        title="Street {style}; \x07Day 1",
    )
    assert page.title == "Street {style}; Day 1"
    assert page.images[0].caption == "Look {1}; done"


def test_article_long_title_and_caption_are_capped() -> None:
    page = read_article(figure(f'<img src="{cdn_photo(1)}">', "c" * 2000), title="t" * 2000)
    assert page.title == "t" * theimpression.MAX_TEXT_CHARS
    assert page.images[0].caption == "c" * theimpression.MAX_TEXT_CHARS


def test_too_large_page_is_refused() -> None:
    with pytest.raises(PageParseError) as caught:
        parse_article_page(
            " " * (theimpression.MAX_HTML_CHARS + 1), page_url=ARTICLE_URL, image_hosts=HOSTS
        )
    assert caught.value.reason == "bad_value"


def test_parse_error_pickles_with_its_reason() -> None:
    error = pickle.loads(pickle.dumps(PageParseError("no_article", "nothing here")))
    assert (type(error), error.reason, str(error)) == (PageParseError, "no_article", "nothing here")


# --------------------------------------------------------------------------- names


@pytest.mark.parametrize(
    ("heading", "slug", "expected"),
    [
        ("Copenhagen Fashion Week", "copenhagen-fashion-week", "Copenhagen"),
        ("Kiev Fashion Week", "kiev-fashion-week", "Kiev"),
        ("São Paolo Fashion Week", "sao-paolo-fashion-week", "São Paolo"),
        ("Sa\u0303o Paolo Fashion Week", "sao-paolo-fashion-week", "São Paolo"),  # NFD
        ("NYFW", "new-york-fashion-week", "NYFW"),
        ("copenhagen fashion WEEK", "copenhagen-fashion-week", "copenhagen"),
        ("Street Style: NYFW", "new-york-fashion-week", "NYFW"),
        ("Street Style From Paris Fashion Week", "paris-fashion-week", "Paris"),
        ("Milan Fashion Week Street Style", "milan-fashion-week", "Milan"),
        ("Category: Tbilisi Fashion Week", "tbilisi-fashion-week", "Tbilisi"),
        ("  Oslo\tFashion   Week ", "oslo-fashion-week", "Oslo"),
        ("", "mexico-city-fashion-week", "Mexico City"),
        ("Fashion Week", "oslo-fashion-week", "Oslo"),
        ("", "stockholm", "Stockholm"),
    ],
)
def test_week_city_name(heading: str, slug: str, expected: str) -> None:
    assert week_city_name(heading, slug) == expected


def test_week_city_name_needs_a_heading_or_a_slug() -> None:
    with pytest.raises(ValueError, match="no city"):
        week_city_name("", "-")


@pytest.mark.parametrize(
    ("title", "designer", "expected"),
    [
        (
            "Chloé Spring 2020 Ready-to-Wear Collection",
            "Chloé",
            ("Chloé", "Spring 2020 Ready-to-Wear"),
        ),
        (
            "CHLOE Spring 2020 Ready-to-Wear COLLECTION",
            "Chloé",
            ("Chloé", "Spring 2020 Ready-to-Wear"),
        ),
        ("Chloé – Fall 2019 Menswear collection", "Chloe", ("Chloe", "Fall 2019 Menswear")),
        ("Chloé Tokyo Fall 2015", "Chloé", ("Chloé", "Tokyo Fall 2015")),
        # The tag is compared without case and accents, so the place stays in the show title.
        ("CHLOE Tokyo Fall 2015", "Chloé", ("Chloé", "Tokyo Fall 2015")),
        (
            "Dolce & Gabbana Resort 2026 Collection",
            "Dolce & Gabbana",
            ("Dolce & Gabbana", "Resort 2026"),
        ),
        # Compared as name resolution compares names: "&" and "and" agree, and so does
        # punctuation, so the place stays in the show title here too.
        ("Dolce & Gabbana Tokyo Fall 2015", "Dolce and Gabbana",
         ("Dolce and Gabbana", "Tokyo Fall 2015")),
        ("Agnès B. Paris Fall 2015", "agnes b", ("agnes b", "Paris Fall 2015")),
        ("The Row Pre-Fall 2024 Collection", "The Row", ("The Row", "Pre-Fall 2024")),
        # The tag is not the title's prefix: the show title starts at the season.
        ("Y for Maison X Spring 2020 Collection", "Maison X", ("Maison X", "Spring 2020")),
        ("Acme Bridal Spring 2019 Collection", "Acme Inc", ("Acme Inc", "Bridal Spring 2019")),
        ("Spring 2020 Ready-to-Wear Collection", "Chloé", ("Chloé", "Spring 2020 Ready-to-Wear")),
        # Without a tag, the designer is what precedes the show title.
        (
            "Chloé Spring 2020 Ready-to-Wear Collection",
            None,
            ("Chloé", "Spring 2020 Ready-to-Wear"),
        ),
        ("Acme Bridal Spring 2019", None, ("Acme", "Bridal Spring 2019")),
        ("Chloé Tokyo Fall 2015", None, ("Chloé Tokyo", "Fall 2015")),
        ("Summer Fridays Resort 2024 Collection", None, ("Summer Fridays", "Resort 2024")),
        ("Acme Pre Fall 2024", None, ("Acme", "Pre Fall 2024")),
        ("Acme: Fall 2019 Menswear", "", ("Acme", "Fall 2019 Menswear")),
    ],
)
def test_split_runway_title(title: str, designer: str | None, expected: tuple[str, str]) -> None:
    assert split_runway_title(title, designer) == expected


@pytest.mark.parametrize(
    ("title", "designer", "words"),
    [
        ("", None, "empty"),
        ("Collection", "Chloé", "empty"),
        ("Chloé", "Chloé", "nothing after the designer"),
        ("Spring 2020 Ready-to-Wear Collection", None, "names no designer"),
        ("Chloé Campaign Photos", None, "names no show title"),
        ("Chloé Spring Campaign", "Acme", "names no show title"),
    ],
)
def test_split_runway_title_errors(title: str, designer: str | None, words: str) -> None:
    with pytest.raises(PageParseError, match=words) as caught:
        split_runway_title(title, designer)
    assert caught.value.reason == "bad_value"


@pytest.mark.parametrize(
    ("show_title", "code"),
    [
        ("Spring 2020 Ready-to-Wear", "spring-2020-ready-to-wear"),
        ("Spring 2020", "spring-2020-ready-to-wear"),
        ("Resort 2026", "resort-2026"),
        ("Fall 2019 Menswear", "fall-2019-menswear"),
        ("Pre-Fall 2024", "pre-fall-2024"),
        ("Pre Fall 2024", "pre-fall-2024"),
        ("Bridal Spring 2019", "bridal-spring-2019"),
        ("Tokyo Fall 2015", "tokyo-fall-2015"),
    ],
)
def test_runway_season_code(show_title: str, code: str) -> None:
    assert runway_season_code(show_title) == code


@pytest.mark.parametrize("show_title", ["", "Campaign", "Spring", "Fall 19", "Łódź Fall 2019"])
def test_runway_season_code_refuses_what_does_not_parse(show_title: str) -> None:
    with pytest.raises(TitleParseError):
        runway_season_code(show_title)


def test_listed_runway_title_to_season_code() -> None:
    html = listing_page(
        entry("/chloe/", "Chloé Spring 2020 Ready-to-Wear Collection", designer="Chloé"),
        heading="Spring 2020 Ready-to-Wear",
    )
    [listed] = read_listing(html, f"{REPLICA}/runway/spring-2020-ready-to-wear/").articles
    designer, show_title = split_runway_title(listed.title, listed.designer)
    assert (designer, runway_season_code(show_title)) == ("Chloé", "spring-2020-ready-to-wear")
