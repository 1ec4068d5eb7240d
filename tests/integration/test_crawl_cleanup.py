"""A crawl whose runs were never submitted (the catalog or the deployment failed after the
plan added brand partitions) removes those partitions again; when the deployment cannot
remove them either, the command says so in a note line naming them and why, and still
reports the error that stopped it (launch/crawl.py: ``forget_unsubmitted``).

The deployment here is a webserver address nothing listens on any more: the removal is a
real GraphQL request that fails to connect, as it does when ``dagster dev`` died.
"""

from __future__ import annotations

import socket
from concurrent.futures import Future
from contextlib import ExitStack
from typing import Any

from fashion_assets.launch.crawl import Session, forget_unsubmitted
from fashion_assets.launch.deployment import Deployment
from fashion_assets.launch.graphql import GraphQL


def notes_of_cleanup(added: set[str]) -> list[str]:
    """The note lines of removing ``added`` on a deployment whose webserver is gone (its
    loopback port just freed)."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{listener.getsockname()[1]}"
    lines: list[str] = []
    catalog: Future[Any] = Future()
    catalog.set_result(None)
    with ExitStack() as stack:
        session = Session({}, catalog, None, stack, lines.append,
                          _deployed=Deployment(url, GraphQL(url)))
        forget_unsubmitted(session, {"brand": added})
    return lines


def test_partitions_that_cannot_be_removed_are_named_in_a_note_line() -> None:
    [line] = notes_of_cleanup({"chloe", "chloe-typo"})
    assert line.startswith("the brand partitions added for runs never submitted stay: "
                           "chloe, chloe-typo ("), line
    assert "Connection refused" in line and line.endswith(")"), line


def test_no_partition_added_is_no_request_and_no_note() -> None:
    assert notes_of_cleanup(set()) == []
