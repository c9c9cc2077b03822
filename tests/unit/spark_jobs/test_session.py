"""kafpy.spark_jobs.session without a JVM: connector jar cache, Maven fetch, settings."""
from __future__ import annotations

import argparse
import stat
from pathlib import Path

import pytest

from kafpy.spark_jobs import session


def test_artifact_name_strips_versions():
    assert session.artifact_name("kafka-clients-3.9.2.jar") == "kafka-clients"
    assert session.artifact_name("spark-sql-kafka-0-10_2.13-4.2.0.jar") == \
        "spark-sql-kafka-0-10_2.13"
    assert session.artifact_name("commons-pool2-2.13.1.jar") == "commons-pool2"
    assert session.artifact_name("zstd-jni-1.5.7-6.jar") == "zstd-jni"


def test_select_missing_keeps_only_new_artifacts(tmp_path):
    jars = [tmp_path / n for n in ("kafka-clients-3.9.2.jar", "scala-library-2.13.16.jar",
                                   "commons-pool2-2.13.1.jar")]
    kept = session.select_missing(jars, ["scala-library-2.13.18.jar", "commons-pool-1.5.4.jar"])
    assert [j.name for j in kept] == ["commons-pool2-2.13.1.jar", "kafka-clients-3.9.2.jar"]


def test_cache_needs_completion_marker(tmp_path):
    d = session.connector_dir("9.9.9", tmp_path)
    d.mkdir(parents=True)
    (d / "spark-sql-kafka-0-10_2.13-9.9.9.jar").write_bytes(b"PK")
    assert session.cached_connector_jars("9.9.9", tmp_path) is None
    with pytest.raises(session.ConnectorUnavailable):
        session.connector_jars("9.9.9", tmp_path, fetch=False)
    (d / ".complete").write_text("9.9.9\n")
    assert session.connector_jars("9.9.9", tmp_path, fetch=False) == \
        [d / "spark-sql-kafka-0-10_2.13-9.9.9.jar"]


def test_cache_root_follows_env(monkeypatch, tmp_path):
    monkeypatch.setenv("KAFPY_CACHE", str(tmp_path))
    assert session.cache_root() == tmp_path
    assert session.connector_dir("4.2.0") == tmp_path / "spark-kafka-4.2.0"
    monkeypatch.delenv("KAFPY_CACHE")
    assert session.cache_root() == Path.home() / ".cache" / "kafpy"


def test_pom_names_the_connector():
    pom = session.connector_pom("4.2.0")
    assert "<groupId>org.apache.spark</groupId>" in pom
    assert "<artifactId>spark-sql-kafka-0-10_2.13</artifactId>" in pom
    assert "<version>4.2.0</version>" in pom


def fake_mvn(tmp_path: Path, body: str) -> str:
    script = tmp_path / "bin" / "mvn"
    script.parent.mkdir()
    script.write_text("#!/bin/sh\n" + body)
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return str(script)


def test_fetch_with_maven_filters_and_marks_complete(tmp_path):
    # writes the closure into -DoutputDirectory=..., as dependency:copy-dependencies does
    mvn = fake_mvn(tmp_path, """
for a in "$@"; do case "$a" in -DoutputDirectory=*) out="${a#-DoutputDirectory=}";; esac; done
test -f pom.xml || exit 3
mkdir -p "$out"
for j in spark-sql-kafka-0-10_2.13-9.9.9 kafka-clients-3.9.2 scala-library-2.13.16; do
  echo jar > "$out/$j.jar"; done
""")
    cache = tmp_path / "cache"
    jars = session.fetch_connector_jars("9.9.9", cache, mvn=mvn)
    assert [j.name for j in jars] == ["kafka-clients-3.9.2.jar",
                                      "spark-sql-kafka-0-10_2.13-9.9.9.jar"]
    d = cache / "spark-kafka-9.9.9"
    assert (d / ".complete").read_text().strip() == "9.9.9"
    assert sorted(p.name for p in cache.iterdir()) == ["spark-kafka-9.9.9"]  # no temp left
    assert session.connector_jars("9.9.9", cache) == jars  # served from the cache now


def test_fetch_failure_and_missing_maven(tmp_path):
    mvn = fake_mvn(tmp_path, "echo 'Could not resolve dependencies' >&2\nexit 1\n")
    with pytest.raises(session.ConnectorUnavailable, match="Could not resolve"):
        session.fetch_connector_jars("9.9.9", tmp_path / "c", mvn=mvn)
    assert not (tmp_path / "c" / "spark-kafka-9.9.9").exists()
    with pytest.raises(session.ConnectorUnavailable, match="not installed"):
        session.fetch_connector_jars("9.9.9", tmp_path / "c", mvn=str(tmp_path / "no-mvn"))


def test_session_conf():
    conf = session.session_conf([Path("/a/x.jar"), Path("/b/y.jar")], shuffle_partitions=3,
                                extra={"spark.ui.enabled": "true"})
    assert conf["spark.jars"] == "/a/x.jar,/b/y.jar"
    assert conf["spark.sql.shuffle.partitions"] == "3"
    assert conf["spark.ui.enabled"] == "true"
    assert conf["spark.sql.session.timeZone"] == "UTC"


def test_kafka_options():
    assert session.kafka_options(["kafka.client.id=x", "a = b=c"]) == {
        "kafka.client.id": "x", "a": "b=c"}
    with pytest.raises(argparse.ArgumentTypeError):
        session.kafka_options(["novalue"])


class FakeWriter:
    def __init__(self):
        self.calls = []

    def trigger(self, **kw):
        self.calls.append(kw)
        return self


@pytest.mark.parametrize("text,expected", [
    ("once", {"availableNow": True}), ("available-now", {"availableNow": True}),
    ("5 seconds", {"processingTime": "5 seconds"})])
def test_apply_trigger(text, expected):
    w = FakeWriter()
    assert session.apply_trigger(w, text) is w
    assert w.calls == [expected]


class FakeQuery:
    def __init__(self, name, finishes=True, error=None):
        self.name, self.finishes, self.error = name, finishes, error
        self.isActive = True
        self.waits: list = []

    def awaitTermination(self, timeout=None):
        self.waits.append(timeout)
        if self.finishes:
            self.isActive = False

    def stop(self):
        self.isActive = False

    def exception(self):
        return self.error


def test_run_queries_waits_then_stops_and_reports_failure():
    done, running = FakeQuery("a"), FakeQuery("b", finishes=False)
    session.run_queries(None, [done, running], timeout=1.0)
    assert not running.isActive and done.waits[0] <= 1.0
    failed = FakeQuery("c", error="boom")
    with pytest.raises(RuntimeError, match="query c failed: boom"):
        session.run_queries(None, [failed], timeout=None)
    assert failed.waits == [None]

