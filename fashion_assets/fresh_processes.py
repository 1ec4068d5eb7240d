"""Tasks each in a fresh process, at most a number of them at a time.

A crawl's worker used to execute run after run in one process (a ``ProcessPoolExecutor``).
Python frees a run's objects when it ends, and ``memory.release_freed_memory`` hands the
free heap pages back, but what fragmentation pins stays: a worker kept the high-water mark
of the biggest runs it had executed, and over a long crawl it crept upward run after run
(docs/performance.md, "A worker's memory, run after run"). A process that ends with its run
takes all of its memory along, so the next run starts from the fork server's image again.

``ProcessPoolExecutor(max_tasks_per_child=1)`` would do the same, but on Python 3.11 it
deadlocks when a worker exits while tasks wait (cpython gh-115634). Processes come from the
context the caller gives, a fork server that imported the pipeline once, so each one starts
in milliseconds.

A task's result comes back through a pipe of its own. A process that ends without sending
one (killed, out of memory, ``os._exit``) is reported to ``on_died`` with its exit code, and
the others go on. A task that raises stops further starts; the running ones end, then the
exception is raised here, its worker's traceback attached as a note. Anything raised here
while waiting (a stop signal) leaves the running processes to the caller, which finds them
with ``multiprocessing.active_children()``.
"""

from __future__ import annotations

import multiprocessing.connection
import traceback
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from multiprocessing.context import BaseContext
from typing import Any


@dataclass(frozen=True)
class Task:
    """A call to make in a process of its own: a module-level function (processes from a
    fork server receive it pickled) and its arguments."""

    function: Callable[..., Any]
    args: tuple[Any, ...] = ()


@dataclass(frozen=True)
class _Running:
    index: int
    process: Any  # multiprocessing.Process of the caller's context


def run_in_fresh_processes(tasks: Sequence[Task], workers: int, context: BaseContext, *,
                           on_result: Callable[[int, Any], None],
                           on_died: Callable[[int, int | None], None],
                           initializer: Callable[[], None] | None = None) -> None:
    """Each task in a new process of ``context``, at most ``workers`` at once, in order.

    ``on_result(index, result)`` is called here as each task ends, in the order they end;
    ``on_died(index, exit code)`` for a process that ended without a result.
    ``initializer`` is the first call in every process.
    """
    waiting = deque(enumerate(tasks))
    running: dict[Any, _Running] = {}  # the receiving end of each running task's pipe
    failure: BaseException | None = None
    while running or (waiting and failure is None):
        while waiting and failure is None and len(running) < workers:
            index, task = waiting.popleft()
            receiver, sender = context.Pipe(duplex=False)
            process = context.Process(target=_call, args=(task, sender, initializer),
                                      name=f"task-{index}", daemon=True)
            process.start()
            sender.close()  # the child's copy is the only one left: its end is our EOF
            running[receiver] = _Running(index, process)
        for receiver in multiprocessing.connection.wait(list(running)):
            done = running.pop(receiver)
            try:
                succeeded, value, trace = receiver.recv()
            except EOFError:
                done.process.join()
                on_died(done.index, done.process.exitcode)
                continue
            finally:
                receiver.close()
            done.process.join()
            if succeeded:
                on_result(done.index, value)
            elif failure is None:
                value.add_note(f"in the worker process:\n{trace}")
                failure = value
    if failure is not None:
        raise failure


def _call(task: Task, sender: Any, initializer: Callable[[], None] | None) -> None:
    """In the fresh process: the task, its outcome sent back whole or as a picklable error."""
    try:
        if initializer is not None:
            initializer()
        outcome: tuple[bool, Any, str] = (True, task.function(*task.args), "")
    except BaseException as error:  # sent to the parent, which raises it
        outcome = (False, error, traceback.format_exc())
    try:
        sender.send(outcome)
    except Exception as unpicklable:  # an error (or a result) pickle cannot carry
        sender.send((False, RuntimeError(f"{type(outcome[1]).__name__}: {outcome[1]}"),
                     outcome[2] or f"{type(unpicklable).__name__}: {unpicklable}"))
    sender.close()
