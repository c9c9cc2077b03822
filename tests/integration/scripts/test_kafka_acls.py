"""Our kafka-acls against Apache's (4.x and 3.9.1) on one kafpy broker with the authorizer on
(User:ANONYMOUS a super user, so each tool may manage ACLs whatever they say): the same
ACLs are added, listed and removed, and the tools print the same, up to the order Kafka's
hash sets give resources and entries (it changes from run to run) and 3.9's spacing."""
from __future__ import annotations

import pytest

from tests.integration.scripts.tools import run_script
from tests.support.kafka_dist import run_tool
from tests.support.kafpy_broker import KafpyBroker

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def broker(tmp_path_factory):
    work = tmp_path_factory.mktemp("kafpy-acls-tool")
    b = KafpyBroker(work_dir=work, log_dir=work / "logs", start_timeout=150, overrides={
        "authorizer.class.name": "kafka.security.authorizer.AclAuthorizer", "super.users": "User:ANONYMOUS"})
    b.start()
    try:
        yield b
    finally:
        b.stop()


def normalized(text: str) -> list[tuple[str, ...]]:
    """Blocks (separated by blank lines), each its first line then its entry lines sorted;
    "ACLs for principal" and "already exists" lines alone; 3.9's extra spaces dropped."""
    blocks: list[tuple[str, ...]] = []
    for block in text.replace(" \n", "\n").split("\n\n"):
        lines = [line.strip() for line in block.split("\n") if line.strip()]
        while lines and lines[0].startswith("ACLs for principal"):
            blocks.append((lines.pop(0),))
        if lines:
            blocks.extend((line,) for line in lines) if lines[0].startswith("Acl (") else \
                blocks.append((lines[0], *sorted(lines[1:])))
    return sorted(blocks)


def ours(broker, *args: str) -> str:
    r = run_script("kafka-acls", "--bootstrap-server", broker.bootstrap, *args)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


def theirs(broker, version: str, *args: str) -> str:
    return run_tool(version, "kafka-acls", ["--bootstrap-server", broker.bootstrap, *args]).stdout


GRANTS = [
    ["--add", "--allow-principal", "User:alice", "--producer", "--topic", "sensor", "--transactional-id", "rig-1",
     "--idempotent"],
    ["--add", "--allow-principal", "User:bob", "--consumer", "--topic", "sensor", "--group", "alerts"],
    ["--add", "--deny-principal", "User:mallory", "--deny-host", "10.0.0.9", "--operation", "Read",
     "--operation", "Describe", "--topic", "rig-", "--resource-pattern-type", "prefixed"],
]
REMOVALS = [
    ["--remove", "--force", "--allow-principal", "User:alice", "--producer", "--topic", "sensor",
     "--transactional-id", "rig-1", "--idempotent"],
    ["--remove", "--force", "--topic", "sensor", "--group", "alerts"],
    ["--remove", "--force", "--topic", "rig-", "--resource-pattern-type", "prefixed"],
]
LISTS = [["--list"], ["--list", "--topic", "sensor"], ["--list", "--principal", "User:bob"],
         ["--list", "--topic", "rig-x", "--resource-pattern-type", "match"]]


def test_add_list_remove_print_what_apache_kafka_acls_prints(broker):
    added = [ours(broker, *g) for g in GRANTS]
    assert "Adding ACLs for resource `ResourcePattern(resourceType=TRANSACTIONAL_ID, name=rig-1, " \
           "patternType=LITERAL)`: \n" in added[0]
    listed = [ours(broker, *args) for args in LISTS]
    assert "(principal=User:bob, host=*, operation=READ, permissionType=ALLOW)" in listed[2]
    assert "User:alice" not in listed[2]
    for args, mine in zip(LISTS, listed):
        assert normalized(theirs(broker, "4", *args)) == normalized(mine), args
    assert normalized(theirs(broker, "3.9", *LISTS[0])) == normalized(listed[0])
    # again: 4.x reports each ACL as existing and sends nothing
    assert normalized(theirs(broker, "4", *GRANTS[0])) == normalized(ours(broker, *GRANTS[0]))
    # removed by ours, nothing left, then Apache's 4.x and 3.9 add the same
    for args in REMOVALS:
        assert ours(broker, *args) == ""
    assert ours(broker, "--list") == ""
    for version in ("4", "3.9"):
        assert [normalized(theirs(broker, version, *g)) for g in GRANTS] == [normalized(a) for a in added]
        assert normalized(ours(broker, "--list")) == normalized(listed[0])
        for args in REMOVALS:
            assert theirs(broker, version, *args) == ""
        assert ours(broker, "--list") == ""
