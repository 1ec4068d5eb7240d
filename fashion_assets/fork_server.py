"""Imported by the fork server of a crawl's worker processes (``runs._crawl_in_pool``), and
by nothing else.

The fork server imports the pipeline once, the S3 client when the store is on S3, opens
the Dagster instance, builds the crawl jobs and loads what a run loads on first use, so that
no worker (a fresh one whenever the last leaves) does any of it again: the first page goes
out sooner and the workers share those pages of memory. The instance holds no connection
(Dagster's SQLite storages connect per call) and starts no thread, so forking it is safe;
its environment is the workers' own, as they inherit the fork server's.

Then it freezes the garbage collector's view of every object made so far (``gc.freeze``): the
workers' collections never walk the pipeline's modules again. That saves CPU in each
collection, and it keeps memory shared: a collection writes into each object it visits,
which copies the object's page into the worker (without it, the larger benchmark crawl's
peak was 29% above the smaller one's; docs/performance.md).

When the crawl command exits, the fork server exits too. Left to Python, its exit tears
down every module it imported, for more than half a second, while it still holds the
command's stdout and stderr: whoever reads them (a pipe, a benchmark, ``| tee``) would wait
for the command that long after it ended. It has nothing to flush or close (it only forks),
so its exit skips that teardown.
"""

import atexit
import contextlib
import gc
import importlib
import os

import fashion_assets.definitions
from fashion_assets import runs, settings
from fashion_assets.crawl.http import ssl_context

PRELOADED = (
    "dagster._core.execution.execute_in_process",
    "dagster._core.execution.plan.active",
    "dagster._core.executor.in_process",
    "dagster._core.instance.runs.run_domain",
    "dagster._core.storage.noop_compute_log_manager",
    "dagster._core.system_config.composite_descent",
    "fashion_assets.sql",
    "psycopg2.extras",
)

if settings.store_url().startswith("s3:"):
    import fashion_assets.storage.s3  # noqa: F401

try:
    runs.worker_instance()
except Exception:
    # Not here: a fork server that fails its preload breaks the pool with an obscure error.
    # Each worker opens the instance itself then, and its run reports why it failed.
    runs.instance_of_home.cache_clear()
with contextlib.suppress(Exception):  # as above: the worker builds it, its run says why
    runs.build_crawl_jobs()
# What every run would load again in its fresh worker otherwise (0.2 s of CPU a run, measured
# by importing nothing here): the modules Dagster imports to execute a run in process, the
# PostgreSQL driver, and the crawl's TLS context (it reads the CA bundle).
with contextlib.suppress(Exception):  # each worker loads them itself then
    for module in PRELOADED:
        importlib.import_module(module)
    ssl_context()

gc.freeze()

# Registered last, so it runs first: workers, forked from here, leave through os._exit
# themselves and never run it.
atexit.register(os._exit, 0)
