"""The local Dagster instance's storage: Dagster's own SQLite storage, cheaper per run.

``runs.local_instance_yaml`` names ``LocalStorage`` as the storage of the instance
that ``fashion-assets crawl`` and ``dagster dev`` share in ``DAGSTER_HOME``. Same files, same
tables, same layout as Dagster's default (``history/runs.db``, one ``history/runs/<run>.db``
per run, ``schedules/``), so the webserver and the daemon read it as they read the default;
only two costs of the event log are gone:

- Dagster's SQLite event log builds a new SQLAlchemy engine for every event it stores and
  throws it away after it, so every statement is compiled again each time. Here each
  database file keeps its engine (still ``NullPool``: a connection per call, none held, so
  an instance opened before a fork is safe in the children).
- A run's first event creates the run's database: tables, WAL mode, and a stamp of the
  migration head, which Dagster computes by reading its alembic scripts from disk for every
  run. Here a new run's database is a copy of an empty one made once per process the same
  way, put in place with a hard link so that no reader ever sees it half written.

A 3-asset run with an asset check cost 289 ms of CPU on the default storage, 159 ms on this
one (docs/performance.md, "Dagster per run"); a crawl makes one run per brand.

Both overrides stand on private methods of Dagster's ``SqliteEventLogStorage``
(``_connect``, ``_initdb``) as of the pinned version (``pyproject.toml``);
tests/integration/test_instance_storage.py checks the files they make against Dagster's.
"""

import os
import secrets
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from dagster._core.storage.event_log.sqlite.sqlite_event_log import (
    SQLITE_BUSY_TIMEOUT_SECONDS,
    SqliteEventLogStorage,
)
from dagster._core.storage.runs import SqliteRunStorage
from dagster._core.storage.schedules import SqliteScheduleStorage
from dagster._core.storage.sqlite_storage import DagsterSqliteStorage
from dagster._serdes import ConfigurableClassData
from sqlalchemy import Connection, Engine, create_engine
from sqlalchemy.pool import NullPool

ENGINES_KEPT = 16  # database files whose engine is kept: the index and the runs going now


class LocalEventLogStorage(SqliteEventLogStorage):
    """Dagster's SQLite event log with an engine per database file and new run databases
    copied from an empty one (see the module's docstring)."""

    def __init__(self, base_dir: str, inst_data: ConfigurableClassData | None = None) -> None:
        self._engines: dict[str, Engine] = {}
        self._empty_run_db: bytes | None = None
        self._empty_lock = threading.Lock()
        super().__init__(base_dir, inst_data)

    @classmethod
    def from_config_value(cls, inst_data: ConfigurableClassData | None,
                          config_value: Any) -> "LocalEventLogStorage":
        return cls(inst_data=inst_data, **config_value)

    @contextmanager
    def _connect(self, shard: str) -> Iterator[Connection]:
        # Dagster's body, less the engine built and disposed of on every call.
        with self._db_lock:
            engine = self._engines.get(shard)
            if engine is None:
                if len(self._engines) >= ENGINES_KEPT:
                    self._engines.clear()  # NullPool engines hold no connection to close
                engine = self._engines[shard] = create_engine(
                    self.conn_string_for_shard(shard), poolclass=NullPool,
                    connect_args={"timeout": SQLITE_BUSY_TIMEOUT_SECONDS})
            if shard not in self._initialized_dbs:
                self._initdb(engine)
                self._initialized_dbs.add(shard)
            with engine.connect() as conn, conn.begin():
                yield conn

    def _initdb(self, engine: Engine, for_index_shard: bool = False) -> None:
        """A new run's database as a copy of an empty one; anything else as Dagster does it
        (the index, a database that exists already, one another process just created)."""
        path = engine.url.database
        if for_index_shard or not path or os.path.exists(path):
            super()._initdb(engine, for_index_shard)
            return
        temp = f"{path}.{secrets.token_hex(8)}.tmp"
        with open(temp, "xb") as out:
            out.write(self._empty_run_database())
        try:
            os.link(temp, path)
        except FileExistsError:
            super()._initdb(engine, for_index_shard)
        finally:
            os.unlink(temp)

    def _empty_run_database(self) -> bytes:
        """The bytes of a run database as Dagster initializes it, before any event."""
        with self._empty_lock:
            if self._empty_run_db is None:
                # Not *.db: Dagster takes every *.db file of the folder for a run.
                temp = os.path.join(self._base_dir, f".empty-run-{secrets.token_hex(8)}")
                engine = create_engine(f"sqlite:///{temp}", poolclass=NullPool)
                try:
                    super()._initdb(engine)
                    engine.dispose()
                    with open(temp, "rb") as made:
                        self._empty_run_db = made.read()
                finally:
                    for leftover in (temp, f"{temp}-wal", f"{temp}-shm"):
                        if os.path.exists(leftover):
                            os.unlink(leftover)
            return self._empty_run_db


class LocalStorage(DagsterSqliteStorage):
    """Dagster's SQLite storage of ``base_dir`` with ``LocalEventLogStorage`` as its event
    log. Configured in dagster.yaml as ``storage: custom:`` (see ``runs.local_instance_yaml``)."""

    def __init__(self, base_dir: str, inst_data: ConfigurableClassData | None = None) -> None:
        # DagsterSqliteStorage's body with the event log swapped (its own would open the
        # index database once more only to be dropped).
        self.base_dir = base_dir
        self._run_storage = SqliteRunStorage.from_local(os.path.join(base_dir, "history", ""))
        self._event_log_storage = LocalEventLogStorage(
            os.path.join(base_dir, "history", "runs", ""))
        self._schedule_storage = SqliteScheduleStorage.from_local(
            os.path.join(base_dir, "schedules"))
        self._inst_data = inst_data
        super(DagsterSqliteStorage, self).__init__()

    @classmethod
    def from_config_value(cls, inst_data: ConfigurableClassData | None,
                          config_value: Any) -> "LocalStorage":
        os.makedirs(config_value["base_dir"], exist_ok=True)
        return cls(inst_data=inst_data, **config_value)
