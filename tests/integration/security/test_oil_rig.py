"""The seeds' oil-rig permissions as Kafka ACLs over SASL_PLAINTEXT SCRAM-SHA-256: ``rig-sensor``
may only produce to ``sensor``, ``alerts-app`` may only consume ``sensor`` as group ``alerts``,
``admin`` (a super user) creates the topic and the other users (AlterUserScramCredentials) and
grants the ACLs. Each user tried where it does not belong is refused with Kafka's error
(TOPIC_, GROUP_, CLUSTER_AUTHORIZATION_FAILED), with kafka-python, librdkafka's admin client and
Apache's console producer and consumer; nothing it was refused is written or read.

One standalone broker for the module: a PLAINTEXT listener (User:ANONYMOUS, which no ACL names:
refused everything) for the readiness probe, and the SASL_PLAINTEXT listener the users log in
on. The admin's own credential is made before the broker starts, as ``kafka-storage format
--add-scram`` would; the admin's setup runs once per module broker (``rig_set_up``) and every
test that needs the users, topic and ACLs asks for it, so none relies on an earlier test
(a file's tests may be split between test processes)."""
from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Iterator

import pytest
from confluent_kafka import KafkaException
from confluent_kafka.admin import (AclBinding, AclOperation, AclPermissionType, AdminClient, NewTopic,
                                   ResourcePatternType, ResourceType, ScramCredentialInfo, ScramMechanism,
                                   UserScramCredentialAlteration, UserScramCredentialUpsertion)
from kafka import KafkaConsumer, KafkaProducer
from kafka.admin import KafkaAdminClient
from kafka.admin import NewTopic as KpNewTopic
from kafka.errors import ClusterAuthorizationFailedError, GroupAuthorizationFailedError, TopicAuthorizationFailedError

from kafpy.broker.security.credentials import FileUserConfigs
from kafpy.broker.security.scram import new_credential
from tests.support import process
from tests.support.kafka_dist import popen_tool
from tests.support.kafpy_broker import KafpyBroker
from tests.support.ports import LOOPBACK, free_ports

MECH = "SCRAM-SHA-256"
TOPIC, GROUP = "sensor", "alerts"
PASSWORDS = {"admin": "admin-secret", "rig-sensor": "sensor-secret", "alerts-app": "alerts-secret"}
READINGS = [b"psi=%d" % i for i in range(10)]


@pytest.fixture(scope="module")
def rig(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[KafpyBroker, str]]:
    work = tmp_path_factory.mktemp("kafpy-oil-rig")
    log_dir = work / "logs"
    log_dir.mkdir()
    asyncio.run(FileUserConfigs(str(log_dir)).alter("admin", {MECH: new_credential(MECH, PASSWORDS["admin"])}, []))
    plain, sasl = free_ports(2)
    listeners = f"PLAINTEXT://{LOOPBACK}:{plain},SASL_PLAINTEXT://{LOOPBACK}:{sasl}"
    b = KafpyBroker(work_dir=work, log_dir=log_dir, port=plain, overrides={
        "listeners": listeners, "advertised.listeners": listeners,
        "sasl.enabled.mechanisms": MECH,
        "authorizer.class.name": "kafka.security.authorizer.AclAuthorizer", "super.users": "User:admin",
        "auto.create.topics.enable": "false", "offsets.topic.replication.factor": 1,
        "offsets.topic.num.partitions": 1, "group.initial.rebalance.delay.ms": 0})
    b.start()
    try:
        yield b, f"{LOOPBACK}:{sasl}"
    finally:
        b.stop()


def _rd(bootstrap: str, user: str) -> dict[str, str | int | float | bool]:
    return {"bootstrap.servers": bootstrap, "security.protocol": "SASL_PLAINTEXT", "sasl.mechanism": MECH,
            "sasl.username": user, "sasl.password": PASSWORDS[user]}


def _kp(bootstrap: str, user: str) -> dict[str, object]:
    return {"bootstrap_servers": bootstrap, "security_protocol": "SASL_PLAINTEXT", "sasl_mechanism": MECH,
            "sasl_plain_username": user, "sasl_plain_password": PASSWORDS[user]}


def _error(future) -> str:
    try:
        future.result(30)
    except KafkaException as e:
        return e.args[0].name()
    return "NONE"


def _consume(bootstrap: str, user: str, expected: int) -> list[bytes]:
    c = KafkaConsumer(TOPIC, group_id=GROUP, auto_offset_reset="earliest", **_kp(bootstrap, user))
    try:
        values: list[bytes] = []
        for _ in range(60):
            for records in c.poll(timeout_ms=500).values():
                values += [r.value for r in records]
            if len(values) >= expected:
                break
        return values
    finally:
        c.close()


@pytest.fixture(scope="module")
def rig_set_up(rig: tuple[KafpyBroker, str]) -> dict[str, object]:
    """The admin makes the two users (AlterUserScramCredentials), the topic and the ACLs with
    librdkafka's admin client; what each step answered, for test_admin_sets_up_the_rig."""
    b, bootstrap = rig
    admin = AdminClient(_rd(bootstrap, "admin"))
    creds: list[UserScramCredentialAlteration] = [
        UserScramCredentialUpsertion(u, ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 4096),
                                     PASSWORDS[u].encode()) for u in ("rig-sensor", "alerts-app")]
    users = {u: _error(f) for u, f in admin.alter_user_scram_credentials(creds).items()}
    topic = _error(admin.create_topics([NewTopic(TOPIC, 1, 1)])[TOPIC])
    acls = [AclBinding(ResourceType.TOPIC, TOPIC, ResourcePatternType.LITERAL, f"User:{user}", "*", op,
                       AclPermissionType.ALLOW)
            for user, ops in (("rig-sensor", (AclOperation.WRITE, AclOperation.DESCRIBE)),
                              ("alerts-app", (AclOperation.READ, AclOperation.DESCRIBE))) for op in ops]
    acls.append(AclBinding(ResourceType.GROUP, GROUP, ResourcePatternType.LITERAL, "User:alerts-app", "*",
                           AclOperation.READ, AclPermissionType.ALLOW))
    return {"users": users, "topic": topic, "acls": [_error(f) for f in admin.create_acls(acls).values()]}


def test_admin_sets_up_the_rig(rig_set_up):
    assert rig_set_up == {"users": {"rig-sensor": "NONE", "alerts-app": "NONE"}, "topic": "NONE",
                          "acls": ["NONE"] * 5}


@pytest.mark.usefixtures("rig_set_up")
def test_each_user_does_only_its_job_with_kafka_python(rig):
    b, bootstrap = rig
    p = KafkaProducer(**_kp(bootstrap, "rig-sensor"))
    for v in READINGS:
        p.send(TOPIC, v)
    p.flush()
    p.close()
    assert _consume(bootstrap, "alerts-app", len(READINGS)) == READINGS
    # not idempotent: an idempotent producer without WRITE on any topic is refused earlier,
    # at InitProducerId, with CLUSTER_AUTHORIZATION_FAILED (as Kafka refuses it)
    wrong = KafkaProducer(max_block_ms=10000, enable_idempotence=False, **_kp(bootstrap, "alerts-app"))
    with pytest.raises(TopicAuthorizationFailedError):
        wrong.send(TOPIC, b"forged").get(10)
    wrong.close()
    with pytest.raises(GroupAuthorizationFailedError):
        _consume(bootstrap, "rig-sensor", 1)
    admin = KafkaAdminClient(**_kp(bootstrap, "alerts-app"))
    try:
        with pytest.raises(TopicAuthorizationFailedError):
            admin.create_topics([KpNewTopic("rogue", 1, 1)])
    finally:
        admin.close()


@pytest.mark.usefixtures("rig_set_up")
def test_only_the_admin_manages_credentials(rig):
    b, bootstrap = rig
    sensor = AdminClient(_rd(bootstrap, "rig-sensor"))
    upsert = UserScramCredentialUpsertion("rig-sensor", ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 4096),
                                          b"stolen")
    assert _error(sensor.alter_user_scram_credentials([upsert])["rig-sensor"]) == "CLUSTER_AUTHORIZATION_FAILED"
    assert _error(sensor.create_topics([NewTopic("rogue", 1, 1)])["rogue"]) == "TOPIC_AUTHORIZATION_FAILED"
    # the refused describe with kafka-python: librdkafka 2.x frees a bad pointer when it
    # disposes of a client that was refused DescribeUserScramCredentials
    kp = KafkaAdminClient(**_kp(bootstrap, "rig-sensor"))
    try:
        with pytest.raises(ClusterAuthorizationFailedError):
            kp.describe_user_scram_credentials(["admin"])
    finally:
        kp.close()
    admin = AdminClient(_rd(bootstrap, "admin"))
    described = admin.describe_user_scram_credentials(["rig-sensor"])
    assert described["rig-sensor"].result(30).scram_credential_infos[0].iterations == 4096


def _client_config(path: Path, user: str) -> Path:
    path.write_text(f"security.protocol=SASL_PLAINTEXT\nsasl.mechanism={MECH}\n"
                    "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required "
                    f'username="{user}" password="{PASSWORDS[user]}";\n')
    return path


@pytest.mark.usefixtures("rig_set_up")
def test_java_console_tools_are_refused_as_the_wrong_user(rig, tmp_path):
    """Four console tools at once: the right users produce and consume, the wrong ones are
    told they are not authorized."""
    b, bootstrap = rig
    conf = {u: _client_config(tmp_path / f"{u}.properties", u) for u in ("rig-sensor", "alerts-app")}
    common = ["--bootstrap-server", bootstrap, "--topic", TOPIC]
    consumer = common + ["--group", GROUP, "--from-beginning", "--timeout-ms", "8000"]
    procs = {
        "produce as rig-sensor": popen_tool("4", "kafka-console-producer", [
            *common, "--producer.config", conf["rig-sensor"]]),
        "produce as alerts-app": popen_tool("4", "kafka-console-producer", [
            *common, "--producer.config", conf["alerts-app"], "--request-timeout-ms", "5000"]),
        "consume as alerts-app": popen_tool("4", "kafka-console-consumer", [
            *consumer, "--consumer.config", conf["alerts-app"], "--max-messages", "1"]),
        "consume as rig-sensor": popen_tool("4", "kafka-console-consumer", [
            *consumer, "--consumer.config", conf["rig-sensor"]]),
    }
    out: dict[str, tuple[str, str]] = {}
    try:
        for name, proc in procs.items():
            stdin = "java-reading\n" if name.startswith("produce") else None
            out[name] = proc.communicate(stdin, timeout=90)
    finally:
        for proc in procs.values():
            if proc.poll() is None:
                process.terminate(proc)
    # the console producer is idempotent: without WRITE on any topic its InitProducerId is
    # refused, as Kafka refuses it (KIP-679)
    assert "ClusterAuthorizationException: Cluster authorization failed." in out["produce as alerts-app"][1]
    assert "Not authorized to access group: alerts" in out["consume as rig-sensor"][1]
    # the group's offsets are past the readings kafka-python consumed (when that test ran on this
    # broker; else the topic holds only this one): the Java reading follows
    assert [line for line in out["consume as alerts-app"][0].splitlines() if "=" not in line
            and not line.startswith("Option")] == ["java-reading"]
