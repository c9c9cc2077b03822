"""Apache Kafka's metadata shell (``kafka-metadata-shell.sh``, ``org.apache.kafka.shell.MetadataShell``)
run on a metadata log segment or a ``.checkpoint`` snapshot, and its ``tree`` output parsed.

The shell comes from Kafka 4.3.1, not 4.4.0: Maven Central does not serve ``kafka-shell`` 4.4.0,
and 4.3.1's shell does not run on the 4.4.0 jars (``kafka.tools.TerseFailure`` and
``org.apache.kafka.common.utils.Exit`` moved in 4.4). scripts/install-deps.sh puts the 4.3.1
Kafka jars it needs (kafka-shell, kafka-clients, kafka-metadata, kafka-raft, kafka-server-common,
kafka-server, kafka_2.13) and jline in ``<cache>/kafka-shell-4.3.1/libs`` beside links to the
third-party jars of the cached 4.4.0 libs (jackson, argparse4j, slf4j, log4j2, scala ...).
A 4.3 shell reads metadata.version levels up to 4.3-IV0 (level 30; the 4.4-IV0 it lists is a
level still in development there): a log it reads is formatted at that release at most.

Who uses it: tests/integration/kraft/test_metadata_shell_interop.py.
"""
from __future__ import annotations

import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from .kafka_dist import JVM_LOG_OPTS, LOG4J2_CONFIG, KafkaDistMissing, ToolFailed, cache_dir, java_executable

SHELL_VERSION = "4.3.1"
MAIN_CLASS = "org.apache.kafka.shell.MetadataShell"


def shell_libs() -> Path:
    """``<cache>/kafka-shell-4.3.1/libs``, checked to hold the shell's jars."""
    home = cache_dir() / f"kafka-shell-{SHELL_VERSION}"
    libs = home / "libs"
    if not (home / ".complete").is_file() or not (libs / f"kafka-shell-{SHELL_VERSION}.jar").is_file():
        raise KafkaDistMissing(f"Apache Kafka's metadata shell {SHELL_VERSION} is not installed in {libs}; "
                               f"run scripts/install-deps.sh (KAFPY_CACHE={cache_dir()})")
    return libs


def shell_command(snapshot: Path, command: list[str]) -> list[str]:
    """The argv of ``kafka-metadata-shell.sh --snapshot SNAPSHOT COMMAND...`` with the suite's light
    JVM (serial GC, C1 alone: the shell loads a few hundred records and exits)."""
    return [java_executable(), *JVM_LOG_OPTS, "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
            "-Djava.awt.headless=true", "-Dkafpy.log.level=WARN", f"-Dlog4j2.configurationFile={LOG4J2_CONFIG}",
            "-cp", str(shell_libs() / "*"), MAIN_CLASS, "--snapshot", str(snapshot), *command]


def run_shell(snapshot: Path, *command: str, timeout: float = 60.0) -> str:
    """Run one shell command (``ls /image``, ``tree /image/topics``, ``cat PATH`` ...) on a
    metadata log segment or snapshot; its standard output. Raises ToolFailed when the shell
    exits non-zero or writes an exception to its standard error."""
    cmd = shell_command(snapshot, list(command))
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    if result.returncode != 0 or "Exception" in result.stderr:
        raise ToolFailed(cmd, result)
    return result.stdout


@dataclass
class ShellNode:
    """One node of ``tree``'s output: its children by name, or the text of a leaf."""

    children: dict[str, ShellNode] = field(default_factory=dict)
    text: list[str] = field(default_factory=list)

    def at(self, path: str) -> ShellNode:
        """The node at a relative path (``byName/orders/0``)."""
        node = self
        for part in (p for p in path.split("/") if p):
            node = node.children[part]
        return node

    @property
    def value(self) -> str:
        """A leaf's text (one line)."""
        assert len(self.text) == 1 and not self.children, (self.text, list(self.children))
        return self.text[0]


def parse_tree(output: str) -> ShellNode:
    """``tree``'s output as nodes: a line ``name:`` opens a node (ShellNodePrinter indents each
    level by two spaces); any other line is the text of the node it is indented under."""
    root = ShellNode()
    stack: list[tuple[int, ShellNode]] = [(-1, root)]
    for line in output.splitlines():
        if not line.strip():
            continue
        indent = len(line) - len(line.lstrip(" "))
        while stack[-1][0] >= indent:
            stack.pop()
        parent = stack[-1][1]
        stripped = line.strip()
        if stripped.endswith(":"):
            node = ShellNode()
            parent.children[stripped[:-1]] = node
            stack.append((indent, node))
        else:
            parent.text.append(stripped)
    return root
