"""A KRaft broker's listener on the ``__cluster_metadata`` log (Kafka's ``MetadataLoader`` as a
``RaftClient.Listener``): each committed batch is decoded (Kafka's ``MetadataRecordSerde``),
replayed into a ``MetadataBatchLoader`` and, once the commit is handled, the new delta and
image are published to the broker's publisher.

What cannot be decoded (a record type or version newer than kafpy knows) or replayed (a
record naming something the image lacks) is skipped with a log line and counted in
``skipped``, never fatal: the broker goes on with the records it understands (issue 37).

Who calls it: the raft driver (``handle_commit``, ``handle_leader_change``) on its task.
Nothing on disk; pure apart from the log lines and the wall clock used for the batches'
append times (raft's batches do not carry theirs).
"""
from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Callable, Sequence

from kafpy.metadata.image.errors import MetadataReplayError
from kafpy.metadata.image.loader import MetadataBatchLoader, Publisher
from kafpy.metadata.image.metadata_image import EMPTY_IMAGE
from kafpy.metadata.record_serde import MetadataParseError, read_record
from kafpy.protocol.messages import Message
from kafpy.raft.kafka_raft_client import Batch, LeaderAndEpoch

log = logging.getLogger("org.apache.kafka.image.loader.MetadataLoader")


@dataclass(frozen=True)
class SkippedRecord:
    """A record of the log the broker did not apply: where it was and why."""

    offset: int
    reason: str


class BrokerMetadataListener:
    """Keeps the loader (the last image and the delta being built), the leader the raft
    client last announced, the highest offset handed to it, and what it skipped."""

    def __init__(self, publish: Publisher, time_ms: Callable[[], int] = lambda: int(time.time() * 1000)) -> None:
        self.loader = MetadataBatchLoader(EMPTY_IMAGE, publish)
        self.time_ms = time_ms
        self.leader = LeaderAndEpoch(None, 0)
        self.last_committed_offset = -1
        self.skipped: list[SkippedRecord] = []

    def handle_commit(self, batches: Sequence[Batch]) -> None:
        for batch in batches:
            self.last_committed_offset = batch.last_offset
            if batch.control:
                continue
            records: list[Message] = []
            for i, value in enumerate(batch.records):
                try:
                    records.append(read_record(value).message)
                except MetadataParseError as e:
                    self._skip(batch.base_offset + i, f"cannot decode: {e}")
            try:
                self.loader.load_batch(batch.base_offset, batch.epoch, self.time_ms(), records)
            except MetadataReplayError as e:
                self._skip(batch.base_offset, f"cannot replay: {e}")
        self.loader.maybe_flush()

    def handle_leader_change(self, leader: LeaderAndEpoch) -> None:
        self.leader = leader

    def _skip(self, offset: int, reason: str) -> None:
        self.skipped.append(SkippedRecord(offset, reason))
        log.error("Skipping the metadata record at offset %d: %s", offset, reason)
