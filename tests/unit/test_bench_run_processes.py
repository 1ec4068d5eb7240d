"""The benchmarks' measure of a crawl through a deployment (``bench/deployed.py``): the
command's process and the run processes a code server spawns for it count, the code server
itself does not, and a run process is counted to its last moment even when it ends after the
command."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.common import measure
from bench.deployed import RunProcesses, is_code_server, is_run_process

RUN_MB = 80
SERVER_MB = 200
SERVER_BURN_S = 1.5
# A run: holds RUN_MB, waits until both runs hold theirs (so they overlap), burns CPU, and
# writes the CPU time it used to a file named after its pid.
RUN = f"""
import os, time
held = b"r" * ({RUN_MB} * 2**20)
open(os.path.join(FOLDER, "ready-%d" % os.getpid()), "w").close()
while len([n for n in os.listdir(FOLDER) if n.startswith("ready-")]) < 2:
    time.sleep(0.01)
started = time.process_time()
while time.process_time() - started < 0.6:
    pass
with open(os.path.join(FOLDER, "cpu-%d" % os.getpid()), "w") as out:
    out.write(str(sum(os.times()[:2])))
"""
# A code server: per connection, spawns two runs as Dagster's code server does
# (multiprocessing's spawn context), replies before or after they end, reaps them, then
# burns CPU of its own. Its argv ends with `dagster api grpc`; it holds SERVER_MB.
SERVER = f"""
import multiprocessing, socket, sys, time
folder, early = sys.argv[1], sys.argv[2] == "early"
held = b"s" * ({SERVER_MB} * 2**20)
listener = socket.create_server(("127.0.0.1", 0))
print(listener.getsockname()[1], flush=True)
context = multiprocessing.get_context("spawn")
while True:
    connection, _ = listener.accept()
    connection.recv(16)
    runs = [context.Process(target=exec, args=(f"FOLDER = {{folder!r}}\\n" + {RUN!r}, {{}}))
            for _ in range(2)]
    for run in runs:
        run.start()
    if early:
        connection.sendall(b"submitted")
    for run in runs:
        run.join()
    started = time.process_time()
    while time.process_time() - started < {SERVER_BURN_S}:
        pass
    if not early:
        connection.sendall(b"done")
    connection.close()
"""
COMMAND_MB = 40
COMMAND = f"""
import socket, sys
held = b"c" * ({COMMAND_MB} * 2**20)
with socket.create_connection(("127.0.0.1", int(sys.argv[1]))) as connection:
    connection.sendall(b"go")
    connection.recv(16)
"""


@pytest.fixture(params=["after", "early"])
def server(request: pytest.FixtureRequest, tmp_path: Path
           ) -> Iterator[tuple[int, int, Path, bool]]:
    """The fake code server (its pid, its port, the runs' folder, whether it replies to the
    command as soon as its runs started rather than after they ended)."""
    process = subprocess.Popen([sys.executable, "-c", SERVER, str(tmp_path), request.param,
                                "dagster", "api", "grpc"], stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        yield process.pid, int(process.stdout.readline()), tmp_path, request.param == "early"
    finally:
        process.kill()
        process.wait()


def test_the_run_processes_count_and_their_code_server_does_not(
        server: tuple[int, int, Path, bool]) -> None:
    pid, port, folder, early = server
    measured = measure([sys.executable, "-c", COMMAND, str(port)], {},
                       sampler=lambda command: RunProcesses(command, pid))
    assert measured.returncode == 0, measured.stderr_tail
    assert measured.run_processes == 2
    runs_cpu = sum(float(path.read_text()) for path in folder.glob("cpu-*"))
    assert runs_cpu >= 1.2
    # Each run whole, the command's own start; never the server's SERVER_BURN_S.
    assert runs_cpu <= measured.cpu_s <= runs_cpu + 1.0, (measured.cpu_s, runs_cpu)
    assert 2 * RUN_MB * 0.95 <= measured.peak_mb < 2 * RUN_MB + COMMAND_MB + 80, measured
    # The runs alone: the command's memory left out (held while the runs ran, unless the
    # command ended as soon as they started).
    assert 2 * RUN_MB * 0.95 <= measured.peak_runs_mb <= measured.peak_mb
    if not early:
        assert measured.peak_mb - measured.peak_runs_mb >= COMMAND_MB * 0.95, measured
    assert measured.peak_rss_mb >= measured.peak_mb


def test_a_run_process_and_a_code_server_are_told_by_their_arguments() -> None:
    python = "/venv/bin/python3"
    assert is_code_server([python, "-m", "dagster", "api", "grpc", "--lazy-load-user-code"])
    assert not is_code_server([python, "-m", "dagster", "code-server", "start"])
    assert is_run_process([python, "-B", "-c", "from multiprocessing.spawn import spawn_main; "
                           "spawn_main(tracker_fd=12, pipe_handle=14)", "--multiprocessing-fork"])
    assert not is_run_process([python, "-B", "-c",
                               "from multiprocessing.resource_tracker import main;main(11)"])
