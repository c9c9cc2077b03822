"""Producer id blocks, as Kafka's ``ProducerIdControlManager``.

Who calls it: the quorum controller for AllocateProducerIds from brokers. Each request gets
the next block of 1000 ids; the ``ProducerIdsRecord`` carries the first id after the block
(so replay alone advances the allocator), the requesting broker and its epoch."""

from __future__ import annotations

from kafpy.metadata.controller.cluster_control_manager import ClusterControlManager
from kafpy.metadata.controller.controller_metadata import ControllerMetadata
from kafpy.metadata.controller.controller_result import ControllerError, ControllerResult
from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import (
    AllocateProducerIdsRequest,
    AllocateProducerIdsResponse,
    ProducerIdsRecord,
)

PRODUCER_ID_BLOCK_SIZE = 1000
LONG_MAX = 2**63 - 1


class ProducerIdControlManager:
    """Reads the next producer id from the image (0 before any block was given)."""

    def __init__(self, metadata: ControllerMetadata, cluster: ClusterControlManager) -> None:
        self.metadata = metadata
        self.cluster = cluster

    def next_producer_id(self) -> int:
        return max(self.metadata.image.producer_ids.next_producer_id, 0)

    def generate_next_producer_id(self, request: AllocateProducerIdsRequest
                                  ) -> ControllerResult[AllocateProducerIdsResponse]:
        self.cluster.check_broker_epoch(request.broker_id, request.broker_epoch)
        start = self.next_producer_id()
        if start > LONG_MAX - PRODUCER_ID_BLOCK_SIZE:
            raise ControllerError(ErrorCode.UNKNOWN_SERVER_ERROR, "Exhausted all producerIds.")
        record = ProducerIdsRecord(broker_id=request.broker_id, broker_epoch=request.broker_epoch,
                                   next_producer_id=start + PRODUCER_ID_BLOCK_SIZE)
        return ControllerResult.of([record], AllocateProducerIdsResponse(
            producer_id_start=start, producer_id_len=PRODUCER_ID_BLOCK_SIZE))
