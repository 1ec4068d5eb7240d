"""What the command says, through the real command (a subprocess on a SQLite catalog): a
count reads "1 waiting article", a brand's approval says what the brand got, a refusal
names the option that overrides it, and a mistake is refused before a password is typed
and ends in one line with a non-zero exit."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import Engine

from fashion_assets.catalog.names import WaitingArticle, hold_articles, resolve_names
from fashion_assets.catalog.runway import add_brand
from fashion_assets.domain.names import NameKind
from fashion_assets.resources import catalog_engine
from tests.integration.test_review import runway_draft

PASSWORD = "a long enough password"


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    # The interpreter's folder first on PATH: the hints say `fashion-assets` by name.
    return {**os.environ, "FASHION_DATABASE_URL": f"sqlite:///{tmp_path / 'catalog.db'}",
            "FASHION_HOME": str(tmp_path / "home"), "FASHION_EDITOR": "tester",
            "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]])}


@pytest.fixture
def engine(env: dict[str, str]) -> Engine:
    return catalog_engine(env["FASHION_DATABASE_URL"])


def command(env: dict[str, str], *args: str, typed: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "fashion_assets", *args], env=env,
                          input=typed, capture_output=True, text=True, timeout=120)


def pending(engine: Engine, kind: NameKind, name: str, article: WaitingArticle) -> int:
    """A name no entity matched, with one article waiting for it (as a crawl leaves it)."""
    outcome = resolve_names(engine, kind, [(name, article.source, article.source_url)])[name]
    assert outcome.pending_id is not None
    hold_articles(engine, outcome.pending_id, [article])
    return outcome.pending_id


def test_approving_a_brand_says_it_is_a_new_brand_and_counts_one_article_as_one(
        env: dict[str, str], engine: Engine) -> None:
    path = "/maison-inconnue-fall-2026-ready-to-wear-collection/"
    name_id = pending(engine, NameKind.BRAND, "Maison Inconnue", WaitingArticle(
        "runway", "theimpression", f"https://theimpression.com{path}", path,
        "fall-2026-ready-to-wear", "Maison Inconnue Fall 2026 Ready-to-Wear Collection",
        season_code="fall-2026-ready-to-wear"))

    done = command(env, "names", "approve", str(name_id))

    assert done.returncode == 0, done
    assert done.stdout == (
        "approved: 'Maison Inconnue' is the new brand maison-inconnue: 1 waiting article "
        "released; draft it with: fashion-assets crawl --season fall-2026-ready-to-wear\n")


def test_merging_a_city_says_how_many_shows_it_was_given(env: dict[str, str],
                                                         engine: Engine) -> None:
    path = "/stockholm-street-style-1/"
    name_id = pending(engine, NameKind.CITY, "Stokholm", WaitingArticle(
        "street", "theimpression", f"https://theimpression.com{path}", path,
        "stockholm-fashion-week", "Street style", year=2026, month=2))

    done = command(env, "names", "merge", str(name_id), "stockholm")

    assert done.returncode == 0, done
    assert done.stdout == (
        "merged: 'Stokholm' is now another name of the city stockholm: 1 waiting article "
        "released, 0 shows given the city; draft it with: fashion-assets crawl --week "
        "stockholm-fashion-week\n")


def test_approving_a_draft_without_photos_names_the_option_that_confirms_it(
        env: dict[str, str], engine: Engine) -> None:
    add_brand(engine, "chloe")
    draft = runway_draft(engine, photos=0)

    refused = command(env, "review", "approve", f"runway:{draft}")
    approved = command(env, "review", "approve", f"runway:{draft}", "--confirm-no-photos")

    assert refused.returncode == 1 and refused.stdout == "", refused
    assert refused.stderr == (f"refused: draft {draft} has no photos: approve it only "
                              "if it should have none, and confirm that with "
                              "--confirm-no-photos\n")
    assert approved.returncode == 0 and f"draft {draft}: approved" in approved.stdout


@pytest.mark.parametrize(("args", "said"), [
    (("editors", "add", "Bad Name"), "Error: 'Bad Name' is not an editor name"),
    (("editors", "add", "ada"), "Error: an editor named 'ada' exists already"),
    (("editors", "passwd", "nobody"), "Error: no editor named 'nobody'"),
])
def test_an_editor_name_is_refused_before_the_password_is_asked_for(
        env: dict[str, str], args: tuple[str, ...], said: str) -> None:
    assert command(env, "editors", "add", "ada", "--password-stdin",
                   typed=PASSWORD + "\n").returncode == 0

    done = command(env, *args, typed=f"{PASSWORD}\n{PASSWORD}\n")

    assert done.returncode == 1 and "password" not in done.stdout, done
    [line] = done.stderr.splitlines()
    assert line.startswith(said), line


def test_a_weak_password_is_refused_as_typed_and_asked_for_again(env: dict[str, str]) -> None:
    done = command(env, "editors", "add", "ada", typed=f"short\n{PASSWORD}\n{PASSWORD}\n")

    assert done.returncode == 0, done
    assert "Error: a password needs at least 12 characters" in done.stdout
    assert done.stdout.endswith("added editor ada\n")


@pytest.mark.parametrize(("args", "said"), [
    (("--show-id", "999999"), "Error: no show 999999 in the catalog"),
    (("--show-id", "999999", "--show-id", "5"), "Error: no shows 5, 999999 in the catalog"),
    (("--brand", "nosuch"), "Error: no brand 'nosuch' in the catalog"),
])
def test_retrying_a_show_the_catalog_lacks_is_one_line_and_a_failure(
        env: dict[str, str], engine: Engine, args: tuple[str, ...], said: str) -> None:
    done = command(env, "coverage", "retry", *args)

    assert done.returncode == 1 and done.stdout == "", done
    assert done.stderr == f"{said}: fashion-assets coverage list shows the given-up ones\n"
