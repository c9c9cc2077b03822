"""The share coordinator of one broker (Kafka's ShareCoordinator): which `__share_group_state`
partitions it owns or is loading, one ShareCoordinatorShard per owned partition, and the
mapping of a share partition's key onto its state partition (Kafka's
`Utils.abs(key.asCoordinatorKey().hashCode()) % share.coordinator.state.topic.num.partitions`).

Who calls it: coordinator/share_state/service.py (requests, leadership events) and unit tests.
Pure: no I/O, no clock of its own.
"""

from __future__ import annotations

from typing import Iterable

from kafpy.protocol.errors import ErrorCode

from kafpy.coordinator.group.partitioner import partition_for
from kafpy.coordinator.share_state.config import ShareCoordinatorConfig
from kafpy.coordinator.share_state.persister import SharePartitionKey
from kafpy.coordinator.share_state.shard import PartitionCounts, ShareCoordinatorShard


class ShareCoordinator:
    """Keeps the shards of the partitions this broker leads (`shards`) and those still
    loading. A key of a partition not owned answers NOT_COORDINATOR; of one loading,
    COORDINATOR_LOAD_IN_PROGRESS; after `shutdown`, COORDINATOR_NOT_AVAILABLE."""

    def __init__(self, config: ShareCoordinatorConfig, partition_counts: PartitionCounts) -> None:
        self.config = config
        self._partition_counts = partition_counts
        self.shards: dict[int, ShareCoordinatorShard] = {}
        self.loading_partitions: set[int] = set()
        self.active = True

    def partition_for(self, key: SharePartitionKey) -> int:
        return partition_for(str(key), self.config.state_topic_num_partitions)

    def shard_for(self, key: SharePartitionKey) -> tuple[ErrorCode, ShareCoordinatorShard | None]:
        if not self.active:
            return ErrorCode.COORDINATOR_NOT_AVAILABLE, None
        partition = self.partition_for(key)
        if partition in self.loading_partitions:
            return ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, None
        shard = self.shards.get(partition)
        if shard is None:
            return ErrorCode.NOT_COORDINATOR, None
        return ErrorCode.NONE, shard

    # ------------------------------------------------------------------ partitions
    def begin_load(self, partition: int) -> None:
        self.shards.pop(partition, None)
        self.loading_partitions.add(partition)

    def complete_load(self, partition: int, entries: Iterable[tuple[int, bytes, bytes | None]]) -> int:
        """The partition's records, as (log offset, key, value) in log order, replayed into a
        new shard, which now answers; returns how many share partitions it holds."""
        shard = ShareCoordinatorShard(self.config, self._partition_counts)
        for log_offset, key, value in entries:
            shard.replay(key, value, log_offset)
        self.loading_partitions.discard(partition)
        self.shards[partition] = shard
        return len(shard.states)

    def unload_partition(self, partition: int) -> None:
        self.loading_partitions.discard(partition)
        self.shards.pop(partition, None)

    def shutdown(self) -> None:
        self.active = False
        self.shards.clear()
        self.loading_partitions.clear()

    def poll(self, now_ms: int) -> None:
        """Nothing is timed yet (Kafka's cold-partition snapshots and pruning are not
        done); present for the runtime's timer."""
