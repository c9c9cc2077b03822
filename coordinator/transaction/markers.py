"""What the coordinator asks of whoever writes transaction markers.

`MarkerChannel.send(marker)` returns a completion resolved with `ErrorCode.NONE` once
the marker is written in every partition of the transaction (or the partition is
gone), or with the error that stopped it (the coordinator retries later). The broker's
implementation is `kafpy.coordinator.transaction.marker_sender.TxnMarkerSender`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from kafpy.protocol.errors import ErrorCode

from kafpy.coordinator.group.offsets_log import Completion
from kafpy.coordinator.transaction.state import TopicPartition


@dataclass(frozen=True)
class TxnMarker:
    """One transaction's COMMIT or ABORT marker for its partitions."""

    transactional_id: str
    producer_id: int
    producer_epoch: int
    committed: bool
    coordinator_epoch: int
    partitions: tuple[TopicPartition, ...]
    # the transaction's version (WriteTxnMarkers v2, KIP-1228): 2 bumped the epoch
    transaction_version: int = 0


class MarkerChannel(Protocol):
    def send(self, marker: TxnMarker) -> Completion[ErrorCode]:
        """Write `marker` to each of its partitions' leaders; never raises."""
