"""One JVM that runs Apache Kafka tools' main classes for each request (ToolServer.java beside
this file): a test that runs Apache's kafka-topics, kafka-configs or kafka-storage a hundred
times pays one JVM start instead of a hundred (~1.5 CPU-s each on the 2-core machine; the
suite ran such tools for ~570 CPU-s before they went through here).

What a run answers is what ``kafka_dist.run_tool`` gives for a fresh JVM: the tool's stdout,
stderr and exit code (Exit.exit's, or 1 with the default handler's "Exception in thread
"main"" text for an exception out of main). ``run_tool`` sends the one-shot admin tools
(``POOLED_TOOLS``) here (unless ``KAFPY_TOOL_SERVER=0``) if a call needs nothing a fresh
JVM alone gives (input, environment, working directory, JVM flags). The servers are kept per
process, per Kafka version, working directory and log level (a second one starts when two
threads run tools at once) and closed at the end of the session (tests/conftest.py), before
the check for processes that outlive it."""
from __future__ import annotations

import atexit
import os
import select
import subprocess
import threading
from pathlib import Path
from types import TracebackType
from typing import Sequence

from . import kafka_dist
from .process import kill

SOURCE = Path(__file__).with_name("ToolServer.java")

# The admin tools that run to completion without stdin and leave nothing running: the ones a
# call to run_tool may send to a server. Console, performance and server tools are not here.
POOLED_TOOLS = frozenset({
    "kafka-acls", "kafka-broker-api-versions", "kafka-client-metrics", "kafka-cluster",
    "kafka-configs", "kafka-consumer-groups", "kafka-delegation-tokens", "kafka-dump-log",
    "kafka-features", "kafka-get-offsets", "kafka-leader-election", "kafka-log-dirs",
    "kafka-metadata-quorum", "kafka-reassign-partitions", "kafka-share-groups",
    "kafka-storage", "kafka-streams-groups", "kafka-topics", "kafka-transactions",
})


class ToolServerDied(RuntimeError):
    """The server JVM exited or answered garbage (its stderr is in the message)."""


class ToolServer:
    """``ToolServer("4", "kafka-storage")`` then ``.run(args)`` per command (or
    ``.run_main(main_class, args)`` for any tool of that version); ``close()``."""

    def __init__(self, version: str, tool: str | None = None, *, cwd: str | Path | None = None,
                 log_level: str | None = None) -> None:
        self.version, self.tool = version, tool
        classes = kafka_dist.compile_java(SOURCE, version)
        cmd = kafka_dist.java_command(version, "ToolServer", main="ToolServer", light_jvm=True,
                                      log_level=log_level, extra_classpath=[str(classes)])
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, start_new_session=True, cwd=cwd)
        assert self.proc.stdout is not None
        self._fd = self.proc.stdout.fileno()
        try:
            self._wait_readable(60.0)
            hello = self.proc.stdout.readline()
        except (OSError, ValueError, subprocess.TimeoutExpired) as e:
            raise ToolServerDied(f"tool server of Kafka {version}: {e!r}; {self._dead_output()}") from e
        if hello != b"ready\n":
            raise ToolServerDied(f"tool server of Kafka {version} said {hello!r}; {self._dead_output()}")

    def run(self, args: Sequence[str], check: bool = False,
            timeout: float | None = None) -> subprocess.CompletedProcess[str]:
        """The server's tool's main with ``args``; see run_main."""
        assert self.tool is not None, "a server made without a tool runs run_main"
        return self.run_main(kafka_dist.main_class(self.version, self.tool), args, check=check,
                             timeout=timeout, name=self.tool)

    def run_main(self, main: str, args: Sequence[str], *, check: bool = False,
                 timeout: float | None = None, name: str | None = None
                 ) -> subprocess.CompletedProcess[str]:
        """``main``'s main with ``args``, as a CompletedProcess (text); ``check``: raise
        kafka_dist.ToolFailed on a non-zero exit, as run_tool does. Past ``timeout`` seconds the
        server is killed and subprocess.TimeoutExpired raised, as subprocess.run does."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        args = [str(a) for a in args]
        if any("\n" in a for a in [main, *args]):
            raise ValueError(f"an argument with a newline cannot be sent: {args!r}")
        request = f"{main}\n{len(args)}\n" + "".join(f"{a}\n" for a in args)
        shown = [name or main, *args]
        try:
            self.proc.stdin.write(request.encode())
            self.proc.stdin.flush()
            self._wait_readable(timeout)
            header = self.proc.stdout.readline().split()
            code, out_len, err_len = (int(x) for x in header)
            out = self._read(out_len)
            err = self._read(err_len)
        except subprocess.TimeoutExpired:
            kill(self.proc)
            raise subprocess.TimeoutExpired(shown, timeout or 0.0) from None
        except (OSError, ValueError) as e:
            raise ToolServerDied(f"{name or main} in the tool server: {e!r}; {self._dead_output()}") from e
        result = subprocess.CompletedProcess(shown, code, out.decode(errors="replace"),
                                             err.decode(errors="replace"))
        if check and code != 0:
            raise kafka_dist.ToolFailed(shown, result)
        return result

    def alive(self) -> bool:
        return self.proc.poll() is None

    def _wait_readable(self, timeout: float | None) -> None:
        if timeout is None:
            return
        ready, _, _ = select.select([self._fd], [], [], timeout)
        if not ready:
            raise subprocess.TimeoutExpired("ToolServer", timeout)

    def _read(self, n: int) -> bytes:
        assert self.proc.stdout is not None
        data = self.proc.stdout.read(n)
        if len(data) != n:
            raise ValueError(f"answer cut short ({len(data)} of {n} bytes)")
        return data

    def _dead_output(self) -> str:
        kill(self.proc)
        assert self.proc.stderr is not None
        return f"exit {self.proc.returncode}, stderr: {self.proc.stderr.read().decode(errors='replace')[-3000:]}"

    def close(self) -> None:
        if self.proc.poll() is None:
            assert self.proc.stdin is not None
            try:
                self.proc.stdin.close()
                self.proc.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                kill(self.proc)
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()

    def __enter__(self) -> "ToolServer":
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


# --------------------------------------------------------------------------- the pool
_lock = threading.Lock()
_idle: dict[tuple[str, str, str], list[ToolServer]] = {}
_busy: set[ToolServer] = set()
_broken: set[str] = set()   # versions whose server would not start: fresh JVMs from then on
_served: dict[str, int] = {}   # runs a server answered, by version (what tests check)


def enabled() -> bool:
    """On unless KAFPY_TOOL_SERVER=0 (every tool in a JVM of its own, as a user runs it).
    Faster tools once made tests race that a JVM start per tool had hidden (a step run before
    the cluster caught up): a test waits for the state it checks, not for a JVM to start."""
    return os.environ.get("KAFPY_TOOL_SERVER", "1") != "0"


def pooled(tool: str) -> bool:
    """Whether ``run_tool`` may send ``tool`` (a bin/ script name) to a server."""
    name = tool[:-3] if tool.endswith(".sh") else tool
    return enabled() and name in POOLED_TOOLS


def _key_tail() -> tuple[str, str]:
    """What a server is kept by besides its version: the working directory it was started
    in (relative paths in arguments) and the tools' log level (KAFPY_KAFKA_LOG_LEVEL)."""
    return os.getcwd(), os.environ.get("KAFPY_KAFKA_LOG_LEVEL", "WARN")


def run_pooled(version: str, tool: str, args: Sequence[str], *, timeout: float | None,
               check: bool) -> subprocess.CompletedProcess[str] | None:
    """``tool`` with ``args`` in an idle server of ``version`` (started when none is idle);
    None when no server of that version can start, so the caller runs a fresh JVM."""
    if version in _broken:
        return None
    key = (version, *_key_tail())
    level = key[2]
    with _lock:
        idle = _idle.setdefault(key, [])
        server = idle.pop() if idle else None
    if server is None or not server.alive():
        try:
            server = ToolServer(version, cwd=key[1], log_level=level)
        except (ToolServerDied, kafka_dist.ToolFailed) as e:
            _broken.add(version)
            print(f"[tool_server] Kafka {version}: no tool server ({e}); fresh JVMs instead", flush=True)
            return None
    with _lock:
        _busy.add(server)
    name = tool[:-3] if tool.endswith(".sh") else tool
    try:
        result = server.run_main(kafka_dist.main_class(version, tool), args, check=check,
                                 timeout=timeout, name=name)
    finally:
        with _lock:
            _busy.discard(server)
            _served[version] = _served.get(version, 0) + 1
            if server.alive():
                _idle[key].append(server)
    return result


def served(version: str) -> int:
    """How many runs of ``version`` a server of this process has answered."""
    with _lock:
        return _served.get(version, 0)


def close_all() -> None:
    """Close every server of this process (idle ones; a busy one is killed)."""
    with _lock:
        servers = [s for group in _idle.values() for s in group] + list(_busy)
        _idle.clear()
        _busy.clear()
    for server in servers:
        server.close()


atexit.register(close_all)
