"""Our own outages are not the source's fault.

A call to the object store, the catalog database or the local disk that fails is retried
inside the step, backing off (``domain/ingest.py: infra_retry_delay``), for up to
``FASHION_INFRA_RETRY_SECONDS``: a short outage is ridden out. A longer one raises
``InfrastructureError``, which no ingest turns into an outcome: no show or article is
recorded as failed, the step fails with the reason (then the step's own retries apply) and
the run fails, so the next run tries every item again.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, TypeVar

from sqlalchemy.exc import OperationalError

from fashion_assets.domain.ingest import infra_retry_delay
from fashion_assets.domain.wording import counted
from fashion_assets.storage import MissingBucketError

T = TypeVar("T")

_LOG = logging.getLogger(__name__)

# What our own systems raise when they, not the call, are at fault: OSError is a store's
# ``StoreError`` or the local disk (full, read-only, gone); a bucket that is missing (not
# provisioned yet, or an S3 server that lost it); OperationalError is the database
# unreachable, restarting, locked or out of space. A bug (ValueError, an IntegrityError) is
# never retried.
INFRASTRUCTURE_ERRORS: tuple[type[Exception], ...] = (OSError, MissingBucketError,
                                                      OperationalError)


class InfrastructureError(RuntimeError):
    """Our own store, database or disk kept failing for the whole retry budget.

    Not an ``OSError``: nothing that handles a source's failures may catch it.
    """


async def with_retries(what: str, budget_s: float,
                       function: Callable[..., T] | Callable[..., Awaitable[T]], *args: Any
                       ) -> T:
    """``function(*args)`` in a thread (a coroutine function is awaited on the event loop),
    called again while it fails with one of ``INFRASTRUCTURE_ERRORS``, until it has failed
    for ``budget_s``; then ``InfrastructureError`` naming ``what`` and the last error.

    The message is the whole reason (a run's summary shows the failure's root cause), so the
    error is raised without its cause.
    """
    started = time.monotonic()
    failures = 0
    while True:
        try:
            if inspect.iscoroutinefunction(function):
                return await function(*args)
            return await asyncio.to_thread(function, *args)
        except INFRASTRUCTURE_ERRORS as exc:
            failures += 1
            failing_s = time.monotonic() - started
            error = f"{type(exc).__name__}: {exc}"
            delay = infra_retry_delay(failures=failures, failing_s=failing_s, budget_s=budget_s)
            if delay is None:
                attempts = counted(failures, "attempt")
                raise InfrastructureError(
                    f"{what} kept failing for {failing_s:.1f} s ({attempts}), an outage of "
                    f"our own, not the source's: {error}") from None
            _LOG.warning("%s failed (%s); attempt %d in %.1f s", what, error, failures + 1,
                         delay)
            await asyncio.sleep(delay)


async def gather_or_cancel(awaitables: Iterable[Awaitable[T]]) -> list[T]:
    """``asyncio.gather``, except that the first error cancels the others and waits for
    them before it is raised: a step failing on an outage leaves nothing of it running to
    record an item's outcome while the step's fetcher closes."""
    tasks = [asyncio.ensure_future(awaitable) for awaitable in awaitables]
    try:
        return list(await asyncio.gather(*tasks))
    except BaseException:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise
