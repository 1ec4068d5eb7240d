"""Running a crawl's coroutine on the fastest event loop available, interruptible.

uvloop runs Python's signal handlers inside its own callbacks and logs what they raise:
Dagster's interrupt handler (how a terminated run interrupts its step) would raise its
``DagsterExecutionInterruptedError`` there, be logged, and the crawl would go on as if
nothing happened, its run CANCELING for ever. Dagster interrupts a step with SIGINT (the
default run launcher) or SIGTERM, which it maps to the same handler (Kubernetes, and a
Celery worker's pool process when the run is revoked: ``launch/celery_runs.py``). So, in the
main thread, ``run`` takes both into the loop: the handler that was in place for each is
called there, and if it raises, the crawl is cancelled and the handler's exception raised
from ``run``, where the step sees it.

The first crawl of a process freezes what it found alive (``gc.freeze``): Dagster's objects,
the code location's, the instance's, some 234,000 that live as long as the process, which the
collector then no longer walks, in a full collection during the crawl nor in the last one at
the process's exit (docs/performance.md, "The interpreter's own costs": the gain is mostly
the exit's; most full collections happen while the code loads, before any crawl).
"""

from __future__ import annotations

import asyncio
import gc
import signal
import threading
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

import uvloop

T = TypeVar("T")


INTERRUPTS = (signal.SIGINT, signal.SIGTERM)
"""The signals by which Dagster interrupts a step."""


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run`` on uvloop (its socket handling halves the loop's share of a crawl),
    the interrupt signals' handlers called from the loop, what they raise raised here."""
    _freeze_long_lived()
    handlers = {signum: signal.getsignal(signum) for signum in INTERRUPTS}
    handlers = {signum: handler for signum, handler in handlers.items() if callable(handler)}
    if not handlers or threading.current_thread() is not threading.main_thread():
        with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
            return runner.run(coroutine)
    raised: list[BaseException] = []
    try:
        with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
            try:
                return runner.run(_interruptible(coroutine, handlers, raised))
            except asyncio.CancelledError:
                if raised:
                    raise raised[0] from None
                raise
    finally:  # closing the loop leaves the signals to Python's default handlers
        for signum, handler in handlers.items():
            signal.signal(signum, handler)


def _freeze_long_lived() -> None:
    """Once per process: move every object to the permanent generation, which collections
    skip; what the crawl allocates afterwards is collected as usual. No collection first:
    in a run process it found some 575 unreachable objects among 224,000 and took 0.11-0.13
    s, on the way to the run's first page; those few stay allocated for the process's life."""
    if gc.get_freeze_count() == 0:
        gc.freeze()


async def _interruptible(coroutine: Coroutine[Any, Any, T],
                         handlers: dict[int, Callable[[int, Any], Any]],
                         raised: list[BaseException]) -> T:
    """Await ``coroutine`` with each signal of ``handlers`` handled by the loop: its handler
    called, and the crawl cancelled if it raises (what it raised kept in ``raised``)."""
    task = asyncio.current_task()
    assert task is not None

    def on_signal(signum: int, handler: Callable[[int, Any], Any]) -> None:
        try:
            handler(signum, None)
        except BaseException as error:  # handed to `run`, which raises it
            raised.append(error)
            task.cancel()

    for signum, handler in handlers.items():
        asyncio.get_running_loop().add_signal_handler(signum, on_signal, signum, handler)
    return await coroutine
