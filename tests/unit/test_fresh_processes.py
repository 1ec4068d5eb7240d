"""Tasks in fresh processes (``fashion_assets/fresh_processes.py``): real processes from a
fork server, as the crawl's workers are."""

from __future__ import annotations

import multiprocessing
import os
import signal
import time
from collections.abc import Iterator
from multiprocessing import forkserver, resource_tracker
from pathlib import Path

import pytest

from fashion_assets.fresh_processes import Task, run_in_fresh_processes

CONTEXT = multiprocessing.get_context("forkserver")
_left_by_a_task: list[int] = []


@pytest.fixture(autouse=True, scope="module")
def _fork_server() -> Iterator[None]:
    """This module's tasks come from a fork server that imported it; it ends with them (it
    and multiprocessing's resource tracker would otherwise outlive the suite)."""
    CONTEXT.set_forkserver_preload([__name__])
    yield
    forkserver._forkserver._stop()
    resource_tracker._resource_tracker._stop()


def _remember_and_report(n: int) -> tuple[int, list[int]]:
    """What an earlier task of the same process left in this module, then leaves some."""
    seen = list(_left_by_a_task)
    _left_by_a_task.append(n)
    return os.getpid(), seen


def _meet(mine: str, theirs: str) -> int:
    """Leave a mark and wait for the other task's: both must run at once to return."""
    Path(mine).touch()
    deadline = time.monotonic() + 60
    while not Path(theirs).exists():
        if time.monotonic() > deadline:
            raise TimeoutError("the other task never ran beside this one")
        time.sleep(0.01)
    return os.getpid()


def _exit(code: int) -> None:
    os._exit(code)


def _kill_self() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def _fail(message: str) -> None:
    raise ValueError(message)


def _touch(path: str) -> None:
    Path(path).touch()


def _unpicklable() -> object:
    return lambda: None


def _run(tasks: list[Task], workers: int = 2) -> tuple[dict[int, object], dict[int, object]]:
    results: dict[int, object] = {}
    died: dict[int, object] = {}
    run_in_fresh_processes(tasks, workers, CONTEXT, on_result=results.__setitem__,
                           on_died=died.__setitem__)
    return results, died


def test_every_task_runs_in_a_process_of_its_own_that_nothing_earlier_touched() -> None:
    results, died = _run([Task(_remember_and_report, (n,)) for n in range(6)])
    assert died == {}
    assert sorted(results) == list(range(6))
    assert len({pid for pid, _ in results.values()}) == 6
    assert all(seen == [] for _, seen in results.values())
    assert os.getpid() not in {pid for pid, _ in results.values()}


def test_as_many_tasks_run_at_once_as_there_are_workers(tmp_path: Path) -> None:
    a, b = str(tmp_path / "a"), str(tmp_path / "b")
    results, _ = _run([Task(_meet, (a, b)), Task(_meet, (b, a))], workers=2)
    assert len(set(results.values())) == 2


def test_a_worker_stays_for_the_next_task_until_its_rule_says_it_leaves() -> None:
    results: dict[int, object] = {}
    run_in_fresh_processes([Task(_remember_and_report, (n,)) for n in range(5)], 1, CONTEXT,
                           on_result=results.__setitem__, on_died=lambda index, code: None,
                           retire=_after_two_tasks)
    pids = [results[n][0] for n in range(5)]
    assert pids[0] == pids[1] != pids[2] == pids[3] != pids[4]
    assert [results[n][1] for n in range(5)] == [[], [0], [], [2], []]


def _after_two_tasks() -> bool:
    return len(_left_by_a_task) >= 2


def test_a_task_that_cannot_be_sent_leaves_no_worker_behind() -> None:
    with pytest.raises(Exception, match=r"pickle|lambda|local"):
        _run([Task(_remember_and_report, (lambda: None,))])
    assert multiprocessing.active_children() == []


def test_a_process_that_dies_is_reported_with_its_exit_code_and_the_others_go_on() -> None:
    results, died = _run([Task(_exit, (3,)), Task(_kill_self),
                          Task(_remember_and_report, (7,))], workers=1)
    assert died == {0: 3, 1: -signal.SIGKILL}
    assert list(results) == [2]


def test_a_task_that_raises_stops_further_starts_and_its_error_is_raised_here(
        tmp_path: Path) -> None:
    later = tmp_path / "started"
    results: dict[int, object] = {}
    with pytest.raises(ValueError, match="the catalog is gone") as raised:
        run_in_fresh_processes(
            [Task(_remember_and_report, (1,)), Task(_fail, ("the catalog is gone",)),
             Task(_touch, (str(later),))], 1, CONTEXT, on_result=results.__setitem__,
            on_died=lambda index, code: None)
    assert list(results) == [0]
    assert not later.exists()
    assert "in the worker process" in raised.value.__notes__[0]
    assert "_fail" in raised.value.__notes__[0]


def test_a_result_pickle_cannot_carry_is_raised_as_an_error_that_names_it() -> None:
    with pytest.raises(RuntimeError, match="function"):
        _run([Task(_unpicklable)])
