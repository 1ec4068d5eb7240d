"""Editors' review of drafts, in the catalog and through the CLI, on SQLite and PostgreSQL."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy import Engine, text

from fashion_assets.catalog import review as review_module
from fashion_assets.catalog.review import ReviewError, get_draft, list_drafts, review
from fashion_assets.catalog.runway import add_brand
from fashion_assets.cli import main
from fashion_assets.resources import catalog_engine
from tests.catalog_db import query

CODE = "spring-2020-ready-to-wear"


def runway_draft(engine: Engine, source: str = "vogue", brand: str = "chloe",
                 code: str = CODE, status: str = "pending", photos: int = 2) -> int:
    with engine.begin() as conn:
        draft_id = conn.execute(text(
            "INSERT INTO brand_runway_drafts (source, source_url, brand_slug, season_code,"
            " title, season, year, collection_type, status) VALUES (:s, :u, :b, :c,"
            " 'Spring 2020 Ready-to-Wear', 'spring', 2020, 'ready-to-wear', :st) RETURNING id"),
            {"s": source, "u": f"https://{source}.example/{brand}/{code}", "b": brand, "c": code,
             "st": status}).scalar_one()
        for n in range(photos):
            conn.execute(text(
                "INSERT INTO brand_runway_draft_images (draft_id, position, object_key,"
                " source_image_url, content_type, width, height, byte_size)"
                " VALUES (:d, :p, :k, :u, 'image/jpeg', 800, 1200, 1000)"),
                {"d": draft_id, "p": n + 1, "k": f"{draft_id:04d}{n:036d}",
                 "u": f"https://cdn.example/{draft_id}/{n}.jpg"})
    return int(draft_id)


def street_draft(engine: Engine, source: str = "theimpression", city: str = "copenhagen",
                 year: int = 2026, month: int = 2) -> int:
    with engine.begin() as conn:
        return int(conn.execute(text(
            "INSERT INTO street_snap_drafts (source, source_url, city, year, month, title)"
            " VALUES (:s, :u, :c, :y, :m, 'Street style') RETURNING id"),
            {"s": source, "u": f"https://{source}.example/{city}-{year}-{month}-{source}",
             "c": city, "y": year, "m": month}).scalar_one())


@pytest.fixture
def engine(database_url: str) -> Engine:
    engine = catalog_engine(database_url)
    add_brand(engine, "chloe", "Chloé")
    return engine


def trail(database_url: str, kind: str = "runway") -> list[tuple]:
    return query(database_url, "SELECT draft_id, action, editor, reason, changes FROM"
                               " draft_reviews WHERE draft_kind = :k ORDER BY id", k=kind)


def state(database_url: str, draft_id: int) -> tuple:
    [row] = query(database_url, "SELECT status, is_deleted, reject_reason FROM"
                                " brand_runway_drafts WHERE id = :id", id=draft_id)
    return row[0], bool(row[1]), row[2]


def test_approve_records_who_when_and_what_changed(engine: Engine, database_url: str) -> None:
    draft = runway_draft(engine)

    [result] = review(engine, "runway", [draft], "approve", editor="alice")

    assert result.ok and result.changes == {"status": ("pending", "approved")}
    assert state(database_url, draft) == ("approved", False, "")
    assert trail(database_url) == [
        (draft, "approve", "alice", "", json.dumps({"status": ["pending", "approved"]}))]
    [(created_at,)] = query(database_url, "SELECT created_at FROM draft_reviews")
    assert created_at is not None
    [entry] = get_draft(engine, "runway", draft).trail
    assert (entry.editor, entry.action, entry.changes) == (
        "alice", "approve", {"status": ["pending", "approved"]})
    assert entry.created_at[:4].isdigit()


def test_a_rejection_needs_a_reason_and_a_refusal_writes_nothing(engine: Engine,
                                                                database_url: str) -> None:
    draft = runway_draft(engine)

    [refused] = review(engine, "runway", [draft], "reject", editor="alice", reason=" ")
    assert not refused.ok and refused.message == f"draft {draft}: a rejection needs a reason"
    assert state(database_url, draft) == ("pending", False, "") and trail(database_url) == []

    [rejected] = review(engine, "runway", [draft], "reject", editor="bob", reason="blurry")
    assert rejected.ok and state(database_url, draft) == ("rejected", False, "blurry")
    [approved] = review(engine, "runway", [draft], "approve", editor="alice")
    assert approved.ok and state(database_url, draft) == ("approved", False, "")
    assert [(a, e, r) for _, a, e, r, _ in trail(database_url)] == [
        ("reject", "bob", "blurry"), ("approve", "alice", "")]


def test_delete_and_restore_and_a_deleted_draft_is_not_approved(engine: Engine,
                                                               database_url: str) -> None:
    draft = runway_draft(engine)

    assert review(engine, "runway", [draft], "delete", editor="ed")[0].ok
    [approve] = review(engine, "runway", [draft], "approve", editor="ed")
    [again] = review(engine, "runway", [draft], "delete", editor="ed")
    assert not approve.ok and approve.message == f"draft {draft} is deleted: restore it first"
    assert not again.ok and "deleted already" in again.message
    assert state(database_url, draft) == ("pending", True, "")
    assert list_drafts(engine) == [] and len(list_drafts(engine, include_deleted=True)) == 1

    assert review(engine, "runway", [draft], "restore", editor="ed")[0].ok
    assert state(database_url, draft) == ("pending", False, "")
    assert [(a, json.loads(c)) for _, a, _, _, c in trail(database_url)] == [
        ("delete", {"is_deleted": [False, True]}), ("restore", {"is_deleted": [True, False]})]


def test_an_edit_of_the_season_code_sets_season_year_and_type(engine: Engine,
                                                              database_url: str) -> None:
    draft = runway_draft(engine)

    [result] = review(engine, "runway", [draft], "edit", editor="ed", reason="wrong show",
                      changes={"season_code": "fall-2019-menswear", "title": "Fall 2019"})

    assert result.ok, result.message
    assert query(database_url, "SELECT season_code, season, year, collection_type, title FROM"
                               " brand_runway_drafts") == [
        ("fall-2019-menswear", "fall", 2019, "menswear", "Fall 2019")]
    [(_, action, _, reason, changes)] = trail(database_url)
    assert (action, reason) == ("edit", "wrong show")
    assert json.loads(changes) == {
        "season_code": [CODE, "fall-2019-menswear"], "season": ["spring", "fall"],
        "year": [2020, 2019], "collection_type": ["ready-to-wear", "menswear"],
        "title": ["Spring 2020 Ready-to-Wear", "Fall 2019"]}


def test_edits_must_name_an_existing_brand_or_city(engine: Engine, database_url: str) -> None:
    draft, snap = runway_draft(engine), street_draft(engine)

    [brand] = review(engine, "runway", [draft], "edit", editor="ed",
                     changes={"brand_slug": "atlantis"})
    [city] = review(engine, "street", [snap], "edit", editor="ed", changes={"city": "atlantis"})
    [month] = review(engine, "street", [snap], "edit", editor="ed", changes={"month": 13})

    assert not brand.ok and "no brand 'atlantis'" in brand.message
    assert not city.ok and city.message == f"draft street:{snap}: no city 'atlantis'"
    assert not month.ok and "month 13 is outside 1..12" in month.message
    assert trail(database_url) == trail(database_url, "street") == []

    add_brand(engine, "atlantis")
    assert review(engine, "runway", [draft], "edit", editor="ed",
                  changes={"brand_slug": "atlantis"})[0].ok
    assert review(engine, "street", [snap], "edit", editor="ed", changes={"city": "paris"})[0].ok
    assert query(database_url, "SELECT city FROM street_snap_drafts") == [("paris",)]
    assert [json.loads(c) for *_, c in trail(database_url, "street")] == [
        {"city": ["copenhagen", "paris"]}]


def test_a_promoted_draft_is_neither_edited_nor_deleted(engine: Engine,
                                                       database_url: str) -> None:
    draft = runway_draft(engine, status="promoted")

    [edit] = review(engine, "runway", [draft], "edit", editor="ed", changes={"title": "X"})
    [delete] = review(engine, "runway", [draft], "delete", editor="ed")

    assert not edit.ok
    assert edit.message == f"draft {draft} is promoted: it is in the catalog already"
    assert not delete.ok and "is promoted" in delete.message
    assert state(database_url, draft) == ("promoted", False, "") and trail(database_url) == []


def test_each_draft_of_a_batch_is_decided_on_its_own(engine: Engine, database_url: str) -> None:
    first, approved, second = runway_draft(engine), runway_draft(engine, "theimpression",
                                                                 status="approved"), 999_999

    results = review(engine, "runway", [first, approved, second], "approve", editor="ed")

    assert [r.ok for r in results] == [True, False, False]
    assert results[1].message == f"draft {approved} is approved already"
    assert results[2].message == "no runway draft 999999"
    assert [d for d, *_ in trail(database_url)] == [first]


def test_a_constraint_the_checks_missed_is_a_message_not_a_traceback(
        engine: Engine, database_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    draft = runway_draft(engine)
    monkeypatch.setattr(review_module, "_missing_reference", lambda conn, changes: None)

    [result] = review(engine, "runway", [draft], "edit", editor="ed",
                      changes={"brand_slug": "atlantis"})

    assert not result.ok and "the catalog refused the change" in result.message
    assert query(database_url, "SELECT brand_slug FROM brand_runway_drafts") == [("chloe",)]
    assert trail(database_url) == []


def test_siblings_are_the_other_drafts_of_the_same_entity_key(engine: Engine) -> None:
    vogue, impression = runway_draft(engine, "vogue"), runway_draft(engine, "theimpression")
    other_season = runway_draft(engine, "vogue", code="fall-2019-menswear")
    february, february_too = street_draft(engine), street_draft(engine, source="other")
    august = street_draft(engine, month=8)

    assert [s.id for s in get_draft(engine, "runway", vogue).siblings] == [impression]
    assert [s.id for s in get_draft(engine, "runway", impression).siblings] == [vogue]
    assert get_draft(engine, "runway", other_season).siblings == []
    [sibling] = get_draft(engine, "street", february).siblings
    assert (sibling.id, sibling.ref, sibling.source) == (february_too, f"street:{february_too}",
                                                         "other")
    assert get_draft(engine, "street", august).siblings == []


def test_a_draft_shows_its_fields_and_photos(engine: Engine) -> None:
    draft = runway_draft(engine, photos=3)

    detail = get_draft(engine, "runway", draft)

    assert detail.summary.photos == 3 and detail.summary.brand_slug == "chloe"
    assert [p.position for p in detail.photos] == [1, 2, 3]
    assert detail.photos[0].source_image_url == f"https://cdn.example/{draft}/0.jpg"
    assert detail.fields["season_code"] == CODE and detail.fields["is_deleted"] is False
    with pytest.raises(ReviewError, match="no street draft 42"):
        get_draft(engine, "street", 42)


def test_list_filters(engine: Engine) -> None:
    add_brand(engine, "acme")
    vogue = runway_draft(engine, "vogue")
    acme = runway_draft(engine, "theimpression", brand="acme", status="approved", photos=0)
    snap = street_draft(engine)
    paris = street_draft(engine, city="paris")
    deleted = runway_draft(engine, "vogue", code="fall-2019-menswear")
    review(engine, "runway", [deleted], "delete", editor="ed")

    def ids(**filters: object) -> list[str]:
        return [d.ref for d in list_drafts(engine, **filters)]

    assert ids() == [str(vogue), str(acme), f"street:{snap}", f"street:{paris}"]
    assert ids(kind="street") == [f"street:{snap}", f"street:{paris}"]
    assert ids(status="approved") == [str(acme)]
    assert ids(brand="acme") == [str(acme)]
    assert ids(city="paris") == [f"street:{paris}"]
    assert ids(source="vogue") == [str(vogue)]
    assert ids(source="vogue", include_deleted=True) == [str(vogue), str(deleted)]
    assert ids(limit=2, offset=1) == [str(acme), f"street:{snap}"]
    assert [d.photos for d in list_drafts(engine, kind="runway")] == [2, 0]


# --- the CLI ---------------------------------------------------------------------------------


@pytest.fixture
def cli(engine: Engine, database_url: str, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> Engine:
    monkeypatch.setenv("FASHION_HOME", str(tmp_path))
    monkeypatch.setenv("FASHION_DATABASE_URL", database_url)
    monkeypatch.setenv("FASHION_EDITOR", "carol")
    return engine


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["review", *args], catch_exceptions=False)
    return result.exit_code, result.output


def test_cli_list_and_show_as_json(cli: Engine) -> None:
    vogue, impression = runway_draft(cli, "vogue"), runway_draft(cli, "theimpression")
    snap = street_draft(cli)

    code, out = run("list", "--json")
    assert code == 0, out
    assert [(d["kind"], d["id"], d["photos"]) for d in json.loads(out)["drafts"]] == [
        ("runway", vogue, 2), ("runway", impression, 2), ("street", snap, 0)]
    code, out = run("list", "--kind", "street", "--json")
    assert [d["ref"] for d in json.loads(out)["drafts"]] == [f"street:{snap}"]

    assert run("approve", f"runway:{vogue}")[0] == 0
    code, out = run("show", str(vogue), "--json")
    assert code == 0, out
    shown = json.loads(out)
    assert shown["summary"]["status"] == "approved" and len(shown["photos"]) == 2
    assert [s["id"] for s in shown["siblings"]] == [impression]
    [entry] = shown["trail"]
    assert (entry["editor"], entry["action"], entry["changes"]) == (
        "carol", "approve", {"status": ["pending", "approved"]})

    code, out = run("show", str(vogue))
    assert code == 0 and "audit trail (1)" in out and "siblings (1)" in out


def test_cli_actions_report_each_draft_and_exit_1_on_any_refusal(cli: Engine,
                                                                database_url: str) -> None:
    first, second = runway_draft(cli), runway_draft(cli, "theimpression")

    code, out = run("approve", str(first))
    assert code == 0 and out.splitlines()[0] == f"draft {first}: approved"
    assert out.splitlines()[1].startswith("1 approved draft waits for promotion"), out
    code, out = run("approve", str(first), str(second))
    assert code == 1
    assert f"refused: draft {first} is approved already" in out
    assert f"draft {second}: approved" in out
    code, out = run("reject", str(first), "--reason", "duplicate")
    assert code == 0 and state(database_url, first) == ("rejected", False, "duplicate")
    assert run("delete", str(second))[0] == 0
    code, out = run("approve", str(second))
    assert code == 1 and f"draft {second} is deleted: restore it first" in out
    assert run("restore", str(second))[0] == 0
    assert [(a, e) for _, a, e, _, _ in trail(database_url)] == [
        ("approve", "carol"), ("approve", "carol"), ("reject", "carol"), ("delete", "carol"),
        ("restore", "carol")]


def test_cli_reject_needs_a_reason_and_refs_are_checked(cli: Engine,
                                                        database_url: str) -> None:
    draft = runway_draft(cli)

    code, out = run("reject", str(draft))
    assert code == 2 and "--reason" in out
    code, out = run("approve", "catalog:3")
    assert code == 2 and "unknown draft kind" in out
    code, out = run("show", "street:42")
    assert code == 1 and "no street draft 42" in out
    assert trail(database_url) == []


def test_cli_edit_and_its_refusals(cli: Engine, database_url: str) -> None:
    draft, snap = runway_draft(cli), street_draft(cli)

    code, out = run("edit", str(draft), "--season-code", "resort-2018", "--title", "Resort")
    assert code == 0 and "edited" in out, out
    assert query(database_url, "SELECT season_code, season, year, title FROM"
                               " brand_runway_drafts") == [("resort-2018", "resort", 2018,
                                                            "Resort")]
    code, out = run("edit", f"street:{snap}", "--month", "8", "--city", "paris")
    assert code == 0, out
    assert query(database_url, "SELECT city, month FROM street_snap_drafts") == [("paris", 8)]

    code, out = run("edit", str(draft), "--brand", "atlantis")
    assert code == 1 and "no brand 'atlantis'" in out
    code, out = run("edit", str(draft), "--collection-type", "resortwear")
    assert code == 1 and "is not a collection type" in out
    code, out = run("edit", f"street:{snap}", "--season-code", "fall-2019")
    assert code == 1 and "cannot edit season_code of a street draft" in out
    code, out = run("edit", str(draft))
    assert code == 2 and "name a field to edit" in out
    assert [a for _, a, *_ in trail(database_url) + trail(database_url, "street")] == [
        "edit", "edit"]
