"""The Dagster deployment that runs the command's runs: the user's, or a private one.

With ``FASHION_DAGSTER_URL`` set, the command submits to that webserver (``dagster dev`` of
the same ``DAGSTER_HOME``, or a production deployment): its daemon launches the runs, its
code location's environment is theirs. Unset, the command runs its runs on the private
``dagster dev`` of its ``DAGSTER_HOME``: the one another command started, if one runs with
the same settings (one instance takes one daemon), else one it starts with its own
environment (through ``watchdog.py``, so that it never outlives the command) and stops at
the end, once no other command uses it (``registry.py``).

A command killed outright (SIGKILL, the OOM killer) takes its deployment along, and the runs
it was executing with it: Dagster still says they run, and their partitions' queue limits
would hold every later crawl of them. Runs are tagged with their private deployment's id
(``DEPLOYMENT_TAG``); the next command fails the runs of deployments whose owner has ended
(``fail_runs_of_ended``), and so does a command using a deployment that ends under it.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import httpx

from fashion_assets import settings
from fashion_assets.launch import registry
from fashion_assets.launch.graphql import GraphQL, web_client

STARTUP_DEADLINE_S = 180.0
"""How long ``dagster dev`` has to answer: a loaded 2-core machine imports Dagster in three
processes at once."""
POLL_S = 0.1
STOP_WAIT_S = 30.0
USERS_POLL_S = 1.0
DEPLOYMENT_TAG = "fashion-assets/deployment"
"""On every run submitted to a deployment the command started: the deployment's id."""
KILLED_NOTE = ("the command that started the `dagster dev` of this run was killed, and the "
               "`dagster dev` ended with it")


class DeploymentError(RuntimeError):
    """No deployment to run on: the message says what to do."""


@dataclass
class Deployment:
    """A running deployment: its webserver's GraphQL and the log of ``dagster dev`` (when
    the command started it)."""

    url: str
    graphql: GraphQL
    log: Path | None = None
    id: str = ""  # a private deployment (``dagster dev``): the id its runs are tagged with
    owner: bool = True  # False: another command of this DAGSTER_HOME started it

    def ended(self) -> bool:
        """Whether the private deployment another command started ended with it (killed):
        the runs submitted to it will never end by themselves."""
        from fashion_assets.launch.instance import default_dagster_home

        return not self.owner and registry.ended(default_dagster_home(), self.id)

    def tags(self) -> dict[str, str]:
        """The tags of every run submitted to this deployment."""
        return {DEPLOYMENT_TAG: self.id} if self.id else {}


def answers(url: str, client: httpx.Client | None = None) -> bool:
    """Whether a Dagster webserver answers at ``url``, asked with ``client`` when given."""
    try:
        if client is None:
            with web_client(url) as client:
                return answers(url, client)
        return client.get(f"{url}/server_info", timeout=5).status_code == 200
    except httpx.HTTPError:
        return False


@contextmanager
def deployment(env: Mapping[str, str] | None = None, note: Any = lambda line: None,
               before_start: Callable[[], object] = lambda: None) -> Iterator[Deployment]:
    """The deployment of ``FASHION_DAGSTER_URL``, or ``dagster dev`` started for the block
    (``note`` gets a line saying so; ``before_start`` is called first, and may raise to
    start nothing). ``env`` is the environment of the runs then (the command's own by
    default)."""
    env = dict(os.environ if env is None else env)
    url = settings.setting(env, "FASHION_DAGSTER_URL").strip().rstrip("/")
    if url:
        graphql = GraphQL(url)
        if not answers(url, graphql.client):
            raise DeploymentError(
                f"no Dagster webserver answers at {url} (FASHION_DAGSTER_URL): start it "
                "(`dagster dev`), or unset FASHION_DAGSTER_URL and the command starts one")
        yield Deployment(url, graphql)
        return
    with _local_dagster_dev(env, note, before_start) as local:
        yield local


@contextmanager
def dagster_ui(port: int, note: Any) -> Iterator[Deployment]:
    """The Dagster UI on the command's instance (``fashion-assets ui``): the ``dagster dev``
    of this ``DAGSTER_HOME`` another command runs, if one does, else one started here on
    ``port`` (checked free first: the address is printed only once it answers). The
    crawls started meanwhile run on it, so their runs show as they go."""
    env = dict(os.environ)
    with _local_dagster_dev(env, note, lambda: _check_free(port), port) as local:
        yield local


@contextmanager
def _local_dagster_dev(env: dict[str, str], note: Any, before_start: Callable[[], object],
                       port: int | None = None) -> Iterator[Deployment]:
    """The ``dagster dev`` of this ``DAGSTER_HOME``: another command's, if one runs with
    the same settings, else one started here (on ``port``, or a free one) and stopped once
    no other command uses it (``registry.py``)."""
    from fashion_assets.launch.instance import default_dagster_home

    home = default_dagster_home()
    wanted = registry.settings_digest(env)
    with ExitStack() as stack:
        with registry.starting(home):
            found = registry.live(home)
            if found is None:
                before_start()
                deployed = stack.enter_context(_started(home, env, wanted, note, port))
            else:
                differ = registry.differing(found.settings, wanted)
                if differ:
                    raise DeploymentError(
                        f"another command runs `dagster dev` on DAGSTER_HOME={home} (at "
                        f"{found.url}) with other settings ({', '.join(differ)}): wait for "
                        "it to end, or give this command a DAGSTER_HOME of its own")
                stack.callback(os.close, registry.hold_user(home, found.id))
                deployed = Deployment(found.url, GraphQL(found.url), Path(found.log),
                                      found.id, owner=False)
                note(f"runs on the `dagster dev` another command started for "
                     f"DAGSTER_HOME={home}, at {found.url}; its log: {found.log}")
        yield deployed


@contextmanager
def _started(home: Path, env: dict[str, str], wanted: Mapping[str, str], note: Any,
             port: int | None = None) -> Iterator[Deployment]:
    """``dagster dev`` started (within ``registry.starting``), recorded for the other
    commands of this ``DAGSTER_HOME``; at the end, however the block ends, stopped once
    none of them uses it."""
    # Not DAGSTER_HOME/logs: that is Dagster's telemetry folder, which its upload thread
    # empties even with telemetry off in dagster.yaml.
    log = home / "dagster-dev.log"
    deployment_id = uuid.uuid4().hex
    lock = registry.hold_owner(home, deployment_id)
    port = port or _free_port()
    url = f"http://127.0.0.1:{port}"
    command = [sys.executable, "-m", "fashion_assets.launch.watchdog",
               str(Path(sys.executable).parent / "dagster"), "dev",
               "-m", "fashion_assets.definitions", "--host", "127.0.0.1", "-p", str(port)]
    started = time.monotonic()
    with open(log, "ab") as out:
        watchdog = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=out,
                                    stderr=subprocess.STDOUT, start_new_session=True,
                                    env={**env, "DAGSTER_HOME": str(home),
                                         "DAGSTER_DISABLE_TELEMETRY": "1"})
    assert watchdog.stdin is not None
    try:
        _wait_until_up(url, watchdog, log)
        registry.record(home, registry.Registered(deployment_id, url, str(log), wanted))
        note(f"started Dagster (`dagster dev`: webserver, daemon) for this command in "
             f"{time.monotonic() - started:.1f} s, at {url}; its log: {log}")
        try:
            yield Deployment(url, GraphQL(url), log, deployment_id)
        finally:
            # After an error or a stop signal too: the other commands' runs would end with
            # the deployment, failed for nothing.
            _wait_unused(home, deployment_id, note)
    finally:
        _stop(watchdog, watchdog.stdin)
        registry.forget(home, deployment_id)
        os.close(lock)


def _wait_unused(home: Path, deployment_id: str, note: Any) -> None:
    """Wait until no other command uses the deployment (their runs would end with it)."""
    waiting = False
    while True:
        with registry.starting(home):
            if registry.unused(home, deployment_id):
                return
        if not waiting:
            note(f"waiting for the other commands that run on this `dagster dev` to end "
                 f"before stopping it (`kill -KILL {os.getpid()}` stops it now; their runs "
                 "then fail)")
            waiting = True
        time.sleep(USERS_POLL_S)  # polling a real condition: the users' locks


def fail_runs_of_ended(env: Mapping[str, str] | None, also: Sequence[str] = ()) -> list[str]:
    """Fail the runs not ended of private deployments whose owner has ended (killed
    outright), and of deployments ``also`` names, ending their progress rows, then forget
    those deployments; the runs' ids. Their webserver went with them, so the runs are
    failed in the instance itself (``env``'s catalog holds their progress rows): Dagster
    and the catalog are opened only when there is one to fail."""
    from fashion_assets.launch.instance import default_dagster_home

    home = default_dagster_home()
    with registry.starting(home):
        gone = {*registry.ended_ids(home), *also}
        failed = _fail_runs_of(gone, env) if gone else []
        for deployment_id in gone:
            registry.forget(home, deployment_id)
    return failed


def _fail_runs_of(deployment_ids: set[str], env: Mapping[str, str] | None) -> list[str]:
    from dagster import DagsterRunStatus, RunsFilter

    from fashion_assets.catalog import progress as progress_catalog
    from fashion_assets.catalog.engines import catalog_engine
    from fashion_assets.launch.instance import dagster_instance

    instance = dagster_instance()
    engine = catalog_engine(settings.database_url(env))
    live = [DagsterRunStatus.QUEUED, DagsterRunStatus.NOT_STARTED, DagsterRunStatus.STARTING,
            DagsterRunStatus.STARTED, DagsterRunStatus.CANCELING]
    failed = []
    for run in instance.get_runs(RunsFilter(statuses=live)):
        if run.tags.get(DEPLOYMENT_TAG) in deployment_ids:
            instance.report_run_failed(run, KILLED_NOTE)
            progress_catalog.finish(engine, run.run_id, "failed", KILLED_NOTE)
            failed.append(run.run_id)
    return failed


def _wait_until_up(url: str, watchdog: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + STARTUP_DEADLINE_S
    with web_client(url) as client:
        while not answers(url, client):
            if watchdog.poll() is not None or time.monotonic() > deadline:
                tail = log.read_text(errors="replace")[-2000:]
                raise DeploymentError(f"`dagster dev` did not start (see {log}):\n{tail}")
            time.sleep(POLL_S)  # polling a real condition: the webserver's answer


def _stop(watchdog: subprocess.Popen[bytes], pipe: BinaryIO) -> None:
    """Close the watchdog's pipe (it stops ``dagster dev``) and wait for it to be done."""
    pipe.close()
    try:
        watchdog.wait(STOP_WAIT_S)
    except subprocess.TimeoutExpired:  # the watchdog's whole group: it leads one
        with suppress(ProcessLookupError):
            os.killpg(watchdog.pid, signal.SIGKILL)
        watchdog.wait()


def _check_free(port: int) -> None:
    """Raise ``OSError(EADDRINUSE)`` when another program listens on ``port``."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the webserver binds
        probe.bind(("127.0.0.1", port))


def _free_port() -> int:
    """A port the OS just handed out; the webserver binds it right after."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]
