"""kafka-acls' command line to ACLs, and Kafka's text for them (no broker)."""
import pytest

from kafpy.broker.security.acl import AccessControlEntry, AclOperation as Op, AclPermissionType as P, PatternType, \
    ResourceType as R
from kafpy.scripts._cli import UsageExit
from kafpy.scripts.kafka_acls import build_parser, check_args, entry_text, filter_to_entries, pattern_text

BS = ["--bootstrap-server", "localhost:9092"]


def plan(*args: str):
    p = build_parser()
    argv = [*BS, *args]
    o = p.parse(argv)
    check_args(p, o, argv)
    return {k: {(e.principal, e.host, e.operation, e.permission_type) for e in v}
            for k, v in filter_to_entries(p, o).items()}


def test_producer_with_transactional_id_and_idempotence():
    got = plan("--add", "--allow-principal", "User:alice", "--producer", "--topic", "t", "--transactional-id", "x",
               "--idempotent")
    assert got == {
        (R.TOPIC, "t", PatternType.LITERAL): {("User:alice", "*", op, P.ALLOW) for op in (Op.WRITE, Op.DESCRIBE,
                                                                                           Op.CREATE)},
        (R.TRANSACTIONAL_ID, "x", PatternType.LITERAL): {("User:alice", "*", op, P.ALLOW)
                                                         for op in (Op.WRITE, Op.DESCRIBE)},
        (R.CLUSTER, "kafka-cluster", PatternType.LITERAL): {("User:alice", "*", Op.IDEMPOTENT_WRITE, P.ALLOW)},
    }


def test_consumer_and_explicit_operations_with_hosts():
    got = plan("--add", "--allow-principal", "User:bob", "--consumer", "--topic", "t", "--group", "g",
               "--resource-pattern-type", "PREFIXED")
    assert got[(R.GROUP, "g", PatternType.PREFIXED)] == {("User:bob", "*", Op.READ, P.ALLOW)}
    assert got[(R.TOPIC, "t", PatternType.PREFIXED)] == {("User:bob", "*", Op.READ, P.ALLOW),
                                                          ("User:bob", "*", Op.DESCRIBE, P.ALLOW)}
    got = plan("--add", "--deny-principal", "User:m", "--deny-host", "10.0.0.1", "--operation", "IDEMPOTENT_WRITE",
               "--cluster")
    assert got == {(R.CLUSTER, "kafka-cluster", PatternType.LITERAL): {("User:m", "10.0.0.1", Op.IDEMPOTENT_WRITE,
                                                                        P.DENY)}}


@pytest.mark.parametrize("args", [
    ["--list", "--producer", "--topic", "t"],
    ["--add", "--remove", "--topic", "t"],
    ["--add", "--consumer", "--topic", "t", "--allow-principal", "User:a"],  # no --group
    ["--add", "--allow-principal", "User:a", "--operation", "Write", "--group", "g"],  # not a group operation
])
def test_refused_command_lines(args, capsys):
    with pytest.raises(UsageExit):
        plan(*args)
    assert capsys.readouterr().err


def test_kafka_text():
    assert pattern_text(R.TRANSACTIONAL_ID, "x", PatternType.PREFIXED) == \
        "ResourcePattern(resourceType=TRANSACTIONAL_ID, name=x, patternType=PREFIXED)"
    assert entry_text(AccessControlEntry("User:a", "*", Op.CLUSTER_ACTION, P.DENY)) == \
        "(principal=User:a, host=*, operation=CLUSTER_ACTION, permissionType=DENY)"
