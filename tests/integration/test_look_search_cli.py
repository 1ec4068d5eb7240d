"""``fashion-assets looks find``, the real command in a process of its own, on a catalog of
the replica's Vogue shows (tests/looks_catalog.py): a copy of a look finds it, a photo
that only resembles one finds nothing (exit 0), and a file that is missing or no photo ends
the command in one line, never a traceback. On SQLite, the command's default: the search's
catalog side has its tests on both databases (test_look_search_api.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from fashion_assets.replica.images import photo_body
from fashion_assets.replica.site import RESEMBLANCE_ALIKE, RESEMBLANCE_SAME
from fashion_assets.resources import catalog_engine
from fashion_assets.storage import open_store
from tests.looks_catalog import SHOWS, add_draft, gallery_of, key_of, promote_approved

SHOW = SHOWS[1]


@pytest.fixture
def home(tmp_path: Path, database_url: str) -> Path:
    """A FASHION_HOME whose catalog (the default, SQLite) holds the show, promoted."""
    engine = catalog_engine(database_url)
    store = open_store(f"file://{tmp_path / 'objects'}", home=tmp_path)
    add_draft(engine, store, "vogue", SHOW, SHOW.photos, "approved")
    promote_approved(engine, store)
    return tmp_path


def find(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "FASHION_HOME": str(home)}
    env.pop("FASHION_DATABASE_URL", None)
    return subprocess.run([sys.executable, "-m", "fashion_assets", "looks", "find", *args],
                          env=env, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_a_copy_finds_its_look_and_a_resemblance_finds_nothing(home: Path) -> None:
    gallery = gallery_of(SHOW).photos
    copy = next(p for p in gallery if p.resemblance == RESEMBLANCE_SAME)
    alike = next(p for p in gallery if p.resemblance == RESEMBLANCE_ALIKE)
    look = next(p for p in SHOW.photos if p.photo_id == copy.look_of)
    (home / "copy.jpg").write_bytes(photo_body(copy))
    (home / "alike.jpg").write_bytes(photo_body(alike))

    done = find(home, str(home / "copy.jpg"))
    assert done.returncode == 0, done.stderr
    first = done.stdout.splitlines()[0].split("\t")
    assert first[1:3] == ["runway", f"{SHOW.brand_slug} {SHOW.season_slug}"]
    assert first[3] == f"look {SHOW.photos.index(look) + 1}" and first[5] == key_of(look)

    done = find(home, str(home / "copy.jpg"), "--json", "--limit", "1")
    answer = json.loads(done.stdout)
    assert answer["match"] is True and len(answer["looks"]) == 1
    assert answer["looks"][0]["object_key"] == key_of(look)

    done = find(home, str(home / "alike.jpg"))
    assert done.returncode == 0 and done.stdout.startswith("no match"), done


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_a_missing_file_or_no_photo_is_one_line_and_a_failure(home: Path) -> None:
    (home / "page.jpg").write_text("<html><body>404</body></html>")
    for name, said in (("nowhere.jpg", "cannot read"), ("page.jpg", "(html:")):
        done = find(home, str(home / name))
        assert done.returncode == 1 and done.stdout == "", done
        [line] = done.stderr.splitlines()
        assert said in line and "give" in line and "Traceback" not in done.stderr, line


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
def test_an_endless_file_is_refused_past_the_cap_not_read_whole(home: Path) -> None:
    """A device (or a pipe) says no size: the command reads the cap and one byte more, then
    refuses in one line. Under a 1 GB address-space limit, so that reading it whole fails."""
    env = {**os.environ, "FASHION_HOME": str(home), "FASHION_LOOK_SEARCH_MAX_BYTES": "65536"}
    env.pop("FASHION_DATABASE_URL", None)
    limit = "import resource; resource.setrlimit(resource.RLIMIT_AS, (2**30, 2**30)); "
    done = subprocess.run(
        [sys.executable, "-c", limit + "from fashion_assets.cli import main; main()",
         "looks", "find", "/dev/zero"], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and done.stdout == "", done
    [line] = done.stderr.splitlines()
    assert "/dev/zero is over the 65536 bytes" in line and "Traceback" not in done.stderr
