"""One home: the command finds the same data from any folder, and the Dagster UI opened the
documented ways (``fashion-assets ui``; plain ``dagster dev`` with ``fashion-assets home``'s
lines in ``.env``) shows the runs the command made, with the sensors a newcomer needs on.

Every command runs without ``FASHION_HOME`` and ``DAGSTER_HOME``, as on a bare machine, with
``XDG_DATA_HOME`` pointing at the test's folder: the user's data folder of platformdirs."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from fashion_assets.launch.deployment import answers
from fashion_assets.replica import ReplicaServer
from tests.conftest import normal_brands, pipeline_env

pytestmark = pytest.mark.slow

BIN = Path(sys.executable).parent
REPO = Path(__file__).parents[2]
START_DEADLINE_S = 240.0
RUNS_QUERY = "{ runsOrError { ... on Runs { results { runId status } } } }"
SENSORS_QUERY = """{ workspaceOrError { ... on Workspace { locationEntries {
  locationOrLoadError { ... on RepositoryLocation { repositories {
    sensors { name sensorState { status } } schedules { name scheduleState { status } }
} } } } } } }"""


def bare_env(tmp_path: Path, **more: str) -> dict[str, str]:
    """This environment without the project's folders, its user data folder in ``tmp_path``."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("FASHION_") and k != "DAGSTER_HOME"}
    return {**env, "XDG_DATA_HOME": str(tmp_path / "data"), "DAGSTER_DISABLE_TELEMETRY": "1",
            **more}


def fashion_assets(*args: str, cwd: Path, env: Mapping[str, str]
                   ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(BIN / "fashion-assets"), *args], cwd=cwd, env=dict(env),
                          capture_output=True, text=True, timeout=600, check=False)


def test_commands_from_any_folder_share_the_user_data_folder(tmp_path: Path) -> None:
    env = bare_env(tmp_path)
    one, other = tmp_path / "one", tmp_path / "other"
    one.mkdir()
    other.mkdir()

    added = fashion_assets("brands", "add", "acne-studios", cwd=one, env=env)
    assert added.returncode == 0, added.stdout + added.stderr
    listed = fashion_assets("brands", "list", cwd=other, env=env)
    assert listed.returncode == 0 and "acne-studios" in listed.stdout, listed.stdout
    home = tmp_path / "data" / "fashion-assets"
    assert (home / "catalog.db").is_file()
    assert not list(one.iterdir()) and not list(other.iterdir())  # no ./.fashion anywhere

    status = fashion_assets("status", cwd=other, env=env)
    assert status.returncode == 0 and "brands 1," in status.stdout, status.stdout
    assert (f"automation: sensors on, ticking while Dagster's daemon runs ({BIN / 'fashion-assets'}"
            " ui); schedules off (weekly crawls of the real sites and store checks: turn them "
            "on in the UI, Automation)") in status.stdout.splitlines(), status.stdout

    shown = fashion_assets("home", cwd=other, env=env)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.splitlines()[1:] == [f"export FASHION_HOME={home}",
                                             f"export DAGSTER_HOME={home / 'dagster'}"]


def test_the_ui_and_plain_dagster_dev_show_the_commands_runs_with_the_sensors_on(
        tmp_path: Path, replica: ReplicaServer) -> None:
    settings = {k: v for k, v in pipeline_env(tmp_path, "", "", replica).items()
                if k not in ("FASHION_HOME", "FASHION_DATABASE_URL", "FASHION_STORE_URL")}
    env = bare_env(tmp_path, **settings)
    brand = normal_brands(replica)[0].slug
    crawled = fashion_assets("crawl", "--brand", brand, cwd=tmp_path, env=env)
    assert crawled.returncode == 0, crawled.stdout + crawled.stderr
    runs = command_runs(tmp_path / "data" / "fashion-assets" / "dagster")
    assert runs

    # The command's way: `fashion-assets ui`.
    port = free_port()
    with started([str(BIN / "fashion-assets"), "ui", "--port", str(port)], tmp_path, env,
                 "Dagster UI at ") as line:
        assert line.startswith(f"Dagster UI at http://127.0.0.1:{port} on DAGSTER_HOME="
                               f"{tmp_path / 'data' / 'fashion-assets' / 'dagster'}"), line
        assert "schedules are off" in line, line
        url = f"http://127.0.0.1:{port}"
        assert runs <= seen_runs(url)
        assert automation(url) == EXPECTED_AUTOMATION

    # Dagster's way, in a folder like the repository's root: `fashion-assets home > .env`.
    root = tmp_path / "root"
    root.mkdir()
    shutil.copy(REPO / "workspace.yaml", root)
    home = fashion_assets("home", cwd=root, env=env)
    (root / ".env").write_text(home.stdout)
    port = free_port()
    with started([str(BIN / "dagster"), "dev", "-p", str(port)], root, bare_env(root),
                 "Serving dagster-webserver"):
        assert runs <= seen_runs(f"http://127.0.0.1:{port}")
    assert not [p.name for p in root.iterdir() if p.name.startswith(".tmp_dagster_home")]


EXPECTED_AUTOMATION = {
    # On: what an editor's approval, an incomplete show and a hung run need by themselves.
    "approved_drafts_sensor": "RUNNING", "coverage_sensor": "RUNNING",
    "stuck_runs_sensor": "RUNNING", "brand_partitions_sensor": "RUNNING",
    "runway_season_partitions_sensor": "RUNNING",
    # Off: they crawl the real sites, or delete or re-read the whole store, unasked.
    "full_crawl_schedule": "STOPPED", "designer_discovery_schedule": "STOPPED",
    "media_cleanup_schedule": "STOPPED", "store_heal_schedule": "STOPPED",
    "store_scrub_schedule": "STOPPED",
}


def command_runs(dagster_home: Path) -> set[str]:
    from dagster import DagsterInstance

    with DagsterInstance.from_config(str(dagster_home)) as instance:
        return {run.run_id for run in instance.get_runs()}


def seen_runs(url: str) -> set[str]:
    answer = httpx.post(f"{url}/graphql", json={"query": RUNS_QUERY}, timeout=60)
    answer.raise_for_status()
    return {run["runId"] for run in answer.json()["data"]["runsOrError"]["results"]}


def automation(url: str) -> dict[str, str]:
    """Every sensor's and schedule's status, as the UI's Automation page shows it."""
    answer = httpx.post(f"{url}/graphql", json={"query": SENSORS_QUERY}, timeout=60)
    answer.raise_for_status()
    found = {}
    for entry in answer.json()["data"]["workspaceOrError"]["locationEntries"]:
        for repository in entry["locationOrLoadError"]["repositories"]:
            found.update({s["name"]: s["sensorState"]["status"]
                          for s in repository["sensors"]})
            found.update({s["name"]: s["scheduleState"]["status"]
                          for s in repository["schedules"]})
    return found


@contextmanager
def started(command: list[str], cwd: Path, env: Mapping[str, str], ready: str
            ) -> Iterator[str]:
    """``command`` started, until it prints a line holding ``ready`` (that line); stopped by
    Ctrl-C (SIGINT to its group) at the end, which it must survive with exit 0."""
    log = cwd / f"{Path(command[0]).name}-{time.monotonic_ns()}.log"
    with open(log, "w") as out:
        process = subprocess.Popen(command, cwd=cwd, env=dict(env), stdout=out,
                                   stderr=subprocess.STDOUT, text=True,
                                   start_new_session=True)
    try:
        deadline = time.monotonic() + START_DEADLINE_S
        while not (lines := [ln for ln in log.read_text().splitlines() if ready in ln]):
            assert process.poll() is None, log.read_text()
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.2)  # polling a real condition: the line it prints once it serves
        url = re.search(r"http://127\.0\.0\.1:\d+", lines[0])
        assert url, lines[0]
        while not answers(url.group(0)):  # uvicorn logs its address just before it binds
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.2)
        yield lines[0]
    finally:
        os.killpg(process.pid, signal.SIGINT)
        try:
            code = process.wait(60)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            raise
        output = log.read_text()
        log.unlink()
    assert code == 0, f"exit {code}\n{output}"


def free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]
