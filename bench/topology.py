"""The production topology as real processes, started from the files of ``deploy/`` as
docs/operations.md tells an operator to: a gRPC code server, ``dagster-webserver`` and
``dagster-daemon`` on ``deploy/workspace.yaml`` and ``deploy/dagster.yaml`` (PostgreSQL),
whose run launcher sends whole runs to Celery workers started on ``deploy/celery.yaml``,
with RabbitMQ as the broker and a PostgreSQL database as the result backend. Without
workers, the instance is ``deploy/dagster.yaml`` without its ``run_launcher`` block
(Dagster's default launcher: a process per run on this host).

The end-to-end test (tests/integration/test_production_topology.py) and the daemon's path
benchmark (``python -m bench.daemon_path``) both run on it. Each topology gets a RabbitMQ
virtual host of its own: dagster-celery always uses the queue ``dagster``, so two topologies
on one broker would take each other's runs.

Every process leads a process group of its own, so a worker is killed as a lost machine
would be (its pool's children with it), and nothing is left running when the topology ends.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import yaml

REPO = Path(__file__).resolve().parents[1]
DEPLOY = REPO / "deploy"
BIN = Path(sys.executable).parent
LOCATION = "fashion_assets"
# A 2-core machine under load needs a while to import Dagster in every process at once.
STARTUP_DEADLINE_S = 180.0
STOP_GRACE_S = 20.0
POLL_S = 0.2
RABBITMQ_ADMIN_TIMEOUT_S = 60


LAUNCH_BACKFILL = """
mutation LaunchBackfill($params: LaunchBackfillParams!) {
  launchPartitionBackfill(backfillParams: $params) {
    __typename
    ... on LaunchBackfillSuccess { backfillId }
    ... on PythonError { message }
    ... on UnauthorizedError { message }
    ... on PartitionSetNotFoundError { message }
    ... on InvalidStepError { invalidStepKey }
    ... on InvalidOutputError { stepKey invalidOutputName }
  }
}"""

BACKFILL_RUNS = """
query BackfillRuns($id: String!) {
  partitionBackfillOrError(backfillId: $id) {
    ... on PartitionBackfill { status numPartitions }
  }
  runsOrError(filter: {tags: [{key: "dagster/backfill", value: $id}]}) {
    ... on Runs { count results { status assetSelection { path } } }
  }
}"""

def default_launcher_yaml() -> str:
    """``deploy/dagster.yaml`` without its Celery run launcher: one host, no broker."""
    config = yaml.safe_load((DEPLOY / "dagster.yaml").read_text())
    config.pop("run_launcher")
    return yaml.safe_dump(config)


def free_port() -> int:
    """A port the OS just handed out; the server binds it right after."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for(condition: Callable[[], bool], what: str, deadline_s: float,
             alive: Callable[[], None] = lambda: None) -> None:
    """Poll a real condition until it holds; ``alive`` raises when a process it needs died."""
    deadline = time.monotonic() + deadline_s
    while not condition():
        alive()
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {deadline_s:.0f} s waiting for {what}")
        time.sleep(POLL_S)  # the polling interval of a real condition, not a synchronisation


def dagster_pg_env(database_url: str) -> dict[str, str]:
    """The five ``DAGSTER_PG_*`` variables ``deploy/dagster.yaml`` reads, for a database."""
    from sqlalchemy.engine import make_url

    url = make_url(database_url)
    return {"DAGSTER_PG_HOST": url.host or "127.0.0.1", "DAGSTER_PG_PORT": str(url.port or 5432),
            "DAGSTER_PG_USER": url.username or "postgres",
            "DAGSTER_PG_PASSWORD": url.password or "", "DAGSTER_PG_DB": url.database or ""}


def _rabbitmqctl(*args: str) -> None:
    subprocess.run(["rabbitmqctl", "-q", *args], check=True, capture_output=True,
                   timeout=RABBITMQ_ADMIN_TIMEOUT_S)


@contextlib.contextmanager
def rabbitmq_vhost(host: str = "127.0.0.1", user: str = "guest") -> Iterator[str]:
    """A RabbitMQ virtual host of its own on the machine's broker, for ``user`` (the
    machine's guest account, local connections only); yields the broker URL, and deletes
    the virtual host with its queues at the end."""
    vhost = f"fashion-assets-{uuid.uuid4().hex[:10]}"
    _rabbitmqctl("add_vhost", vhost)
    try:
        _rabbitmqctl("set_permissions", "-p", vhost, user, ".*", ".*", ".*")
        yield f"pyamqp://{user}:{user}@{host}:5672/{vhost}"
    finally:
        _rabbitmqctl("delete_vhost", vhost)


@dataclass
class Service:
    """One long-running process of the topology, leading a process group of its own, with
    its output in a log file."""

    name: str
    process: subprocess.Popen[bytes]
    log: Path

    def running(self) -> bool:
        return self.process.poll() is None

    def log_tail(self, chars: int = 4000) -> str:
        return self.log.read_text(errors="replace")[-chars:]

    def check_running(self) -> None:
        if not self.running():
            raise AssertionError(f"{self.name} exited with {self.process.returncode}:\n"
                                 f"{self.log_tail()}")

    def kill(self) -> None:
        """SIGKILL the whole group at once, as a machine that is lost."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=STOP_GRACE_S)

    def stop(self) -> None:
        """SIGTERM the group, SIGKILL what is left after the grace period."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=STOP_GRACE_S)
        # Helpers of the group (a run's compute-log tail, a pool's children) may outlive
        # the leader's exit by a moment: the group is ended in all cases.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=STOP_GRACE_S)


@dataclass
class Topology:
    """The processes of one deployment on this machine; ``env`` holds the pipeline's
    settings (catalog, store, sources), the ``DAGSTER_PG_*`` variables of Dagster's database,
    ``CELERY_BROKER_URL`` and ``CELERY_RESULT_BACKEND``. Without ``workers``, no Celery run
    launcher is configured: each run is a process on this host (Dagster's default)."""

    work: Path
    env: Mapping[str, str]
    workers: Sequence[str] = ("worker-1", "worker-2")
    worker_concurrency: int = 1
    # The instance's dagster.yaml; deploy/dagster.yaml's own (without its run launcher when
    # there are no workers) when None.
    instance_yaml: str | None = None
    code_port: int = field(default_factory=free_port)
    web_port: int = field(default_factory=free_port)
    services: dict[str, Service] = field(default_factory=dict)

    @property
    def home(self) -> Path:
        return self.work / "dagster_home"

    @property
    def process_env(self) -> dict[str, str]:
        """What every process of the topology gets: the environment file of
        docs/operations.md, with the virtual environment's bin first on PATH (the worker
        command starts ``celery`` from it)."""
        celery = {"FASHION_CELERY_CONFIG": str(DEPLOY / "celery.yaml")} if self.workers else {}
        return {**os.environ, **self.env,
                "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
                "DAGSTER_HOME": str(self.home), **celery,
                "FASHION_CODE_SERVER_HOST": "127.0.0.1",
                "FASHION_CODE_SERVER_PORT": str(self.code_port)}

    @property
    def web_url(self) -> str:
        return f"http://127.0.0.1:{self.web_port}"

    def start(self) -> None:
        """Every process, in the order of docs/operations.md, each waited for until it
        answers: the code server, the webserver and the daemon, then the workers."""
        self.home.mkdir(parents=True, exist_ok=True)
        if self.instance_yaml is not None:
            (self.home / "dagster.yaml").write_text(self.instance_yaml)
        elif self.workers:
            shutil.copy(DEPLOY / "dagster.yaml", self.home / "dagster.yaml")
        else:
            (self.home / "dagster.yaml").write_text(default_launcher_yaml())
        workspace = str(DEPLOY / "workspace.yaml")
        code = self._start("code-server", [
            "dagster", "code-server", "start", "-m", "fashion_assets.definitions",
            "--location-name", LOCATION, "-h", "127.0.0.1", "-p", str(self.code_port)])
        wait_for(self._code_server_answers, "the code server", STARTUP_DEADLINE_S,
                 code.check_running)
        web = self._start("webserver", ["dagster-webserver", "-w", workspace,
                                        "-h", "127.0.0.1", "-p", str(self.web_port)])
        daemon = self._start("daemon", ["dagster-daemon", "run", "-w", workspace])
        for name in self.workers:
            self.start_worker(name)
        wait_for(self._webserver_answers, "the webserver", STARTUP_DEADLINE_S,
                 web.check_running)
        wait_for(self._daemon_beats, "the daemon's heartbeats", STARTUP_DEADLINE_S,
                 daemon.check_running)
        for name in self.workers:
            self.wait_ready(name)

    def start_worker(self, name: str) -> Service:
        """A Celery worker named ``name``, as docs/operations.md starts one (again, after
        ``kill``: a machine that comes back): it imports the code location before its first
        run."""
        return self._start(name, [
            "dagster-celery", "worker", "start", "-A", "dagster_celery.app",
            "-y", str(DEPLOY / "celery.yaml"), "-i", "fashion_assets.definitions",
            "--name", name, "--", f"--concurrency={self.worker_concurrency}"])

    def wait_ready(self, name: str) -> None:
        """Until worker ``name`` listens on the broker (Celery logs ``... ready.``)."""
        worker = self.services[name]
        wait_for(lambda: " ready." in worker.log_tail(100_000), f"{name} to be ready",
                 STARTUP_DEADLINE_S, worker.check_running)

    def dagster(self, *args: str, timeout_s: float = 180) -> str:
        """A ``dagster`` command on the production workspace (turning a schedule or a
        sensor on, as an operator does); its output."""
        done = subprocess.run([str(BIN / "dagster"), *args], env=self.process_env,
                              capture_output=True, text=True, timeout=timeout_s)
        if done.returncode != 0:
            raise AssertionError(f"dagster {' '.join(args)} failed:\n{done.stderr[-3000:]}")
        return done.stdout

    def fashion_assets(self, *args: str, timeout_s: float = 180) -> str:
        """A ``fashion-assets`` command with the deployment's environment, its runs submitted
        to the topology's webserver (``FASHION_DAGSTER_URL``, as on the control host); its
        output."""
        done = subprocess.run([sys.executable, "-m", "fashion_assets", *args],
                              env={**self.process_env, "FASHION_DAGSTER_URL": self.web_url},
                              capture_output=True, text=True,
                              timeout=timeout_s)
        if done.returncode != 0:
            raise AssertionError(f"fashion-assets {' '.join(args)} failed:\n"
                                 f"{done.stderr[-3000:]}")
        return done.stdout

    def celery(self, *args: str, timeout_s: float = 120) -> str:
        """A ``celery`` command on the deployment's broker, as docs/operations.md prints it
        (``celery -b "$CELERY_BROKER_URL" ...``); its output."""
        done = subprocess.run([str(BIN / "celery"), "-b", self.env["CELERY_BROKER_URL"], *args],
                              env=self.process_env, capture_output=True, text=True,
                              timeout=timeout_s)
        if done.returncode != 0:
            raise AssertionError(f"celery {' '.join(args)} failed:\n{done.stderr[-3000:]}")
        return done.stdout

    def turn_on(self, kind: str, name: str) -> None:
        """``dagster schedule start`` or ``dagster sensor start`` on the workspace."""
        self.dagster(kind, "start", name, "-w", str(DEPLOY / "workspace.yaml"),
                     "--location", LOCATION)

    def turn_off(self, kind: str, name: str) -> None:
        """``dagster schedule stop`` or ``dagster sensor stop`` on the workspace."""
        self.dagster(kind, "stop", name, "-w", str(DEPLOY / "workspace.yaml"),
                     "--location", LOCATION)

    @contextlib.contextmanager
    def instance(self) -> Iterator[Any]:  # -> DagsterInstance, to read what the daemon did
        from dagster import DagsterInstance

        saved = dict(os.environ)
        os.environ.update(self.process_env)  # deploy/dagster.yaml reads DAGSTER_PG_*
        try:
            instance = DagsterInstance.from_config(str(self.home))
        finally:
            os.environ.clear()
            os.environ.update(saved)
        with instance:
            yield instance

    def check_running(self) -> None:
        for service in self.services.values():
            service.check_running()

    def stop(self) -> None:
        """Workers first (they hold steps), then the daemon, the webserver, the code server."""
        for service in reversed(list(self.services.values())):
            service.stop()

    def logs(self) -> str:
        return "\n".join(f"--- {s.name} ---\n{s.log_tail(2000)}" for s in self.services.values())

    def __enter__(self) -> Topology:
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _start(self, name: str, command: list[str]) -> Service:
        logs = self.work / "logs"
        logs.mkdir(parents=True, exist_ok=True)
        log = logs / f"{name}.log"
        with open(log, "wb") as out:
            process = subprocess.Popen([str(BIN / command[0]), *command[1:]],
                                       env=self.process_env, stdout=out,
                                       stderr=subprocess.STDOUT, start_new_session=True,
                                       cwd=self.work)
        self.services[name] = service = Service(name, process, log)
        return service

    def _code_server_answers(self) -> bool:
        from dagster._grpc.client import DagsterGrpcClient

        try:
            DagsterGrpcClient(port=self.code_port, host="127.0.0.1").ping("")
        except Exception:  # any failure to answer means: not yet
            return False
        return True

    def _webserver_answers(self) -> bool:
        try:
            return httpx.get(f"{self.web_url}/server_info", timeout=5).status_code == 200
        except httpx.HTTPError:
            return False

    def _daemon_beats(self) -> bool:
        with self.instance() as instance:
            beats = instance.get_daemon_heartbeats()
        return {"SCHEDULER", "SENSOR", "QUEUED_RUN_COORDINATOR"} <= set(beats)
