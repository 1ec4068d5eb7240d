"""Status is Dagster's word joined with the crawl's, and counts mean one thing each, through
the real command and the ``dagster dev`` it starts: a run waiting for its step's retry is
running, said with why and when (status and /crawler); a listing that does not exist fails
its run, whatever the partition's kind, and leaves no partition behind; a re-crawl's photo
counts agree with its per-show lines, its --json and the drafts step's metadata."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from fashion_assets.cli import main
from fashion_assets.launch.summaries import crawl_kinds
from fashion_assets.replica import HOSTILE_BRAND
from tests.integration.test_cli import SQLITE, cli_env, run  # noqa: F401 - cli_env: fixture


@SQLITE
def test_a_season_or_week_the_source_does_not_have_fails_and_leaves_no_partition(
        cli_env: dict[str, str]) -> None:  # noqa: F811
    """Every partition kind as a brand: a listing that does not exist is the run's failure
    (a season printed "1 listed" and exited 0), in one line each, and the partitions the
    command added are removed again (a week's stayed, red, turning its group red)."""
    from dagster import DagsterInstance

    result = CliRunner().invoke(main, ["crawl", "--season", "spring-1900-ready-to-wear",
                                       "--week", "nowhere-fashion-week"],
                                catch_exceptions=False)

    assert result.exit_code == 1, result.output
    assert sorted(result.stdout.splitlines()) == [
        "nowhere-fashion-week: FAILED - listing /street-style/nowhere-fashion-week/ not read:"
        " not_found: HTTP 404",
        "spring-1900-ready-to-wear: FAILED - listing /runway/spring-1900-ready-to-wear/ not"
        " read: not_found: HTTP 404"], result.output
    kinds = crawl_kinds()
    with DagsterInstance.from_config(cli_env["DAGSTER_HOME"]) as instance:
        for kind in ("season", "week"):
            assert instance.get_dynamic_partitions(kinds[kind].partitions) == [], kind


@SQLITE
@pytest.mark.timeout(1500)  # a crawl through dagster dev, its stop waits STOP_GRACE_S
def test_a_run_waiting_for_its_retry_is_running_and_status_says_when(
        cli_env: dict[str, str]) -> None:  # noqa: F811
    """While a step waits for its retry, Dagster holds its run STARTED and its progress row
    is ended with the attempt: status said "running 0". It counts the run running, waiting
    to retry, with the step's reason and when it runs again (the event the command reads);
    so does the /crawler page."""
    with socket.socket() as closed:  # bound, never listening: connections are refused
        closed.bind(("127.0.0.1", 0))
        env = {**os.environ, "FASHION_STEP_RETRY_DELAY": "300",  # 5 to 15 min of back-off
               "FASHION_VOGUE_BASE_URL": f"http://127.0.0.1:{closed.getsockname()[1]}"}
        crawl = subprocess.Popen([sys.executable, "-m", "fashion_assets", "crawl", "--brand",
                                  "chloe"], env=env, stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, text=True)
        try:
            deadline = time.monotonic() + 600  # dagster dev's start and the first attempt
            while not (crawler := json.loads(run("status", "--json")[1])["crawler"])["retrying"]:
                assert crawl.poll() is None and time.monotonic() < deadline, crawler
                time.sleep(1)
            code, out = run("status")
            page = _crawler_page(cli_env)
        finally:
            crawl.send_signal(signal.SIGTERM)
            crawl.communicate(timeout=600)  # the stop waits STOP_GRACE_S for the run

    assert crawler["line"].startswith("crawler: running 1 (1 waiting to retry), queued 0")
    [waiting] = crawler["retrying"]
    assert (waiting["partition_key"], waiting["step"]) == ("chloe", "runway_show_listings")
    assert "robots_unavailable" in waiting["reason"] and waiting["retry_in_s"] > 60, waiting
    assert code == 0 and out.splitlines()[0] == crawler["line"], out
    assert re.fullmatch(r"  waiting chloe \(runway_crawl\): step runway_show_listings failed \("
                        r".*robots_unavailable.*\); Dagster runs it again in \d+ s \(at "
                        r"\d\d:\d\d:\d\d UTC\) \[run [-0-9a-f]+\]", out.splitlines()[1]), out
    assert crawler["line"] in page and f'id="retrying-{waiting["run_id"]}"' in page, page
    assert f"<td class=\"retry-at\">{waiting['retry_at']}</td>" in page, page


def _crawler_page(env: dict[str, str]) -> str:
    """The review app's /crawler page on the catalog and instance of ``env``."""
    from dagster import DagsterInstance

    from fashion_assets.catalog.engines import catalog_engine
    from fashion_assets.storage import open_store
    from tests.integration.test_review_app import review_app, serve, sign_in

    engine = catalog_engine(env["FASHION_DATABASE_URL"])
    store = open_store(f"file://{env['FASHION_HOME']}/objects", home=Path(env["FASHION_HOME"]))
    with DagsterInstance.from_config(env["DAGSTER_HOME"]) as instance, serve(
            review_app(engine, store, instance=instance)) as url:
        return sign_in(url).get("/crawler").text


@SQLITE
def test_a_re_crawl_counts_the_photos_drafts_gained_the_same_everywhere(
        cli_env: dict[str, str]) -> None:  # noqa: F811
    """A re-crawl repairs the hostile brand's incomplete shows: it said "33 photos stored"
    beside per-show lines "0 photos added", and its drafts step "requests 0" beside the
    photos the manifests step had fetched. Photos added to drafts, fetched and missing are
    one count each: the per-show lines add up to the run's line, its --json, the metadata."""
    from dagster import AssetKey, DagsterInstance

    run("crawl", "--brand", HOSTILE_BRAND)
    _, out = run("crawl", "--brand", HOSTILE_BRAND)
    shows = [re.search(r"\((\d+) photos? added(?: of (\d+) fetched)?, (\d+) missing\)", line)
             for line in out.splitlines() if re.match(r"\[\d+/\d+\] .* photos? added", line)]
    assert shows and all(shows), out
    added = sum(int(m[1]) for m in shows)
    fetched = sum(int(m[2] or m[1]) for m in shows)
    missing = sum(int(m[3]) for m in shows)
    assert out.splitlines()[-1].endswith(
        f"; {added} photos added to drafts, {fetched} fetched, {missing} missing"), out

    _, out = run("crawl", "--brand", HOSTILE_BRAND, "--json")
    [summary] = json.loads(out[out.index("{"):])["crawls"]
    with DagsterInstance.from_config(cli_env["DAGSTER_HOME"]) as instance:
        [record] = instance.fetch_materializations(
            AssetKey(crawl_kinds()["brand"].drafts_asset), limit=1).records
        metadata = record.asset_materialization.metadata
    assert {key: metadata[key].value for key in ("photos_added", "images_stored",
                                                 "images_missing")} == {
        key: summary[key] for key in ("photos_added", "images_stored", "images_missing")}
    assert "requests_by_this_step" in metadata and "requests" not in metadata
