"""A KRaft node's snapshot publisher, built from its configuration (Kafka's ``SharedServer``
making the ``SnapshotGenerator`` and ``SnapshotEmitter`` of its metadata loader).

Who calls it: ``ControllerServer`` (dedicated and combined nodes: the controller's image is
snapshotted; a combined node's broker writes none of its own, as Kafka's one loader per
process) and ``KRaftBroker`` (a dedicated broker). The snapshot header's kraft.version and
voters are the raft client's at the snapshot's last contained offset.

The thresholds: ``metadata.log.max.record.bytes.between.snapshots`` (bytes of committed
batches since the last snapshot) and ``metadata.log.max.snapshot.interval.ms`` (0 turns the
time trigger off)."""
from __future__ import annotations

from kafpy.broker.config import KafkaConfig
from kafpy.metadata.publisher.snapshot_emitter import SnapshotEmitter
from kafpy.metadata.publisher.snapshot_generator import SnapshotGenerator
from kafpy.metadata.publisher.snapshot_publisher import SnapshotPublisher
from kafpy.protocol.messages import VotersRecord
from kafpy.raft.kafka_raft_client import wall_clock_ms
from kafpy.raft.metadata_log import KafkaMetadataLog
from kafpy.raft.raft_core import RaftCore


def snapshot_publisher(config: KafkaConfig, node_id: int, log_: KafkaMetadataLog, core: RaftCore) -> SnapshotPublisher:
    """The publisher writing this node's snapshots into ``log_``, on Kafka's schedule."""
    v = config.values
    now = wall_clock_ms()
    generator = SnapshotGenerator(node_id, int(v["metadata.log.max.record.bytes.between.snapshots"]),
                                  int(v["metadata.log.max.snapshot.interval.ms"]), now)

    def kraft_version(offset: int) -> int:
        return core.voter_history.voter_set_at(offset).kraft_version

    def voters(offset: int) -> VotersRecord | None:
        voter_set = core.voter_history.voter_set_at(offset)
        return voter_set.to_voters_record() if voter_set.voters else None
    emitter = SnapshotEmitter(node_id, log_, wall_clock_ms, kraft_version=kraft_version, voters=voters)
    return SnapshotPublisher(generator, emitter, wall_clock_ms)
