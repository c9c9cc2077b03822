"""The share-group metrics of a broker, under Kafka 4.4's MBeans
(`kafka.server:type=ShareGroupMetrics`): acknowledgements by type
(`RecordAcknowledgementsPerSec`, tag `ackType`) and the time to load a share partition's
state from the persister (`PartitionLoadTimeMs`).

Who calls it: the SharePartitionManager, on the event loop, when a partition's
acknowledgements are applied and when a share partition is loaded; the metrics collector
reads it when scraped. Counters and a bounded deque only: nothing on the fetch path."""
from __future__ import annotations

from collections import deque
from typing import Iterable

#: Kafka's AcknowledgeType ids and the `ackType` tag values its meters carry (GAP is not one)
ACK_TYPE_NAMES = {1: "Accept", 2: "Release", 3: "Reject", 4: "Renew"}
RECENT = 1024        # load times kept for percentiles (Kafka's histogram reservoir size)


class TimeSamples:
    """A count and the most recent times (ms) of one timed event."""

    def __init__(self) -> None:
        self.count = 0
        self.recent: deque[float] = deque(maxlen=RECENT)

    def record(self, ms: float) -> None:
        self.count += 1
        self.recent.append(ms)


class ShareGroupMetrics:
    """Acknowledgement counts by `ackType` and share-partition load times."""

    def __init__(self) -> None:
        self.acknowledgements: dict[str, int] = dict.fromkeys(ACK_TYPE_NAMES.values(), 0)
        self.partition_load = TimeSamples()

    def record_acknowledgements(self, types: Iterable[int]) -> None:
        """One mark per acknowledge type a batch carries, as Kafka marks them."""
        for t in types:
            name = ACK_TYPE_NAMES.get(t)
            if name is not None:
                self.acknowledgements[name] += 1
