"""kafka_dist's lookups against a fake jar cache (no Java started)."""
from __future__ import annotations

import base64
import zipfile

import pytest

from tests.support import kafka_dist
from tests.support.kafka_dist import KafkaDistMissing


def _fake_dist(cache, version, classes):
    libs = cache / f"kafka-{version}" / "libs"
    libs.mkdir(parents=True)
    (cache / f"kafka-{version}" / ".complete").write_text(version)
    with zipfile.ZipFile(libs / f"kafka-clients-{version}.jar", "w") as zf:
        zf.writestr("org/apache/kafka/clients/Dummy.class", b"")
    with zipfile.ZipFile(libs / f"kafka-tools-{version}.jar", "w") as zf:
        for cls in classes:
            zf.writestr(cls.replace(".", "/") + ".class", b"")
            zf.writestr(cls.replace(".", "/") + "$Inner.class", b"")


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("KAFPY_CACHE", str(tmp_path))
    kafka_dist._classes_in.cache_clear()
    return tmp_path


def test_missing_distribution_raises_clearly(cache):
    with pytest.raises(KafkaDistMissing, match="install-deps.sh"):
        kafka_dist.kafka_home("9.9.9")
    with pytest.raises(KafkaDistMissing):
        kafka_dist.run_tool("9.9.9", "kafka-topics", ["--list"])


def test_main_class_prefers_the_newest_location_present(cache):
    _fake_dist(cache, "8.0.0", ["org.apache.kafka.tools.ConsoleProducer",
                                "org.apache.kafka.tools.consumer.ConsoleConsumer"])
    _fake_dist(cache, "7.9.0", ["kafka.tools.ConsoleProducer",
                                "org.apache.kafka.tools.consumer.ConsoleConsumer"])
    assert kafka_dist.main_class("8.0.0", "kafka-console-producer") == \
        "org.apache.kafka.tools.ConsoleProducer"
    assert kafka_dist.main_class("7.9.0", "kafka-console-producer.sh") == \
        "kafka.tools.ConsoleProducer"
    assert kafka_dist.main_class("7.9.0", "kafka-console-consumer") == \
        "org.apache.kafka.tools.consumer.ConsoleConsumer"
    with pytest.raises(KafkaDistMissing, match="TopicCommand"):
        kafka_dist.main_class("8.0.0", "kafka-topics")
    with pytest.raises(ValueError, match="unknown Kafka tool"):
        kafka_dist.main_class("8.0.0", "kafka-frobnicate")


def test_java_command_uses_the_version_libs_and_quiet_logging(cache):
    _fake_dist(cache, "8.0.0", ["org.apache.kafka.tools.TopicCommand"])
    cmd = kafka_dist.java_command("8.0.0", "kafka-topics", ["--list", 5])
    assert cmd[cmd.index("-cp") + 1] == str(cache / "kafka-8.0.0" / "libs" / "*")
    assert cmd[-3:] == ["org.apache.kafka.tools.TopicCommand", "--list", "5"]
    assert f"-Dlog4j2.configurationFile={kafka_dist.LOG4J2_CONFIG}" in cmd
    assert kafka_dist.LOG4J_CONFIG.is_file() and kafka_dist.LOG4J2_CONFIG.is_file()


def test_versions_name_both_lines():
    assert set(kafka_dist.VERSIONS) == {"3.9", "4"}
    assert kafka_dist.VERSIONS["3.9"].startswith("3.9.")
    assert kafka_dist.VERSIONS["4"].startswith("4.")
    assert kafka_dist.full_version("4") == kafka_dist.VERSIONS["4"]
    assert kafka_dist.full_version("3.8.0") == "3.8.0"


def test_random_cluster_id_is_a_base64url_uuid():
    ids = {kafka_dist.random_cluster_id() for _ in range(50)}
    assert len(ids) == 50
    for cid in ids:
        assert len(cid) == 22
        assert len(base64.urlsafe_b64decode(cid + "==")) == 16


def test_cds_archive_is_used_once_present_and_can_be_turned_off(cache, monkeypatch):
    _fake_dist(cache, "8.0.0", ["org.apache.kafka.tools.TopicCommand", "kafka.Kafka"])
    archive = kafka_dist.cds_archive("8.0.0", "kafka-topics")
    assert archive.parent == cache / "kafka-8.0.0" / "cds"
    assert not any(a.startswith("-XX:SharedArchiveFile") for a in
                   kafka_dist.java_command("8.0.0", "kafka-topics"))
    archive.parent.mkdir()
    archive.write_bytes(b"x")
    assert f"-XX:SharedArchiveFile={archive}" in kafka_dist.java_command("8.0.0", "kafka-topics")
    assert not any("SharedArchiveFile" in a for a in
                   kafka_dist.java_command("8.0.0", "kafka-server-start"))
    monkeypatch.setenv("KAFPY_JAVA_CDS", "0")
    assert not any("SharedArchiveFile" in a for a in
                   kafka_dist.java_command("8.0.0", "kafka-topics"))


def test_broker_runs_light_in_the_suite_and_as_kafka_runs_it_when_asked(cache):
    _fake_dist(cache, "8.0.0", ["kafka.Kafka"])
    archive = kafka_dist.cds_archive("8.0.0", "kafka-server-start")
    archive.parent.mkdir()
    archive.write_bytes(b"x")
    server = kafka_dist.java_command("8.0.0", "kafka-server-start", light_jvm=False)
    assert "-XX:+UseG1GC" in server and "-XX:TieredStopAtLevel=1" not in server
    assert not any("SharedArchiveFile" in a for a in server)
    light = kafka_dist.java_command("8.0.0", "kafka-server-start", light_jvm=True)
    assert "-XX:+UseSerialGC" in light and "-XX:TieredStopAtLevel=1" in light
    assert f"-XX:SharedArchiveFile={archive}" in light
    # the suite's conftest picks the light JVM for every broker not told otherwise
    assert kafka_dist.LIGHT_BROKER_JVM
    assert "-XX:TieredStopAtLevel=1" in kafka_dist.java_command("8.0.0", "kafka-server-start")
    assert not kafka_dist.ReferenceKafka("8.0.0", work_dir=cache / "a").server_jvm
    assert kafka_dist.ReferenceKafka("8.0.0", work_dir=cache / "b", server_jvm=True).server_jvm
