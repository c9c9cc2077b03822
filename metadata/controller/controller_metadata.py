"""The replicated state every manager of the quorum controller reads.

Kafka's managers each keep timeline data structures that change only on ``replay``; here they
share one ``MetadataImage`` (the same image brokers build) that ``replay`` advances, so the
request path can only read it. Who calls ``replay``: the quorum controller for each committed
(or, on the active controller, each appended) record, and the tests."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from kafpy.metadata.image.metadata_delta import MetadataDelta
from kafpy.metadata.image.metadata_image import EMPTY_IMAGE, MetadataImage
from kafpy.metadata.image.provenance import MetadataProvenance
from kafpy.protocol.messages import Message

ReplayListener = Callable[[Message, int], None]


class ControllerMetadata:
    """The current image, the offset of the last record replayed into it, and the
    listeners (managers keeping soft state such as heartbeats) told of each record."""

    def __init__(self, image: MetadataImage = EMPTY_IMAGE) -> None:
        self.image = image
        self.last_offset = image.provenance.last_contained_offset
        self._listeners: list[ReplayListener] = []

    def add_listener(self, listener: ReplayListener) -> None:
        self._listeners.append(listener)

    def next_write_offset(self) -> int:
        """The offset the next record appended will get (a broker's epoch is the offset of
        its RegisterBrokerRecord)."""
        return self.last_offset + 1

    def replay(self, record: Message, offset: int | None = None) -> None:
        """Apply one record at ``offset`` (the next offset when not given)."""
        self.replay_all([record], offset)

    def replay_all(self, records: Iterable[Message], first_offset: int | None = None) -> None:
        offset = self.next_write_offset() if first_offset is None else first_offset
        delta = MetadataDelta(self.image)
        replayed: list[tuple[Message, int]] = []
        for record in records:
            delta.replay(record)
            replayed.append((record, offset))
            offset += 1
        if not replayed:
            return
        self.last_offset = offset - 1
        self.image = delta.apply(MetadataProvenance(self.last_offset, 0))
        for record, at in replayed:
            for listener in self._listeners:
                listener(record, at)
