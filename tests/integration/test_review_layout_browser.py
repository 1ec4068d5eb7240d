"""The review page's layout in a real browser (Debian's headless Chromium, driven by Selenium
as in test_review_browser.py), at 1280 px and at tablet widths: the heading names the
designer, the season and the city; a draft's photos are a grid of several columns, fewer
on a tablet; nothing scrolls sideways; each status has its own colour, its text readable on
it; the keyboard's focus is visible.

Screenshots of the queue and of a draft at 1280 px and at 768 px are saved as PNGs: into
``FASHION_SCREENSHOT_DIR`` when it is set (``docs/screenshots/`` for the documentation:
``FASHION_SCREENSHOT_DIR=docs/screenshots pytest tests/integration/test_review_layout_browser.py``),
else into the test's own folder. Layout does not depend on the catalog's database or the
store, so this module runs on SQLite and files alone.
"""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

import pytest
from PIL import Image, ImageDraw
from sqlalchemy import Engine, text

from fashion_assets.storage import ObjectStore
from tests.integration.test_browse_browser import shots  # noqa: F401 - the fixture
from tests.integration.test_review_app import browser_sign_in, draft_photo, review_app, serve
from tests.integration.test_review_browser import WAIT_S, driver, text_of  # noqa: F401
from tests.integration.test_review_headings import ALBUM, MAIN_SHOW, TOKYO, headed_drafts

pytestmark = pytest.mark.slow

DESKTOP = 1280
TABLETS = (768, 1024)
LOOKS = 12  # photos of the Tokyo show: two rows at 1280 px
MIN_CONTRAST = 4.5  # WCAG AA for text


@pytest.fixture
def database_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'catalog.db'}"


@pytest.fixture
def store_url(tmp_path: Path) -> str:
    return f"file://{tmp_path / 'objects'}"


def look(n: int) -> bytes:
    """A 240x360 drawing of a look (a figure on a coloured ground), different for each n."""
    ground = (230 - n * 7 % 60, 225 - n * 13 % 50, 220 - n * 5 % 40)
    cloth = (n * 67 % 200, n * 41 % 160 + 40, n * 29 % 180 + 30)
    image = Image.new("RGB", (240, 360), ground)
    draw = ImageDraw.Draw(image)
    draw.ellipse((100, 40, 140, 85), fill=(90, 70, 60))
    draw.polygon([(85, 95), (155, 95), (185, 300), (55, 300)], fill=cloth)
    draw.rectangle((95, 300, 112, 345), fill=(40, 40, 40))
    draw.rectangle((128, 300, 145, 345), fill=(40, 40, 40))
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def _add_looks(engine: Engine, store: ObjectStore, draft_id: int, count: int) -> None:
    with engine.begin() as conn:
        for n in range(1, count + 1):
            draft_photo(conn, store, draft_id, n, look(draft_id * 100 + n), (240, 360))


def _viewport(browser: Any, width: int, height: int) -> None:
    """Make the page's viewport ``width`` CSS pixels wide (the window has edges of its own)."""
    browser.set_window_size(width, height)
    inner = browser.execute_script("return window.innerWidth;")
    if inner != width:
        browser.set_window_size(width + (width - inner), height)
    assert browser.execute_script("return window.innerWidth;") == width


def _layout(browser: Any) -> dict[str, Any]:
    """What the page's layout is now: sideways overflow, the photo grid's columns."""
    return browser.execute_script(
        "const grid = document.querySelector('.photos');"
        " const lefts = grid ? new Set(Array.from(grid.querySelectorAll('figure'))"
        "   .map(f => Math.round(f.getBoundingClientRect().left))) : new Set();"
        " return {scroll: document.documentElement.scrollWidth,"
        "   width: window.innerWidth, columns: lefts.size};")


def _loaded(browser: Any) -> bool:
    return bool(browser.execute_script(
        "const seen = Array.from(document.images).filter("
        "  i => i.getBoundingClientRect().top < window.innerHeight);"
        " return seen.every(i => i.complete && i.naturalWidth > 0);"))


def _luminance(css: str) -> float:
    r, g, b = (int(v) / 255 for v in re.findall(r"\d+", css)[:3])
    return sum(w * (c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4)
               for w, c in zip((0.2126, 0.7152, 0.0722), (r, g, b), strict=True))


def contrast(ink: str, ground: str) -> float:
    """WCAG's contrast ratio of two ``rgb(...)`` colours."""
    light, dark = sorted((_luminance(ink), _luminance(ground)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def test_the_pages_name_the_show_lay_out_at_1280_and_on_a_tablet(
        driver: Any, engine: Engine, store: ObjectStore, shots: Path) -> None:  # noqa: F811
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.support.ui import WebDriverWait

    browser = driver
    drafts = headed_drafts(engine, store, photos=0)
    _add_looks(engine, store, drafts.tokyo, LOOKS)
    _add_looks(engine, store, drafts.main_show, 1)
    with engine.begin() as conn:
        conn.execute(text("UPDATE brand_runway_drafts SET status = 'approved' WHERE id = :id"),
                     {"id": drafts.main_show})
        conn.execute(text("UPDATE street_snap_drafts SET status = 'rejected',"
                          " reject_reason = 'not an album' WHERE id = :id"), {"id": drafts.album})
    wait = WebDriverWait(browser, WAIT_S)
    with serve(review_app(engine, store, editors=("layout-editor",))) as url:
        _viewport(browser, DESKTOP, 1000)
        browser.get(f"{url}/login")
        browser_sign_in(browser, "layout-editor")
        wait.until(lambda b: text_of(b, "#queue-count") is not None)
        queue, draft = f"{url}/?status=any", f"{url}/drafts/runway:{drafts.tokyo}"

        browser.get(queue)
        wait.until(_loaded)
        shows = browser.execute_script(
            "return Array.from(document.querySelectorAll('tr.draft a.open'))"
            ".map(a => a.innerText.replace(/\\s*\\n\\s*/g, ', '));")
        assert shows == [TOKYO, MAIN_SHOW, ALBUM]  # the designer on a line of its own
        assert _layout(browser)["scroll"] <= DESKTOP
        colours = browser.execute_script(
            "return Array.from(document.querySelectorAll('tr.draft .status')).map(e => {"
            " const s = getComputedStyle(e); return [e.innerText, s.color, s.backgroundColor];});")
        assert [name for name, _, _ in colours] == ["pending", "approved", "rejected"]
        assert len({ground for _, _, ground in colours}) == 3  # a colour for each status
        for name, ink, ground in colours:
            assert contrast(ink, ground) >= MIN_CONTRAST, name
        ActionChains(browser).send_keys("j").perform()  # the keyboard chooses a draft
        focus = browser.execute_script(
            "const e = document.activeElement, s = getComputedStyle(e);"
            " return [e.className, s.outlineStyle, parseFloat(s.outlineWidth)];")
        assert focus[0] == "open" and focus[1] != "none" and focus[2] >= 2, focus
        browser.execute_script("document.activeElement.blur();")
        browser.save_screenshot(str(shots / "review-queue-1280.png"))

        _viewport(browser, DESKTOP, 1100)
        browser.get(draft)
        wait.until(_loaded)
        assert text_of(browser, "#draft-title") == TOKYO
        assert browser.title == f"{TOKYO} · fashion-assets"
        desktop = _layout(browser)
        assert desktop["columns"] >= 5 and desktop["scroll"] <= DESKTOP, desktop
        browser.save_screenshot(str(shots / "review-draft-1280.png"))

        for width in TABLETS:
            _viewport(browser, width, 1024)
            browser.get(draft)
            wait.until(_loaded)
            tablet = _layout(browser)
            assert 1 < tablet["columns"] < desktop["columns"], (width, tablet)
            assert tablet["scroll"] <= width, (width, tablet)  # no sideways scrolling
            if width == TABLETS[0]:
                browser.save_screenshot(str(shots / f"review-draft-{width}.png"))
            browser.get(queue)
            wait.until(_loaded)
            assert _layout(browser)["scroll"] <= width, width
            assert text_of(browser, f"#draft-runway-{drafts.tokyo} a.open").startswith(
                "Anrealage")
            if width == TABLETS[0]:
                browser.save_screenshot(str(shots / f"review-queue-{width}.png"))
