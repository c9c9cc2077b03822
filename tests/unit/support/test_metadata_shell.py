"""tests/support/metadata_shell.py without a JVM: ``tree``'s output parsed into nodes (as
ShellNodePrinter indents it, two spaces a level), and a clear failure when install-deps.sh has
not put the shell's jars in the cache."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.kafka_dist import KafkaDistMissing
from tests.support.metadata_shell import ShellNode, parse_tree, shell_command

TREE = """\
clientQuotas:
  user(alice):
    producer_byte_rate:
      1024.0
delegationToken:
features:
  finalized_group.version:
    1
  metadataVersion:
    Optional[4.3-IV0]
topics:
  byName:
    orders:
      0:
        PartitionRegistration(replicas=[1], isr=[1], leader=1, leaderEpoch=0, partitionEpoch=0)
      id:
        dIyyQ7u3RqOq9eGoBAZ9Ow
"""


def test_tree_output_becomes_nodes() -> None:
    root = parse_tree(TREE)
    assert sorted(root.children) == ["clientQuotas", "delegationToken", "features", "topics"]
    assert root.at("clientQuotas/user(alice)/producer_byte_rate").value == "1024.0"
    assert root.at("features/metadataVersion").value == "Optional[4.3-IV0]"
    assert root.at("delegationToken") == ShellNode()  # a directory with nothing in it
    orders = root.at("topics/byName/orders")
    assert sorted(orders.children) == ["0", "id"]
    assert orders.at("0").value.startswith("PartitionRegistration(replicas=[1]")
    assert orders.at("id").value == "dIyyQ7u3RqOq9eGoBAZ9Ow"


def test_a_node_with_children_has_no_single_value() -> None:
    with pytest.raises(AssertionError):
        _ = parse_tree(TREE).at("features").value


def test_a_missing_install_says_how_to_get_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KAFPY_CACHE", str(tmp_path))
    with pytest.raises(KafkaDistMissing, match="install-deps.sh"):
        shell_command(tmp_path / "x.checkpoint", ["ls"])
