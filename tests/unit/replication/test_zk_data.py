"""Znode codecs against the JSON Apache Kafka 3.9.1 (and 2.8) wrote, as dumped from its ZooKeeper."""
from __future__ import annotations

import json

import pytest

from kafpy.replication import zk_data as zd
from kafpy.replication.leader_and_isr import LeaderAndIsr, LeaderRecoveryState


def same_json(a: bytes, b: str) -> bool:
    return json.loads(a) == json.loads(b)


def test_persistent_paths_are_kafkas():
    assert set(zd.PERSISTENT_PATHS) == {
        "/consumers", "/brokers/ids", "/brokers/topics", "/brokers/seqid", "/config/changes",
        "/config/topics", "/config/clients", "/config/users", "/config/brokers", "/config/ips",
        "/admin/delete_topics", "/isr_change_notification", "/latest_producer_id_block",
        "/log_dir_event_notification"}
    assert zd.partition_state_path("t", 3) == "/brokers/topics/t/partitions/3/state"
    assert zd.config_entity_path(zd.ConfigType.TOPIC, "t") == "/config/topics/t"
    assert zd.delete_topic_path("t") == "/admin/delete_topics/t"
    assert zd.sequence_number("config_change_0000000012", zd.CONFIG_CHANGE_PREFIX) == 12


def test_broker_registration_v5():
    kafka = ('{"features":{},"listener_security_protocol_map":{"PLAINTEXT":"PLAINTEXT"},'
             '"endpoints":["PLAINTEXT://127.0.0.1:52529"],"jmx_port":-1,"port":52529,'
             '"host":"127.0.0.1","version":5,"timestamp":"1795676020874"}')
    reg = zd.BrokerRegistration.decode(1, kafka.encode())
    assert reg.endpoints == (zd.EndPoint("PLAINTEXT", "127.0.0.1", 52529, "PLAINTEXT"),)
    assert (reg.broker_id, reg.rack, reg.timestamp_ms, reg.version) == (1, None, 1795676020874, 5)
    assert same_json(reg.encode(1795676020874), kafka)
    with_rack = zd.BrokerRegistration(2, reg.endpoints, rack="r1").encode(5)
    assert json.loads(with_rack)["rack"] == "r1"


def test_broker_registration_older_versions_and_listeners():
    v1 = zd.BrokerRegistration.decode(0, b'{"version":1,"host":"h","port":9092,"jmx_port":9999,'
                                          b'"timestamp":"1"}')
    assert v1.endpoints == (zd.EndPoint("PLAINTEXT", "h", 9092),) and v1.jmx_port == 9999
    v4 = zd.BrokerRegistration.decode(0, json.dumps({
        "version": 4, "host": None, "port": -1, "jmx_port": -1, "timestamp": "2", "rack": "dc1",
        "endpoints": ["CLIENT://host1:9092", "REPLICATION://[::1]:9093"],
        "listener_security_protocol_map": {"CLIENT": "SSL", "REPLICATION": "PLAINTEXT"},
        "some_future_key": 1}).encode())
    assert v4.rack == "dc1"
    assert v4.endpoints[0] == zd.EndPoint("CLIENT", "host1", 9092, "SSL")
    assert v4.endpoints[1].host == "::1" and v4.endpoints[1].connection_string == "REPLICATION://[::1]:9093"
    out = json.loads(v4.encode(3))  # the top-level host/port are the PLAINTEXT listener's
    assert (out["host"], out["port"], out["version"]) == ("::1", 9093, 5)
    with pytest.raises(zd.ZkDataError):
        zd.BrokerRegistration.decode(0, b'{"version":0}')
    with pytest.raises(zd.ZkDataError):
        zd.BrokerRegistration.decode(0, b"not json")


def test_controller_v2_and_v1():
    v2 = b'{"version":2,"brokerid":1,"timestamp":"1795676020999","kraftControllerEpoch":-1}'
    reg = zd.ControllerRegistration.decode(v2)
    assert reg == zd.ControllerRegistration(1, 1795676020999, -1)
    assert same_json(reg.encode(1795676020999), v2.decode())
    assert zd.ControllerRegistration.decode(b'{"version":1,"brokerid":3,"timestamp":"7"}') \
        == zd.ControllerRegistration(3, 7)
    assert zd.encode_controller_epoch(1) == b"1"
    assert zd.decode_controller_epoch(b"12") == 12


def test_topic_assignment_v3_and_v2():
    kafka = ('{"partitions":{"0":[1,2,3],"1":[2,3,1]},"topic_id":"_XR2JmRDQXGMY7sIhV02gw",'
             '"adding_replicas":{},"removing_replicas":{},"version":3}')
    topic = zd.TopicAssignment.decode(kafka.encode())
    assert topic.topic_id == "_XR2JmRDQXGMY7sIhV02gw"
    assert topic.partitions == {0: zd.ReplicaAssignment((1, 2, 3)), 1: zd.ReplicaAssignment((2, 3, 1))}
    assert same_json(topic.encode(), kafka)
    assert zd.TopicAssignment.of("_XR2JmRDQXGMY7sIhV02gw", {0: [1, 2, 3], 1: [2, 3, 1]}) == topic
    raw = zd.topic_id_from_str(topic.topic_id)
    assert len(raw) == 16 and zd.topic_id_to_str(raw) == topic.topic_id
    v2 = zd.TopicAssignment.decode(b'{"version":2,"partitions":{"0":[1,4,2]},'
                                   b'"adding_replicas":{"0":[4]},"removing_replicas":{"0":[3]}}')
    assert v2.topic_id is None
    assert v2.partitions[0] == zd.ReplicaAssignment((1, 4, 2), (4,), (3,))
    assert v2.partitions[0].target_replicas == (1, 4, 2) and v2.partitions[0].is_being_reassigned
    assert json.loads(v2.encode())["adding_replicas"] == {"0": [4]}
    assert zd.TopicAssignment.decode(b'{"version":1,"partitions":{"0":[1]}}').partitions[0].replicas == (1,)


def test_partition_state_v1_and_recovery_state():
    kafka = '{"controller_epoch":1,"leader":1,"version":1,"leader_epoch":0,"isr":[1,2,3]}'
    state = zd.decode_partition_state(kafka.encode(), zk_version=4)
    assert state == zd.LeaderIsrAndControllerEpoch(LeaderAndIsr(1, 0, (1, 2, 3), partition_epoch=4), 1)
    assert same_json(zd.encode_partition_state(state.leader_and_isr, 1), kafka)
    recovering = LeaderAndIsr(2, 3, (2,), LeaderRecoveryState.RECOVERING)
    encoded = zd.encode_partition_state(recovering, 2)
    assert json.loads(encoded)["leader_recovery_state"] == 1
    assert zd.decode_partition_state(encoded, 0).leader_and_isr == recovering
    assert zd.decode_partition_state(b"", 0) is None


def test_configs_and_change_notifications():
    kafka = '{"version":1,"config":{"min.insync.replicas":"2","retention.ms":"3600000"}}'
    config = zd.decode_entity_config(kafka.encode())
    assert config == {"min.insync.replicas": "2", "retention.ms": "3600000"}
    assert same_json(zd.encode_entity_config(config), kafka)
    assert zd.decode_entity_config(None) == {}
    assert zd.encode_entity_config({"x": 5}) == b'{"version":1,"config":{"x":"5"}}'
    change = '{"version":2,"entity_path":"topics/t1"}'
    assert same_json(zd.encode_config_change("topics/t1"), change)
    assert zd.decode_config_change(change.encode()) == "topics/t1"
    assert zd.decode_config_change(b'{"version":1,"entity_type":"brokers","entity_name":"<default>"}') \
        == "brokers/<default>"


def test_cluster_id_has_a_string_version():
    kafka = '{"version":"1","id":"EfeGfqByQRWyjpXa2RWzkQ"}'
    assert zd.decode_cluster_id(kafka.encode()) == "EfeGfqByQRWyjpXa2RWzkQ"
    assert same_json(zd.encode_cluster_id("EfeGfqByQRWyjpXa2RWzkQ"), kafka)


def test_producer_id_blocks():
    kafka = '{"version":1,"broker":1,"block_start":"0","block_end":"999"}'
    block = zd.ProducerIdBlock.decode(kafka.encode())
    assert block == zd.ProducerIdBlock(1, 0) and block.last_id == 999
    assert same_json(block.encode(), kafka)
    assert zd.ProducerIdBlock.decode(b"") is None
    assert zd.ProducerIdBlock.next_after(None, 2) == zd.ProducerIdBlock(2, 0)
    assert zd.ProducerIdBlock.next_after(block, 2) == zd.ProducerIdBlock(2, 1000)
    with pytest.raises(zd.ZkDataError):
        zd.ProducerIdBlock.next_after(zd.ProducerIdBlock(1, (1 << 63) - 1000), 1)


def test_admin_and_notification_znodes():
    reassign = '{"version":1,"partitions":[{"topic":"t","partition":0,"replicas":[1,2,3]}]}'
    assert zd.decode_partition_reassignment(reassign.encode()) == {("t", 0): (1, 2, 3)}
    assert same_json(zd.encode_partition_reassignment({("t", 0): [1, 2, 3]}), reassign)
    preferred = '{"version":1,"partitions":[{"topic":"t","partition":0}]}'
    assert zd.decode_partition_list(preferred.encode()) == {("t", 0)}
    assert same_json(zd.encode_partition_list({("t", 0)}), preferred)
    log_dir = '{"version":1,"broker":1,"event":1}'
    assert zd.decode_log_dir_event(log_dir.encode()) == 1
    assert same_json(zd.encode_log_dir_event(1), log_dir)
    feature = '{"features":{},"version":2,"status":1}'
    assert zd.FeatureZNode.decode(feature.encode()) == zd.FeatureZNode()
    assert same_json(zd.FeatureZNode().encode(), feature)


def test_bad_content_is_a_zk_data_error():
    for decode in (lambda d: zd.decode_partition_state(d, 0), zd.decode_cluster_id,
                   lambda d: zd.BrokerRegistration.decode(1, d), zd.ControllerRegistration.decode,
                   zd.decode_config_change, zd.ProducerIdBlock.decode, zd.decode_log_dir_event):
        with pytest.raises(zd.ZkDataError):
            decode(b'{"version":1}')
        with pytest.raises(zd.ZkDataError):
            decode(b"[1,2]")
    with pytest.raises(zd.ZkDataError):
        zd.topic_id_from_str("short")
    with pytest.raises(zd.ZkDataError):
        zd.decode_controller_epoch(b"one")
