"""Running a crawl's coroutine on the fastest event loop available, interruptible.

uvloop runs Python's signal handlers inside its own callbacks and logs what they raise:
Dagster's SIGINT handler (how a terminated run interrupts its step) would raise its
``DagsterExecutionInterruptedError`` there, be logged, and the crawl would go on as if
nothing happened, its run CANCELING for ever. So, in the main thread, ``run`` takes SIGINT
into the loop: the handler that was in place is called there, and if it raises, the crawl
is cancelled and the handler's exception raised from ``run``, where the step sees it.
"""

from __future__ import annotations

import asyncio
import signal
import threading
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

import uvloop

T = TypeVar("T")


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run`` on uvloop (its socket handling halves the loop's share of a crawl),
    SIGINT's handler called from the loop, what it raises raised here."""
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
