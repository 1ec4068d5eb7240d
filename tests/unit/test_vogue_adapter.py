"""Unit tests of the Vogue Runway adapter against every page variation in shared/sources.md.

Three hand-written pages under tests/data/vogue/ show the variations together as a real page
would; the helpers below build one-variation pages so that each failure points at one cause.
"""

from __future__ import annotations

import json
import pickle
import random
from pathlib import Path
from typing import Any

import pytest

from fashion_assets.sources import vogue, vogue_state
from fashion_assets.sources.fields import dimension
from fashion_assets.sources.vogue import PageParseError

DATA = Path(__file__).resolve().parents[1] / "data" / "vogue"
CDN = "https://assets.vogue.com/photos"
ASSIGN = "window.__PRELOADED_STATE__ = "


def fixture_page(name: str) -> str:
    return (DATA / name).read_text(encoding="utf-8")


def image_url(width: int, look: int = 1) -> str:
    photo_id = "5f3c0a1b2c3d4e5f6a7b8c9d"
    name = f"{look:05d}-brand-spring-2020-credit-gorunway.jpg"
    return f"{CDN}/{photo_id}/master/w_{width},c_limit/{name}"


def sized(width: Any, look: int = 1, *, url_width: int | None = None) -> dict[str, Any]:
    """One entry of ``image.sources``; ``url_width`` names the URL when ``width`` is odd."""
    return {"url": image_url(url_width or width, look), "width": width, "height": 1500}


def image(**sizes: dict[str, Any]) -> dict[str, Any]:
    return {"sources": sizes, "altText": "A look", "id": "5f3c0a1b2c3d4e5f6a7b8c9d"}


def look(number: int, **sizes: dict[str, Any]) -> dict[str, Any]:
    return {"caption": f"Look {number}", "image": image(**sizes), "id": f"look-{number}"}


def state_json(state: dict[str, Any], *, escape_slashes: bool = True) -> str:
    """The state as the site writes it: ``/`` escaped as ``\\u002F`` (so no ``</`` survives)."""
    text = json.dumps(state, ensure_ascii=False)
    return text.replace("/", "\\u002F") if escape_slashes else text


def html_page(*scripts: str) -> str:
    """A small realistic page: head, analytics and teasers around the given script bodies."""
    body_scripts = "\n".join(f'<script type="text/javascript">{s}</script>' for s in scripts)
    return f"""<!DOCTYPE html>
<html lang="en-US"><head><meta charset="utf-8"><title>Vogue Runway</title>
<script type="text/javascript">window.dataLayer = window.dataLayer || [];</script>
<script type="application/ld+json">{{"@type": "WebPage"}}</script>
</head><body>
<img src="{image_url(640)}" alt="Look 1"><img src="{image_url(640, 2)}" alt="Look 2">
{body_scripts}
<script src="https://www.vogue.com/verso/static/vogue/main.js"></script>
</body></html>"""


def state_page(state: dict[str, Any]) -> str:
    return html_page(ASSIGN + state_json(state) + ";")


def ascii_state_page(state: dict[str, Any]) -> str:
    """A page whose state has every non-ASCII character escaped: the only way its text can
    carry a lone surrogate (the escape decodes to one), as a page decoded from bytes cannot."""
    return html_page(ASSIGN + json.dumps(state) + ";")


def designer_state(collections: Any, name: Any = "Brand") -> dict[str, Any]:
    content = {"name": name, "body": "A bio.", "designerCollections": collections}
    return {"transformed": {"runwayDesignerContent": content}}


def show_entry(url: Any, hed: Any = "Spring 2020 Ready-to-Wear", **extra: Any) -> dict[str, Any]:
    return {"hed": hed, "url": url, "image": image(md=sized(640)), **extra}


def designer_page(collections: Any, name: Any = "Brand") -> vogue.DesignerPage:
    return vogue.parse_designer_page(state_page(designer_state(collections, name)))


def show_state(galleries: Any, content: Any = None) -> dict[str, Any]:
    if content is None:
        content = {"sectionHeader": {"hed": "Spring 2020"}, "brand": "Brand", "eventDate": "2019"}
    return {
        "transformed": {
            "runwayShowGalleries": {"galleries": galleries},
            "runwayShowContent": content,
        }
    }


def collection_page(*items: Any) -> vogue.ShowPage:
    return vogue.parse_show_page(state_page(show_state([{"title": "Collection", "items": items}])))


def parse_error(parse: Any, html: str) -> PageParseError:
    with pytest.raises(PageParseError) as caught:
        parse(html)
    return caught.value


# --- finding and decoding the state -------------------------------------------------------


def test_designer_fixture_decodes_slash_escapes_and_skips_decoy_scripts() -> None:
    page = vogue.parse_designer_page(fixture_page("designer_agnes_b.html"))
    assert page.name == "Agnès b."
    assert page.shows[0] == vogue.ListedShow(
        title="Spring 2020 Ready-to-Wear",
        path="/fashion-shows/spring-2020-ready-to-wear/agnes-b-",
        season_slug="spring-2020-ready-to-wear",
        brand_slug="agnes-b-",
        cover_url=f"{CDN}/5d8a3c9f2e1b4a0012c3d4e5/master/w_1280,c_limit/"
        "00001-agnes-b-spring-2020-credit-gorunway.jpg",
    )


def test_free_text_with_braces_semicolons_closing_tags_and_the_marker_is_kept_whole() -> None:
    state = vogue.extract_preloaded_state(fixture_page("designer_agnes_b.html"))
    body = state["transformed"]["runwayDesignerContent"]["body"]
    assert body.endswith('window.__PRELOADED_STATE__ = {"fake": true}; and } { ; </script></p>')
    show = vogue.extract_preloaded_state(fixture_page("show_agnes_b_spring_2020.html"))
    review = show["transformed"]["runwayShowContent"]["review"]
    assert review == 'She said: "window.__PRELOADED_STATE__ = {}"; then { a; b } and </p> closed.'


def test_free_text_generated_with_every_troublesome_character() -> None:
    text = 'a } b { c ; d </div> e window.__PRELOADED_STATE__ = {"x": 1}; f \\ " g'
    state = {"transformed": {"review": text}, "tail": "}"}
    for escape in (True, False):
        html = html_page(ASSIGN + state_json(state, escape_slashes=escape) + ";")
        assert vogue.extract_preloaded_state(html) == state


@pytest.mark.parametrize(
    "assign",
    [
        "window.__PRELOADED_STATE__={",
        "window.__PRELOADED_STATE__ = {",
        "window.__PRELOADED_STATE__     =     {",
        "window.__PRELOADED_STATE__\n=\n{",
        "\n  window.__PRELOADED_STATE__ =\n\t {",
    ],
)
@pytest.mark.parametrize("end", [";", "", ";\n", "\n"])
def test_spacing_around_the_assignment_and_trailing_semicolon(assign: str, end: str) -> None:
    state = {"transformed": {"a": [1, {"b": "c"}]}}
    html = html_page(assign[:-1] + state_json(state) + end)
    assert vogue.extract_preloaded_state(html) == state


def test_state_script_found_by_content_among_decoys_not_by_position() -> None:
    state = {"transformed": {"ok": True}}
    html = html_page(
        "var a = 1; var b = {};",
        "if (window.__PRELOADED_STATE__) { hydrate(window.__PRELOADED_STATE__); }",
        "window.__PRELOADED_STATE__ = window.__PRELOADED_STATE__ || {};",
        "if (window.__PRELOADED_STATE__ == null) { report(); }",
        ASSIGN + state_json(state) + ";",
        'window.__APP_CONFIG__ = {"env": "production"};',
    )
    assert vogue.extract_preloaded_state(html) == state


def test_decoys_alone_are_no_state() -> None:
    html = html_page("if (window.__PRELOADED_STATE__) { hydrate(window.__PRELOADED_STATE__); }")
    assert parse_error(vogue.extract_preloaded_state, html).reason == "no_state"


@pytest.mark.parametrize(
    "html",
    ["", "   ", "<html><body><p>Too many requests</p></body></html>", html_page("var x = 1;"),
     # A JSON body (an API error) in place of the page: parsel would read it as JSON.
     '{"error": {"code": 404}}', "[1, 2]"],
)
def test_page_without_state_is_no_state(html: str) -> None:
    error = parse_error(vogue.parse_designer_page, html)
    assert error.reason == "no_state"


def test_marker_outside_any_script_is_no_state() -> None:
    html = f"<html><body><p>{ASSIGN}{{}}</p></body></html>"
    assert parse_error(vogue.extract_preloaded_state, html).reason == "no_state"


def test_truncated_state_json_is_bad_state_json() -> None:
    full = state_json(designer_state([show_entry("/fashion-shows/spring-2020/brand")]))
    error = parse_error(vogue.parse_designer_page, html_page(ASSIGN + full[: len(full) // 2]))
    assert error.reason == "bad_state_json"
    assert len(str(error)) < 300


def test_absurdly_nested_state_is_bad_state_json() -> None:
    html = html_page(ASSIGN + '{"a":' + "[" * 100_000 + "]" * 100_000 + "};")
    assert parse_error(vogue.extract_preloaded_state, html).reason == "bad_state_json"


def test_oversized_html_is_refused_before_parsing() -> None:
    html = " " * (vogue.MAX_HTML_CHARS + 1)
    assert parse_error(vogue.extract_preloaded_state, html).reason == "bad_value"


def test_non_utf8_bytes_decoded_with_replacement_by_the_caller() -> None:
    raw = state_page(designer_state([show_entry("/fashion-shows/spring-2020/brand")], "X"))
    raw_bytes = raw.replace('"X"', '"Bad\udcff name"').encode("utf-8", "surrogateescape")
    raw_bytes = raw_bytes.replace(b"<title>", b"<title>\xff\xfe\x00")
    page = vogue.parse_designer_page(raw_bytes.decode("utf-8", errors="replace"))
    assert page.name == "Bad\ufffd name"
    assert [show.path for show in page.shows] == ["/fashion-shows/spring-2020/brand"]


def test_page_parse_error_survives_pickling() -> None:
    error = pickle.loads(pickle.dumps(PageParseError("missing_key", "state has no x")))
    assert (error.reason, str(error)) == ("missing_key", "state has no x")


# --- designer page ------------------------------------------------------------------------


def test_designer_fixture_lists_good_shows_in_page_order_and_reports_malformed_ones() -> None:
    page = vogue.parse_designer_page(fixture_page("designer_agnes_b.html"))
    assert [(show.title, show.path, show.season_slug) for show in page.shows] == [
        (
            "Spring 2020 Ready-to-Wear",
            "/fashion-shows/spring-2020-ready-to-wear/agnes-b-",
            "spring-2020-ready-to-wear",
        ),
        (
            "Fall 2019 Ready-to-Wear",
            "/fashion-shows/fall-2019-ready-to-wear/agnes-b-",
            "fall-2019-ready-to-wear",
        ),
        ("Resort 2019", "/fashion-shows/Resort-2019/agnes-b-", "resort-2019"),
        ("São Paulo Resort 2014", "/fashion-shows/resort-2014/agnes-b-", "resort-2014"),
    ]
    assert [show.cover_url is None for show in page.shows] == [False, True, False, True]
    assert [note.split(":")[0] for note in page.skipped] == [
        f"designerCollections entry {n}" for n in (3, 4, 7, 8, 9, 11)
    ]


@pytest.mark.parametrize(
    "url",
    [
        "/fashion-shows/spring-2020-ready-to-wear/agnes-b-",
        "/fashion-shows/spring-2020-ready-to-wear/agnes-b-/",
        "/fashion-shows/spring-2020-ready-to-wear/agnes-b-?utm_source=x&page=2",
        "/fashion-shows/spring-2020-ready-to-wear/agnes-b-#12",
        "https://www.vogue.com/fashion-shows/spring-2020-ready-to-wear/agnes-b-",
        "https://www.vogue.com/fashion-shows/spring-2020-ready-to-wear/agnes-b-/?a=1",
        "http://localhost:8080/fashion-shows/spring-2020-ready-to-wear/agnes-b-",
        "//www.vogue.com/fashion-shows/spring-2020-ready-to-wear/agnes-b-",
        "  /fashion-shows/spring-2020-ready-to-wear/agnes-b-  ",
    ],
)
def test_show_url_forms_reduce_to_one_site_path(url: str) -> None:
    (show,) = designer_page([show_entry(url)]).shows
    assert show.path == "/fashion-shows/spring-2020-ready-to-wear/agnes-b-"
    assert (show.season_slug, show.brand_slug) == ("spring-2020-ready-to-wear", "agnes-b-")


def test_season_slug_is_lowercased_and_brand_slug_kept_as_in_url() -> None:
    (show,) = designer_page([show_entry("/fashion-shows/Fall-2022-Menswear/Viktor-Rolf")]).shows
    assert (show.season_slug, show.brand_slug) == ("fall-2022-menswear", "Viktor-Rolf")


@pytest.mark.parametrize(
    "url",
    [
        None,
        42,
        "",
        "/",
        "/fashion-shows/spring-2020-ready-to-wear",
        "/fashion-shows/spring-2020-ready-to-wear/agnes-b-/slideshow/collection",
        "/fashion-shows/designer/agnes-b-",
        "/fashion-shows/spring 2020/agnes-b-",
        "/news/spring-2020/agnes-b-",
        "fashion-shows/spring-2020/agnes-b-",
        "javascript:alert(1)//fashion-shows/spring-2020/agnes-b-",
        "http://[::1/fashion-shows/spring-2020/agnes-b-",
        "/fashion-shows/spring-2020/" + "x" * 100_000,
    ],
)
def test_malformed_show_urls_are_skipped_with_a_short_note(url: Any) -> None:
    good = show_entry("/fashion-shows/fall-2019/brand")
    page = designer_page([show_entry(url), good])
    assert [show.path for show in page.shows] == ["/fashion-shows/fall-2019/brand"]
    (note,) = page.skipped
    assert note.startswith("designerCollections entry 1:")
    assert len(note) < 300


def test_malformed_entries_mixed_with_good_ones_keep_the_good_ones_in_order() -> None:
    collections = [
        show_entry("/fashion-shows/spring-2021/brand"),
        "junk",
        None,
        [1, 2],
        {"hed": "no url"},
        show_entry("/fashion-shows/fall-2020/brand"),
        show_entry("/fashion-shows/spring-2021/brand", hed="Duplicate"),
        show_entry("/fashion-shows/resort-2020/brand", hed=None, image=None),
    ]
    page = designer_page(collections)
    assert [(show.title, show.season_slug) for show in page.shows] == [
        ("Spring 2020 Ready-to-Wear", "spring-2021"),
        ("Spring 2020 Ready-to-Wear", "fall-2020"),
        ("", "resort-2020"),
    ]
    assert len(page.skipped) == 4


def test_hed_with_accents_and_extra_whitespace_is_collapsed_and_composed() -> None:
    hed = "  São\u00a0Paolo \n\t Spring   2013  "
    decomposed = "Sa\u0303o Paulo Resort 2014"
    page = designer_page(
        [
            show_entry("/fashion-shows/sao-paolo-spring-2013/brand", hed=hed),
            show_entry("/fashion-shows/sao-paulo-resort-2014/brand", hed=decomposed),
        ],
        name=" Agnès\u00a0 b. ",
    )
    assert [show.title for show in page.shows] == [
        "São Paolo Spring 2013",
        "São Paulo Resort 2014",
    ]
    assert page.name == "Agnès b."


def test_absurd_title_is_truncated_to_500_chars() -> None:
    page = designer_page([show_entry("/fashion-shows/spring-2020/brand", hed="Ready " * 20_000)])
    assert len(page.shows[0].title) == 500


def test_missing_name_is_empty_and_empty_history_is_valid() -> None:
    page = vogue.parse_designer_page(
        state_page({"transformed": {"runwayDesignerContent": {"designerCollections": []}}})
    )
    assert page == vogue.DesignerPage(name="", shows=(), skipped=())


def test_cover_is_the_largest_size() -> None:
    entry = show_entry(
        "/fashion-shows/spring-2020/brand", image=image(sm=sized(320), xl=sized(1600))
    )
    assert designer_page([entry]).shows[0].cover_url == image_url(1600)


@pytest.mark.parametrize(
    ("state", "reason"),
    [
        ({}, "missing_key"),
        ({"transformed": None}, "missing_key"),
        ({"transformed": []}, "bad_value"),
        ({"transformed": {"runwayShowContent": {}}}, "missing_key"),
        ({"transformed": {"runwayDesignerContent": "x"}}, "bad_value"),
        ({"transformed": {"runwayDesignerContent": {"name": "Brand"}}}, "missing_key"),
        (designer_state(None), "missing_key"),
        (designer_state({"0": {"url": "/fashion-shows/a/b"}}), "bad_value"),
        (designer_state("[]"), "bad_value"),
    ],
)
def test_designer_state_structure_errors(state: dict[str, Any], reason: str) -> None:
    error = parse_error(vogue.parse_designer_page, state_page(state))
    assert error.reason == reason


def test_unknown_extra_keys_everywhere_are_ignored() -> None:
    entry = show_entry("/fashion-shows/spring-2020/brand", tracking={"x": [1, "}"]}, flags=None)
    entry["image"]["sources"]["md"]["format"] = "webp"
    entry["image"]["sources"]["huge"] = {"url": image_url(9999), "width": 9999}
    state = designer_state([entry])
    state["transformed"]["runwayDesignerContent"]["relatedDesigners"] = [{"name": "Other"}]
    state["transformed"]["head.title"] = "Brand | Vogue"
    state["coreDataLayer"] = {"page": {"type": "designer"}}
    page = vogue.parse_designer_page(state_page(state))
    assert page.shows[0].cover_url == image_url(640)


# --- show page ----------------------------------------------------------------------------


def test_show_fixture_reads_text_and_collection_looks_only() -> None:
    page = vogue.parse_show_page(fixture_page("show_agnes_b_spring_2020.html"))
    assert (page.title, page.brand, page.event_date) == (
        "Spring 2020 Ready-to-Wear",
        "Agnès b.",
        "2019-09-24T00:00:00.000Z",
    )
    assert page.expected_images == 9
    assert [image.position for image in page.images] == [1, 2, 3, 5, 6, 8, 9]
    assert all("details" not in image.url and "front-row" not in image.url for image in page.images)
    assert page.skipped == (
        "Collection item 4: no usable image url",
        "Collection item 7: no usable image url",
    )
    first = page.images[0]
    assert (first.url.split("/")[-2], first.width, first.height) == ("w_2560,c_limit", 2560, 3840)


def test_show_fixture_caption_with_braces_and_closing_tag_and_relative_url() -> None:
    page = vogue.parse_show_page(fixture_page("show_agnes_b_spring_2020.html"))
    look8 = next(image for image in page.images if image.position == 8)
    assert look8.caption == "Look 8: {bold}; see </div> and } here"
    assert look8.url.startswith("https://www.vogue.com/photos/5d8a3c9f2e1b4a0012c3d4ea/master/")


@pytest.mark.parametrize(
    ("sizes", "width", "url_width"),
    [
        ({"sm": sized(320)}, 320, 320),
        ({"xxl": {"url": image_url(2560)}}, None, 2560),
        ({"sm": sized(320), "md": sized(640), "lg": sized(1280), "xl": sized(1600)}, 1600, 1600),
        ({"md": sized(640), "xl": {"url": image_url(1600), "height": 2400}}, None, 1600),
        ({"sm": sized("320", url_width=320), "lg": sized(" 1280 ", url_width=1280)}, 1280, 1280),
        ({"xl": sized(2048), "xxl": sized(1600)}, 2048, 2048),
        ({"lg": sized(1280), "xl": sized(1280)}, 1280, 1280),
        ({"md": sized(640), "lg": {"url": "", "width": 1280}}, 640, 640),
        ({"md": sized(640), "lg": {"width": 1280}, "xl": None, "xxl": "x"}, 640, 640),
    ],
)
def test_largest_present_size_is_chosen(
    sizes: dict[str, Any], width: int | None, url_width: int
) -> None:
    (chosen,) = collection_page(look(1, **sizes)).images
    assert chosen.width == width
    assert f"/w_{url_width},c_limit/" in chosen.url


def test_tied_widths_prefer_the_larger_size_name() -> None:
    lg = {"url": image_url(1280, 1), "width": 1280}
    xl = {"url": image_url(1280, 2), "width": 1280}
    (chosen,) = collection_page(look(1, lg=lg, xl=xl)).images
    assert chosen.url == image_url(1280, 2)


def reference_best_image_source(image: Any) -> vogue_state.ImageSource | None:
    """``best_image_source`` written the plain way: every size's URL checked, then chosen."""
    sources = vogue_state.optional_mapping(vogue_state.optional_mapping(image).get("sources"))
    candidates = []
    for name in vogue_state.IMAGE_SIZES:
        size = vogue_state.optional_mapping(sources.get(name))
        url = vogue_state._image_url(size.get("url"))
        if url is not None:
            candidates.append(vogue_state.ImageSource(
                url, dimension(size.get("width")), dimension(size.get("height"))))
    if not candidates:
        return None
    if all(candidate.width is not None for candidate in candidates):
        return max(reversed(candidates), key=lambda candidate: candidate.width or 0)
    return candidates[-1]


def random_size(rng: random.Random, name: str) -> Any:
    """One entry of ``image.sources``, often odd: few widths (so ties are common), widths
    absent or nonsense, and URLs absolute, relative or unusable."""
    if rng.random() < 0.15:
        return rng.choice([None, "x", 640, ["url"]])
    size: dict[str, Any] = {}
    if rng.random() < 0.9:
        size["url"] = rng.choice([
            f"{CDN}/{name}/a.jpg", f"/photos/{name}/a.jpg", f"//assets.vogue.com/{name}/a.jpg",
            f" {CDN}/{name}/b.jpg ", "", "   ", None, 42, "javascript:alert(1)",
            "data:image/png;base64,AAAA", f"{CDN}/{name}/a\x00.jpg", "https://[::1/a.jpg",
        ])
    if rng.random() < 0.8:
        size["width"] = rng.choice([320, 640, 640, 1280, 1280, "1280", " 640 ", 1280.0, None,
                                    0, -5, True, "abc", 12.5, 10**9])
    if rng.random() < 0.5:
        size["height"] = rng.choice([960, "1920", None, "tall"])
    return size


def test_best_image_source_agrees_with_checking_every_size() -> None:
    rng = random.Random(20_240_611)
    outcomes = {"none": 0, "no width": 0, "width": 0}
    for _ in range(6000):
        names = [name for name in vogue_state.IMAGE_SIZES if rng.random() < 0.7]
        image = {"sources": {name: random_size(rng, name) for name in names}}
        expected = reference_best_image_source(image)
        assert vogue_state.best_image_source(image) == expected, image
        outcomes["none" if expected is None else
                 "no width" if expected.width is None else "width"] += 1
    # Every kind of answer came up often enough for the comparison to mean something.
    assert min(outcomes.values()) > 500, outcomes


@pytest.mark.parametrize("image", [None, "x", {"sources": None}, {"sources": []},
                                   {"sources": {"xxl": "x", "huge": {"url": image_url(9)}}}])
def test_best_image_source_of_nothing_usable_is_none(image: Any) -> None:
    assert vogue_state.best_image_source(image) is None
    assert reference_best_image_source(image) is None


def test_best_image_source_checks_one_url_when_every_size_states_a_width(
        monkeypatch: pytest.MonkeyPatch) -> None:
    checked: list[Any] = []
    check = vogue_state._image_url

    def image_url_checked(value: Any) -> str | None:
        checked.append(value)
        return check(value)

    monkeypatch.setattr(vogue_state, "_image_url", image_url_checked)
    widths = {"sm": 320, "md": 640, "lg": 1280, "xl": 1600, "xxl": 2560}
    chosen = vogue_state.best_image_source(image(**{n: sized(w) for n, w in widths.items()}))
    assert chosen is not None and chosen.width == 2560
    assert checked == [image_url(2560)]


@pytest.mark.parametrize(
    "bad_width", [-1280, 0, 10**9, "1280px", "abc", "", True, 12.5, None, "9" * 5000, [1280]]
)
def test_nonsense_widths_read_as_unknown(bad_width: Any) -> None:
    (chosen,) = collection_page(look(1, md=sized(640), lg=sized(bad_width, url_width=1280))).images
    assert chosen.width is None
    assert chosen.url == image_url(1280)


def test_integral_float_width_is_accepted() -> None:
    (chosen,) = collection_page(look(1, lg=sized(1280.0, url_width=1280))).images
    assert chosen.width == 1280


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("/photos/5f3c/master/pass/a.jpg", "https://www.vogue.com/photos/5f3c/master/pass/a.jpg"),
        ("//assets.vogue.com/photos/a.jpg", "https://assets.vogue.com/photos/a.jpg"),
        (" https://assets.vogue.com/photos/a.jpg ", "https://assets.vogue.com/photos/a.jpg"),
        ("javascript:alert(1)", None),
        ("data:image/png;base64,AAAA", None),
        ("https://" + "a" * 100_000, None),
        ("https://assets.vogue.com/photos/a\x00.jpg", None),
        ("https://assets.vogue.com/photos/a\ud800.jpg", None),
    ],
)
def test_image_urls_are_made_absolute_or_refused(url: str, expected: str | None) -> None:
    item = {"image": {"sources": {"lg": {"url": url, "width": 1280}}}}
    page = vogue.parse_show_page(ascii_state_page(show_state([{"title": "Collection",
                                                               "items": [item]}])))
    assert [image.url for image in page.images] == ([expected] if expected else [])
    assert page.expected_images == 1


@pytest.mark.parametrize(
    "item",
    [
        {"caption": "Look 1", "image": None},
        {"caption": "Look 1"},
        {"caption": "Look 1", "image": {"sources": None}},
        {"caption": "Look 1", "image": {"sources": {}}},
        {"caption": "Look 1", "image": {"sources": {"xs": {"url": image_url(100)}}}},
        None,
        "junk",
    ],
)
def test_items_without_usable_image_are_skipped_and_noted(item: Any) -> None:
    page = collection_page(item, look(2, md=sized(640, 2)))
    assert page.expected_images == 2
    assert [(image.position, image.caption) for image in page.images] == [(2, "Look 2")]
    assert page.skipped == ("Collection item 1: no usable image url",)


def test_collection_found_by_title_among_other_galleries_in_any_order() -> None:
    detail = {"lookNumber": 7, "caption": "Detail", "image": image(md=sized(640, 90))}
    galleries = [
        {"title": "Details", "items": [detail, detail]},
        {"title": "Beauty", "items": [look(1, md=sized(640, 80))]},
        {"title": "Front Row", "items": []},
        {
            "title": "\n  COLLECTION ",
            "items": [look(1, md=sized(640, 1)), look(2, md=sized(640, 2))],
        },
        {"title": "Backstage", "items": [look(1, md=sized(640, 70))]},
        {"items": [look(1, md=sized(640, 60))]},
        {"title": None},
        "junk",
    ]
    page = vogue.parse_show_page(state_page(show_state(galleries)))
    assert [image.url for image in page.images] == [image_url(640, 1), image_url(640, 2)]
    assert [image.position for image in page.images] == [1, 2]
    assert page.expected_images == 2


def test_detail_look_numbers_do_not_set_positions() -> None:
    item = {"lookNumber": 12, **look(1, md=sized(640))}
    (chosen,) = collection_page(look(1, md=sized(640)), item).images[1:]
    assert chosen.position == 2


def test_only_the_first_collection_gallery_counts_and_the_rest_is_noted() -> None:
    galleries = [
        {"title": "Collection", "items": [look(1, md=sized(640))]},
        {"title": "collection", "items": [look(1, md=sized(640)), look(2, md=sized(640))]},
    ]
    page = vogue.parse_show_page(state_page(show_state(galleries)))
    assert page.expected_images == 1
    assert page.skipped == ("ignored extra Collection gallery 2",)


@pytest.mark.parametrize(
    "galleries",
    [
        [],
        [{"title": "Collection", "items": []}],
        [{"title": "Collection", "items": None}],
        [{"title": "Collection"}],
        [{"title": "Details", "items": [look(1, md=sized(640))]}, {"title": "Beauty", "items": []}],
    ],
)
def test_video_only_or_collectionless_shows_have_zero_images(galleries: list[Any]) -> None:
    page = vogue.parse_show_page(state_page(show_state(galleries)))
    assert (page.images, page.expected_images, page.skipped) == ((), 0, ())


@pytest.mark.parametrize(
    ("transformed", "reason"),
    [
        ({"runwayShowContent": {}}, "missing_key"),
        ({"runwayShowGalleries": {}}, "missing_key"),
        ({"runwayShowGalleries": {"galleries": None}}, "missing_key"),
        ({"runwayShowGalleries": []}, "bad_value"),
        ({"runwayShowGalleries": {"galleries": {"title": "Collection"}}}, "bad_value"),
        (
            {"runwayShowGalleries": {"galleries": [{"title": "Collection", "items": {}}]}},
            "bad_value",
        ),
    ],
)
def test_show_state_structure_errors(transformed: dict[str, Any], reason: str) -> None:
    error = parse_error(vogue.parse_show_page, state_page({"transformed": transformed}))
    assert error.reason == reason


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (
            {"sectionHeader": {"hed": " Fall  2022 Menswear "}, "brand": "Brand"},
            ("Fall 2022 Menswear", "Brand"),
        ),
        ({"brand": {"name": "Viktor & Rolf", "slug": "viktor-rolf"}}, ("", "Viktor & Rolf")),
        ({"sectionHeader": None, "brand": {"slug": "x"}}, ("", None)),
        ({"sectionHeader": "Fall", "brand": 7, "eventDate": 20220101}, ("", None)),
        ({"brand": "   "}, ("", None)),
        ([], ("", None)),
    ],
)
def test_show_text_is_optional_and_brand_may_be_string_or_object(
    content: Any, expected: tuple[str, str | None]
) -> None:
    page = vogue.parse_show_page(state_page(show_state([], content=content)))
    assert (page.title, page.brand) == expected


DESIGNER_LINK = '<a href="/fashion-shows/designer/jil-sander">Jil Sander</a>'
SEASON_LINK = '<a href="/fashion-shows/spring-2012-ready-to-wear">SPRING 2012 READY-TO-WEAR</a>'


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        # The real shape: the designer in hed, the season in subHed and in reviewTitle.
        (
            {"sectionHeader": {"hed": DESIGNER_LINK, "subHed": SEASON_LINK},
             "reviewTitle": "Jil Sander Spring 2012 Ready-to-Wear", "pubDate": "May 1, 2011"},
            ("Spring 2012 Ready-to-Wear", "Jil Sander", "May 1, 2011"),
        ),
        # Without reviewTitle (or one not starting with the designer) the subHed text serves.
        (
            {"sectionHeader": {"hed": DESIGNER_LINK, "subHed": SEASON_LINK}},
            ("SPRING 2012 READY-TO-WEAR", "Jil Sander", None),
        ),
        (
            {"sectionHeader": {"hed": DESIGNER_LINK, "subHed": SEASON_LINK},
             "reviewTitle": "Raf Simons for Jil Sander"},
            ("SPRING 2012 READY-TO-WEAR", "Jil Sander", None),
        ),
        # The house renamed since: reviewTitle keeps the old name, its tail is the season.
        (
            {"sectionHeader": {"hed": '<a href="/fashion-shows/designer/rabanne">Rabanne</a>',
                               "subHed": SEASON_LINK},
             "reviewTitle": "Paco Rabanne Spring 2012 Ready-to-Wear"},
            ("Spring 2012 Ready-to-Wear", "Rabanne", None),
        ),
        # A designer link alone names the designer; the season comes from reviewTitle.
        (
            {"sectionHeader": {"hed": DESIGNER_LINK},
             "reviewTitle": "<b>Jil Sander</b> Spring 2012 Ready-to-Wear"},
            ("Spring 2012 Ready-to-Wear", "Jil Sander", None),
        ),
        # Entities are decoded after the tags are stripped: escaped markup stays text.
        (
            {"sectionHeader": {"hed": '<a href="/fashion-shows/designer/d-g">D&amp;G</a>',
                               "subHed": "<a>Fall&nbsp;2020 &lt;Menswear&gt;</a>"}},
            ("Fall 2020 <Menswear>", "D&G", None),
        ),
        # An explicit brand and eventDate still win over hed and pubDate.
        (
            {"sectionHeader": {"hed": DESIGNER_LINK, "subHed": SEASON_LINK},
             "brand": {"name": "Jil Sander AG"}, "eventDate": "2011-09-24", "pubDate": "x"},
            ("SPRING 2012 READY-TO-WEAR", "Jil Sander AG", "2011-09-24"),
        ),
    ],
)
def test_real_header_shape_gives_season_title_and_designer(
    content: dict[str, Any], expected: tuple[str, str | None, str | None]
) -> None:
    page = vogue.parse_show_page(state_page(show_state([], content=content)))
    assert (page.title, page.brand, page.event_date) == expected


def test_designer_prefix_is_cut_before_the_title_is_capped() -> None:
    long_season = "Resort 2026 " + "x" * 1_000
    content = {"sectionHeader": {"hed": DESIGNER_LINK},
               "reviewTitle": f"Jil Sander {long_season}"}
    page = vogue.parse_show_page(state_page(show_state([], content=content)))
    assert page.title == long_season[:500]


def test_missing_show_content_leaves_text_empty() -> None:
    state = {"transformed": {"runwayShowGalleries": {"galleries": []}}}
    page = vogue.parse_show_page(state_page(state))
    assert (page.title, page.brand, page.event_date) == ("", None, None)


def test_absurd_caption_is_truncated() -> None:
    item = {"caption": "x" * 100_000, "image": image(md=sized(640))}
    (chosen,) = collection_page(item).images
    assert chosen.caption is not None and len(chosen.caption) == 500


def test_control_characters_and_lone_surrogates_never_reach_the_text() -> None:
    """The text is stored: PostgreSQL refuses NUL and no driver encodes a lone surrogate (what
    the escapes \\u0000 and \\ud800 decode to), so one of them would fail the whole write."""
    content = {"sectionHeader": {"hed": "\x00Spring 2020\x07 Ready-to-Wear\ud800"},
               "brand": "\x1b[31mBrand\x7f", "eventDate": "2019\x85"}
    item = {"caption": "Look\x00 1\udc00", "image": image(md=sized(640))}
    state = show_state([{"title": "Collection", "items": [item]}], content)
    page = vogue.parse_show_page(ascii_state_page(state))
    assert (page.title, page.brand, page.event_date) == (
        "Spring 2020 Ready-to-Wear", "[31mBrand", "2019")
    assert [image.caption for image in page.images] == ["Look 1"]
    entry = show_entry("/fashion-shows/spring-2020/brand", hed="Spring\x00 2020\ud800")
    listing = vogue.parse_designer_page(ascii_state_page(designer_state([entry], "Brand\x00")))
    assert (listing.name, [show.title for show in listing.shows]) == ("Brand", ["Spring 2020"])


# --- directory and paths ------------------------------------------------------------------


def test_directory_fixture_lists_designer_links_first_one_wins() -> None:
    assert vogue.parse_designer_directory(fixture_page("directory.html")) == (
        ("A DEGREE FAHRENHEIT", "a-degree-fahrenheit"),
        ("À LA GARÇONNE", "a-la-garconne"),
        ("Agnès b.", "agnes-b-"),
        ("Viktor & Rolf", "viktor-rolf"),
        ("Viktor&Rolf", "viktorandrolf"),
    )


@pytest.mark.parametrize(
    ("directory", "reason"),
    [
        ({}, "missing_key"),
        ({"groupedLinks": None}, "missing_key"),
        ({"groupedLinks": {}}, "bad_value"),
    ],
)
def test_directory_structure_errors(directory: dict[str, Any], reason: str) -> None:
    html = state_page({"transformed": {"allRunwayDesigners": directory}})
    assert parse_error(vogue.parse_designer_directory, html).reason == reason


def test_paths() -> None:
    assert vogue.DIRECTORY_PATH == "/fashion-shows/designers"
    assert vogue.designer_path("agnes-b-") == "/fashion-shows/designer/agnes-b-"
    assert vogue.designer_path("a" * 120) == "/fashion-shows/designer/" + "a" * 120


@pytest.mark.parametrize(
    "slug", ["", "Agnes", "agnes b", "agnes/b", "../etc", "agnes-b-\n", "é", "a" * 121]
)
def test_designer_path_rejects_bad_slugs(slug: str) -> None:
    with pytest.raises(ValueError, match="not a brand slug"):
        vogue.designer_path(slug)
