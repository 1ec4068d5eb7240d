"""Every shell example of README.md and docs/ runs as written, in reading order, after the
demo, against the replica: from a folder holding ``.venv`` (the suite's own environment),
with the replica's settings exported as docs/usage.md tells, nothing else set. A block
exits 0 and prints no traceback; a server answers the address it announces, below 500.
Which blocks are not run here, and why, is said in the documents (tests/doc_blocks.py)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.doc_blocks import NOT_RUN, Block, documented_blocks

pytestmark = pytest.mark.slow

VENV = Path(sys.prefix)
_URL = re.compile(r"https?://[^\s)'\"]+")


def test_every_block_not_run_here_says_why() -> None:
    blocks = documented_blocks()
    assert [b.how for b in blocks].count("ci") == 2  # the demo's and the test command
    unexplained = [f"{b.path}:{b.line} {b.comment!r}" for b in blocks
                   if b.comment and b.how == "run"]
    assert not unexplained, "a comment above a block that is neither a marker nor a reason"
    assert all(NOT_RUN.fullmatch(b.comment) for b in blocks if b.how == "skip")
    assert sum(b.how == "run" for b in blocks) >= 7


@pytest.mark.timeout(1800)
def test_the_examples_run_as_written_after_the_demo(tmp_path: Path) -> None:
    (tmp_path / ".venv").symlink_to(VENV)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("FASHION_") and k != "DAGSTER_HOME"}
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep)
                                  if p and Path(p).resolve() != (VENV / "bin").resolve())
    env["FASHION_HOME"] = str(tmp_path / "home")
    demo = _run("demo", ".venv/bin/fashion-assets demo", tmp_path, env)
    assert demo.returncode == 0, demo.stdout
    with _replica(tmp_path, env) as replica_settings:
        env.update(replica_settings)
        failures = [failure for block in documented_blocks()
                    if (failure := _try(block, tmp_path, env))]
    assert not failures, "\n\n".join(failures)


def _try(block: Block, cwd: Path, env: dict[str, str]) -> str:
    """Run or serve one block; what went wrong, or '' when it did as the document says."""
    where = f"{block.path}:{block.line}"
    if block.how == "serve":
        return _serve(where, block.text, cwd, env)
    if block.how != "run":
        return ""
    result = _run(where, block.text, cwd, env)
    if result.returncode != 0 or "Traceback" in result.stdout:
        return f"{where}: exit {result.returncode}\n{block.text}\n--- output\n{result.stdout}"
    return ""


def _run(where: str, script: str, cwd: Path, env: dict[str, str]
         ) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", "-e", "-o", "pipefail", "-c", script], cwd=cwd, env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          timeout=600, check=False)


def _serve(where: str, script: str, cwd: Path, env: dict[str, str]) -> str:
    """Start a server block, wait for the address it announces, ask it, stop it."""
    log = cwd / "serve.log"
    with log.open("w") as out:
        server = subprocess.Popen(["bash", "-c", f"exec {script}"], cwd=cwd, env=env,
                                  stdout=out, stderr=subprocess.STDOUT,
                                  start_new_session=True)
    try:
        url = _announced_url(server, log)
        if url is None:
            return f"{where}: no address announced\n{script}\n--- output\n{log.read_text()}"
        try:
            with urllib.request.urlopen(url, timeout=30) as answer:
                status = answer.status
        except urllib.error.HTTPError as refused:
            status = refused.code
        if status >= 500:
            return f"{where}: {url} answered {status}\n--- output\n{log.read_text()}"
        if server.poll() is not None:
            return f"{where}: exited {server.returncode} while serving\n{log.read_text()}"
    finally:
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGINT)
            server.wait(timeout=30)
    if "Traceback" in log.read_text():
        return f"{where}: a traceback\n--- output\n{log.read_text()}"
    return ""


def _announced_url(server: subprocess.Popen[str], log: Path) -> str | None:
    """The first address the server prints, once it prints one (None if it exits first)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        found = _URL.search(log.read_text())
        if found:
            return found.group(0)
        if server.poll() is not None:
            return None
        time.sleep(0.1)  # polling the server's own output for its announcement
    return None


@contextmanager
def _replica(cwd: Path, env: dict[str, str]) -> Iterator[dict[str, str]]:
    """``fashion-assets replica serve`` in "another terminal": the settings it prints."""
    log = cwd / "replica.log"
    with log.open("w") as out:
        server = subprocess.Popen(
            [".venv/bin/fashion-assets", "replica", "serve", "--port", "0", "--cdn-port", "0",
             "--impression-port", "0", "--impression-cdn-port", "0"],
            cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=out)
    try:
        deadline = time.monotonic() + 60
        settings: dict[str, str] = {}
        while len(settings) < 4 and server.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)  # polling the replica's own output for its settings
            settings = dict(re.findall(r"export (FASHION_\w+)=(\S+)", log.read_text()))
        assert len(settings) == 4, f"the replica printed no settings:\n{log.read_text()}"
        yield settings
    finally:
        server.send_signal(signal.SIGINT)
        server.wait(timeout=30)
