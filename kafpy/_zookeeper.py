"""A throwaway standalone ZooKeeper server (Debian's `zookeeper` package), for
kafpy.embedded's clusters and the tests.

Keeps its snapshots and transaction log in `data_dir` (a temp dir unless given) with a
generated zoo.cfg next to them; listens on 127.0.0.1:`port` (free port unless given). Runs
`org.apache.zookeeper.server.ZooKeeperServerMain` directly rather than zkServer.sh, so the
process is our child and stops with it. Ready when `srvr` reports a mode: ZooKeeper answers
`ruok` with "imok" before it serves, while it still loads its database, and a client that
connects then is dropped without an answer (or, in 3.8's NIOServerCnxn, left waiting for one).
"""
from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

from kafpy import _process as process
from kafpy._ports import LOOPBACK, free_port

ZOOKEEPER_JAR = Path(os.environ.get("KAFPY_ZOOKEEPER_JAR", "/usr/share/java/zookeeper.jar"))
MAIN_CLASS = "org.apache.zookeeper.server.ZooKeeperServerMain"
# Debian's zookeeper.jar names slf4j-api but no binding; these route its log to log4j.properties
LOG_JARS = (Path("/usr/share/java/slf4j-log4j12.jar"), Path("/usr/share/java/log4j-1.2.jar"))


# Warnings and errors to the output file only (ZooKeeper logs every connection at INFO).
LOG4J_PROPERTIES = """\
log4j.rootLogger=WARN, stderr
log4j.appender.stderr=org.apache.log4j.ConsoleAppender
log4j.appender.stderr.Target=System.err
log4j.appender.stderr.layout=org.apache.log4j.PatternLayout
log4j.appender.stderr.layout.ConversionPattern=[%d] %p %m (%c)%n
"""


class ZooKeeperMissing(RuntimeError):
    """Debian's zookeeper package (or a JVM) is not installed (scripts/install-deps.sh
    installs both)."""


def java_executable() -> str:
    """`$KAFPY_JAVA`, else `$JAVA_HOME/bin/java`, else `java` from PATH."""
    if os.environ.get("KAFPY_JAVA"):
        return os.environ["KAFPY_JAVA"]
    if os.environ.get("JAVA_HOME"):
        candidate = Path(os.environ["JAVA_HOME"]) / "bin" / "java"
        if candidate.exists():
            return str(candidate)
    found = shutil.which("java")
    if not found:
        raise ZooKeeperMissing("java not found on PATH (install a JDK 17+)")
    return found


def zookeeper_available() -> bool:
    """True when a ZooKeeper server can be started here (its jar and a JVM are installed)."""
    try:
        java_executable()
    except ZooKeeperMissing:
        return False
    return ZOOKEEPER_JAR.is_file()


def four_letter_word(port: int, word: str = "ruok", host: str = LOOPBACK,
                     timeout: float = 2.0) -> str:
    """Send a ZooKeeper four-letter command and return the whole answer."""
    with socket.create_connection((host, port), timeout=timeout) as sock:
        sock.settimeout(timeout)
        sock.sendall(word.encode())
        chunks = []
        for _ in range(1000):  # bounded: the server closes after answering
            chunk = sock.recv(65536)
            if not chunk:
                break
            chunks.append(chunk)
        return b"".join(chunks).decode(errors="replace")


class ZooKeeperServer(process.ChildProcess):
    """One standalone ZooKeeper; use as a context manager or start()/stop()."""

    def __init__(self, data_dir: str | Path | None = None, port: int | None = None,
                 start_timeout: float = 60.0, host: str = LOOPBACK,
                 command_prefix: tuple[str, ...] = (), log4j_config: str | Path | None = None):
        if not ZOOKEEPER_JAR.is_file():
            raise ZooKeeperMissing(f"{ZOOKEEPER_JAR} not found: install Debian's zookeeper "
                                   f"package (scripts/install-deps.sh)")
        self._own_dir = data_dir is None
        self.data_dir = Path(data_dir) if data_dir else Path(tempfile.mkdtemp(prefix="zk-"))
        self.port = port or free_port()
        self.host = host  # another address when it runs in a network namespace
        self.command_prefix = tuple(command_prefix)  # e.g. ("ip", "netns", "exec", name)
        self.start_timeout = start_timeout
        self.config_path = self.data_dir / "zoo.cfg"
        self.output_path = self.data_dir / "zookeeper.out"
        self.log4j_config = Path(log4j_config) if log4j_config else self.data_dir / "log4j.properties"
        self.proc: subprocess.Popen | None = None

    @property
    def connect_string(self) -> str:
        return f"{self.host}:{self.port}"

    @property
    def name(self) -> str:
        return f"ZooKeeper {self.connect_string}"

    def _write_config(self) -> None:
        (self.data_dir / "data").mkdir(parents=True, exist_ok=True)
        if not self.log4j_config.exists():
            self.log4j_config.write_text(LOG4J_PROPERTIES)
        self.config_path.write_text(
            "tickTime=500\n"
            "initLimit=10\n"
            "syncLimit=5\n"
            f"dataDir={self.data_dir / 'data'}\n"
            f"clientPort={self.port}\n"
            f"clientPortAddress={self.host}\n"
            "maxClientCnxns=0\n"
            "admin.enableServer=false\n"
            "4lw.commands.whitelist=ruok,srvr,stat,mntr\n"
            "minSessionTimeout=1000\n"
            "maxSessionTimeout=60000\n"
        )

    def start(self) -> "ZooKeeperServer":
        if self.proc is not None and self.proc.poll() is None:
            return self
        self._write_config()
        # C1 alone: a ZooKeeper of tests and embedded clusters serves a few brokers, and C2's
        # compiler threads cost it more than they save (1.1 -> 0.8 CPU-s for a start, 200
        # znodes and 20 s of three sessions)
        cmd = [*self.command_prefix, java_executable(), "-Xmx256m", "-XX:+UseSerialGC",
               "-XX:TieredStopAtLevel=1",
               "-Dzookeeper.4lw.commands.whitelist=*",
               f"-Dlog4j.configuration=file:{self.log4j_config}",
               "-cp", os.pathsep.join(str(p) for p in (ZOOKEEPER_JAR, *LOG_JARS) if p.is_file()),
               MAIN_CLASS, str(self.config_path)]
        out = open(self.output_path, "ab")
        try:
            self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out,
                                         stderr=subprocess.STDOUT, start_new_session=True)
        finally:
            out.close()
        try:
            process.wait_for(self.serving,
                             timeout=self.start_timeout, what=f"ZooKeeper on port {self.port}",
                             proc=self.proc, log_path=self.output_path)
        except BaseException:
            self.stop()
            raise
        return self

    def serving(self) -> bool:
        """True once the server serves clients (`srvr` names its mode)."""
        return "Mode: " in four_letter_word(self.port, "srvr", host=self.host)

    def stop(self, timeout: float = 20.0) -> int | None:
        return process.terminate(self.proc, timeout=timeout) if self.proc is not None else None

    def cleanup(self) -> None:
        if self._own_dir:
            shutil.rmtree(self.data_dir, ignore_errors=True)
