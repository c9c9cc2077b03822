"""The next producer id block, as Kafka's ``ProducerIdsImage`` / ``ProducerIdsDelta``.

``ProducerIdsRecord`` moves ``next_producer_id`` past the block the controller just handed
out; -1 means none was handed out yet."""

from __future__ import annotations

from dataclasses import dataclass

from kafpy.metadata.image.writer import ApiMessageAndVersion, with_version
from kafpy.protocol.messages import ProducerIdsRecord


@dataclass(frozen=True)
class ProducerIdsImage:
    """The first producer id not yet allocated (-1: none allocated)."""

    next_producer_id: int

    def is_empty(self) -> bool:
        return self.next_producer_id == -1

    def records(self) -> list[ApiMessageAndVersion]:
        if self.is_empty():
            return []
        return [with_version(ProducerIdsRecord(broker_id=-1, broker_epoch=-1,
                                               next_producer_id=self.next_producer_id))]


EMPTY_PRODUCER_IDS = ProducerIdsImage(-1)


class ProducerIdsDelta:
    """The last ``next_producer_id`` replayed on top of ``image``."""

    def __init__(self, image: ProducerIdsImage) -> None:
        self.image = image
        self.next_producer_id = image.next_producer_id

    def replay(self, record: ProducerIdsRecord) -> None:
        self.next_producer_id = record.next_producer_id

    def apply(self) -> ProducerIdsImage:
        if self.next_producer_id == self.image.next_producer_id:
            return self.image
        return ProducerIdsImage(self.next_producer_id)
