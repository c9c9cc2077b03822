"""ACL znodes and change notifications in Kafka's ZooKeeper format."""
from kafpy.replication import zk_data as zd


def test_acl_node_round_trip_and_paths():
    entry = {"principal": "User:alice", "permissionType": "Allow", "operation": "Read", "host": "*"}
    data = zd.encode_acls([entry])
    assert data == b'{"version":1,"acls":[{"principal":"User:alice","permissionType":"Allow","operation":"Read","host":"*"}]}'
    assert zd.decode_acls(data) == [entry]
    assert zd.acl_resource_path(False, "Topic", "sensor") == "/kafka-acl/Topic/sensor"
    assert zd.acl_resource_path(True, "Group", "al") == "/kafka-acl-extended/prefixed/Group/al"


def test_change_notifications():
    assert zd.encode_literal_acl_change("Topic", "a:b") == b"TOPIC:a:b"
    assert zd.decode_literal_acl_change(b"TOPIC:a:b") == ("TOPIC", "a:b")
    ext = zd.encode_extended_acl_change("Topic", "pre", "Prefixed")
    assert zd.decode_extended_acl_change(ext) == ("TOPIC", "pre", "PREFIXED")
    assert zd.sequence_number("acl_changes_0000000012", zd.ACL_CHANGE_PREFIX) == 12
