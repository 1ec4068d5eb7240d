"""Following runs through a webserver that goes away (launch/follow.py): a stop when the
command's deployment ended meanwhile, the error otherwise. A real socket, bound and never
listening, stands for the webserver that died between the check and the request."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import httpx
import pytest

from fashion_assets.launch.follow import RunLog, follow_runs
from fashion_assets.launch.graphql import GraphQL


@pytest.fixture
def gone() -> Iterator[GraphQL]:
    with socket.socket() as taken:  # bound, never listening: a connection there is refused
        taken.bind(("127.0.0.1", 0))
        yield GraphQL(f"http://127.0.0.1:{taken.getsockname()[1]}")


def test_a_webserver_gone_with_its_ended_deployment_stops_the_follow(gone: GraphQL) -> None:
    answers = iter([True, False])  # alive at the poll's start, ended once it failed
    ended: list[object] = []
    lost = follow_runs(gone, ["run-a", "run-b"], run_log=RunLog.QUIET, on_line=print,
                       on_end=ended.append, keep_going=lambda: next(answers))
    assert lost == ["run-a", "run-b"] and ended == []


def test_a_webserver_gone_while_the_deployment_lives_is_an_error(gone: GraphQL) -> None:
    with pytest.raises(httpx.ConnectError):
        follow_runs(gone, ["run-a"], run_log=RunLog.QUIET, on_line=print,
                    on_end=lambda outcome: None, keep_going=lambda: True)
