"""The catalog people browse, through a real server: every page renders and every link on it
answers, unknown entries are 404, pages are cached by ETag as the API's answers are, only
promoted entries are ever shown, and a hostile title is text, never markup.

The catalog is promoted from real drafts (``browse_catalog.py``) on SQLite and PostgreSQL;
the read API, pages and all, runs under uvicorn on loopback and is asked over HTTP.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import quote, urljoin, urlsplit

import httpx
import pytest
from PIL import Image
from sqlalchemy import Engine

from fashion_assets.catalog.look_search import SearchRules
from fashion_assets.catalog.runway import add_brand
from fashion_assets.catalog.sql import insert_rows
from fashion_assets.catalog_api import create_api
from fashion_assets.catalog_api.pages import BROWSE
from fashion_assets.domain.look_answers import UploadRules
from fashion_assets.resources import catalog_engine
from fashion_assets.storage import ObjectStore, open_store
from tests.integration.browse_catalog import (
    HOSTILE_BRAND,
    HOSTILE_TITLE,
    BrowseCatalog,
    build_catalog,
)
from tests.integration.test_catalog_api import Clock
from tests.integration.test_review_app import serve

Built = tuple[Engine, ObjectStore, BrowseCatalog]


@pytest.fixture
def browse(tmp_path: Path, database_url: str) -> Built:
    engine = catalog_engine(database_url)
    store = open_store(f"file://{tmp_path / 'objects'}", home=tmp_path)
    return engine, store, build_catalog(engine, store)


@pytest.fixture
def site(browse: Built) -> Iterator[httpx.Client]:
    engine, store, _ = browse
    with serve(create_api(engine, store)) as url, \
            httpx.Client(base_url=url, timeout=30) as client:
        yield client


class Page(HTMLParser):
    """A page's links, images (with their attributes) and text."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.links: list[str] = []
        self.images: list[dict[str, str | None]] = []
        self.stylesheets: list[str] = []
        self.text: list[str] = []
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "a" and found.get("href"):
            self.links.append(str(found["href"]))
        if tag == "img":
            self.images.append(found)
        if tag == "link" and found.get("rel") == "stylesheet":
            self.stylesheets.append(str(found["href"]))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def visit_all(client: httpx.Client) -> dict[str, str]:
    """Every page reachable from the designers page by its links, each asked once and
    answered 200; every photo, thumbnail and stylesheet they name answered 200 too. The
    pages' HTML by path."""
    seen: dict[str, str] = {}
    checked: set[str] = set()
    todo = [f"{BROWSE}/"]
    here = urlsplit(str(client.base_url)).netloc
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        answer = client.get(path)
        assert answer.status_code == 200, (path, answer.text[:300])
        assert answer.headers["content-type"] == "text/html; charset=utf-8"
        seen[path] = answer.text
        page = Page(answer.text)
        for image in page.images:
            assert image.get("loading") == "lazy", (path, image)
            assert int(str(image["width"])) > 0 and int(str(image["height"])) > 0, path
            assert "alt" in image, (path, image)
        assert len(page.stylesheets) == 1, path
        for link in [*page.links, *(str(i["src"]) for i in page.images), *page.stylesheets]:
            target = urlsplit(urljoin(str(client.base_url.join(path)), link))
            if target.netloc != here:
                continue
            if target.path.startswith(BROWSE) and link not in page.stylesheets:
                todo.append(target.path)
            elif target.path not in checked:
                checked.add(target.path)
                assert client.get(target.path).status_code == 200, (path, link)
    return seen


def test_every_page_renders_and_every_link_answers(site: httpx.Client, browse: Built) -> None:
    _, _, made = browse
    pages = visit_all(site)
    for brand, code in made.shows:
        assert f"{BROWSE}/shows/{quote(brand, safe='')}/{code}" in pages, (brand, code)
        assert f"{BROWSE}/designers/{quote(brand, safe='')}" in pages
    assert f"{BROWSE}/street/{made.album[0]}/{made.album[1]}/{made.album[2]}" in pages
    assert f"{BROWSE}/looks/search" in pages
    designers = pages[f"{BROWSE}/"]
    assert '<a class="skip" href="#main">' in designers and '<main id="main"' in designers
    assert '<a href="#initial-A">A</a>' in designers  # the jump list


def test_a_show_is_a_grid_of_thumbnails_with_its_alternates(site: httpx.Client,
                                                            browse: Built) -> None:
    _, _, made = browse
    brand, code = made.merged
    api_show = site.get(f"/api/v1/shows/{brand}/{code}").json()
    html = site.get(f"{BROWSE}/shows/{brand}/{code}").text
    page = Page(html)
    grid = [i for i in page.images if str(i["src"]).endswith("/thumbnail")]
    name, season = made.brand_names[brand], "Fall 2026 Ready-to-Wear"
    looks = [i for i in grid if "photo by" not in str(i["alt"])]
    assert [i["alt"] for i in looks] == [f"{name}, {season}, look {p['position']}"
                                        for p in api_show["photos"]]
    assert [i["src"] for i in looks] == [p["thumbnail_url"] for p in api_show["photos"]]
    # Thumbnails only: the full photo is a link, never an image of the page.
    assert not [i for i in page.images if not str(i["src"]).endswith("/thumbnail")]
    full = [p["url"] for p in api_show["photos"]]
    assert [link for link in page.links if link in full] == full
    alternates = [a for p in api_show["photos"] for a in p["alternates"]]
    assert alternates, "the gallery's looks shown again are the show's alternates"
    for alternate in alternates:
        assert alternate["url"] in page.links and alternate["thumbnail_url"] in {
            str(i["src"]) for i in grid}
        assert site.get(alternate["url"]).status_code == 200
    assert "photo by theImpression" in html or "photo by Vogue Runway" in html


def test_unknown_designers_shows_and_albums_are_404(site: httpx.Client, browse: Built
                                                    ) -> None:
    _, _, made = browse
    brand, code = made.shows[0]
    for path in (f"{BROWSE}/designers/nobody", f"{BROWSE}/shows/{brand}/winter-1900-couture",
                 f"{BROWSE}/shows/nobody/{code}", f"{BROWSE}/street/paris/2024/2",
                 f"{BROWSE}/street/{made.album[0]}/2024/13",
                 f"{BROWSE}/street/{made.album[0]}/{'9' * 5000}/1", f"{BROWSE}/nothing"):
        answer = site.get(path)
        assert answer.status_code == 404, path
    missing = site.get(f"{BROWSE}/designers/nobody")
    assert "No such designer" in missing.text and "<h1>Not found</h1>" in missing.text


def test_only_promoted_entries_are_ever_shown(site: httpx.Client, browse: Built) -> None:
    _, _, made = browse
    brand, code = made.pending  # its draft waits for review: never promoted
    assert site.get(f"{BROWSE}/shows/{brand}/{code}").status_code == 404
    pages = visit_all(site)
    assert not [p for p in pages if code in p and brand in p]
    designer = pages[f"{BROWSE}/designers/{brand}"]
    assert f"/shows/{brand}/{code}" not in designer
    promoted = {c for b, c in made.shows if b == brand}
    assert promoted and all(f"/shows/{brand}/{c}" in designer for c in promoted)


def test_a_hostile_designer_and_title_are_text(site: httpx.Client, browse: Built) -> None:
    _, _, made = browse
    brand, code = next(s for s in made.shows if s[0] == HOSTILE_BRAND[0])
    for path in (f"{BROWSE}/", f"{BROWSE}/designers/{brand}", f"{BROWSE}/shows/{brand}/{code}"):
        html = site.get(path).text
        assert "<script>alert" not in html and "<img src=x" not in html, path
        assert "&lt;script&gt;alert(&#34;brand&#34;)&lt;/script&gt; &amp; Co" in html, path
        assert "onerror" not in html or "&lt;img src=x onerror=alert(1)&gt;" in html
    show = site.get(f"{BROWSE}/shows/{brand}/{code}").text
    assert "&lt;img src=x onerror=alert(1)&gt; &#34;Fall&#34; &amp; &lt;b&gt;2021&lt;/b&gt;" \
        in show
    [alt] = [i["alt"] for i in Page(show).images]
    assert alt == f"{HOSTILE_BRAND[1]}, Fall 2021 Ready-to-Wear, look 1"  # as text
    assert HOSTILE_TITLE not in show


def test_pages_are_cached_by_etag_as_the_api_is(browse: Built) -> None:
    engine, store, made = browse
    clock = Clock()
    with serve(create_api(engine, store, cache_s=30, clock=clock)) as url, \
            httpx.Client(base_url=url) as client:
        brand, code = made.shows[0]
        for path in (f"{BROWSE}/", f"{BROWSE}/designers/{brand}",
                     f"{BROWSE}/shows/{brand}/{code}", f"{BROWSE}/street",
                     f"{BROWSE}/looks/search"):
            first = client.get(path)
            assert first.headers["cache-control"] == "public, max-age=30", path
            assert "frame-ancestors 'none'" in first.headers["content-security-policy"]
            again = client.get(path, headers={"If-None-Match": first.headers["etag"]})
            assert again.status_code == 304 and again.content == b"", path
            assert again.headers["etag"] == first.headers["etag"]
        first = client.get(f"{BROWSE}/")
        add_brand(engine, "zz-new", "ZZ New")
        with engine.begin() as conn:
            insert_rows(conn, "brand_runways", ("brand_slug", "season_code", "title", "year"),
                        [("zz-new", "spring-2030-ready-to-wear", "Spring 2030", 2030)])
        assert client.get(f"{BROWSE}/").content == first.content  # from memory
        clock.now += 31
        fresh = client.get(f"{BROWSE}/", headers={"If-None-Match": first.headers["etag"]})
        assert fresh.status_code == 200 and "ZZ New" in fresh.text
        [stylesheet] = re.findall(r'<link rel="stylesheet" href="([^"]+)">', fresh.text)
        css = client.get(stylesheet)
        assert css.status_code == 200 and "immutable" in css.headers["cache-control"]
        assert css.headers["content-type"].startswith("text/css")


def test_the_token_and_the_host_rules_are_the_apis(browse: Built) -> None:
    engine, store, _ = browse
    with serve(create_api(engine, store, token="s3cret")) as url:
        for path in (f"{BROWSE}/", f"{BROWSE}/street", f"{BROWSE}/looks/search"):
            assert httpx.get(f"{url}{path}").status_code == 401, path
            answer = httpx.get(f"{url}{path}", headers={"Authorization": "Bearer s3cret"})
            assert answer.status_code == 200
            assert answer.headers["cache-control"].startswith("private, max-age=")
            assert answer.headers["vary"] == "Authorization"
        assert httpx.post(f"{url}{BROWSE}/looks/search").status_code == 401
    with serve(create_api(engine, store, hosts=["127.0.0.1", "photos.example"])) as url:
        for host in ("evil.example", '"><script>alert(1)</script>'):
            refused = httpx.get(f"{url}{BROWSE}/", headers={"Host": host})
            assert refused.status_code == 400 and "script" not in refused.text, host
        page = httpx.get(f"{url}{BROWSE}/street", headers={"Host": "photos.example:8443"})
        assert 'src="http://photos.example:8443/api/v1/photos/' in page.text


def test_the_search_form_is_an_upload_form(site: httpx.Client) -> None:
    html = site.get(f"{BROWSE}/looks/search").text
    assert ('<form method="post" action="/catalog/looks/search"'
            ' enctype="multipart/form-data"') in html
    assert '<input type="file" id="photo" name="photo"' in html
    assert '<label for="photo">' in html


def noise(seed: int) -> bytes:
    """A photo of no look at all: noise, as a JPEG."""
    image = Image.effect_noise((96, 128), 64 + seed).convert("RGB")
    out = io.BytesIO()
    image.save(out, format="JPEG")
    return out.getvalue()


def test_the_search_form_finds_a_look_from_a_copy_of_its_photo(site: httpx.Client,
                                                               browse: Built) -> None:
    _, _, made = browse
    data, vogue_key = made.copy_of_look
    brand, code = made.merged
    photos = site.get(f"/api/v1/shows/{brand}/{code}").json()["photos"]
    [position] = [p["position"] for p in photos if vogue_key in (
        p["object_key"], *(a["object_key"] for a in p["alternates"]))]
    answer = site.post(f"{BROWSE}/looks/search", files={"photo": ("copy.jpg", data)})
    assert answer.status_code == 200, answer.text
    assert answer.headers["cache-control"] == "no-store"
    page = Page(answer.text)
    found = [link for link in page.links if "#look-" in link]
    assert found[0] == f"{BROWSE}/shows/{brand}/{code}#look-{position}"
    assert site.get(found[0]).status_code == 200
    [first, *_] = [i for i in page.images if str(i["src"]).endswith("/thumbnail")]
    assert first["alt"] == f"{made.brand_names[brand]}, Fall 2026 Ready-to-Wear, look {position}"
    assert first["loading"] == "lazy" and first["width"] and first["height"]

    nothing = site.post(f"{BROWSE}/looks/search", files={"photo": ("noise.jpg", noise(1))})
    assert nothing.status_code == 200 and 'id="no-match"' in nothing.text
    for body, status in ((b"not an image at all", 400), (b"<html><script>", 400)):
        refused = site.post(f"{BROWSE}/looks/search", files={"photo": ("x.jpg", body)})
        assert refused.status_code == status and 'id="search-error"' in refused.text
        assert "<script>" not in refused.text
    empty = site.post(f"{BROWSE}/looks/search", files={"other": ("x.jpg", data)})
    assert empty.status_code == 400 and "photo" in empty.text


def test_a_photo_over_the_searchs_cap_is_refused_with_413(browse: Built) -> None:
    engine, store, made = browse
    data, _ = made.copy_of_look
    small = SearchRules(upload=UploadRules(max_bytes=len(data) - 1))
    with serve(create_api(engine, store, search=small)) as url:
        refused = httpx.post(f"{url}{BROWSE}/looks/search", files={"photo": ("big.jpg", data)})
        assert refused.status_code == 413 and 'id="search-error"' in refused.text
        assert 'role="alert"' in refused.text and "FASHION_LOOK_SEARCH_MAX_BYTES" in refused.text
