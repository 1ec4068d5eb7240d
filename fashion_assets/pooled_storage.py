"""Dagster's PostgreSQL storage holding its connections, in every process that loads it.

dagster-postgres connects anew for every storage call (SQLAlchemy's ``NullPool``) except in
the webserver, which calls the storages' ``optimize_for_webserver`` to hold one connection
each. A run process makes hundreds of calls (each event it writes, each partition read:
``add_asset_metadata(partition_key=)`` alone reads the dynamic partitions three times), so a
run opened 250-370 sessions on Dagster's database (``bench/daemon_path.py`` counts them), each
a PostgreSQL backend started and a few ms of CPU on both sides. ``deploy/dagster.yaml`` names
this class as its storage: the daemon, the run processes and the Celery workers hold their
connections as the webserver does, through dagster-postgres' own method; the configuration
is ``storage: postgres:``'s, unchanged.

As in the webserver, the held connections are not pinged before use: after PostgreSQL
restarts, the one storage call that finds its connection dropped fails (a daemon's tick, a
run's event), and SQLAlchemy, seeing the disconnect, replaces the pool's connections for
the next. A restart mid-run fails the run either way; a ping would cost a round trip on
every call of every process.
"""

from __future__ import annotations

from typing import Any

from dagster_postgres import DagsterPostgresStorage

POOL_RECYCLE_S = 3600
"""A held connection older than this is replaced when next taken (the webserver's default):
a connection a firewall or a pooler closed while idle is not kept for ever."""
POOL_MAX_OVERFLOW = 20
"""Connections beyond the held one while threads (the daemon's) use the storage at once;
each is closed when returned. The webserver's default."""
NO_STATEMENT_TIMEOUT = 0
"""The webserver's 15 s timeout would fail a long storage call of a daemon or a run; these
processes keep PostgreSQL's default: none."""


class PooledPostgresStorage(DagsterPostgresStorage):
    """``DagsterPostgresStorage`` (same config) whose run, event log and schedule storages
    each hold one connection, by dagster-postgres' ``optimize_for_webserver``."""

    @classmethod
    def from_config_value(cls, inst_data: Any, config_value: Any) -> DagsterPostgresStorage:
        storage = DagsterPostgresStorage.from_config_value(inst_data, config_value)
        for part in (storage.run_storage, storage.event_log_storage,
                     storage.schedule_storage):
            part.optimize_for_webserver(statement_timeout=NO_STATEMENT_TIMEOUT,
                                        pool_recycle=POOL_RECYCLE_S,
                                        max_overflow=POOL_MAX_OVERFLOW)
        return storage
