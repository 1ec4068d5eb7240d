"""Running a crawl's coroutine on the fastest event loop available, interruptible.

uvloop runs Python's signal handlers inside its own callbacks and logs what they raise:
Dagster's SIGINT handler (how a terminated run interrupts its step) would raise its
``DagsterExecutionInterruptedError`` there, be logged, and the crawl would go on as if
nothing happened, its run CANCELING for ever. So, in the main thread, ``run`` takes SIGINT
into the loop: the handler that was in place is called there, and if it raises, the crawl
is cancelled and the handler's exception raised from ``run``, where the step sees it.

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


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run`` on uvloop (its socket handling halves the loop's share of a crawl),
    SIGINT's handler called from the loop, what it raises raised here."""
    _freeze_long_lived()
    handler = signal.getsignal(signal.SIGINT)
    if not callable(handler) or threading.current_thread() is not threading.main_thread():
        with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
            return runner.run(coroutine)
    raised: list[BaseException] = []
    try:
        with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
            try:
                return runner.run(_interruptible(coroutine, handler, raised))
            except asyncio.CancelledError:
                if raised:
                    raise raised[0] from None
                raise
    finally:  # closing the loop leaves SIGINT to Python's default handler
        signal.signal(signal.SIGINT, handler)


def _freeze_long_lived() -> None:
    """Once per process: collect, then move every object left to the permanent generation,
    which collections skip. Collected first, so no garbage is kept; what the crawl
    allocates afterwards is collected as usual."""
    if gc.get_freeze_count() == 0:
        gc.collect()
        gc.freeze()


async def _interruptible(coroutine: Coroutine[Any, Any, T],
                         handler: Callable[[int, Any], Any], raised: list[BaseException]
                         ) -> T:
    """Await ``coroutine`` with SIGINT handled by the loop: ``handler`` called, and the
    crawl cancelled if it raises (what it raised kept in ``raised``)."""
    task = asyncio.current_task()
    assert task is not None

    def on_sigint() -> None:
        try:
            handler(signal.SIGINT, None)
        except BaseException as error:  # handed to `run`, which raises it
            raised.append(error)
            task.cancel()

    asyncio.get_running_loop().add_signal_handler(signal.SIGINT, on_sigint)
    return await coroutine
