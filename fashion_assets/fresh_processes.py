"""Tasks in worker processes that each end when a rule says, a few of them at a time.

A crawl's worker used to execute run after run in one process (a ``ProcessPoolExecutor``).
Python frees a run's objects when it ends, and ``memory.release_freed_memory`` hands the
free heap pages back, but what fragmentation pins stays: a worker kept the high-water mark
of the biggest runs it had executed, and over a long crawl it crept upward run after run
(docs/performance.md, "A worker's memory, run after run"). A process that ends takes all of
its memory along, and the next one starts from the fork server's image again. A process per
task costs the task a cold start, though (caches filled again: a tenth of a second of CPU
for a crawl run), so a worker may stay for the next task until its rule says it should
leave: ``retire``, called in the worker after each task (none: after every task).

``ProcessPoolExecutor(max_tasks_per_child=...)`` cannot do this: it has no such rule, and on
Python 3.11 it deadlocks when a worker exits while tasks wait (cpython gh-115634). Processes
come from the context the caller gives, a fork server that imported the pipeline once, so a
new one starts in milliseconds.

Each worker talks to this process through a pipe of its own: a task goes out, its outcome
comes back. A worker that ends without sending one (killed, out of memory, ``os._exit``) is
reported to ``on_died`` with its exit code, and the other tasks go on. A task that raises
stops further starts; the running ones end, then the exception is raised here, its worker's
traceback attached as a note. Anything raised here while waiting (a stop signal) leaves the
workers to the caller, which finds them with ``multiprocessing.active_children()``.
"""

from __future__ import annotations

import contextlib
import multiprocessing.connection
import traceback
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from multiprocessing.context import BaseContext
from typing import Any


@dataclass(frozen=True)
class Task:
    """A call to make in a worker process: a module-level function (processes from a fork
    server receive it pickled) and its arguments."""

    function: Callable[..., Any]
    args: tuple[Any, ...] = ()


@dataclass(frozen=True)
class _Worker:
    process: Any  # multiprocessing.Process of the caller's context
    conn: Any  # this side of its pipe


def run_in_fresh_processes(tasks: Sequence[Task], workers: int, context: BaseContext, *,
                           on_result: Callable[[int, Any], None],
                           on_died: Callable[[int, int | None], None],
                           initializer: Callable[[], None] | None = None,
                           retire: Callable[[], bool] | None = None) -> None:
    """The tasks in worker processes of ``context``, at most ``workers`` at once, in order.

    ``on_result(index, result)`` is called here as each task ends, in the order they end;
    ``on_died(index, exit code)`` for a worker that ended without a result.
    ``initializer`` is the first call in every worker; ``retire()``, called in a worker
    after each of its tasks, says whether it leaves (None: every worker leaves after one).
    """
    waiting = deque(enumerate(tasks))
    idle: list[_Worker] = []
    busy: dict[Any, tuple[_Worker, int]] = {}  # by this side of the worker's pipe
    failure: BaseException | None = None
    while busy or (waiting and failure is None):
        while waiting and failure is None and len(busy) < workers:
            index, task = waiting.popleft()
            worker = _hand(task, idle, lambda: _start(context, initializer, retire))
            busy[worker.conn] = (worker, index)
        for conn in multiprocessing.connection.wait(list(busy)):
            worker, index = busy.pop(conn)
            try:
                succeeded, value, trace, leaving = conn.recv()
            except EOFError:
                _end(worker)
                on_died(index, worker.process.exitcode)
                continue
            if leaving:
                _end(worker)
            else:
                idle.append(worker)
            if succeeded:
                on_result(index, value)
            elif failure is None:
                value.add_note(f"in the worker process:\n{trace}")
                failure = value
    for worker in idle:  # no more tasks: each leaves
        with contextlib.suppress(OSError):  # gone already
            worker.conn.send(None)
        _end(worker)
    if failure is not None:
        raise failure


def _start(context: BaseContext, initializer: Callable[[], None] | None,
           retire: Callable[[], bool] | None) -> _Worker:
    ours, theirs = context.Pipe()
    process = context.Process(target=_serve, args=(theirs, initializer, retire),
                              name="worker", daemon=True)
    process.start()
    theirs.close()  # the worker's copy is the only one left: its end is our EOF
    return _Worker(process, ours)


def _hand(task: Task, idle: list[_Worker], start: Callable[[], _Worker]) -> _Worker:
    """Send ``task`` to an idle worker, or to a new one when none is (or the idle one is
    gone)."""
    while idle:
        worker = idle.pop()
        try:
            worker.conn.send(task)
            return worker
        except OSError:
            _end(worker)
        except BaseException:  # a task pickle cannot carry: nothing was sent
            idle.append(worker)
            raise
    worker = start()
    try:
        worker.conn.send(task)
    except BaseException:
        _end(worker)  # it sees the pipe close, and leaves
        raise
    return worker


def _end(worker: _Worker) -> None:
    worker.conn.close()
    worker.process.join()


def _serve(conn: Any, initializer: Callable[[], None] | None,
           retire: Callable[[], bool] | None) -> None:
    """In the worker: tasks until there are no more or ``retire`` says to leave."""
    if initializer is not None:
        initializer()
    while True:
        try:
            task = conn.recv()
        except EOFError:
            return
        if task is None:
            return
        try:
            outcome: tuple[bool, Any, str] = (True, task.function(*task.args), "")
        except BaseException as error:  # sent to the parent, which raises it
            outcome = (False, error, traceback.format_exc())
        leaving = retire is None or retire()
        try:
            conn.send((*outcome, leaving))
        except Exception as unpicklable:  # an error (or a result) pickle cannot carry
            conn.send((False, RuntimeError(f"{type(outcome[1]).__name__}: {outcome[1]}"),
                       outcome[2] or f"{type(unpicklable).__name__}: {unpicklable}", leaving))
        if leaving:
            return
