"""The active controller's first records against Apache Kafka 4.4's: an Apache Kafka 4.4 node
(KRaft, combined roles) formatted by Apache's kafka-storage with a SCRAM user, started once;
``kafka-dump-log --cluster-metadata-decoder`` gives the batch its controller wrote when it
activated on the empty log. kafpy's ``QuorumController``, given the bootstrap snapshot that
same format wrote, must activate with the same records in the same order (the metadata
transaction, the features, the SCRAM credential, the cluster-wide min.insync.replicas that
eligible leader replicas bring)."""
from __future__ import annotations

from pathlib import Path

from kafpy.metadata.bootstrap import read_bootstrap_snapshot
from kafpy.metadata.controller.quorum_controller import ControllerSettings, QuorumController
from kafpy.protocol import messages as M

from tests.support.kafka_dist import ReferenceKafka, run_tool
from tests.support.metadata_json import parse_dump


def test_activation_on_an_empty_log_writes_what_kafka_44_writes(tmp_path: Path) -> None:
    kafka = ReferenceKafka("4", work_dir=tmp_path / "kafka", formatted=True)
    kafka.work_dir.mkdir(parents=True)
    kafka.log_dir.mkdir(parents=True)
    kafka.config_path.write_text("".join(f"{k}={v}\n" for k, v in kafka.properties().items()))
    run_tool("4", "kafka-storage", ["format", "-t", kafka.cluster_id, "-c", str(kafka.config_path),
                                    "--add-scram", "SCRAM-SHA-256=[name=alice,password=alice-secret]"])
    metadata_dir = kafka.work_dir / "metadata"
    bootstrap, _kraft_version, _voters = read_bootstrap_snapshot(metadata_dir)
    kafka.start()
    kafka.stop()
    files = ",".join(str(p) for p in sorted((metadata_dir / "__cluster_metadata-0").glob("*.log")))
    dumped = parse_dump(run_tool("4", "kafka-dump-log", ["--cluster-metadata-decoder", "--files", files]).stdout)
    theirs = [r for _o, r in next(b for b in dumped if not b.is_control).records]

    ours = QuorumController(ControllerSettings(1, kafka.cluster_id, (1,), default_min_isr=1), bootstrap)
    ours.leader_changed(1, 1)
    records = ours.activate(1, now_ms=0)
    assert [type(r).__name__ for r in records] == [type(r).__name__ for r in theirs]
    assert records == theirs
    assert any(isinstance(r, M.UserScramCredentialRecord) and r.name == "alice" for r in records)
