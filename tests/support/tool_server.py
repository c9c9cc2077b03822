"""One JVM that runs an Apache Kafka 4.4 tool's main class for each request (ToolServer.java
beside this file): a test file that compares our tool with Apache's a hundred times pays one
JVM start instead of a hundred (kafka-storage: ~1.5 CPU-s each on the 2-core machine).

What a run answers is what ``kafka_dist.run_tool`` gives for a fresh JVM: the tool's stdout,
stderr and exit code (Exit.exit's, or 1 with the default handler's "Exception in thread
"main"" text for an exception out of main). A test that needs a fresh JVM's behaviour beyond
that (JVM flags, environment, signals) keeps using run_tool."""
from __future__ import annotations

import subprocess
from pathlib import Path
from types import TracebackType
from typing import Sequence

from . import kafka_dist
from .process import kill

SOURCE = Path(__file__).with_name("ToolServer.java")


class ToolServerDied(RuntimeError):
    """The server JVM exited or answered garbage (its stderr is in the message)."""


class ToolServer:
    """``ToolServer("4", "kafka-storage")`` then ``.run(args)`` per command; ``close()``."""

    def __init__(self, version: str, tool: str) -> None:
        self.version, self.tool = version, tool
        main = kafka_dist.main_class(version, tool)
        # the source launcher compiles ToolServer.java in memory; the light JVM flags of run_tool
        cmd = kafka_dist.java_command(version, str(SOURCE), [main], light_jvm=True)
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, start_new_session=True)

    def run(self, args: Sequence[str], check: bool = False) -> subprocess.CompletedProcess[str]:
        """The tool's main with ``args``, as a CompletedProcess (text); ``check``: raise
        kafka_dist.ToolFailed on a non-zero exit, as run_tool does."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        if any("\n" in a for a in args):
            raise ValueError(f"an argument with a newline cannot be sent: {args!r}")
        request = f"{len(args)}\n" + "".join(f"{a}\n" for a in args)
        try:
            self.proc.stdin.write(request.encode())
            self.proc.stdin.flush()
            header = self.proc.stdout.readline().split()
            code, out_len, err_len = (int(x) for x in header)
            out = self._read(out_len)
            err = self._read(err_len)
        except (OSError, ValueError) as e:
            raise ToolServerDied(f"{self.tool} server: {e!r}; {self._dead_output()}") from e
        result = subprocess.CompletedProcess([self.tool, *args], code, out.decode(), err.decode())
        if check and code != 0:
            raise kafka_dist.ToolFailed([self.tool, *args], result)
        return result

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
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                kill(self.proc)
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()

    def __enter__(self) -> "ToolServer":
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()
