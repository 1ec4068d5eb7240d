"""Imported by the fork server of a crawl's worker processes (``runs._crawl_in_pool``), and
by nothing else.

The fork server imports the pipeline once, and what opening the Dagster instance imports,
so that no worker imports either again: the first page goes out sooner and the workers
share those pages of memory. A module that another Dagster version lacks is skipped.

When the crawl command exits, the fork server exits too. Left to Python, its exit tears
down every module it imported, for more than half a second, while it still holds the
command's stdout and stderr: whoever reads them (a pipe, a benchmark, ``| tee``) would wait
for the command that long after it ended. It has nothing to flush or close (it only forks),
so its exit skips that teardown.
"""

import atexit
import importlib
import os
from contextlib import suppress

import fashion_assets.definitions  # noqa: F401  (the pipeline, imported once for all workers)

for _module in ("dagster._core.storage.sqlite_storage", "dagster._core.storage.runs",
                "dagster._core.storage.event_log", "dagster._core.storage.schedules",
                "dagster._core.storage.noop_compute_log_manager"):
    with suppress(ImportError):
        importlib.import_module(_module)

# Registered last, so it runs first: workers, forked from here, leave through os._exit
# themselves and never run it.
atexit.register(os._exit, 0)
