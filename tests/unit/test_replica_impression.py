"""theImpression in the replica: listings, articles, every markup form of the contract
(docs/theimpression.md), photo bytes on both photo origins, faults, counters, the model.

Pages are read with parsel and the contract's rules written out here, never with the
project's theImpression adapter: the replica is what that adapter is tested against. One
server serves the module; an autouse fixture resets faults, counters and the image gate.
"""

from __future__ import annotations

import io
import json
import re
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from urllib.parse import urlsplit

import httpx
import pytest
from parsel import Selector
from PIL import Image, UnidentifiedImageError

from fashion_assets.replica import (
    FaultPlan,
    ImpressionArticle,
    ReplicaPhoto,
    ReplicaServer,
    build_site,
    photo_bytes,
    start_replica,
)
from fashion_assets.replica.impression_site import (
    HOSTILE_ARTICLE_SLUG,
    HOSTILE_PHOTO_FAULTS,
    HREF_FORMS,
    PHOTO_FORMS,
    PUBLIC_BASE_URL,
    UNKNOWN_DESIGNER,
    Listing,
    designer_tagged,
    entry_href,
    is_upload,
    photo_form,
    photo_url,
    photo_urls,
)
from fashion_assets.replica.vogue_frame import image_url

WEEKS = [
    ("copenhagen-fashion-week", "Copenhagen Fashion Week"),
    ("new-york-fashion-week", "NYFW"),
    ("london-fashion-week", "London Fashion Week"),
    ("paris-fashion-week", "Paris Fashion Week"),
    ("kiev-fashion-week", "Kiev Fashion Week"),
    ("sao-paulo-fashion-week", "Sao Paulo Fashion Week"),
    ("lagos-fashion-week", "Lagos Fashion Week"),
    ("stockholm-fashion-week", "Stokholm Fashion Week"),
]
PLACEHOLDER = "data:image/gif;base64,"
NOT_GALLERY = re.compile(r"(?:^|[\s_-])ad(?:s)?(?:$|[\s_-])|advert|sponsor|share")


@pytest.fixture(scope="module")
def server() -> Iterator[ReplicaServer]:
    with start_replica(build_site(brands=2, shows_per_brand=3, photos_per_show=8)) as running:
        yield running


@pytest.fixture(autouse=True)
def clean(server: ReplicaServer) -> None:
    server.set_faults(FaultPlan())
    server.release_images()
    server.reset_stats()


@pytest.fixture
def client() -> Iterator[httpx.Client]:
    with httpx.Client(timeout=5.0) as http:
        yield http


def listings(server: ReplicaServer) -> list[Listing]:
    return [*server.site.impression.weeks, *server.site.impression.seasons]


def articles(server: ReplicaServer) -> list[ImpressionArticle]:
    return list(server.site.impression.iter_articles())


def listing_pages(server: ReplicaServer, client: httpx.Client, listing: Listing) -> list[str]:
    """Every page of a listing, following ``a.next`` from the first."""
    pages, url = [], server.impression_url + listing.path
    while url:
        response = client.get(url)
        assert response.status_code == 200, url
        pages.append(response.text)
        nxt = Selector(text=response.text).css("a.next::attr(href)").get()
        url = str(httpx.URL(url).join(nxt)) if nxt else ""
        assert len(pages) <= 10, "the pagination never ends"
    return pages


def entry_hrefs(html: str) -> list[str]:
    return Selector(text=html).css("main article h2.entry-title a::attr(href)").getall()


def href_path(href: str) -> str:
    return urlsplit(href).path


def gallery_imgs(html: str) -> list[Selector]:
    """The contract's gallery candidates: ``img`` of ``div.entry-content``, less ad blocks and
    avatars (``noscript`` copies included: they are the same photos again)."""
    content = Selector(text=html).css("div.entry-content")
    assert len(content) == 1
    return [
        img for img in content.xpath(".//img")
        if not any(NOT_GALLERY.search(c) for c in img.xpath("ancestor::*/@class").getall())
        and "avatar" not in (img.attrib.get("class") or "")
    ]


def img_urls(img: Selector) -> list[str]:
    """Every address an ``img`` offers, placeholders left out."""
    found = []
    for name in ("srcset", "data-srcset"):
        found += [part.split()[0] for part in img.attrib.get(name, "").split(",") if part.strip()]
    found += [img.attrib[name] for name in ("data-src", "src") if name in img.attrib]
    return [url for url in found if not url.startswith("data:")]


def chosen_url(img: Selector) -> str:
    """The URL the contract reads: widest srcset candidate, else data-src, else src."""
    for name in ("srcset", "data-srcset"):
        candidates = [part.split() for part in img.attrib.get(name, "").split(",") if part]
        if candidates:
            return max(candidates, key=lambda c: int(c[1].removesuffix("w")))[0]
    return next(url for url in (img.attrib.get("data-src"), img.attrib.get("src"))
                if url and not url.startswith("data:"))


def url_owners(server: ReplicaServer) -> dict[str, str]:
    """Every URL of every theImpression photo -> the photo's id."""
    site = server.site.impression
    return {
        url: photo.photo_id
        for article in site.iter_articles()
        for photo in article.photos
        for url in photo_urls(photo, article, server.impression_url, server.impression_cdn_url)
    }


def article_html(server: ReplicaServer, client: httpx.Client, article: ImpressionArticle) -> str:
    response = client.get(server.impression_url + article.path)
    assert response.status_code == 200, article.path
    return response.text


# -- listings ------------------------------------------------------------------------------------


def test_every_listing_lists_its_articles_two_per_page(
    server: ReplicaServer, client: httpx.Client
) -> None:
    for listing in listings(server):
        pages = listing_pages(server, client, listing)
        assert len(pages) == max(1, -(-len(listing.articles) // 2)), listing.path
        listed = [href_path(h) for page in pages for h in entry_hrefs(page)]
        assert listed == [a.path for a in listing.articles], listing.path
        assert all(1 <= len(entry_hrefs(page)) <= 2 for page in pages)
        headings = {Selector(text=p).css("h1.page-title::text").get() for p in pages}
        assert headings == {listing.heading}
        assert Selector(text=pages[-1]).css("a.next").get() is None
        beyond = f"{server.impression_url}{listing.path}page/{len(pages) + 1}/"
        assert client.get(beyond).status_code == 404


def test_week_listing_page_two_is_at_its_documented_path(
    server: ReplicaServer, client: httpx.Client
) -> None:
    week = server.site.impression.week("copenhagen-fashion-week")
    response = client.get(f"{server.impression_url}/street-style/copenhagen-fashion-week/page/2/")
    assert response.status_code == 200
    assert [href_path(h) for h in entry_hrefs(response.text)] == [a.path for a in
                                                                   week.articles[2:4]]


def test_entry_links_take_every_form_and_only_main_articles_are_entries(
    server: ReplicaServer, client: httpx.Client
) -> None:
    own_host = server.impression_url.split("://", 1)[1]
    forms: set[str] = set()
    queries = 0
    for listing in listings(server):
        for page in listing_pages(server, client, listing):
            selector = Selector(text=page)
            hrefs = entry_hrefs(page)
            for href in hrefs:
                queries += "?utm_source=feed" in href
                if href.startswith(PUBLIC_BASE_URL + "/"):
                    forms.add("public")
                elif href.startswith(server.impression_url + "/"):
                    forms.add("own")
                elif href.startswith(f"//{own_host}/"):
                    forms.add("protocol_relative")
                else:
                    assert href.startswith("/") and not href.startswith("//"), href
                    forms.add("relative")
            assert selector.css("header.site-header img.custom-logo").get()
            assert len(selector.css("header nav a")) >= len(WEEKS)
            aside = selector.css("aside a::attr(href)").getall()
            assert aside and not set(aside) & set(hrefs)
            assert not selector.css("aside article, header article, footer article")
    assert forms == set(HREF_FORMS)
    assert 0 < queries < sum(len(listing.articles) for listing in listings(server))
    for article in articles(server):
        href = entry_href(article, server.impression_url)
        assert href_path(href) == article.path


def test_runway_entries_tag_most_designers_and_some_only_title(
    server: ReplicaServer, client: httpx.Client
) -> None:
    tagged = untagged = 0
    for season in server.site.impression.seasons:
        page = "".join(listing_pages(server, client, season))
        entries = Selector(text=page).css("main article")
        assert len(entries) == len(season.articles)
        for entry, article in zip(entries, season.articles, strict=True):
            tag = entry.css("span.designer a[rel=tag]::text").get()
            assert entry.css("h2.entry-title a::text").get() == article.title
            if designer_tagged(article):
                tagged += 1
                assert tag == article.designer
            else:
                untagged += 1
                assert tag is None and article.title.startswith(f"{article.designer} ")
    assert tagged > untagged > 0
    for week in server.site.impression.weeks:
        page = "".join(listing_pages(server, client, week))
        assert "span class=\"designer\"" not in page


# -- articles ------------------------------------------------------------------------------------


def test_every_article_lists_its_photos_once_in_order(
    server: ReplicaServer, client: httpx.Client
) -> None:
    owners = url_owners(server)
    for article in articles(server):
        html = article_html(server, client, article)
        selector = Selector(text=html)
        assert selector.css("h1.entry-title::text").get() == article.title
        stamp = selector.css("time.published::attr(datetime)").get()
        assert stamp.startswith(article.published.isoformat())
        ids = [a.photo_id for a in article.photos]
        found: list[str] = []
        for img in gallery_imgs(html):
            photo_id = owners[chosen_url(img)]
            # Every address of one img is the same photo; a copy (noscript) follows its photo.
            assert {owners.get(url) for url in img_urls(img)} == {photo_id}, img.get()
            if photo_id in found:
                assert photo_id == found[-1]
            else:
                found.append(photo_id)
        assert found == ids, article.slug


def test_every_markup_form_of_the_contract_appears(
    server: ReplicaServer, client: httpx.Client
) -> None:
    owners = url_owners(server)
    pages = {a.slug: article_html(server, client, a) for a in articles(server)}
    everything = "".join(pages.values())
    imgs = [img for html in pages.values() for img in gallery_imgs(html)]
    attrs = [img.attrib for img in imgs]
    assert any("src" in a and "srcset" not in a and "data-src" not in a and "width" in a
               for a in attrs)
    assert any(a.get("src", "").startswith(PLACEHOLDER) and "data-src" in a for a in attrs)
    assert any("data-srcset" in a for a in attrs)
    assert Selector(text=everything).css("div.entry-content noscript img")
    widest_last = widest_inside = 0
    for a in attrs:
        widths = [int(p.split()[1][:-1]) for p in a.get("srcset", "").split(",") if p]
        if widths:
            widest_last += widths[-1] == max(widths)
            widest_inside += widths[-1] != max(widths)
    assert widest_last and widest_inside
    srcsets = " ".join(a.get("srcset", "") + a.get("data-srcset", "") for a in attrs)
    assert re.search(r"/wp-content/uploads/\d{4}/\d{2}/[\w-]+-640x960\.jpg 640w", srcsets)
    assert re.search(r"-scaled\.jpg 2048w", srcsets)
    assert re.search(r"theimpression-\d\d\.jpg\?w=640 640w", srcsets)
    plain = [a["src"] for a in attrs if "src" in a and not a["src"].startswith("data:")]
    assert any(re.search(r"/uploads/.+-\d\d\.jpg$", src) for src in plain)  # an original
    assert any(re.search(r"theimpression-\d\d\.jpg$", src) for src in plain)  # bare CDN URL
    assert {photo_form(a, i) for a in articles(server) for i in range(len(a.photos))} == set(
        PHOTO_FORMS)
    for article in articles(server):
        selector = Selector(text=pages[article.slug])
        if article.designer is not None:
            captions = selector.css("div.gallery figure.gallery-item figcaption::text").getall()
            assert captions == [f"Look {n}" for n in range(1, len(article.photos) + 1)]
        else:
            assert len(selector.css("div.entry-content figure.wp-block-image")) == len(
                article.photos)
        avatar = selector.css("div.entry-meta img.avatar::attr(src)").get()
        assert avatar.startswith("https://secure.gravatar.com/avatar/")
        assert selector.css("header.site-header img.custom-logo")
        ad = selector.css("div.entry-content div.ad-slot img::attr(src)").get()
        assert ad.startswith("https://ads.example.net/")
        text = "".join(selector.css("div.entry-content p::text").getall())
        assert {"{", "}", ";"} <= set(text)
        related = selector.xpath(
            "//div[contains(@class, 'entry-content')]/following-sibling::div"
            "[contains(@class, 'related-posts')]//img/@src").getall()
        assert related and set(related) <= set(owners)
        own = {url for p in article.photos for url in photo_urls(
            p, article, server.impression_url, server.impression_cdn_url)}
        assert not set(related) & own


def test_every_photo_url_serves_the_same_bytes(
    server: ReplicaServer, client: httpx.Client
) -> None:
    site, formats = server.site, set()
    owners = url_owners(server)
    for article in articles(server):
        in_page = [url for img in gallery_imgs(article_html(server, client, article))
                   for url in img_urls(img)]
        for photo in article.photos:
            if photo.fault:
                continue
            urls = set(photo_urls(photo, article, server.impression_url,
                                  server.impression_cdn_url))
            urls |= {url for url in in_page if owners[url] == photo.photo_id}
            expected = photo_bytes(site, photo.photo_id)
            for url in urls:
                response = client.get(url)
                assert response.status_code == 200, url
                assert response.headers["content-type"] == "image/jpeg"
                assert response.content == expected, url
            formats.add(Image.open(io.BytesIO(expected)).format)
    assert formats == {"JPEG", "PNG", "WEBP"}


def test_photos_live_on_the_cdn_and_as_uploads(server: ReplicaServer) -> None:
    photos = list(server.site.impression.iter_photos())
    uploads = [p for p in photos if is_upload(p)]
    assert 0.3 < len(uploads) / len(photos) < 0.7
    article = articles(server)[0]
    for photo in article.photos:
        url = photo_url(photo, article, server.impression_url, server.impression_cdn_url)
        host = server.impression_url if is_upload(photo) else server.impression_cdn_url
        assert url.startswith(host + "/")
        if is_upload(photo):
            assert f"/wp-content/uploads/{article.published:%Y/%m}/" in url
        else:
            assert url == f"{host}/{photo.photo_id}/{photo.file_name}"


def test_hostile_album_serves_its_permanent_faults(
    server: ReplicaServer, client: httpx.Client
) -> None:
    week = server.site.impression.week("copenhagen-fashion-week")
    hostile = server.site.impression.article(f"/{HOSTILE_ARTICLE_SLUG}/")
    assert hostile is not None and hostile in week.articles
    faults = [p.fault for p in hostile.photos if p.fault]
    assert sorted(faults) == sorted(HOSTILE_PHOTO_FAULTS) == sorted(
        ["gone", "html", "empty", "truncated", "not_image"])
    assert sum(p.fault is None for p in hostile.photos) == 8
    assert {is_upload(p) for p in hostile.photos} == {True, False}

    def urls(photo: ReplicaPhoto) -> list[str]:
        return photo_urls(photo, hostile, server.impression_url, server.impression_cdn_url)

    for photo in hostile.photos:
        if photo.fault == "gone":
            assert {client.get(url).status_code for url in urls(photo)} == {404}
        elif photo.fault == "truncated":
            with pytest.raises(httpx.RemoteProtocolError):
                client.get(urls(photo)[0])
        elif photo.fault is not None:
            bodies = {client.get(url).content for url in urls(photo)}
            assert bodies == {photo_bytes(server.site, photo.photo_id)}
            (body,) = bodies
            if photo.fault == "html":
                assert body.startswith(b"<!DOCTYPE html>")
            elif photo.fault == "empty":
                assert body == b""
            else:
                with pytest.raises(UnidentifiedImageError):
                    Image.open(io.BytesIO(body))
    assert build_site(brands=2, hostile=False).impression.article(hostile.path) is None


def test_robots_txt(server: ReplicaServer, client: httpx.Client) -> None:
    response = client.get(f"{server.impression_url}/robots.txt")
    assert response.text == "User-agent: *\nDisallow: /wp-admin/\n"
    assert server.stats().robots_requests == 1


def test_unknown_paths_and_widths_are_404(server: ReplicaServer, client: httpx.Client) -> None:
    impression = server.site.impression
    article = next(a for a in articles(server) if any(is_upload(p) for p in a.photos)
                   and any(not is_upload(p) for p in a.photos))
    upload = next(p for p in article.photos if is_upload(p))
    cdn = next(p for p in article.photos if not is_upload(p))
    cdn_base = f"{server.impression_cdn_url}/{cdn.photo_id}/{cdn.file_name}"
    scaled = photo_url(upload, article, server.impression_url, "", upload.widths[-1])
    site = server.impression_url
    pages = [
        f"{site}/nope/",
        f"{site}{article.path.rstrip('/')}",
        f"{site}/street-style/no-such-fashion-week/",
        f"{site}/street-style/copenhagen-fashion-week/page/1/",
        f"{site}/street-style/copenhagen-fashion-week/page/02/",
        f"{site}/runway/not-a-season/",
        f"{site}/fashion-shows/designers",
    ]
    photos = [
        f"{cdn_base}?w=999",
        f"{cdn_base}?w=640&w=1280",
        f"{server.impression_cdn_url}/{cdn.photo_id}/wrong-name.jpg",
        f"{server.impression_cdn_url}/{'0' * 32}/{cdn.file_name}",
        f"{server.impression_cdn_url}/{upload.photo_id}/{upload.file_name}",
        scaled.replace(f"{article.published:%Y/%m}", "1999/01"),
        scaled.replace("-scaled.jpg", "-999x1498.jpg"),
        scaled.replace("-scaled.jpg", f"-{upload.widths[-1]}x{upload.widths[-1] * 3 // 2}.jpg"),
        f"{site}/wp-content/uploads/2025/01/{cdn.file_name}",
        image_url(server.cdn_url, cdn, 640),  # Vogue's CDN serves none of theImpression's
        f"{server.cdn_url}/photos/{cdn.photo_id}/master/pass/{cdn.file_name}",
        f"{server.base_url}/{article.slug}/",
    ]
    assert client.get(cdn_base).status_code == 200 and client.get(scaled).status_code == 200
    assert [client.get(url).status_code for url in pages + photos] == [404] * len(pages + photos)
    assert Selector(text=client.get(pages[0]).text).css("body.error404")
    assert impression.article(article.path) is article


# -- faults and counters -------------------------------------------------------------------------


def some_urls(server: ReplicaServer) -> tuple[str, str, str]:
    """A page, an upload and a CDN photo of theImpression."""
    article = next(a for a in articles(server) if not any(p.fault for p in a.photos))
    upload = next(p for p in server.site.impression.iter_photos() if is_upload(p) and not p.fault)
    cdn = next(p for p in server.site.impression.iter_photos()
               if not is_upload(p) and not p.fault)
    home_u = server.site.impression.home(upload.photo_id)
    home_c = server.site.impression.home(cdn.photo_id)
    return (
        server.impression_url + article.path,
        photo_url(upload, home_u, server.impression_url, server.impression_cdn_url, 640),
        photo_url(cdn, home_c, server.impression_url, server.impression_cdn_url, 640),
    )


def test_counters_count_impression_requests(server: ReplicaServer, client: httpx.Client) -> None:
    page, upload, cdn = some_urls(server)
    client.get(page)
    client.get(f"{server.impression_url}/street-style/lagos-fashion-week/")
    client.get(f"{server.impression_url}/nope/")
    client.get(upload)
    client.get(cdn)
    client.get(f"{server.impression_url}/robots.txt")
    stats = server.stats()
    assert (stats.page_requests, stats.image_requests, stats.robots_requests) == (3, 2, 1)
    assert stats.by_status == {200: 5, 404: 1}
    assert stats.by_path[urlsplit(page).path] == 1
    assert stats.by_path[urlsplit(cdn).path] == 1


def test_transient_faults_apply_to_both_impression_origins(
    server: ReplicaServer, client: httpx.Client
) -> None:
    page, upload, cdn = some_urls(server)
    server.set_faults(FaultPlan(error_5xx=1.0))
    assert {client.get(url).status_code for url in (page, upload, cdn) * 3} <= {500, 502, 503}
    server.set_faults(FaultPlan(soft_404=1.0))
    soft = client.get(page)
    assert soft.status_code == 404 and Selector(text=soft.text).css("body.error404")
    assert client.get(cdn).status_code == 200  # soft 404s are for pages only
    server.set_faults(FaultPlan(error_403=1.0))
    assert [client.get(url).status_code for url in (page, upload, cdn)] == [200, 403, 403]
    server.set_faults(FaultPlan(drop=1.0))
    with pytest.raises(httpx.RemoteProtocolError):
        client.get(cdn)


def test_retry_after_windows_are_kept_per_impression_origin(
    server: ReplicaServer, client: httpx.Client
) -> None:
    page, _, cdn = some_urls(server)
    server.set_faults(FaultPlan(rate_429=1.0, retry_after_s=1, in_flight_grace_s=0.0))
    response = client.get(page)
    assert response.status_code == 429 and response.headers["retry-after"] == "1"
    client.get(cdn)  # another origin: its own window, none yet
    client.get(f"{server.cdn_url}/photos/x")  # Vogue's CDN neither
    assert server.stats().retry_after_violations == 0
    client.get(page)  # the site said wait
    assert server.stats().retry_after_violations == 1


def test_image_gate_holds_impression_photos(server: ReplicaServer, client: httpx.Client) -> None:
    page, upload, cdn = some_urls(server)
    statuses: list[int] = []
    server.hold_images(after=0)
    workers = [threading.Thread(target=lambda u=url: statuses.append(httpx.get(u).status_code))
               for url in (upload, cdn)]
    for worker in workers:
        worker.start()
    assert server.wait_held(2, timeout=5.0)
    assert client.get(page).status_code == 200  # pages pass the gate
    assert statuses == []
    server.release_images()
    for worker in workers:
        worker.join(timeout=5.0)
    assert statuses == [200, 200]


# -- the model -----------------------------------------------------------------------------------


def test_site_shape(server: ReplicaServer) -> None:
    site = server.site
    impression = site.impression
    assert [(w.slug, w.heading) for w in impression.weeks] == WEEKS
    for week in impression.weeks:
        normal = [a for a in week.articles if a.slug != HOSTILE_ARTICLE_SLUG]
        assert len(normal) == 3 and all(len(a.photos) == 8 for a in normal)
        assert [a.published for a in week.articles] == sorted(
            (a.published for a in week.articles), reverse=True)
        assert all(a.designer is a.brand_slug is a.season_code is None for a in week.articles)
        assert all(re.fullmatch(r"street-style-[a-z-]+-\d+", a.slug) for a in normal)
    assert sum(len(w.articles) for w in impression.weeks) == len(WEEKS) * 3 + 1
    four = build_site(brands=0, articles_per_week=4, hostile=False).impression
    titles = [(a.title, a.published.year) for w in four.weeks for a in w.articles]
    assert 0 < sum(str(year) in title for title, year in titles) < len(titles) / 2
    galleries = [a for s in impression.seasons for a in s.articles]
    known = [a for a in galleries if a.brand_slug is not None]
    [unknown] = [a for a in galleries if a.brand_slug is None]
    assert unknown.designer == UNKNOWN_DESIGNER
    assert unknown.season_code == site.brands[0].shows[0].season_slug
    assert len(known) == 4 and all(len(a.photos) == 8 for a in galleries)
    assert {a.designer for a in known} == {"Acne Studios", "AGNES B."}
    for article in known:
        brand = site.brand(article.brand_slug)
        show = next(s for s in brand.shows[:2] if s.season_slug == article.season_code)
        assert article.title == f"{article.designer} {show.title} Collection"
        assert article.slug == f"{brand.slug.strip('-')}-{article.season_code}-collection"
        assert article.path == f"/{article.slug}/"
        season = impression.season(article.season_code)
        assert article in season.articles and season.path == f"/runway/{season.code}/"
    photos = list(impression.iter_photos())
    assert len(photos) == len({p.photo_id for p in photos}) == (
        (len(WEEKS) * 3 + 1) * 8 + 5 + 5 * 8)
    assert all(re.fullmatch(r"[0-9a-f]{32}", p.photo_id) for p in photos)
    assert all(site.photo(p.photo_id) == p for p in photos)
    assert set(photos) <= set(site.iter_photos())
    assert {p.widths for p in photos} == {(640, 1280, 2048), (640, 1280)}


def test_build_is_deterministic_and_photos_are_distinct() -> None:
    first = build_site(brands=2, shows_per_brand=3, photos_per_show=8)
    again = build_site(brands=2, shows_per_brand=3, photos_per_show=8)
    assert first == again and first.impression == again.impression
    assert build_site(brands=2, shows_per_brand=3, photos_per_show=8, seed=1) != first
    goods = [p for p in first.impression.iter_photos() if not p.fault][:40]
    assert len({photo_bytes(first, p.photo_id) for p in goods}) == len(goods)
    few = build_site(brands=2, photos_per_article=3).impression
    normal = [a for a in few.iter_articles() if a.slug != HOSTILE_ARTICLE_SLUG]
    assert {len(a.photos) for a in normal} == {3}


def test_a_site_with_more_articles_per_week_is_a_superset() -> None:
    small = build_site(brands=2, articles_per_week=1).impression
    big = build_site(brands=2, articles_per_week=2).impression
    for week in small.weeks:
        other = big.week(week.slug)
        normal = [a for a in week.articles if a.slug != HOSTILE_ARTICLE_SLUG]
        more = [a for a in other.articles if a.slug != HOSTILE_ARTICLE_SLUG]
        assert len(normal) == 1 and len(more) == 2
        assert more[1] == normal[0]  # listings are newest first: the first article is last
        assert more[0].published > normal[0].published
    assert small.seasons == big.seasons


def test_command_line_announces_all_four_origins() -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "fashion_assets", "replica", "serve", "--port", "0",
         "--cdn-port", "0", "--impression-port", "0", "--impression-cdn-port", "0",
         "--brands", "1", "--no-hostile"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        urls = json.loads(process.stdout.readline())
        assert set(urls) == {"base_url", "cdn_url", "impression_url", "impression_cdn_url"}
        assert len(set(urls.values())) == 4
        robots = httpx.get(f"{urls['impression_url']}/robots.txt").text
        assert robots == "User-agent: *\nDisallow: /wp-admin/\n"
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=10) == 0
        errors = process.stderr.read()
        site_host = urls["impression_url"].split("://", 1)[1]
        cdn_host = urls["impression_cdn_url"].split("://", 1)[1]
        assert f"FASHION_THEIMPRESSION_BASE_URL={urls['impression_url']}" in errors
        assert f"FASHION_THEIMPRESSION_IMAGE_HOSTS={cdn_host},{site_host}" in errors
    finally:
        process.kill()
        process.wait()
