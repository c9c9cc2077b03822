"""Apache Kafka's own jars: run its CLI tools and a reference single-node broker.

The jars are fetched by `scripts/install-deps.sh` into
`${KAFPY_CACHE:-~/.cache/kafpy}/kafka-<version>/libs/`. Nothing here downloads: a missing
distribution raises `KafkaDistMissing` (tests fail, they never skip).

Tools are started as `java -cp "<libs>/*" <main class>` (the classes behind Kafka's
`bin/*.sh` scripts; several moved from `kafka.*` to `org.apache.kafka.tools.*` between 3.x and
4.0, so each tool lists candidates and the first one present in the jars wins).
"""
from __future__ import annotations

import base64
import functools
import hashlib
import os
import shutil
import subprocess
import tempfile
import uuid
import zipfile
from pathlib import Path
from typing import Mapping, Sequence, TypeVar

from kafpy._process import ChildProcess

from . import process, wire
from .ports import LOOPBACK, free_ports

SUPPORT_DIR = Path(__file__).resolve().parent
REPO_ROOT = SUPPORT_DIR.parents[1]
LOG4J_CONFIG = SUPPORT_DIR / "log4j.properties"
LOG4J2_CONFIG = SUPPORT_DIR / "log4j2.properties"

DEFAULT_KAFKA_3 = "3.9.1"
DEFAULT_KAFKA_4 = "4.4.0"


class KafkaDistMissing(RuntimeError):
    """Kafka's jars are not installed where install-deps.sh puts them."""


class ToolFailed(RuntimeError):
    """A Kafka CLI tool exited non-zero (run_tool with check=True)."""

    def __init__(self, cmd: Sequence[str], result: subprocess.CompletedProcess):
        self.result = result
        super().__init__(f"{' '.join(cmd[-20:])!s} exited {result.returncode}\n"
                         f"--- stdout ---\n{_clip(result.stdout)}\n"
                         f"--- stderr ---\n{_clip(result.stderr)}")


def _clip(text: str | bytes | None, limit: int = 6000) -> str:
    if text is None:
        return ""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    return text if len(text) <= limit else "..." + text[-limit:]


def cache_dir() -> Path:
    """Where install-deps.sh keeps downloaded jars."""
    env = os.environ.get("KAFPY_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "kafpy"


def _kafka4_version() -> str:
    marker = cache_dir() / "kafka-4.version"
    try:
        version = marker.read_text().strip()
    except OSError:
        return DEFAULT_KAFKA_4
    return version or DEFAULT_KAFKA_4


#: Short names for the two Kafka lines the tests use, mapped to the full versions installed.
VERSIONS: dict[str, str] = {"3.9": DEFAULT_KAFKA_3, "4": _kafka4_version()}


def full_version(version: str) -> str:
    """'3.9' / '4' / a full version like '4.4.0' -> the full version."""
    return VERSIONS.get(version, version)


def kafka_home(version: str) -> Path:
    """`<cache>/kafka-<full version>`, checked to hold the jars (`libs/`)."""
    full = full_version(version)
    home = cache_dir() / f"kafka-{full}"
    if not (home / ".complete").is_file() or not any((home / "libs").glob("kafka-clients-*.jar")):
        raise KafkaDistMissing(
            f"Apache Kafka {full} jars are not installed in {home}/libs; "
            f"run scripts/install-deps.sh (KAFPY_CACHE={cache_dir()})")
    return home


def classpath(version: str) -> str:
    """The `-cp` value for a version: every jar in its libs dir."""
    return str(kafka_home(version) / "libs" / "*")


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
        raise KafkaDistMissing("java not found on PATH (install a JDK 17+)")
    return found


# Script name -> main classes, newest location first.
TOOL_CLASSES: dict[str, tuple[str, ...]] = {
    "kafka-server-start": ("kafka.Kafka",),
    "kafka-storage": ("kafka.tools.StorageTool",),
    "kafka-topics": ("org.apache.kafka.tools.TopicCommand", "kafka.admin.TopicCommand"),
    "kafka-console-producer": ("org.apache.kafka.tools.ConsoleProducer",
                               "kafka.tools.ConsoleProducer"),
    "kafka-console-consumer": ("org.apache.kafka.tools.consumer.ConsoleConsumer",
                               "kafka.tools.ConsoleConsumer"),
    "kafka-configs": ("org.apache.kafka.tools.ConfigCommand", "kafka.admin.ConfigCommand"),
    "kafka-consumer-groups": ("org.apache.kafka.tools.consumer.group.ConsumerGroupCommand",
                              "kafka.admin.ConsumerGroupCommand"),
    "kafka-share-groups": ("org.apache.kafka.tools.consumer.group.ShareGroupCommand",),
    "kafka-console-share-consumer": ("org.apache.kafka.tools.consumer.ConsoleShareConsumer",),
    "kafka-streams-groups": ("org.apache.kafka.tools.streams.StreamsGroupCommand",),
    "kafka-producer-perf-test": ("org.apache.kafka.tools.ProducerPerformance",),
    "kafka-consumer-perf-test": ("org.apache.kafka.tools.ConsumerPerformance",
                                 "kafka.tools.ConsumerPerformance"),
    "kafka-dump-log": ("org.apache.kafka.tools.DumpLogSegments", "kafka.tools.DumpLogSegments"),
    "kafka-get-offsets": ("org.apache.kafka.tools.GetOffsetShell", "kafka.tools.GetOffsetShell"),
    "kafka-broker-api-versions": ("org.apache.kafka.tools.BrokerApiVersionsCommand",
                                  "kafka.admin.BrokerApiVersionsCommand"),
    "kafka-delete-records": ("org.apache.kafka.tools.DeleteRecordsCommand",
                             "kafka.admin.DeleteRecordsCommand"),
    "kafka-reassign-partitions": ("org.apache.kafka.tools.reassign.ReassignPartitionsCommand",
                                  "kafka.admin.ReassignPartitionsCommand"),
    "kafka-leader-election": ("org.apache.kafka.tools.LeaderElectionCommand",
                              "kafka.admin.LeaderElectionCommand"),
    "kafka-log-dirs": ("org.apache.kafka.tools.LogDirsCommand", "kafka.admin.LogDirsCommand"),
    "kafka-acls": ("org.apache.kafka.tools.AclCommand", "kafka.admin.AclCommand"),
    "kafka-transactions": ("org.apache.kafka.tools.TransactionsCommand",),
    "kafka-features": ("org.apache.kafka.tools.FeatureCommand", "kafka.admin.FeatureCommand"),
    "kafka-metadata-quorum": ("org.apache.kafka.tools.MetadataQuorumCommand",),
    "kafka-verifiable-producer": ("org.apache.kafka.tools.VerifiableProducer",),
    "kafka-verifiable-consumer": ("org.apache.kafka.tools.VerifiableConsumer",),
    "kafka-e2e-latency": ("org.apache.kafka.tools.EndToEndLatency", "kafka.tools.EndToEndLatency"),
}

# Tools that run long enough for the JIT to matter; the rest start faster with C1 only.
_LONG_RUNNING = {"kafka-server-start", "kafka-producer-perf-test", "kafka-consumer-perf-test",
                 "kafka-e2e-latency"}


@functools.lru_cache(maxsize=None)
def _classes_in(libs: str) -> frozenset[str]:
    """Dotted names of the classes in the Kafka jars of a libs dir (cached per dir)."""
    names: set[str] = set()
    for jar in Path(libs).glob("kafka*.jar"):
        with zipfile.ZipFile(jar) as zf:
            for entry in zf.namelist():
                if entry.endswith(".class") and "$" not in entry:
                    names.add(entry[:-6].replace("/", "."))
    return frozenset(names)


def main_class(version: str, tool: str) -> str:
    """The main class behind `tool` (a bin/ script name, `.sh` optional) in `version`."""
    name = tool[:-3] if tool.endswith(".sh") else tool
    if "." in name and name not in TOOL_CLASSES:
        return name  # already a class name
    try:
        candidates = TOOL_CLASSES[name]
    except KeyError:
        raise ValueError(f"unknown Kafka tool {tool!r}; known: {sorted(TOOL_CLASSES)}") from None
    present = _classes_in(str(kafka_home(version) / "libs"))
    for cls in candidates:
        if cls in present:
            return cls
    raise KafkaDistMissing(f"none of {candidates} is in Kafka {full_version(version)}'s jars")


# JVM messages (warnings and errors only) go to stderr, never into a tool's stdout; the
# class-data-sharing (CDS) chatter is silenced.
JVM_LOG_OPTS = ("-Xlog:disable", "-Xlog:all=warning,cds*=off:stderr")


def cds_archive(version: str, tool: str) -> Path:
    """Where the class-data-sharing archive of a short-lived tool lives. run_tool dumps it on
    the first successful run (Java 17 -XX:ArchiveClassesAtExit) and maps it on later ones:
    about a second less JVM start-up per call. Keyed by the java binary as well; a stale or
    foreign archive is just not used. Set KAFPY_JAVA_CDS=0 to turn it off."""
    java = str(Path(java_executable()).resolve())
    tag = hashlib.sha256(java.encode()).hexdigest()[:8]
    return kafka_home(version) / "cds" / f"{main_class(version, tool)}-{tag}.jsa"


def _cds_enabled(tool: str) -> bool:
    name = tool[:-3] if tool.endswith(".sh") else tool
    return name not in _LONG_RUNNING and os.environ.get("KAFPY_JAVA_CDS", "1") != "0"


def java_command(version: str, tool: str, args: Sequence[str] = (), *,
                 heap: str | None = None, jvm_opts: Sequence[str] = (),
                 log_level: str | None = None, cds_dump_to: Path | None = None,
                 light_jvm: bool | None = None, main: str | None = None,
                 extra_classpath: Sequence[str] = ()) -> list[str]:
    """The argv that runs `tool` of Kafka `version` with `args` (mapping the tool's CDS
    archive when there is one, or dumping one to `cds_dump_to`).

    `light_jvm` (default: every tool but the long-running ones, and brokers too when
    LIGHT_BROKER_JVM is set, as the suite sets it) picks the serial GC and C1
    alone: a JVM of the suite does little work, and C2 and G1's threads cost more CPU than
    they save there (an Apache broker's start, 5,000 records and stop: 7.3 CPU-s with G1 and
    C2, 3.8 with these flags, 2.5 with its CDS archive mapped too).

    `main` runs that class instead of the tool's (no CDS archive), found on `extra_classpath`
    before Kafka's jars."""
    name = tool[:-3] if tool.endswith(".sh") else tool
    level = log_level or os.environ.get("KAFPY_KAFKA_LOG_LEVEL", "WARN")
    cmd = [java_executable(), *JVM_LOG_OPTS]
    if light_jvm is None:
        # the suite's brokers, every one started through here, run light (LIGHT_BROKER_JVM)
        light_jvm = name not in _LONG_RUNNING or (name == "kafka-server-start" and LIGHT_BROKER_JVM)
    if not light_jvm:
        cmd += [f"-Xmx{heap or '1g'}", "-XX:+UseG1GC"]
    else:
        cmd += [f"-Xmx{heap or '512m'}", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"]
        if cds_dump_to is not None:
            cmd.append(f"-XX:ArchiveClassesAtExit={cds_dump_to}")
        elif main is None and os.environ.get("KAFPY_JAVA_CDS", "1") != "0":
            archive = cds_archive(version, tool)
            if archive.is_file():
                cmd.append(f"-XX:SharedArchiveFile={archive}")
    cmd += [
        "-Djava.awt.headless=true",
        f"-Dkafpy.log.level={level}",
        f"-Dlog4j.configuration=file:{LOG4J_CONFIG}",
        f"-Dlog4j2.configurationFile={LOG4J2_CONFIG}",
        *jvm_opts,
        "-cp", os.pathsep.join([*extra_classpath, classpath(version)]),
        main or main_class(version, tool),
        *map(str, args),
    ]
    return cmd


def run_tool(version: str, tool: str, args: Sequence[str] = (), input: str | bytes | None = None,
             timeout: float = 120.0, check: bool = True, env: Mapping[str, str] | None = None,
             cwd: str | Path | None = None, fresh_jvm: bool = False,
             **java_kw) -> subprocess.CompletedProcess:
    """Run a Kafka CLI tool to completion and return its CompletedProcess (text unless
    `input` is bytes). Raises ToolFailed when `check` and it exits non-zero, and
    subprocess.TimeoutExpired (after killing it) when it runs past `timeout` seconds.

    A one-shot admin tool called with nothing but arguments (no input, env, cwd or JVM
    options) runs in a tool server's JVM instead of a fresh one (tests/support/tool_server.py):
    the same output and exit code for about a tenth of the CPU. `fresh_jvm` asks for a JVM
    of its own anyway (the tests that compare the two).
    """
    if input is None and not env and cwd is None and not java_kw and not fresh_jvm:
        from . import tool_server
        if tool_server.pooled(tool):
            pooled = tool_server.run_pooled(version, tool, args, timeout=timeout, check=check)
            if pooled is not None:
                return pooled
    dump_to = None
    if _cds_enabled(tool) and not cds_archive(version, tool).is_file():
        archive = cds_archive(version, tool)
        archive.parent.mkdir(exist_ok=True)
        dump_to = archive.with_name(f"{archive.name}.{os.getpid()}.{uuid.uuid4().hex[:6]}.tmp")
    cmd = java_command(version, tool, args, cds_dump_to=dump_to, **java_kw)
    full_env = {**os.environ, **(env or {})}
    text = not isinstance(input, (bytes, bytearray))
    ok = False
    try:
        result = subprocess.run(cmd, input=input, capture_output=True, text=text,
                                timeout=timeout, env=full_env, cwd=cwd,
                                stdin=None if input is not None else subprocess.DEVNULL)
        ok = result.returncode == 0
    finally:
        if dump_to is not None:
            _install_cds_archive(dump_to, cds_archive(version, tool), keep=ok)
    if check and result.returncode != 0:
        raise ToolFailed(cmd, result)
    return result


def _install_cds_archive(dumped: Path, archive: Path, keep: bool) -> None:
    """Move a freshly dumped archive into place atomically (concurrent runs race benignly);
    only from a run that succeeded."""
    try:
        if keep and dumped.is_file() and dumped.stat().st_size > 0 and not archive.exists():
            os.replace(dumped, archive)
    except OSError:
        pass
    finally:
        dumped.unlink(missing_ok=True)


def popen_tool(version: str, tool: str, args: Sequence[str] = (), *,
               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
               text: bool = True, env: Mapping[str, str] | None = None,
               cwd: str | Path | None = None, **java_kw) -> subprocess.Popen:
    """Start a long-running Kafka tool (console consumer/producer) in its own process group.

    The caller stops it, e.g. with `tests.support.process.terminate(proc)`.
    """
    cmd = java_command(version, tool, args, **java_kw)
    return subprocess.Popen(cmd, stdin=stdin, stdout=stdout, stderr=stderr, text=text,
                            env={**os.environ, **(env or {})}, cwd=cwd, start_new_session=True,
                            bufsize=1 if text else -1)


def random_cluster_id() -> str:
    """A cluster id as `kafka-storage random-uuid` prints it (22 chars, base64url). Like
    Kafka's Uuid.randomUuid() it never starts with "-", which a command line would take for
    an option."""
    while True:
        cid = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
        if not cid.startswith("-"):
            return cid


_Reference = TypeVar("_Reference", bound="ReferenceKafka")

#: Whether Apache brokers start with the light JVM unless told (ReferenceKafka's server_jvm).
#: False for benchmarks, which measure Kafka as its own scripts run it; the test suite's
#: conftest sets it True: its brokers carry little traffic, and a start, 5,000 records and a
#: stop cost 7.3 CPU-s with G1 and C2 against 2.5 light.
LIGHT_BROKER_JVM = False


class ReferenceKafka(ChildProcess):
    """A real single-node Apache Kafka broker (KRaft, combined broker+controller).

    Keeps partition data in `log_dir` (Kafka's own layout, for interop tests), and the KRaft
    metadata log, server.properties and the process output in `work_dir` (a temp dir unless
    given, removed on stop when created here). Listens on 127.0.0.1:`port`; clients are told
    `advertised_port` (default `port`), so a recording proxy can sit in front of it.
    Use as a context manager, or call start()/stop().
    """

    def __init__(self, version: str = "4", log_dir: str | Path | None = None,
                 port: int | None = None, *, controller_port: int | None = None,
                 advertised_port: int | None = None, work_dir: str | Path | None = None,
                 overrides: Mapping[str, object] | None = None, node_id: int = 1,
                 start_timeout: float = 120.0, formatted: bool = False,
                 server_jvm: bool | None = None):
        self.version = full_version(version)
        kafka_home(self.version)  # fail early and clearly
        self._own_work_dir = work_dir is None
        self.work_dir = Path(work_dir) if work_dir else Path(tempfile.mkdtemp(prefix="refkafka-"))
        self.log_dir = Path(log_dir) if log_dir else self.work_dir / "data"
        self._auto_ports = port is None and controller_port is None
        self._auto_advertised = advertised_port is None
        ports = [p for p in free_ports(3) if p not in (port, controller_port)]
        self.port = port or ports[0]
        self.controller_port = controller_port or ports[1]
        self.advertised_port = advertised_port or self.port
        self.node_id = node_id
        self.overrides = dict(overrides or {})
        self.start_timeout = start_timeout
        self.cluster_id = random_cluster_id()
        self.config_path = self.work_dir / "server.properties"
        self.output_path = self.work_dir / "server.out"
        self.proc: subprocess.Popen | None = None
        # formatted=True: the caller formatted the directories (another tool, its own cluster
        # id), so start() must not run Apache's `kafka-storage format` first
        self._formatted = formatted
        # server_jvm: G1 and C2 as Kafka's own scripts run it (what benchmarks measure), or
        # the suite's light JVM (serial GC, C1 only, the broker's CDS archive: java_command);
        # unset, LIGHT_BROKER_JVM decides (tests/conftest.py sets it for the suite)
        self.server_jvm = not LIGHT_BROKER_JVM if server_jvm is None else server_jvm
        self._cds_dump: Path | None = None

    @property
    def bootstrap(self) -> str:
        """host:port as clients should use it (the advertised port)."""
        return f"{LOOPBACK}:{self.advertised_port}"

    @property
    def name(self) -> str:
        return f"Apache Kafka {self.version} {self.direct_bootstrap}"

    @property
    def direct_bootstrap(self) -> str:
        """host:port of the broker's own listener (bypassing any proxy)."""
        return f"{LOOPBACK}:{self.port}"

    def properties(self) -> dict[str, str]:
        props: dict[str, object] = {
            "process.roles": "broker,controller",
            "node.id": self.node_id,
            "controller.quorum.voters": f"{self.node_id}@{LOOPBACK}:{self.controller_port}",
            "listeners": f"PLAINTEXT://{LOOPBACK}:{self.port},CONTROLLER://{LOOPBACK}:{self.controller_port}",
            "advertised.listeners": f"PLAINTEXT://{LOOPBACK}:{self.advertised_port}",
            "controller.listener.names": "CONTROLLER",
            "inter.broker.listener.name": "PLAINTEXT",
            "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
            "log.dirs": self.log_dir,
            "metadata.log.dir": self.work_dir / "metadata",
            "num.partitions": 1,
            "offsets.topic.replication.factor": 1,
            "offsets.topic.num.partitions": 5,
            "transaction.state.log.replication.factor": 1,
            "transaction.state.log.min.isr": 1,
            "transaction.state.log.num.partitions": 5,
            "share.coordinator.state.topic.replication.factor": 1,
            "share.coordinator.state.topic.min.isr": 1,
            "group.initial.rebalance.delay.ms": 0,
            "auto.create.topics.enable": "true",
            "log.flush.interval.messages": 9223372036854775807,
        }
        props.update(self.overrides)
        return {k: str(v) for k, v in props.items()}

    def _write_config(self) -> None:
        self.work_dir.mkdir(parents=True, exist_ok=True)
        self.log_dir.mkdir(parents=True, exist_ok=True)
        self.config_path.write_text(
            "".join(f"{k}={v}\n" for k, v in self.properties().items()))

    def format(self) -> None:
        """`kafka-storage format` the log and metadata dirs with this broker's cluster id."""
        self._write_config()
        run_tool(self.version, "kafka-storage",
                 ["format", "-t", self.cluster_id, "-c", str(self.config_path), "--ignore-formatted"],
                 timeout=120)
        self._formatted = True

    def start(self: _Reference) -> _Reference:
        """Format (first time), start, wait until Metadata lists this node. When the ports
        were picked here and another process took one meanwhile, retry on new ports."""
        if self.proc is not None and self.proc.poll() is None:
            return self
        attempts = 3 if self._auto_ports and self.proc is None else 1
        for attempt in range(attempts):
            mark = self.output_path.stat().st_size if self.output_path.exists() else 0
            try:
                self._start_once()
                return self
            except process.ProcessFailed:
                with open(self.output_path, "rb") as f:
                    f.seek(mark)
                    output = f.read().decode("utf-8", "replace")
                if attempt + 1 < attempts and process.bind_failed(output):
                    self.port, self.controller_port = free_ports(2)
                    if self._auto_advertised:
                        self.advertised_port = self.port
                    continue
                raise
        raise AssertionError("unreachable")

    def _start_once(self) -> None:
        if not self._formatted:
            self.format()
        else:
            self._write_config()
        self._cds_dump = None
        if not self.server_jvm and os.environ.get("KAFPY_JAVA_CDS", "1") != "0":
            archive = cds_archive(self.version, "kafka-server-start")
            if not archive.is_file():
                archive.parent.mkdir(exist_ok=True)
                self._cds_dump = archive.with_name(
                    f"{archive.name}.{os.getpid()}.{uuid.uuid4().hex[:6]}.tmp")
        cmd = java_command(self.version, "kafka-server-start", [str(self.config_path)],
                           heap="1g", log_level=os.environ.get("KAFPY_KAFKA_LOG_LEVEL", "INFO"),
                           light_jvm=not self.server_jvm, cds_dump_to=self._cds_dump)
        out = open(self.output_path, "ab")
        try:
            self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out,
                                         stderr=subprocess.STDOUT, start_new_session=True,
                                         cwd=self.work_dir)
        finally:
            out.close()
        try:
            process.wait_for(self._serves_metadata, timeout=self.start_timeout,
                             what=f"Apache Kafka {self.version} on port {self.port}",
                             proc=self.proc, log_path=self.output_path, interval=0.2)
        except BaseException:
            self.stop()
            raise

    def _serves_metadata(self) -> bool:
        return any(node == self.node_id for node, _h, _p in
                   wire.metadata_brokers(LOOPBACK, self.port, timeout=2.0))

    def stop(self, timeout: float = 60.0) -> int | None:
        """SIGTERM (controlled shutdown), SIGKILL after `timeout`. Returns the exit code."""
        code = None
        if self.proc is not None:
            code = process.terminate(self.proc, timeout=timeout)
        self._settle_cds_dump(code)
        return code

    def kill(self) -> int | None:
        code = super().kill()
        self._settle_cds_dump(code)
        return code

    def _settle_cds_dump(self, code: int | None) -> None:
        """After the broker ended: keep the CDS archive it dumped at exit only when it shut
        down on its own (exit 0, or 143 for SIGTERM), never one cut short by SIGKILL."""
        if self._cds_dump is not None:
            _install_cds_archive(self._cds_dump, cds_archive(self.version, "kafka-server-start"),
                                 keep=code in (0, 143))
            self._cds_dump = None

    def cleanup(self) -> None:
        """Remove the work dir if this object created it (after stop)."""
        if self._own_work_dir:
            shutil.rmtree(self.work_dir, ignore_errors=True)

    def run_tool(self, tool: str, args: Sequence[str] = (), **kw) -> subprocess.CompletedProcess:
        """run_tool for this broker's version (add --bootstrap-server yourself)."""
        return run_tool(self.version, tool, args, **kw)

    def wait_topic_listed(self, topic: str, timeout: float = 30.0) -> None:
        """Wait until this broker lists ``topic``. Call it after creating a topic that the next
        tool alters or deletes: kafka-topics --delete refuses a topic its broker's metadata
        does not show yet ("does not exist as expected"), and that metadata can lag the
        controller's commit on a loaded machine."""
        process.wait_for(lambda: topic in self.run_tool("kafka-topics", [
            "--bootstrap-server", self.bootstrap, "--list"]).stdout.split(), timeout=timeout,
            interval=0.2, what=f"topic {topic} listed by {self.name}")

    def wait_user_config_described(self, user: str, key: str, timeout: float = 30.0) -> None:
        """Wait until this broker describes quota or SCRAM credential ``key`` of ``user``.
        Call it before ``kafka-configs --delete-config`` of a user's quota or credential set
        just before: the tool describes the entity first and refuses to delete what the
        describe does not show yet ("Invalid config(s)"), and a broker's metadata can lag
        the controller's commit on a loaded machine."""
        process.wait_for(lambda: key in self.run_tool("kafka-configs", [
            "--bootstrap-server", self.bootstrap, "--describe", "--entity-type", "users",
            "--entity-name", user]).stdout, timeout=timeout, interval=0.2,
            what=f"{key} of {user} described by {self.name}")


def spark_kafka_jars(spark_version: str | None = None) -> list[Path]:
    """The jars to add to `spark.jars` for Spark's `kafka` source/sink (the connector and the
    dependencies pyspark's own jars dir lacks), as install-deps.sh fetched them."""
    if spark_version is None:
        import pyspark  # the installed pyspark decides the connector version
        spark_version = pyspark.__version__
    d = cache_dir() / f"spark-kafka-{spark_version}"
    jars = sorted(d.glob("*.jar"))
    if not (d / ".complete").is_file() or not jars:
        raise KafkaDistMissing(f"Spark Kafka connector {spark_version} not in {d}; "
                               f"run scripts/install-deps.sh")
    return jars


def javac_executable() -> str:
    """`javac` next to java_executable(), else from PATH (a JDK 17+)."""
    beside = Path(java_executable()).resolve().with_name("javac")
    if beside.exists():
        return str(beside)
    found = shutil.which("javac")
    if not found:
        raise KafkaDistMissing("javac not found (install a JDK 17+, not only a JRE)")
    return found


def compile_java(source: Path, version: str) -> Path:
    """Compile one small Java test program against Kafka `version`'s jars; returns the
    classes dir (kept in the cache under the source's hash, so later runs skip javac)."""
    digest = hashlib.sha256(source.read_bytes()).hexdigest()[:12]
    out = kafka_home(version) / "classes" / f"{source.stem}-{digest}"
    if (out / f"{source.stem}.class").is_file():
        return out
    tmp = out.with_name(f"{out.name}.{os.getpid()}.tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    result = subprocess.run([javac_executable(), "-nowarn", "-cp", classpath(version),
                             "-d", str(tmp), str(source)], capture_output=True, text=True,
                            timeout=180)
    if result.returncode != 0:
        shutil.rmtree(tmp, ignore_errors=True)
        raise ToolFailed(["javac", str(source)], result)
    try:
        os.replace(tmp, out)
    except OSError:  # another run installed it first
        shutil.rmtree(tmp, ignore_errors=True)
    return out


def kafka_streams_libs() -> Path:
    """The Kafka Streams jars (kafka-streams and kafka-streams-examples with their
    dependencies) that install-deps.sh put in `<cache>/kafka-streams-<version>/`."""
    found = sorted(d for d in cache_dir().glob("kafka-streams-*")
                   if (d / ".complete").is_file() and any(d.glob("kafka-streams-examples-*.jar")))
    if not found:
        raise KafkaDistMissing(f"Kafka Streams jars are not installed in "
                               f"{cache_dir()}/kafka-streams-<version>; run scripts/install-deps.sh")
    return found[-1]


def kafka_streams_4_libs() -> Path:
    """Kafka Streams 4.4 with its dependencies (no examples jar is published for it),
    which install-deps.sh put in `<cache>/kafka-streams-lib-<version>/`."""
    found = sorted(d for d in cache_dir().glob("kafka-streams-lib-*")
                   if (d / ".complete").is_file() and any(d.glob("kafka-streams-4*.jar")))
    if not found:
        raise KafkaDistMissing(f"Kafka Streams 4.x jars are not installed in "
                               f"{cache_dir()}/kafka-streams-lib-<version>; run scripts/install-deps.sh")
    return found[-1]
