"""Real vogue.com pages, read where they lie: ``shared/real_pages/`` beside the repository.

They are public pages the project must not copy (see their README). CI always has the
folder; a machine without it skips the tests that read them, with one line saying so: a
module of real-page tests alone skips as a whole, and a test that also runs on the replica
skips its real case here, in one place, so pytest folds those into one line.
"""

from __future__ import annotations

from pathlib import Path

import pytest

REAL_PAGES = Path(__file__).resolve().parents[1].parent / "shared" / "real_pages"


ABSENT = f"no real pages: {REAL_PAGES} is absent (shared/ beside the repository)"


def require_real_pages() -> None:
    """At a module's top: skip the whole module when the folder is absent."""
    if not REAL_PAGES.is_dir():
        pytest.skip(ABSENT, allow_module_level=True)


def real_page(name: str) -> str:
    """The text of the real page ``name``; skips the test when the folder is absent."""
    if not REAL_PAGES.is_dir():
        pytest.skip(ABSENT)
    return (REAL_PAGES / name).read_text(encoding="utf-8")
