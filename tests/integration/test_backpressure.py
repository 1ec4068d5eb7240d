"""Backpressure on a real catalog (SQLite, and PostgreSQL where configured): the backlogs as
counted by SQL, pause and resume with hysteresis, and the gate's state kept in the database."""

from __future__ import annotations

import threading
from datetime import datetime, timedelta

import pytest
from sqlalchemy import Engine, text

from fashion_assets.catalog.backpressure import (
    BACKLOG_SQL,
    CRAWL_GATE,
    evaluate,
    peek,
    read_backlog,
    read_state,
)
from fashion_assets.catalog.db import create_catalog_engine, is_postgres
from fashion_assets.catalog.runway import add_brand
from fashion_assets.catalog.sql import insert_rows
from fashion_assets.domain.backpressure import Backlog, BackpressureRules, Level
from fashion_assets.resources import catalog_engine

RULES = BackpressureRules(pause_pending=10, alert_pending=6, pause_failed=4, alert_failed=2)
T0 = datetime(2026, 3, 1, 12, 0, 0)
_serial = iter(range(1_000_000))


@pytest.fixture
def engine(database_url: str) -> Engine:
    engine = catalog_engine(database_url)  # migrated, cities seeded
    add_brand(engine, "chloe", "Chloé")
    return engine


def runway_drafts(engine: Engine, count: int, *, status: str = "pending",
                  deleted: bool = False, source_urls: list[str] | None = None) -> None:
    urls = source_urls or [f"https://www.vogue.com/fashion-shows/s{next(_serial)}/chloe"
                           for _ in range(count)]
    with engine.begin() as conn:
        insert_rows(conn, "brand_runway_drafts",
                    ("source", "source_url", "brand_slug", "season_code", "status", "is_deleted"),
                    [("vogue", url, "chloe", f"season-{n}", status, deleted)
                     for n, url in enumerate(urls)])


def street_drafts(engine: Engine, count: int, *, status: str = "pending",
                  source_urls: list[str] | None = None) -> None:
    urls = source_urls or [f"https://theimpression.com/street-{next(_serial)}/"
                           for _ in range(count)]
    with engine.begin() as conn:
        insert_rows(conn, "street_snap_drafts",
                    ("source", "source_url", "city", "year", "month", "status"),
                    [("theimpression", url, "paris", 2026, 3, status) for url in urls])


def log(engine: Engine, *entries: tuple[str, str, str]) -> None:
    """Ingest-log rows (source_url, stage, outcome) in this order, i.e. by rising id."""
    with engine.begin() as conn:
        insert_rows(conn, "ingest_log",
                    ("run_id", "brand_slug", "source", "source_url", "stage", "outcome"),
                    [("run", "chloe", "theimpression" if "theimpression" in url else "vogue",
                      url, stage, outcome) for url, stage, outcome in entries])


def failures(engine: Engine, count: int) -> list[str]:
    """``count`` shows whose only log entry is a failed ingest; returns their source URLs."""
    urls = [f"https://www.vogue.com/fashion-shows/f{next(_serial)}/chloe" for _ in range(count)]
    log(engine, *((url, "ingest", "failed") for url in urls))
    return urls


def set_pending(engine: Engine, count: int) -> None:
    """Exactly ``count`` pending runway drafts (others approved, the way editors work)."""
    with engine.begin() as conn:
        have = int(conn.execute(text("SELECT count(*) FROM brand_runway_drafts"
                                     " WHERE status = 'pending'")).scalar_one())
        if have > count:
            conn.execute(text(
                "UPDATE brand_runway_drafts SET status = 'approved' WHERE id IN (SELECT id FROM"
                " brand_runway_drafts WHERE status = 'pending' ORDER BY id LIMIT :n)"),
                {"n": have - count})
    if count > have:
        runway_drafts(engine, count - have)


def test_the_review_backlog_counts_pending_drafts_of_both_kinds_that_are_not_deleted(
        engine: Engine) -> None:
    runway_drafts(engine, 3)
    runway_drafts(engine, 2, deleted=True)
    runway_drafts(engine, 1, status="approved")
    runway_drafts(engine, 1, status="rejected")
    runway_drafts(engine, 1, status="promoted")
    street_drafts(engine, 4)
    street_drafts(engine, 1, status="approved")

    assert read_backlog(engine) == Backlog(pending_review=7, failed_ingests=0)


def test_the_failed_backlog_counts_articles_whose_latest_entry_failed_and_that_have_no_draft(
        engine: Engine) -> None:
    vogue = "https://www.vogue.com/fashion-shows/{}/chloe".format
    street = "https://theimpression.com/{}/".format
    log(engine,
        (vogue("ingest-failed"), "ingest", "failed"),                    # counts
        (vogue("manifest-failed"), "manifest", "failed"),                # counts
        (vogue("failed-twice"), "manifest", "failed"),
        (vogue("failed-twice"), "ingest", "failed"),                     # counts once
        (vogue("created-later"), "ingest", "failed"),
        (vogue("created-later"), "ingest", "created"),                   # cleared
        (vogue("manifest-later"), "manifest", "failed"),
        (vogue("manifest-later"), "manifest", "fetched"),                # cleared
        (vogue("skipped-later"), "ingest", "failed"),
        (vogue("skipped-later"), "ingest", "skipped_already_ingested"),  # cleared
        (vogue("failed-again"), "ingest", "created"),
        (vogue("failed-again"), "ingest", "failed"),                     # latest failed: counts
        (vogue("repair-failed"), "ingest", "failed"),                    # has a draft: no
        (vogue("listing"), "listing", "failed"),                         # not an article: no
        (vogue("listing-after"), "ingest", "failed"),
        (vogue("listing-after"), "listing", "not_listed"),               # still counts
        (street("street-failed"), "ingest", "failed"),                   # counts
        (street("street-drafted"), "ingest", "failed"))                  # has a draft: no
    runway_drafts(engine, 1, source_urls=[vogue("repair-failed")], status="approved")
    street_drafts(engine, 1, source_urls=[street("street-drafted")], status="rejected")

    assert read_backlog(engine) == Backlog(pending_review=0, failed_ingests=6)

    # A draft of the same URL from another source does not clear the failure.
    with engine.begin() as conn:
        insert_rows(conn, "brand_runway_drafts",
                    ("source", "source_url", "brand_slug", "season_code"),
                    [("theimpression", vogue("ingest-failed"), "chloe", "x")])
    assert read_backlog(engine).failed_ingests == 6


def test_the_gate_pauses_at_the_threshold_holds_in_the_band_and_resumes_below_half(
        engine: Engine) -> None:
    set_pending(engine, 5)
    assert evaluate(engine, RULES).level is Level.OK
    assert read_state(engine) is None  # nothing written while nothing changes

    set_pending(engine, 6)
    alert = evaluate(engine, RULES)
    assert (alert.level, alert.paused, alert.alert) == (Level.ALERT, False, True)
    assert alert.reason == "alert: 6 drafts wait for review (alert at 6, pause at 10)"

    set_pending(engine, 9)
    assert evaluate(engine, RULES).level is Level.ALERT

    set_pending(engine, 10)
    paused = evaluate(engine, RULES, now=T0)
    assert paused.level is Level.PAUSED
    assert paused.reason == "paused: 10 drafts wait for review (pause at 10, resumes below 5)"

    for count in (9, 7, 5):  # the band: below the pause threshold, not below half
        set_pending(engine, count)
        held = evaluate(engine, RULES, now=T0 + timedelta(minutes=count))
        assert held.paused, count
        assert held.reason == (f"paused: {count} drafts wait for review (pause at 10,"
                               " resumes below 5)")
    state = read_state(engine)
    assert state is not None and state.paused
    assert state.changed_at == T0  # written when it paused, not on every tick since
    assert state.reason == paused.reason

    set_pending(engine, 4)
    resumed = evaluate(engine, RULES, now=T0 + timedelta(hours=1))
    assert (resumed.paused, resumed.resumed, resumed.level) == (False, True, Level.OK)
    state = read_state(engine)
    assert state is not None and not state.paused
    assert state.changed_at == T0 + timedelta(hours=1)

    set_pending(engine, 9)  # below the threshold again after resuming: no pause
    assert evaluate(engine, RULES).level is Level.ALERT


def test_failed_ingests_pause_the_gate_too_and_every_backlog_must_fall_below_half(
        engine: Engine) -> None:
    urls = failures(engine, 4)
    decision = evaluate(engine, RULES)
    assert decision.paused
    assert decision.reason == ("paused: 4 shows failed their last ingest (pause at 4,"
                               " resumes below 2)")

    log(engine, *((url, "ingest", "created") for url in urls[:2]))  # 2 left: half of 4
    set_pending(engine, 4)
    assert read_backlog(engine) == Backlog(4, 2)
    assert evaluate(engine, RULES).paused

    log(engine, (urls[2], "ingest", "created"))  # failed: 1, below half; pending 4, below 5
    decision = evaluate(engine, RULES)
    assert (decision.paused, decision.resumed) == (False, True)

    set_pending(engine, 5)
    failures(engine, 3)  # failed: 4, at its pause threshold, with pending in its band
    decision = evaluate(engine, RULES)
    assert decision.reason == (
        "paused: 5 drafts wait for review (pause at 10, resumes below 5);"
        " 4 shows failed their last ingest (pause at 4, resumes below 2)")


def test_the_state_outlives_the_engine_and_the_process_that_wrote_it(
        engine: Engine, database_url: str) -> None:
    set_pending(engine, 10)
    assert evaluate(engine, RULES).paused
    set_pending(engine, 7)  # in the band

    other = create_catalog_engine(database_url)  # a new engine, as another process has
    try:
        state = read_state(other)
        assert state is not None and state.paused and state.gate == CRAWL_GATE
        assert evaluate(other, RULES).paused  # a fresh reader would say "alert" here
        assert peek(other, RULES).paused
        set_pending(engine, 4)
        assert not evaluate(other, RULES).paused
    finally:
        other.dispose()
    state = read_state(engine)
    assert state is not None and not state.paused


def test_peek_decides_without_writing_and_gates_are_independent(engine: Engine) -> None:
    set_pending(engine, 12)
    assert peek(engine, RULES).paused
    assert read_state(engine) is None

    assert evaluate(engine, RULES, gate="crawl").paused
    set_pending(engine, 7)
    assert evaluate(engine, RULES, gate="crawl").paused
    assert evaluate(engine, RULES, gate="other").level is Level.ALERT  # never paused
    assert read_state(engine, "other") is None


def test_callers_evaluating_at_once_agree_and_write_one_row(database_url: str,
                                                             engine: Engine) -> None:
    set_pending(engine, 10)
    engines = [create_catalog_engine(database_url) for _ in range(6)]
    barrier = threading.Barrier(len(engines))
    decisions, errors = [], []

    def tick(e: Engine, n: int) -> None:
        barrier.wait()
        try:
            decisions.append(evaluate(e, RULES, now=T0 + timedelta(seconds=n)))
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=tick, args=(e, n)) for n, e in enumerate(engines)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for e in engines:
        e.dispose()

    assert not errors
    assert [d.paused for d in decisions] == [True] * len(engines)
    with engine.connect() as conn:
        rows = conn.execute(text("SELECT gate, paused FROM backpressure_state")).all()
    assert [(gate, bool(paused)) for gate, paused in rows] == [(CRAWL_GATE, True)]


def test_the_backlog_query_can_use_its_indexes(engine: Engine) -> None:
    """The partial index's condition is one the query implies, on both databases: with
    sequential scans priced out, the plan names the indexes."""
    with engine.begin() as conn:
        if is_postgres(engine):
            conn.execute(text("SET LOCAL enable_seqscan = off"))
            plan = "\n".join(row[0] for row in conn.execute(text(f"EXPLAIN {BACKLOG_SQL}")))
        else:
            plan = "\n".join(str(row[-1]) for row in conn.execute(
                text(f"EXPLAIN QUERY PLAN {BACKLOG_SQL}")))
    for index in ("ix_ingest_log_failed", "ix_ingest_log_article",
                  "uq_brand_runway_drafts_source", "uq_street_snap_drafts_source",
                  "ix_brand_runway_drafts_status", "ix_street_snap_drafts_status"):
        assert index in plan, plan
