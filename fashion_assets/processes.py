"""The processes of this machine, read from Linux's ``/proc``, and ending a crawl's whole tree.

A crawl is more than one process: Dagster captures each step's output through helper
processes (``tail -F`` and a watcher of orphans), and ``fashion-assets crawl --workers``
forks a server and workers. Ending only the process a crawl recorded leaves those behind;
and if the crawl was frozen (SIGSTOP, a debugger, a stopped terminal job), its helpers were
frozen with it and nothing would ever run them again. Where there is no ``/proc`` (not
Linux), nothing is found and nothing is signalled beyond the recorded process.

A run of ``fashion-assets crawl`` carries the ``ProcessMark`` of the process executing it, so
once that process is gone (killed, crashed), the next crawl and the stuck-run sensor can tell
the run is dead instead of waiting for its heartbeat to age.
"""

from __future__ import annotations

import os
import signal
import socket
from contextlib import suppress
from dataclasses import dataclass

ZOMBIE = "Z"  # runs nothing any more: only its exit status waits for its parent


@dataclass(frozen=True)
class ProcessInfo:
    """One line of ``/proc/PID/stat``, the fields that place a process in its tree."""

    pid: int
    state: str  # one letter: R running, S sleeping, T stopped, Z zombie, ...
    ppid: int
    pgid: int


def parse_stat(pid: int, stat: str) -> ProcessInfo:
    """``/proc/PID/stat``'s state, parent and process group; the command name before them
    is in parentheses and may itself hold spaces and parentheses, so it is cut at the last
    one."""
    state, ppid, pgid = stat.rsplit(")", 1)[1].split()[:3]
    return ProcessInfo(pid, state, int(ppid), int(pgid))


@dataclass(frozen=True)
class ProcessMark:
    """One process of one machine, for good: its start time (clock ticks after boot, field 22
    of ``/proc/PID/stat``; 0 where unknown) tells it from a later process given the same id."""

    host: str
    pid: int
    started: int

    def __str__(self) -> str:
        return f"{self.host}:{self.pid}:{self.started}"

    @classmethod
    def parse(cls, text: str) -> ProcessMark | None:
        """The mark ``str(mark)`` wrote, or None for anything else (a tag never set)."""
        host, pid, started = [*text.rsplit(":", 2), "", ""][:3]
        if not host or not pid.isdigit() or not started.isdigit():
            return None
        return cls(host, int(pid), int(started))


def _stat_fields(pid: int) -> list[str] | None:
    """The fields of ``/proc/PID/stat`` after the command name (the state first); None when
    the process is gone or there is no /proc."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def process_mark(pid: int | None = None) -> ProcessMark:
    """The mark of ``pid`` (this process by default) on this machine."""
    pid = os.getpid() if pid is None else pid
    fields = _stat_fields(pid)
    started = int(fields[19]) if fields is not None and len(fields) > 19 else 0
    return ProcessMark(socket.gethostname(), pid, started)


def is_gone(mark: ProcessMark) -> bool:
    """Whether the process ``mark`` names has ended: only ever True on its own machine, with
    a /proc to read (elsewhere nothing can be told, and a run is never given up on a guess).
    A zombie has ended; a process id now held by a process started at another time has too."""
    if mark.host != socket.gethostname() or mark.pid <= 0 or not os.path.isdir("/proc/self"):
        return False
    fields = _stat_fields(mark.pid)
    if fields is None or fields[0] == ZOMBIE:
        return True
    return mark.started != 0 and len(fields) > 19 and int(fields[19]) != mark.started


def all_processes() -> list[ProcessInfo]:
    """Every process of this machine now, zombies included; none where there is no /proc."""
    found = []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return []
    for name in entries:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as handle:
                found.append(parse_stat(int(name), handle.read()))
        except (OSError, ValueError, IndexError):
            continue  # ended while being read
    return found


def descendants(pid: int, table: list[ProcessInfo]) -> list[int]:
    """The children of ``pid`` in ``table``, theirs, and so on down."""
    children: dict[int, list[int]] = {}
    for proc in table:
        children.setdefault(proc.ppid, []).append(proc.pid)
    found, frontier = [], [pid]
    while frontier:
        below = children.get(frontier.pop(), [])
        found.extend(below)
        frontier.extend(below)
    return found


def group_members(pgid: int) -> list[ProcessInfo]:
    """The processes of group ``pgid`` that still run (zombies are dead: not counted)."""
    return [p for p in all_processes() if p.pgid == pgid and p.state != ZOMBIE]


def kill_process_tree(pid: int) -> list[int]:
    """SIGKILL ``pid``, all its descendants and, if it leads a process group of its own,
    every member of that group; returns the process ids signalled one by one.

    SIGKILL because the process may be frozen or hung: the kernel ends a stopped process on
    SIGKILL, whereas SIGTERM would wait until someone continued it. The tree is read before
    anything is killed, as a killed parent's children move to init and out of its tree. The
    group is killed only when ``pid`` leads it, so a crawl that shares its caller's group (a
    shell script) does not take the caller down, and never this process's own group.
    """
    table = all_processes()
    tree = [p for p in [pid, *descendants(pid, table)] if p != os.getpid()]
    leader = next((p for p in table if p.pid == pid), None)
    if leader is not None and leader.pgid == pid and pid != os.getpgrp():
        with suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, signal.SIGKILL)  # the members forked since the table was read too
    for member in tree:
        with suppress(ProcessLookupError, PermissionError):
            os.kill(member, signal.SIGKILL)
    return tree
