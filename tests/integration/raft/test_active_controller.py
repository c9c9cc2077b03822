"""The active KRaft controller with real parts: three kafpy controllers
(``process.roles=controller``) run the quorum controller on their Raft quorum.

- Apache Kafka 4.4's tools that accept ``--bootstrap-controller`` (kafka-features,
  kafka-configs, kafka-metadata-quorum; kafka-topics does not) read and change the metadata
  through the active controller; after kill -9 of the active controller the next one serves
  the same image (the same finalized features and dynamic configs).
- An Apache Kafka 4.4 broker (``process.roles=broker``, formatted by Apache's kafka-storage)
  registers with the active kafpy controller, is unfenced once it caught up with the metadata
  log, and a topic created through it (kafka-topics --bootstrap-server at the broker, which
  forwards CreateTopics in an Envelope) gets a leader on it; Apache's console producer and
  consumer go through it; after kill -9 of the active controller the broker follows the new
  one: it stays unfenced past its session timeout and a topic created then gets a leader.
"""
from __future__ import annotations

import re
import time
from collections import Counter
from functools import partial
from pathlib import Path
from typing import Iterator

import pytest

from kafpy.protocol import messages as M

from tests.integration.raft.quorum_support import call, describe_quorum
from tests.support.metadata_json import parse_dump
from tests.support.kafka_dist import run_tool
from tests.support.kraft_controllers import ApacheBroker, KafpyControllers, eventually

CLUSTER_ID = "b3Hq2nLkS0yVZ1cYpUe9Qw"
SESSION_TIMEOUT_MS = 6000  # shorter than Kafka's 9 s so the test sees a session outlive it


def tool(name: str, *args: str, input: str | None = None) -> str:
    return run_tool("4", name, list(args), input=input, timeout=120).stdout


def _started(work: Path) -> Iterator[KafpyControllers]:
    c = KafpyControllers(work, CLUSTER_ID, {"broker.session.timeout.ms": str(SESSION_TIMEOUT_MS)})
    c.format()
    c.start_all()
    try:
        # Every controller's registration persisted before a tool runs: until the active one's
        # is, DescribeCluster lists only the controllers registered so far, without it, and
        # an admin client given --bootstrap-controller then waits for a node assignment until
        # its 60 s timeout (it asks again only when metadata is not ready). Apache's controllers
        # list only registered controllers too (ControllerRegistrationsPublisher)
        for node in c.ports:
            eventually(partial(_registered, c, node), what=f"controller {node} registered")
        yield c
    finally:
        c.stop_all()


@pytest.fixture
def controllers(tmp_path: Path) -> Iterator[KafpyControllers]:
    """A quorum of its own, for the test that kills one and dumps the log."""
    yield from _started(tmp_path)


@pytest.fixture(scope="module")
def shared_controllers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KafpyControllers]:
    """One quorum for the standby's NOT_CONTROLLER (first: it needs no broker registered, and
    its refused CreateTopics write nothing) and then the Apache broker on top."""
    yield from _started(tmp_path_factory.mktemp("active-controller"))


def _registered(c: KafpyControllers, node: int) -> bool:
    return "Our registration has been persisted" in c.output(node)


def _features(c: KafpyControllers) -> dict[str, str]:
    out = tool("kafka-features", "--bootstrap-controller", c.bootstrap_controllers, "describe")
    return dict(re.findall(r"Feature: (\S+)\s.*FinalizedVersionLevel: (\S+)", out))


def _default_broker_configs(c: KafpyControllers, bootstrap: str | None = None) -> str:
    return tool("kafka-configs", "--bootstrap-controller", bootstrap or c.bootstrap_controllers, "--describe",
                "--entity-type", "brokers", "--entity-default")


def test_apache_tools_through_the_active_controller_and_after_its_crash(controllers: KafpyControllers) -> None:
    c = controllers
    first = c.active()
    # the activation wrote the bootstrap records: kafka-storage format's metadata.version
    def finalized() -> dict[str, str] | None:
        # "UNKNOWN 0" until the bootstrap records are committed after the election
        found = _features(c)
        return found if found.get("metadata.version", "UNKNOWN") != "UNKNOWN" else None
    features = eventually(finalized, what="finalized features")
    assert features["metadata.version"] == "4.4-IV2", features
    assert features["group.version"] == "1" and features["transaction.version"] == "2", features
    # every controller registers itself with the active one (ControllerRegistration)
    for node in c.ports:
        eventually(lambda: "Our registration has been persisted" in c.output(node),
                   what=f"controller {node} registered")
    # UpdateFeatures through the active controller (checked against every registered controller)
    tool("kafka-features", "--bootstrap-controller", c.bootstrap_controllers, "downgrade", "--feature",
         "transaction.version=1")
    assert _features(c)["transaction.version"] == "1"
    tool("kafka-features", "--bootstrap-controller", c.bootstrap_controllers, "upgrade", "--feature",
         "transaction.version=2")
    assert _features(c)["transaction.version"] == "2"
    refused = run_tool("4", "kafka-features", ["--bootstrap-controller", c.bootstrap_controllers, "upgrade",
                                               "--feature", "transaction.version=9"], check=False, timeout=120)
    assert refused.returncode != 0 and "transaction.version" in refused.stdout + refused.stderr, refused
    tool("kafka-configs", "--bootstrap-controller", c.bootstrap_controllers, "--alter", "--entity-type", "brokers",
         "--entity-default", "--add-config", "log.retention.ms=777777,log.cleaner.threads=2")
    before = _default_broker_configs(c)
    assert "log.retention.ms=777777" in before and "log.cleaner.threads=2" in before, before

    c.kill(first)
    survivors = c.alive()
    second = c.active(survivors)
    assert second != first
    # every survivor replays the same records: ask each one alone. A controller answers from
    # what it has replayed, up to the high watermark it has heard of; a follower learns the
    # new leader's only once that leader commits a record of its own epoch (CI once asked a
    # survivor a moment before: it still showed the defaults of before the change)
    for node in survivors:
        one = f"127.0.0.1:{c.ports[node]}"
        eventually(lambda: "log.retention.ms=777777" in (seen := _default_broker_configs(c, one))
                   and "log.cleaner.threads=2" in seen, what=f"controller {node} replaying the change")
    assert _features(c) == features
    # and the new active controller writes: a change made after the crash is seen by both
    tool("kafka-configs", "--bootstrap-controller", c.bootstrap_controllers, "--alter", "--entity-type", "brokers",
         "--entity-default", "--delete-config", "log.cleaner.threads")
    for node in survivors:
        one = f"127.0.0.1:{c.ports[node]}"
        eventually(lambda: "log.cleaner.threads" not in _default_broker_configs(c, one),
                   what=f"controller {node} replaying the deletion")

    # the crashed controller comes back: it replays its own log from disk and catches up
    c.start(first)
    back = f"127.0.0.1:{c.ports[first]}"
    eventually(lambda: "log.retention.ms=777777" in (seen := _default_broker_configs(c, back))
               and "log.cleaner.threads" not in seen, what="the restarted controller caught up")

    # the active controller's NoOpRecord every metadata.max.idle.interval.ms (500 ms), read
    # from its own log while it runs. The quorum's high watermark is no proof of one: a
    # registration or an election moves it too, and the steps above can all fit in less than
    # an interval after the activation.
    since = describe_quorum(c.ports[c.active()]).high_watermark

    def committed_no_op() -> int | None:
        leader = c.active()
        committed = describe_quorum(c.ports[leader]).high_watermark
        live = c.work / f"controller-{leader}" / "__cluster_metadata-0"
        files = ",".join(str(p) for p in sorted(live.glob("*.log")))
        # check=False: the segment is being appended to while the tool reads it
        batches = parse_dump(run_tool("4", "kafka-dump-log", ["--cluster-metadata-decoder", "--files", files],
                                      check=False).stdout)
        found = any(isinstance(r, M.NoOpRecord) and since <= offset < committed
                    for b in batches if not b.is_control for offset, r in b.records)
        return leader if found else None
    last_active = eventually(committed_no_op, what="a committed NoOpRecord from the active controller")

    # the log as Apache Kafka 4.4's kafka-dump-log decodes it
    c.stop_all()
    files = ",".join(str(p) for p in sorted((c.work / f"controller-{last_active}" / "__cluster_metadata-0").glob("*.log")))
    dumped = parse_dump(run_tool("4", "kafka-dump-log", ["--cluster-metadata-decoder", "--files", files]).stdout)
    records = [r for b in dumped if not b.is_control for _o, r in b.records]
    # the activation: Kafka 4.4's bootstrap records in a metadata transaction, first of all
    activation = next(b for b in dumped if not b.is_control)
    assert [type(r).__name__ for _o, r in activation.records][:2] == ["BeginTransactionRecord",
                                                                       "FeatureLevelRecord"]
    assert type(activation.records[-1][1]).__name__ == "EndTransactionRecord"
    registered = {r.controller_id: [(e.name, e.port) for e in r.end_points]
                  for r in records if isinstance(r, M.RegisterControllerRecord)}
    assert registered == {n: [("CONTROLLER", p)] for n, p in c.ports.items()}
    assert any(isinstance(r, M.NoOpRecord) for r in records), Counter(type(r).__name__ for r in records)
    defaults = [(r.name, r.value) for r in records if isinstance(r, M.ConfigRecord) and r.resource_type == 4]
    assert ("log.retention.ms", "777777") in defaults and ("log.cleaner.threads", None) in defaults


def test_a_write_on_a_standby_controller_answers_not_controller(shared_controllers: KafpyControllers) -> None:
    c = shared_controllers
    request = M.CreateTopicsRequest(topics=[M.CreateTopicsRequest.CreatableTopic(
        name="x", num_partitions=1, replication_factor=1)], timeout_ms=5000)

    def answers() -> tuple[M.CreateTopicsResponse, M.CreateTopicsResponse] | None:
        """(a standby's answer, the active one's), asked of the same leader: on a loaded
        machine an election may come between two requests, and then the pair is asked again."""
        active = c.active()
        standby = next(n for n in c.ports if n != active)
        on_standby = call(c.ports[standby], request, M.CreateTopicsResponse, 7)
        on_active = call(c.ports[active], request, M.CreateTopicsResponse, 7)
        moved = [t.error_code for t in on_active.topics] == [41] or c.active() != active
        return None if moved else (on_standby, on_active)
    on_standby, on_active = eventually(answers, timeout=60, what="two answers under one leader")
    assert [t.error_code for t in on_standby.topics] == [41]  # NOT_CONTROLLER
    # on the active controller, with no broker registered: Kafka's answer for fenced brokers
    assert [(t.error_code, t.error_message) for t in on_active.topics] == [
        (38, "Unable to replicate the partition 1 time(s): All brokers are currently fenced, or have all their "
             "log directories cordoned.")]


def _socket_leaders(broker: ApacheBroker, topic: str) -> list[int]:
    """The partitions' leaders in the broker's Metadata, asked over a socket (no JVM per try:
    the waits poll this, then ask kafka-topics once it holds)."""
    request = M.MetadataRequest(topics=[M.MetadataRequest.MetadataRequestTopic(name=topic)],
                                allow_auto_topic_creation=False)
    response = call(broker.port, request, M.MetadataResponse, 12)
    partitions = sorted(response.topics[0].partitions, key=lambda p: p.partition_index) if response.topics else []
    return [p.leader_id for p in partitions]


def _leaders(bootstrap: str, topic: str) -> list[str]:
    out = tool("kafka-topics", "--bootstrap-server", bootstrap, "--describe", "--topic", topic)
    return re.findall(r"Leader: (\S+)", out)


def _produce_consume(broker: ApacheBroker, topic: str, values: list[str]) -> list[str]:
    tool("kafka-console-producer", "--bootstrap-server", broker.bootstrap, "--topic", topic,
         input="".join(v + "\n" for v in values))
    out = tool("kafka-console-consumer", "--bootstrap-server", broker.bootstrap, "--topic", topic,
               "--from-beginning", "--max-messages", str(len(values)), "--timeout-ms", "30000")
    return out.split()


def test_an_apache_broker_on_kafpy_controllers(shared_controllers: KafpyControllers, tmp_path: Path) -> None:
    c = shared_controllers
    first = c.active()
    # heartbeats every 500 ms (Kafka's 2 s): unfenced sooner, and many heartbeats to the new
    # controller within the session timeout the test waits past
    broker = ApacheBroker(tmp_path, c, overrides={"broker.heartbeat.interval.ms": "500"}, light_jvm=True)
    broker.format()
    broker.start()
    try:
        # Metadata lists a broker once it is unfenced (caught up with the metadata log)
        eventually(broker.serves_metadata, timeout=120, what="the Apache broker unfenced")
        assert "Registering broker 100" in c.output(first)
        tool("kafka-topics", "--bootstrap-server", broker.bootstrap, "--create", "--topic", "alpha",
             "--partitions", "2", "--replication-factor", "1", "--config", "retention.ms=86400000")
        eventually(lambda: _socket_leaders(broker, "alpha") == [100, 100], what="alpha's leaders (Metadata)")
        assert eventually(lambda: _leaders(broker.bootstrap, "alpha") == ["100", "100"] and ["ok"],
                          what="alpha's leaders")
        assert _produce_consume(broker, "alpha", ["one", "two", "three"]) == ["one", "two", "three"]

        c.kill(first)
        second = c.active(c.alive())
        assert second != first
        time.sleep(SESSION_TIMEOUT_MS / 1000 * 1.5)  # the broker heartbeats the new controller
        assert broker.serves_metadata(), "the broker was fenced after the failover"
        tool("kafka-topics", "--bootstrap-server", broker.bootstrap, "--create", "--topic", "beta",
             "--partitions", "1", "--replication-factor", "1")
        eventually(lambda: _socket_leaders(broker, "beta") == [100], what="beta's leader after the failover (Metadata)")
        assert eventually(lambda: _leaders(broker.bootstrap, "beta") == ["100"] and ["ok"],
                          what="beta's leader after the failover")
        assert _produce_consume(broker, "beta", ["four", "five"]) == ["four", "five"]
        # a controlled shutdown through the new active controller, as Apache's broker logs it
        assert broker.stop() == 143  # the JVM's exit after its shutdown hooks ran on SIGTERM (not killed)
        lifecycle = broker.output()
        for step in ("Successfully registered broker 100", "The broker has been unfenced",
                     "Beginning controlled shutdown", "The controller has asked us to exit controlled shutdown"):
            assert step in lifecycle, step
    except BaseException:
        print(broker.output()[-20000:])
        for node in c.ports:
            print(f"--- controller {node}\n{c.output(node)[-8000:]}")
        raise
    finally:
        broker.stop()
