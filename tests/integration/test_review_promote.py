"""Promotion from the command line: ``review promote`` runs ``promote_approved_drafts``
through the Dagster deployment, as ``store heal`` runs its job, and ``review approve``,
``status`` and ``looks find`` say how approved drafts get promoted while they wait (the
sensor that would promote them starts stopped, so a user of the shell alone saw nothing).

Real components: the replica crawled into a catalog on SQLite (the command's default), the
file store, the command's own `dagster dev`; the hint tests need no deployment and start
none.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

import httpx
import pytest
from dagster import DagsterInstance

from fashion_assets.catalog_api import create_api
from fashion_assets.cli.common import program
from fashion_assets.replica import ReplicaServer
from fashion_assets.replica.images import photo_body
from fashion_assets.resources import catalog_engine
from fashion_assets.storage import open_store
from tests.catalog_db import query
from tests.conftest import normal_brands
from tests.integration.test_cli import cli_env, run
from tests.integration.test_review_app import serve
from tests.looks_catalog import SHOWS, add_draft, key_of
from tests.pipeline import crawl_partitions

__all__ = ["cli_env"]  # the fixture, shared with test_cli.py
SQLITE = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)


def hint(waiting: str) -> str:
    """The line that says how approved drafts get promoted, the program as typed here."""
    return (f"{waiting} for promotion into the catalog: {program()} review promote promotes "
            f"them now, or the approved_drafts_sensor within a minute while Dagster's daemon "
            f"runs ({program()} ui)")


def runs_in(env: Mapping[str, str]) -> int:
    """Runs the command's Dagster instance holds (none before its deployment started)."""
    with DagsterInstance.from_config(env["DAGSTER_HOME"]) as instance:
        return instance.get_runs_count()


@SQLITE
def test_review_promote_runs_the_job_through_the_deployment_and_sums_it_up(
        cli_env: dict[str, str], database_url: str, replica: ReplicaServer) -> None:
    brand = normal_brands(replica)[0]
    photos = sum(len(show.photos) for show in brand.shows)
    [crawled] = crawl_partitions([("brand", brand.slug)], DagsterInstance.ephemeral(), cli_env)
    assert crawled["success"], crawled
    drafts = [str(n) for n in range(1, len(brand.shows) + 1)]

    code, out = run("review", "approve", *drafts)
    assert code == 0, out
    assert out.splitlines()[-1] == hint(f"{len(drafts)} approved drafts wait"), out

    code, out = run("review", "promote")

    assert code == 0, out
    assert (f"runway: {len(drafts)} drafts promoted into {len(drafts)} new and 0 updated "
            f"entries, {photos} photos added; street: nothing approved") in out.splitlines(), out
    assert query(database_url, "SELECT status, count(*) FROM brand_runway_drafts"
                               " GROUP BY status") == [("promoted", len(drafts))]
    assert query(database_url, "SELECT count(*) FROM brand_runway_images") == [(photos,)]
    assert runs_in(cli_env) == 1
    code, out = run("status")
    assert code == 0 and "wait for promotion" not in out, out

    # Nothing waits now: no run is launched, and --json says so.
    code, out = run("review", "promote", "--json")
    assert code == 0, out
    assert json.loads(out) == {"waiting": {"runway": 0, "street": 0}, "launched": False}
    assert runs_in(cli_env) == 1


@SQLITE
def test_a_promotion_its_checks_stop_fails_in_one_line(cli_env: dict[str, str],
                                                       database_url: str) -> None:
    """A photo of an approved draft lost from the store: the blocking check stops the run,
    and the command says so in a line and exits 1, the draft still approved."""
    show = SHOWS[0]
    store = open_store(f"file://{Path(cli_env['FASHION_HOME']) / 'objects'}",
                       home=Path(cli_env["FASHION_HOME"]))
    add_draft(catalog_engine(database_url), store, "vogue", show, show.photos[:2], "approved")
    assert store.delete(key_of(show.photos[0]))

    code, out = run("review", "promote")

    assert code == 1, out
    assert out.splitlines()[-1] == (
        "review promote: FAILED - 1 blocking asset check failed with ERROR severity: "
        "approved_drafts: draft_photos_stored"), out
    assert "Traceback" not in out
    assert query(database_url, "SELECT status FROM brand_runway_drafts") == [("approved",)]


@SQLITE
def test_review_promote_with_nothing_approved_starts_nothing(cli_env: dict[str, str]) -> None:
    code, out = run("review", "promote")

    assert code == 0, out
    assert out == ("no approved draft waits for promotion: nothing to run (approve drafts "
                   f"first: {program()} review approve 12 street:7)\n")
    assert not (Path(cli_env["DAGSTER_HOME"]) / "deployments").exists()
    assert runs_in(cli_env) == 0


@SQLITE
def test_approve_status_and_looks_find_say_how_drafts_get_promoted(
        cli_env: dict[str, str], database_url: str, tmp_path: Path) -> None:
    show = SHOWS[0]
    store = open_store(f"file://{tmp_path / 'objects'}", home=tmp_path)
    engine = catalog_engine(database_url)
    draft = add_draft(engine, store, "vogue", show, show.photos[:2], "pending")
    (tmp_path / "look.jpg").write_bytes(photo_body(show.photos[0]))

    code, out = run("status")
    assert code == 0 and "wait for promotion" not in out, out
    code, out = run("looks", "find", str(tmp_path / "look.jpg"))
    assert code == 0, out
    assert out == ("no match: the catalog has no promoted look yet; approved drafts become "
                   f"looks once promoted ({program()} review promote)\n")

    code, out = run("review", "approve", str(draft))
    assert code == 0, out
    assert out.splitlines()[-1] == hint("1 approved draft waits"), out
    code, out = run("status")
    assert code == 0, out
    assert hint("1 approved draft waits") in out.splitlines(), out
    code, out = run("status", "--json")
    assert json.loads(out)["promotion_waiting"] == {"runway": 1, "street": 0}


@SQLITE
def test_the_read_api_and_its_search_page_say_the_catalog_has_no_look_yet(
        database_url: str, tmp_path: Path) -> None:
    show = SHOWS[0]
    store = open_store(f"file://{tmp_path / 'objects'}", home=tmp_path)
    engine = catalog_engine(database_url)
    add_draft(engine, store, "vogue", show, show.photos[:2], "approved")  # not promoted
    photo = photo_body(show.photos[0])

    with serve(create_api(engine, store)) as url, httpx.Client(base_url=url) as api:
        answer = api.post("/api/v1/looks/search", content=photo,
                          headers={"Content-Type": "image/jpeg"})
        page = api.post("/catalog/looks/search", files={"photo": ("look.jpg", photo)})

    assert answer.status_code == 200, answer.text
    assert answer.json() == {"within": answer.json()["within"], "match": False, "looks": [],
                             "catalog_empty": True}
    assert page.status_code == 200, page.text
    assert ('<p id="no-match">No match: the catalog has no look yet, so there is nothing to '
            "compare this photo with.</p>") in page.text
