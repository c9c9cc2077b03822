"""Processes the suite started that outlived it: found through /proc at the end of a session.

A process belongs to this pytest process when it descends from it (its PPid chain) or when
its environment carries ``KAFPY_TEST_OWNER=<this pid>`` (set by tests/conftest.py when the
session starts and inherited by every child), which also finds a daemonised child re-parented
to init (``kafka-server-start.sh -daemon``). Each xdist worker checks its own.
"""
from __future__ import annotations

import os
import signal
from dataclasses import dataclass
from pathlib import Path

OWNER_VARIABLE = "KAFPY_TEST_OWNER"
PROC = Path("/proc")


@dataclass(frozen=True)
class Survivor:
    pid: int
    command: str

    def __str__(self) -> str:
        return f"pid {self.pid}: {self.command[:300]}"


def _stat(pid: int) -> tuple[int, str] | None:
    """(parent pid, state) of ``pid``, None when it is gone."""
    try:
        fields = (PROC / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return int(fields[1]), fields[0]


def _owner(pid: int) -> str | None:
    try:
        environ = (PROC / str(pid) / "environ").read_bytes()
    except OSError:
        return None
    prefix = OWNER_VARIABLE.encode() + b"="
    for entry in environ.split(b"\0"):
        if entry.startswith(prefix):
            return entry[len(prefix):].decode(errors="replace")
    return None


def _command(pid: int) -> str:
    try:
        return (PROC / str(pid) / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return "?"


def survivors(owner: int | None = None) -> list[Survivor]:
    """The live processes (zombies aside) that ``owner`` (default: this process) started."""
    me = os.getpid() if owner is None else owner
    stats: dict[int, tuple[int, str]] = {}
    for entry in PROC.iterdir():
        if entry.name.isdigit():
            stat = _stat(int(entry.name))
            if stat is not None:
                stats[int(entry.name)] = stat

    def descends(pid: int) -> bool:
        seen: set[int] = set()
        while pid > 1 and pid not in seen:
            seen.add(pid)
            parent = stats.get(pid, (0, ""))[0]
            if parent == me:
                return True
            pid = parent
        return False

    found = [pid for pid, (_, state) in stats.items()
             if pid != me and state != "Z" and (descends(pid) or _owner(pid) == str(me))]
    return [Survivor(pid, _command(pid)) for pid in sorted(found)]


def kill(found: list[Survivor]) -> None:
    """SIGKILL each survivor and its process group when it leads one."""
    for s in found:
        try:
            if os.getpgid(s.pid) == s.pid:
                os.killpg(s.pid, signal.SIGKILL)
            else:
                os.kill(s.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
