"""What Apache Kafka's own `kafka-storage format` writes, read by our readers: Kafka 4.4's
meta.properties and bootstrap snapshot (SCRAM credentials, several initial voters), and Kafka
3.9's bootstrap.checkpoint, which Kafka 4.4 still reads on upgrade."""
from __future__ import annotations

from pathlib import Path

from tests.support.kafka_dist import random_cluster_id, run_tool

from kafpy.broker.security.scram import credential_from_salted_password, salted_password
from kafpy.metadata.bootstrap import BINARY_BOOTSTRAP_FILENAME, read_bootstrap_checkpoint, read_bootstrap_snapshot
from kafpy.metadata.meta_properties import load_ensemble, read_meta_properties, uuid_to_string
from kafpy.protocol.messages import FeatureLevelRecord, UserScramCredentialRecord

VOTERS = "1@127.0.0.1:19093:KfNGNAS3RbGoNxGKptH2ug,2@127.0.0.1:19095:AQEBAQEBAQEBAQEBAQEBAQ"


def _config(base: Path, voters_line: str) -> Path:
    path = base / "server.properties"
    path.write_text("process.roles=controller\nnode.id=1\n" + voters_line +
                    "listeners=CONTROLLER://127.0.0.1:19093\ncontroller.listener.names=CONTROLLER\n"
                    f"log.dirs={base}/meta\n")
    return path


def test_kafka_44_format_reads(tmp_path: Path) -> None:
    cluster = random_cluster_id()
    config = _config(tmp_path, "controller.quorum.bootstrap.servers=127.0.0.1:19093\n")
    run_tool("4", "kafka-storage", ["format", "-t", cluster, "-c", str(config), "-I", VOTERS,
                                    "--add-scram", "SCRAM-SHA-256=[name=alice,password=alice-secret]",
                                    "--add-scram", "SCRAM-SHA-512=[name=bob,iterations=8192,password=b]"])
    meta = read_meta_properties(tmp_path / "meta")
    assert meta is not None and (meta.version, meta.cluster_id, meta.node_id) == (1, cluster, 1)
    assert meta.directory_id == "KfNGNAS3RbGoNxGKptH2ug"  # a voter's dir gets its --initial-controllers id
    load_ensemble([], str(tmp_path / "meta")).verify_for_kraft_start(1)
    boot, kraft_version, voters = read_bootstrap_snapshot(tmp_path / "meta")
    assert kraft_version == 1 and voters is not None
    assert [(v.voter_id, uuid_to_string(v.voter_directory_id), v.endpoints[0].port) for v in voters.voters] == [
        (1, "KfNGNAS3RbGoNxGKptH2ug", 19093), (2, "AQEBAQEBAQEBAQEBAQEBAQ", 19095)]
    assert boot.metadata_version_level == 33
    scram = {r.message.name: r.message for r in boot.records if isinstance(r.message, UserScramCredentialRecord)}
    alice = scram["alice"]
    expected = credential_from_salted_password(
        "SCRAM-SHA-256", salted_password("SCRAM-SHA-256", "alice-secret", alice.salt, 4096), alice.salt, 4096)
    assert (alice.mechanism, alice.stored_key, alice.server_key) == (1, expected.stored_key, expected.server_key)
    assert (scram["bob"].mechanism, scram["bob"].iterations) == (2, 8192)


def test_kafka_39_bootstrap_checkpoint_reads(tmp_path: Path) -> None:
    config = _config(tmp_path, "controller.quorum.voters=1@127.0.0.1:19093\n")
    run_tool("3.9", "kafka-storage", ["format", "-t", random_cluster_id(), "-c", str(config),
                                      "--release-version", "3.7"])
    boot = read_bootstrap_checkpoint(tmp_path / "meta" / BINARY_BOOTSTRAP_FILENAME)
    assert boot.metadata_version_level == 19  # 3.7-IV4
    assert [r.message for r in boot.records] == [FeatureLevelRecord(name="metadata.version", feature_level=19)]
