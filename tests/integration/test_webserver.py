"""Smoke test of the code location as the Dagster UI sees it.

``dagster-webserver`` is started on the repository's ``workspace.yaml`` exactly as a developer
would start it, and its GraphQL API (the one the UI itself uses) must show the three runway
assets in their group with the brand partitions registered through the CLI beforehand, the
job and the sensor. This catches what loading the definitions in-process cannot: a
``workspace.yaml`` that names the wrong module, a code location that fails in the code server
subprocess, or partitions written to an instance other than the one the UI reads.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from fashion_assets.replica import HOSTILE_BRAND, ReplicaServer
from tests.conftest import normal_brands, pipeline_env

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
BRANDS = ("acne-studios", "maison-martin-margiela")
RUNWAY_ASSETS = ("runway_show_listings", "runway_image_manifests", "runway_drafts")
# theImpression's assets, by group; their partitions (seasons, fashion weeks) start empty.
IMPRESSION_ASSETS = {
    "impression_runway": ("impression_runway_listings", "impression_runway_manifests",
                          "impression_runway_drafts"),
    "street_style": ("street_style_listings", "street_snap_drafts"),
}
LOCATION = "fashion_assets"
# A loaded 2-core machine needs a while to import Dagster twice (webserver and code server).
STARTUP_DEADLINE_S = 90.0
POLL_INTERVAL_S = 0.25
CLI_TIMEOUT_S = 120

WORKSPACE_QUERY = """
query {
  workspaceOrError {
    __typename
    ... on Workspace {
      locationEntries {
        name
        loadStatus
        locationOrLoadError {
          __typename
          ... on PythonError { message stack }
        }
      }
    }
    ... on PythonError { message }
  }
}
"""

ASSETS_QUERY = """
query {
  assetNodes {
    assetKey { path }
    groupName
    isPartitioned
    partitionKeys
  }
  repositoriesOrError {
    __typename
    ... on RepositoryConnection {
      nodes {
        name
        location { name }
        jobs { name }
        sensors { name }
      }
    }
    ... on PythonError { message }
  }
}
"""


@dataclass
class Webserver:
    """A running ``dagster-webserver`` and where its log goes."""

    process: subprocess.Popen[bytes]
    url: str
    log: Path

    def log_tail(self, chars: int = 6000) -> str:
        return self.log.read_text("utf-8", errors="replace")[-chars:]

    def graphql(self, client: httpx.Client, query: str) -> dict[str, Any]:
        response = client.post(f"{self.url}/graphql", json={"query": query})
        assert response.status_code == 200, f"{response.status_code}: {response.text[:2000]}"
        body = response.json()
        assert not body.get("errors"), body["errors"]
        return body["data"]


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _env(tmp_path: Path) -> dict[str, str]:
    """This environment with the project's settings replaced by a fresh home and instance.

    The instance's ``dagster.yaml`` turns telemetry off, and so does the variable: the
    webserver would otherwise try to upload it, and these machines have no internet.
    """
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("FASHION_") and k != "DAGSTER_HOME"}
    dagster_home = tmp_path / "dagster"
    dagster_home.mkdir()
    (dagster_home / "dagster.yaml").write_text("telemetry:\n  enabled: false\n", "utf-8")
    env.update(FASHION_HOME=str(tmp_path / "home"), DAGSTER_HOME=str(dagster_home),
               DAGSTER_DISABLE_TELEMETRY="1")
    return env


def _register_brands(env: dict[str, str]) -> None:
    """``fashion-assets brands add``, as a user would, so the partitions are in the instance."""
    for slug in BRANDS:
        result = subprocess.run([sys.executable, "-m", "fashion_assets", "brands", "add", slug],
                                cwd=REPO, env=env, capture_output=True, text=True,
                                timeout=CLI_TIMEOUT_S, check=False)
        assert result.returncode == 0, f"brands add {slug}: {result.stdout}\n{result.stderr}"
        assert f"added: {slug}" in result.stdout, result.stdout


def _webserver_command(port: int) -> list[str]:
    """The venv's ``dagster-webserver`` script, or the same entry point as a module."""
    script = Path(sys.executable).with_name("dagster-webserver")
    program = [str(script)] if script.exists() else [sys.executable, "-m", "dagster_webserver"]
    return [*program, "-w", str(REPO / "workspace.yaml"), "-h", "127.0.0.1", "-p", str(port)]


def _stop(process: subprocess.Popen[bytes]) -> None:
    """End the webserver and its code server: the whole process group, forcibly if need be."""
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=15)
    # The group may outlive its leader (the code server is a child): make sure it is gone.
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait(timeout=15)


def _wait_until_loaded(server: Webserver, client: httpx.Client) -> dict[str, Any]:
    """Poll until the webserver answers and the code location is loaded; return its entry.

    Between polls the wait is on the process itself, so a webserver that dies is reported at
    once with its log rather than at the deadline.
    """
    deadline = time.monotonic() + STARTUP_DEADLINE_S
    last = "no answer yet"
    while time.monotonic() < deadline:
        try:
            server.process.wait(timeout=POLL_INTERVAL_S)
        except subprocess.TimeoutExpired:
            pass
        else:
            pytest.fail(f"dagster-webserver exited with {server.process.returncode}\n"
                        f"{server.log_tail()}")
        try:
            if client.get(f"{server.url}/server_info").status_code != 200:
                continue
            data = server.graphql(client, WORKSPACE_QUERY)["workspaceOrError"]
        except httpx.TransportError as error:
            last = repr(error)
            continue
        assert data["__typename"] == "Workspace", data
        entries = {e["name"]: e for e in data["locationEntries"]}
        entry = entries.get(LOCATION)
        last = f"location entries: {entries}"
        if entry is not None and entry["loadStatus"] == "LOADED":
            return entry
    pytest.fail(f"code location {LOCATION} not loaded within {STARTUP_DEADLINE_S:.0f} s "
                f"({last})\n{server.log_tail()}")


@contextlib.contextmanager
def running_webserver(env: dict[str, str], log: Path) -> Iterator[Webserver]:
    """``dagster-webserver`` on ``workspace.yaml``, in its own process group, always ended."""
    port = _free_port()
    with log.open("wb") as sink:
        process = subprocess.Popen(_webserver_command(port), cwd=REPO, env=env,
                                   stdin=subprocess.DEVNULL, stdout=sink,
                                   stderr=subprocess.STDOUT, start_new_session=True)
    try:
        yield Webserver(process=process, url=f"http://127.0.0.1:{port}", log=log)
    finally:
        _stop(process)


@pytest.fixture
def webserver(tmp_path: Path) -> Iterator[Webserver]:
    """The webserver on a fresh instance where the CLI registered ``BRANDS``."""
    env = _env(tmp_path)
    _register_brands(env)
    with running_webserver(env, tmp_path / "webserver.log") as server:
        yield server


def test_webserver_shows_the_runway_assets_with_brand_partitions(webserver: Webserver) -> None:
    with httpx.Client(timeout=30, trust_env=False) as client:
        entry = _wait_until_loaded(webserver, client)
        location = entry["locationOrLoadError"]
        assert location["__typename"] == "RepositoryLocation", (
            f"code location failed to load: {location.get('message')}\n{location.get('stack')}")
        data = webserver.graphql(client, ASSETS_QUERY)

    nodes = {"/".join(n["assetKey"]["path"]): n for n in data["assetNodes"]}
    for name in RUNWAY_ASSETS:
        assert name in nodes, f"{name} not among {sorted(nodes)}"
        node = nodes[name]
        assert node["groupName"] == "runway", node
        assert node["isPartitioned"], node
        assert sorted(node["partitionKeys"]) == sorted(BRANDS), node
    for group, names in IMPRESSION_ASSETS.items():
        for name in names:
            assert nodes[name]["groupName"] == group and nodes[name]["isPartitioned"], name

    repositories = data["repositoriesOrError"]
    assert repositories["__typename"] == "RepositoryConnection", repositories
    [repository] = [r for r in repositories["nodes"] if r["location"]["name"] == LOCATION]
    assert {"runway_crawl", "impression_runway_crawl", "street_style_crawl"} <= {
        j["name"] for j in repository["jobs"]}, repository["jobs"]
    assert {"brand_partitions_sensor", "runway_season_partitions_sensor"} <= {
        s["name"] for s in repository["sensors"]}, repository["sensors"]


HEALTH_QUERY = """
query {
  assetNodes(assetKeys: [{path: ["runway_drafts"]}]) {
    assetChecksOrError {
      __typename
      ... on AssetChecks {
        checks {
          name
          partitionStatuses {
            __typename
            ... on AssetCheckDefaultPartitionStatuses { succeededPartitions failedPartitions }
          }
        }
      }
    }
  }
}
"""


def test_the_ui_shows_which_brand_partitions_need_attention(
        tmp_path: Path, replica: ReplicaServer) -> None:
    """A crawl of a clean brand and of the hostile one (half its shows fail), then the UI's
    GraphQL: the drafts asset's partition_health check passed on the first, failed on the
    second (WARN), as the asset's partition view shows them."""
    clean = normal_brands(replica)[0].slug
    env = {**_env(tmp_path), **{k: v for k, v in pipeline_env(
        tmp_path / "home", "", "", replica).items() if k.startswith("FASHION_") and v}}
    crawl = subprocess.run([sys.executable, "-m", "fashion_assets", "crawl", "--brand", clean,
                            "--brand", HOSTILE_BRAND], cwd=REPO, env=env,
                           capture_output=True, text=True, timeout=CLI_TIMEOUT_S, check=False)
    assert crawl.returncode == 0, f"{crawl.stdout}\n{crawl.stderr}"

    with (running_webserver(env, tmp_path / "webserver.log") as server,
          httpx.Client(timeout=30, trust_env=False) as client):
        _wait_until_loaded(server, client)
        [node] = server.graphql(client, HEALTH_QUERY)["assetNodes"]

    checks = node["assetChecksOrError"]
    assert checks["__typename"] == "AssetChecks", checks
    [health] = [c for c in checks["checks"] if c["name"] == "partition_health"]
    statuses = health["partitionStatuses"]
    assert statuses["succeededPartitions"] == [clean], statuses
    assert statuses["failedPartitions"] == [HOSTILE_BRAND], statuses
