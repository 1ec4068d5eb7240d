"""How the crawl assets are run: retried, batched in backfills, failed for good.

Both are read from the environment when the code location loads (``FASHION_STEP_RETRIES``,
``FASHION_STEP_RETRY_DELAY``, ``FASHION_CRAWL_BATCH_BRANDS``): Dagster fixes an asset's
policies when it is defined.
"""

import os
import warnings
from collections.abc import Iterator
from contextlib import contextmanager

from dagster import (
    BackfillPolicy,
    Backoff,
    BetaWarning,
    DagsterExecutionInterruptedError,
    Failure,
    Jitter,
    RetryPolicy,
)

from fashion_assets import settings
from fashion_assets.crawl.runway import ListingError


def crawl_retry_policy() -> RetryPolicy:
    """Retries with exponential back-off and jitter, for failures a retry can fix: a source
    or database that did not answer, our own store, database or disk that kept failing
    through the step's own retries (``crawl/infra.py: InfrastructureError``). Business
    errors (a 404, a page that cannot be read) raise ``Failure(allow_retries=False)`` or are
    recorded per show, never retried."""
    env = os.environ
    return RetryPolicy(max_retries=int(settings.setting(env, "FASHION_STEP_RETRIES")),
                       delay=float(settings.setting(env, "FASHION_STEP_RETRY_DELAY")),
                       backoff=Backoff.EXPONENTIAL, jitter=Jitter.PLUS_MINUS)


CRAWL_RETRY = crawl_retry_policy()

# Backfill policies are beta in Dagster 1.13 and we rely on them: the policy and the asset
# parameter that takes it would warn at every import (the CLI, each worker, each code server).
warnings.filterwarnings("ignore", category=BetaWarning, message=".*backfill_policy")
with warnings.catch_warnings():
    warnings.simplefilter("ignore", BetaWarning)
    # A backfill of many brands (seasons, weeks) runs FASHION_CRAWL_BATCH_BRANDS partitions
    # per run, like the schedule: a run's fixed cost (its process, the code's load, its
    # event log) is paid per batch, not per partition.
    CRAWL_BATCHES = BackfillPolicy.multi_run(max_partitions_per_run=settings.crawl_batch_brands())


@contextmanager
def listing_failures() -> Iterator[None]:
    """A listing that failed for good (404, robots.txt, unreadable) fails its step without
    a retry; one the source could not answer is raised as is, for the retry policy."""
    try:
        yield
    except ListingError as exc:
        if exc.transient:
            raise
        raise Failure(str(exc), allow_retries=False) from None


@contextmanager
def interruptions_not_retried() -> Iterator[None]:
    """A step Dagster interrupts (its run terminated: the command stopped, the stuck-run
    sensor, the UI) fails for good. Dagster retries an interrupted step under its retry
    policy, and the retry would crawl on in a run nobody interrupts a second time."""
    try:
        yield
    except (DagsterExecutionInterruptedError, KeyboardInterrupt):
        raise Failure("interrupted: the run was terminated", allow_retries=False) from None
