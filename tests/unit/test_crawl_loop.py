"""The crawl's event loop hands SIGINT and SIGTERM to the handler in place (Dagster's, in a
step), and its first run in a process freezes the long-lived objects."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from fashion_assets.crawl import loop


class Interrupted(BaseException):
    """What Dagster's handler raises in a step: ``DagsterExecutionInterruptedError``."""


@contextmanager
def sigint_handler(handler: Callable[[int, Any], Any],
                   signum: int = signal.SIGINT) -> Iterator[None]:
    previous = signal.signal(signum, handler)
    try:
        yield
    finally:
        signal.signal(signum, previous)


async def interrupted_crawl(done: list[str], signum: int = signal.SIGINT) -> str:
    """A crawl that sends itself ``signum``, then waits far longer than the test allows."""
    os.kill(os.getpid(), signum)
    try:
        await asyncio.sleep(60)
    finally:
        done.append("cleaned up")
    return "finished"


def raising(signum: int, frame: Any) -> None:
    raise Interrupted("terminated")


@pytest.mark.timeout(20)
@pytest.mark.parametrize("signum", loop.INTERRUPTS, ids=lambda s: signal.Signals(s).name)
def test_a_raising_handler_cancels_the_crawl_and_its_exception_reaches_the_caller(
        signum: int) -> None:
    """SIGTERM too: Dagster maps it to its interrupt handler, and a Celery worker's pool
    process gets it when its run is terminated (revoked)."""
    done: list[str] = []
    with sigint_handler(raising, signum):
        with pytest.raises(Interrupted, match="terminated"):
            loop.run(interrupted_crawl(done, signum))
        assert done == ["cleaned up"]  # cancelled: its finally blocks ran
        assert signal.getsignal(signum) is raising  # restored for the next step


@pytest.mark.timeout(20)
def test_python_s_default_handler_ends_the_crawl_with_keyboard_interrupt() -> None:
    with sigint_handler(signal.default_int_handler), pytest.raises(KeyboardInterrupt):
        loop.run(interrupted_crawl([]))


@pytest.mark.timeout(20)
def test_a_handler_that_only_records_the_signal_lets_the_crawl_finish() -> None:
    seen: list[int] = []

    async def crawl() -> str:
        os.kill(os.getpid(), signal.SIGINT)
        await asyncio.sleep(0.2)
        return "finished"

    with sigint_handler(lambda signum, frame: seen.append(signum)):
        assert loop.run(crawl()) == "finished"
    assert seen == [signal.SIGINT]


def test_an_ignored_sigint_leaves_the_crawl_alone() -> None:
    async def crawl() -> str:
        os.kill(os.getpid(), signal.SIGINT)
        await asyncio.sleep(0.1)
        return "finished"

    with sigint_handler(signal.SIG_IGN):
        assert loop.run(crawl()) == "finished"
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN


FREEZE_PROBE = """
import gc, weakref
from fashion_assets.crawl import loop
gc.disable()  # no collection but the probe's own

class Node:
    pass

alive = [Node() for _ in range(1000)]
assert gc.get_freeze_count() == 0
async def crawl():
    return "done"
first = loop.run(crawl())
frozen = gc.get_freeze_count()
garbage = Node()
garbage.cycle = garbage  # made by the crawl: only a collection frees it
dead = weakref.ref(garbage)
del garbage
second = loop.run(crawl())
gc.collect()
print(first, second, frozen >= len(alive), gc.get_freeze_count() == frozen, dead() is None)
"""


def test_the_first_crawl_of_a_process_freezes_what_lives_and_later_garbage_is_collected(
        ) -> None:
    """In a fresh interpreter (this one's freeze count is the suite's): the objects alive at
    the first crawl are frozen, a second crawl freezes nothing more, and a cycle nobody holds
    made after the freeze is still collected."""
    out = subprocess.run([sys.executable, "-c", FREEZE_PROBE], capture_output=True,
                         text=True, check=True, timeout=60).stdout.split()
    assert out == ["done", "done", "True", "True", "True"]
