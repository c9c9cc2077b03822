"""SparkSession setup for the jobs: Spark's Kafka connector jars and quiet local defaults.

The connector (`org.apache.spark:spark-sql-kafka-0-10_2.13:<pyspark version>`) is not part of
pyspark. Spark's own `--packages` resolver (Ivy) may not reach a registry from every machine, so
the jars are fetched with Maven (`mvn dependency:copy-dependencies` on a small generated pom)
into `${KAFPY_CACHE:-~/.cache/kafpy}/spark-kafka-<version>/`, the directory
`scripts/install-deps.sh` fills, and handed to Spark through `spark.jars`. Only jars whose
artifact pyspark's own `jars/` lacks are kept (kafka-clients, commons-pool2, the token
provider, the connector): a second copy of a jar Spark already has would shadow it.
A `.complete` file (holding the version) marks a finished download; directories without it
are ignored and rebuilt.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Mapping

if TYPE_CHECKING:
    from pyspark.sql import SparkSession
    from pyspark.sql.streaming import DataStreamWriter, StreamingQuery

CONNECTOR_ARTIFACT = "org.apache.spark:spark-sql-kafka-0-10_2.13"
DEFAULT_MASTER = "local[2]"
# A stateful query's shuffle partitions are fixed in its checkpoint; Spark's default (200)
# makes every micro-batch of a small local job run 200 tiny tasks.
DEFAULT_SHUFFLE_PARTITIONS = 4

_VERSION_SUFFIX = re.compile(r"-[0-9]+(\.[0-9A-Za-z_]+)*(-[A-Za-z0-9.]+)?\.jar$")


class ConnectorUnavailable(RuntimeError):
    """The connector jars are neither cached nor obtainable with mvn."""


def cache_root() -> Path:
    env = os.environ.get("KAFPY_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "kafpy"


def pyspark_version() -> str:
    import pyspark
    return pyspark.__version__


def pyspark_jars_dir() -> Path:
    import pyspark
    return Path(pyspark.__file__).resolve().parent / "jars"


def artifact_name(jar_file: str) -> str:
    """`kafka-clients-3.9.2.jar` -> `kafka-clients` (the name without its version)."""
    return _VERSION_SUFFIX.sub("", jar_file)


def connector_dir(spark_version: str | None = None, cache: Path | None = None) -> Path:
    return (cache or cache_root()) / f"spark-kafka-{spark_version or pyspark_version()}"


def cached_connector_jars(spark_version: str | None = None,
                          cache: Path | None = None) -> list[Path] | None:
    """The jars of a completed download, or None."""
    d = connector_dir(spark_version, cache)
    jars = sorted(d.glob("*.jar"))
    if (d / ".complete").is_file() and jars:
        return jars
    return None


def connector_pom(spark_version: str) -> str:
    group, artifact = CONNECTOR_ARTIFACT.split(":")
    return (
        '<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>'
        "<groupId>kafpy.deps</groupId><artifactId>spark-kafka</artifactId><version>1</version>"
        "<packaging>pom</packaging><dependencies><dependency>"
        f"<groupId>{group}</groupId><artifactId>{artifact}</artifactId>"
        f"<version>{spark_version}</version></dependency></dependencies></project>\n")


def select_missing(jars: Iterable[Path], present: Iterable[str]) -> list[Path]:
    """The jars whose artifact name is not among the names of `present` jar files."""
    have = {artifact_name(n) for n in present}
    return sorted(j for j in jars if artifact_name(j.name) not in have)


def fetch_connector_jars(spark_version: str | None = None, cache: Path | None = None,
                         mvn: str = "mvn") -> list[Path]:
    """Download the connector's runtime closure with Maven into the cache (atomically)."""
    version = spark_version or pyspark_version()
    dest = connector_dir(version, cache)
    if shutil.which(mvn) is None:
        raise ConnectorUnavailable(
            f"Spark's Kafka connector {version} is not in {dest} and `{mvn}` is not installed "
            f"to fetch it (run scripts/install-deps.sh, or install Maven)")
    dest.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=dest.parent, prefix=".spark-kafka-") as work:
        workdir = Path(work)
        (workdir / "pom.xml").write_text(connector_pom(version))
        libs = workdir / "libs"
        result = subprocess.run(
            [mvn, "-B", "-q", "dependency:copy-dependencies", "-DincludeScope=runtime",
             f"-DoutputDirectory={libs}"],
            cwd=workdir, stdin=subprocess.DEVNULL, capture_output=True, text=True)
        if result.returncode != 0:
            raise ConnectorUnavailable(
                f"mvn could not fetch {CONNECTOR_ARTIFACT}:{version}:\n"
                f"{(result.stdout + result.stderr)[-3000:]}")
        present = [p.name for p in pyspark_jars_dir().glob("*.jar")]
        staged = workdir / "staged"
        staged.mkdir()
        for jar in select_missing(libs.glob("*.jar"), present):
            shutil.copy2(jar, staged / jar.name)
        (staged / ".complete").write_text(version + "\n")
        if dest.exists():
            shutil.rmtree(dest)
        staged.rename(dest)
    jars = cached_connector_jars(version, cache)
    if not jars:
        raise ConnectorUnavailable(f"mvn left no connector jars in {dest}")
    return jars


def connector_jars(spark_version: str | None = None, cache: Path | None = None,
                   fetch: bool = True) -> list[Path]:
    """The jars to put on `spark.jars`: cached ones, else fetched with mvn (if `fetch`)."""
    jars = cached_connector_jars(spark_version, cache)
    if jars:
        return jars
    if not fetch:
        raise ConnectorUnavailable(
            f"Spark's Kafka connector is not in {connector_dir(spark_version, cache)}")
    return fetch_connector_jars(spark_version, cache)


def session_conf(jars: Iterable[Path], *, shuffle_partitions: int = DEFAULT_SHUFFLE_PARTITIONS,
                 extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The settings `build_session` applies (separate so they can be checked without a JVM)."""
    conf = {
        "spark.jars": ",".join(str(j) for j in jars),
        "spark.sql.shuffle.partitions": str(shuffle_partitions),
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.session.timeZone": "UTC",
        # Local jobs: keep the driver from searching the network for its own address.
        "spark.driver.host": "127.0.0.1",
        "spark.driver.bindAddress": "127.0.0.1",
        "spark.sql.streaming.stopTimeout": "30s",
    }
    conf.update(extra or {})
    return conf


def build_session(app_name: str, *, master: str = DEFAULT_MASTER,
                  shuffle_partitions: int = DEFAULT_SHUFFLE_PARTITIONS,
                  log_level: str = "WARN", extra_conf: Mapping[str, str] | None = None,
                  jars: Iterable[Path] | None = None) -> SparkSession:
    """A SparkSession with the Kafka connector on its class path (getOrCreate: a session that
    already runs in this process is reused, and its static settings stay as they were)."""
    from pyspark.sql import SparkSession

    jars = list(jars) if jars is not None else connector_jars()
    builder = SparkSession.builder.appName(app_name).master(master)
    for key, value in session_conf(jars, shuffle_partitions=shuffle_partitions,
                                   extra=extra_conf).items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel(log_level)
    return spark


def add_common_arguments(parser: argparse.ArgumentParser, *,
                         checkpoint_required: bool = True) -> None:
    """Options every job takes: where Kafka is, where the checkpoint lives, Spark settings."""
    parser.add_argument("--bootstrap-servers", required=True, metavar="HOST:PORT[,...]",
                        help="Kafka bootstrap servers (kafka.bootstrap.servers)")
    if checkpoint_required:
        parser.add_argument("--checkpoint", required=True, metavar="DIR",
                            help="checkpoint directory; restarting with the same directory "
                                 "resumes where the query stopped")
    parser.add_argument("--master", default=DEFAULT_MASTER,
                        help="Spark master")
    parser.add_argument("--shuffle-partitions", type=int, default=DEFAULT_SHUFFLE_PARTITIONS,
                        help="spark.sql.shuffle.partitions for a new checkpoint")
    parser.add_argument("--kafka-option", action="append", default=[], metavar="KEY=VALUE",
                        help="extra option for Kafka source and sink, e.g. "
                             "kafka.security.protocol=PLAINTEXT (repeatable)")
    parser.add_argument("--log-level", default="WARN", help="Spark log level")


def add_trigger_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--trigger", default="5 seconds", metavar="INTERVAL",
                        help="micro-batch interval, e.g. '5 seconds', or 'once' to process "
                             "what is available now and stop")
    parser.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                        help="stop the queries after this many seconds (none: run until "
                             "interrupted or, with --trigger once, until done)")


def kafka_options(pairs: Iterable[str]) -> dict[str, str]:
    """`["k=v", ...]` -> dict, rejecting entries without '='."""
    out: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {pair!r}")
        out[key.strip()] = value.strip()
    return out


def apply_trigger(writer: DataStreamWriter, trigger: str) -> DataStreamWriter:
    """`once` -> availableNow (all data present at start, then stop); else processingTime."""
    if trigger.strip().lower() in ("once", "available-now", "availablenow"):
        return writer.trigger(availableNow=True)
    return writer.trigger(processingTime=trigger)


def run_queries(spark: SparkSession, queries: list[StreamingQuery], timeout: float | None) -> None:
    """Wait for the queries: until all finish (availableNow) or `timeout` seconds pass, then
    stop the ones still running. A query's failure is re-raised. Ctrl-C stops them cleanly;
    the checkpoints keep their progress."""
    import time

    deadline = None if timeout is None else time.monotonic() + timeout
    try:
        for q in queries:
            if deadline is None:
                q.awaitTermination()
            else:
                q.awaitTermination(max(0.0, deadline - time.monotonic()))  # type: ignore[arg-type]  # a float is accepted
    except KeyboardInterrupt:
        pass
    finally:
        for q in queries:
            if q.isActive:
                q.stop()
    for q in queries:
        if q.exception() is not None:
            raise RuntimeError(f"query {q.name} failed: {q.exception()}")
