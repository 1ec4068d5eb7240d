"""A setting a command cannot use (FASHION_HOME, FASHION_DATABASE_URL, FASHION_STORE_URL,
DAGSTER_HOME) ends every command that touches it in one line on stderr that names the
variable to change, and exit 1: never a traceback, never a crawl that sits through Dagster's
retries (cli/errors.py, folders.py, storage.writable_store, resources.settings_not_retried).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import normal_brands, pipeline_env
from tests.pipeline import crawl_brands

PG_ENV = "FASHION_TEST_DATABASE_URL"
PHOTO = "{photo}"  # a file ``one_line`` writes into the test's folder, for looks find
COMMANDS = (("status",), ("review", "list"), ("names", "list"), ("coverage", "list"),
            ("brands", "list"), ("store", "missing"), ("editors", "list"),
            ("looks", "find", PHOTO), ("review", "promote"), ("store", "heal"),
            ("crawl", "--brand", "acne-studios"), ("review", "serve", "--port", "0"),
            ("api", "serve", "--port", "0"))
"""Every command that opens the catalog, the store or the Dagster instance."""
STORE_COMMANDS = (("status",), ("store", "heal"), ("crawl", "--brand", "acne-studios"),
                  ("review", "serve", "--port", "0"), ("api", "serve", "--port", "0"))
"""The commands that open the object store."""
OWN_SETTINGS = ("FASHION_HOME", "FASHION_DATABASE_URL", "FASHION_STORE_URL", "DAGSTER_HOME",
                "FASHION_DAGSTER_URL")


def named(args: tuple[str, ...]) -> str:
    return " ".join(args[:2]) if args[0] != "crawl" else "crawl"


def one_line(args: tuple[str, ...], cwd: Path, **settings: str) -> str:
    """The command's only stderr line, once it exited 1 without output or traceback."""
    photo = cwd / "look.jpg"
    photo.write_bytes(b"\xff\xd8 not decoded: the command ends before")
    env = {name: value for name, value in os.environ.items()
           if name not in OWN_SETTINGS and not name.startswith("AWS_")}
    env.update(settings)
    done = subprocess.run([sys.executable, "-m", "fashion_assets",
                           *(arg.format(photo=photo) for arg in args)],
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and done.stdout == "", done
    assert "Traceback" not in done.stderr, done.stderr
    [line] = done.stderr.splitlines()
    return line


@pytest.mark.parametrize("args", COMMANDS, ids=named)
def test_a_data_folder_that_is_a_file_is_one_line(args: tuple[str, ...],
                                                   tmp_path: Path) -> None:
    """A FileExistsError or NotADirectoryError traceback before, from the first mkdir."""
    home = tmp_path / "home"
    home.write_text("a file, not a folder")
    line = one_line(args, tmp_path, FASHION_HOME=str(home))
    assert line.startswith(f"Error: cannot use the folder {home}"), line
    assert line.endswith(f": {home} is a file, not a folder; set FASHION_HOME to a folder "
                         "this user may write"), line


@pytest.fixture
def immutable(tmp_path: Path) -> Iterator[Path]:
    """A folder nobody may write in, root included (these tests run as root too, whom
    permissions do not stop): ``chattr +i``, on the file systems that have it."""
    folder = tmp_path / "immutable"
    folder.mkdir()
    chattr = shutil.which("chattr")
    if chattr is None or subprocess.run([chattr, "+i", str(folder)],
                                        capture_output=True).returncode:
        pytest.skip("chattr +i is not available here")
    try:
        yield folder
    finally:
        subprocess.run([chattr, "-i", str(folder)], check=True)


@pytest.mark.parametrize("args", [("status",), ("crawl", "--brand", "acne-studios"),
                                  ("review", "serve", "--port", "0")], ids=named)
@pytest.mark.parametrize("inside", [False, True], ids=["the folder", "a folder inside"])
def test_a_data_folder_nobody_may_write_is_one_line(args: tuple[str, ...], inside: bool,
                                                    immutable: Path, tmp_path: Path) -> None:
    """SQLite's "unable to open database file", with the advice to start the database,
    or a PermissionError traceback, before."""
    home = immutable / "home" if inside else immutable
    line = one_line(args, tmp_path, FASHION_HOME=str(home))
    assert line.startswith(f"Error: cannot use the folder {home}"), line
    assert line.endswith("; set FASHION_HOME to a folder this user may write"), line


@pytest.mark.parametrize(("setting", "value", "args"), [
    ("FASHION_DATABASE_URL", "sqlite:///{file}/catalog.db", ("status",)),
    ("DAGSTER_HOME", "{file}/dagster", ("crawl", "--brand", "acne-studios")),
    ("FASHION_STORE_URL", "file://{file}/objects", ("crawl", "--brand", "acne-studios")),
], ids=["FASHION_DATABASE_URL", "DAGSTER_HOME", "FASHION_STORE_URL"])
def test_a_folder_another_setting_names_is_said_with_that_setting(
        setting: str, value: str, args: tuple[str, ...], tmp_path: Path) -> None:
    file = tmp_path / "file"
    file.write_text("a file, not a folder")
    line = one_line(args, tmp_path, FASHION_HOME=str(tmp_path / "home"),
                    **{setting: value.format(file=file)})
    assert line.endswith(f": {file} is a file, not a folder; set {setting} to a folder this "
                         "user may write"), line


@pytest.mark.parametrize(("url", "said", "args"), [
    *(("garbage", "store URL 'garbage' has no scheme", args) for args in STORE_COMMANDS),
    ("ftp://x", "store URL 'ftp://x' has unknown scheme 'ftp'", ("status",))],
    ids=[f"garbage-{named(args)}" for args in STORE_COMMANDS] + ["ftp-status"])
def test_a_store_url_that_is_none_is_one_line(url: str, said: str, args: tuple[str, ...],
                                              tmp_path: Path) -> None:
    """A ValueError traceback before (status, the servers); crawl and store heal sat in
    their runs' retries for minutes."""
    line = one_line(args, tmp_path, FASHION_HOME=str(tmp_path), FASHION_STORE_URL=url)
    assert line.startswith(f"Error: {said}; expected "), line
    assert line.endswith(" (FASHION_STORE_URL)"), line


@pytest.mark.parametrize("args", [("crawl", "--brand", "acne-studios"),
                                  ("api", "serve", "--port", "0")], ids=named)
@pytest.mark.parametrize("credentials", [False, True], ids=["no credentials", "no endpoint"])
def test_an_s3_store_out_of_reach_is_one_line(args: tuple[str, ...], credentials: bool,
                                              tmp_path: Path) -> None:
    """The servers said they were up and failed every photo; crawl and store heal sat in
    their runs' retries."""
    with socket.socket() as closed:  # bound, never listening: a connection is refused
        closed.bind(("127.0.0.1", 0))
        endpoint = f"http://127.0.0.1:{closed.getsockname()[1]}"
        aws = {"AWS_ACCESS_KEY_ID": "a", "AWS_SECRET_ACCESS_KEY": "b"} if credentials else {
            "AWS_SHARED_CREDENTIALS_FILE": str(tmp_path / "none"),
            "AWS_CONFIG_FILE": str(tmp_path / "none"), "AWS_EC2_METADATA_DISABLED": "true"}
        line = one_line(args, tmp_path, FASHION_HOME=str(tmp_path),
                        FASHION_STORE_URL="s3://bucket", AWS_ENDPOINT_URL_S3=endpoint, **aws)
    failure = "EndpointConnectionError" if credentials else "NoCredentialsError"
    assert line == (
        f"Error: the object store s3://bucket cannot be used: S3 bucket check on s3://bucket "
        f"failed: {failure}; start it, or set FASHION_STORE_URL (with AWS_ENDPOINT_URL_S3 "
        "and the credentials) to one that answers"), line


@pytest.mark.parametrize("args", [("status",), ("review", "list"), ("store", "heal"),
                                  ("review", "serve", "--port", "0")], ids=named)
def test_a_catalog_database_that_is_not_there_is_one_line(args: tuple[str, ...],
                                                          tmp_path: Path) -> None:
    """A PostgreSQL server that runs, without the database the URL names."""
    if not os.environ.get(PG_ENV):
        pytest.skip(f"{PG_ENV} names no PostgreSQL server")
    from sqlalchemy.engine import make_url

    url = make_url(os.environ[PG_ENV]).set(database="fa_no_such_database", password="s3cret")
    line = one_line(args, tmp_path, FASHION_HOME=str(tmp_path),
                    FASHION_DATABASE_URL=url.render_as_string(hide_password=False))
    assert 'database "fa_no_such_database" does not exist' in line, line
    assert line.endswith("start it, or set FASHION_DATABASE_URL to one that runs"), line
    assert "s3cret" not in line


def test_a_crawl_with_a_store_url_that_is_none_ends_at_once(replica: Any,
                                                            tmp_path: Path) -> None:
    """With the replica's settings, as the README gives them: the command ends before a
    deployment is started or a page fetched (it sat through its run's retries, minutes)."""
    from fashion_assets.demo import replica_env

    started = time.monotonic()
    line = one_line(("crawl", "--brand", "acne-studios"), tmp_path, FASHION_HOME=str(tmp_path),
                    FASHION_STORE_URL="garbage", **replica_env(replica))
    assert line.endswith(" (FASHION_STORE_URL)"), line
    assert time.monotonic() - started < 30
    assert not (tmp_path / "dagster").exists()  # no instance made, no deployment started


def test_a_run_fails_for_good_on_a_store_url_that_is_none(replica: Any, dagster_instance: Any,
                                                         tmp_path: Path) -> None:
    """A run started without the command (the Dagster UI, a schedule) fails its step once,
    with the command's line: Dagster retried it under the crawl's retry policy, minutes
    apart, for a setting no retry changes."""
    from dagster import DagsterEventType

    env = pipeline_env(tmp_path, f"sqlite:///{tmp_path / 'catalog.db'}", "garbage", replica)
    [summary] = crawl_brands([normal_brands(replica)[0].slug], dagster_instance, env)
    assert not summary["success"]
    [run] = dagster_instance.get_run_records()
    logs = dagster_instance.all_logs(run.dagster_run.run_id)
    assert not [e for e in logs if e.dagster_event
                and e.dagster_event.event_type == DagsterEventType.STEP_UP_FOR_RETRY]
    [failure] = [e.dagster_event for e in logs if e.dagster_event
                 and e.dagster_event.event_type == DagsterEventType.STEP_FAILURE]
    said = failure.step_failure_data.error.message
    assert "store URL 'garbage' has no scheme" in said and "(FASHION_STORE_URL)" in said, said
