"""What the metrics collector and the status page read of a broker, as protocols: the
``Broker`` and its socket server live on the floor above (``kafpy.broker``), so this floor
names the parts it reads, typed by the classes of the floors below where they live there.

Who may use it: ``metrics.collectors`` and ``web`` (status page, metrics endpoint); the
broker passes itself. Members are read-only properties so that the broker's own, narrower
attribute types satisfy them.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, Mapping, Protocol

if TYPE_CHECKING:
    import asyncio

    from kafpy.coordinator.group.service import GroupCoordinatorService
    from kafpy.coordinator.transaction.service import TransactionCoordinatorService
    from kafpy.metrics.observer import RequestObserver
    from kafpy.replication.controller import KafkaController
    from kafpy.replication.metadata_cache import MetadataCache
    from kafpy.replication.replica_manager import ReplicaManager
    from kafpy.replication.zk_client import KafkaZkClient
    from kafpy.storage.log_manager import LogManager


class ConnectionView(Protocol):
    """One client connection: its listener and the requests read but not yet answered."""

    @property
    def listener(self) -> str: ...

    @property
    def queue(self) -> "Sized": ...

    def _writing(self) -> bool: ...


class Sized(Protocol):
    def __len__(self) -> int: ...


class AcceptorView(Protocol):
    """The acceptor's connections created and closed, per listener."""

    @property
    def created_by_listener(self) -> Mapping[str, int]: ...

    @property
    def closed_by_listener(self) -> Mapping[str, int]: ...


class SocketServerView(Protocol):
    """The socket server: its connections, bound listeners, acceptor and request observer."""

    @property
    def observer(self) -> RequestObserver | None: ...

    @property
    def connections(self) -> Iterable[ConnectionView]: ...

    @property
    def bound_ports(self) -> Mapping[str, int]: ...

    @property
    def acceptor(self) -> AcceptorView: ...


class TimerStats(Protocol):
    """A timer or histogram as a scrape reads it: its count and its recent values (ms)."""

    @property
    def count(self) -> int: ...

    @property
    def recent(self) -> Iterable[float]: ...


class ShareMetricsView(Protocol):
    """Kafka's ShareGroupMetrics: acknowledgements by type, partition load times."""

    @property
    def acknowledgements(self) -> Mapping[str, int]: ...

    @property
    def partition_load(self) -> TimerStats: ...


class SharePartitionView(Protocol):
    def in_flight_count(self) -> int: ...


class SharePartitionsView(Protocol):
    """The share partitions this broker leads, by (group, topic, partition), and their metrics."""

    @property
    def metrics(self) -> ShareMetricsView: ...

    @property
    def partitions(self) -> Mapping[tuple[str, str, int], SharePartitionView]: ...


class ApisView(Protocol):
    """The API registry: every (api key, min version, max version) the broker serves."""

    def version_ranges(self) -> Iterable[tuple[int, int, int]]: ...


class BrokerView(Protocol):
    """The broker's parts a scrape or the status page reads; None before they are started."""

    @property
    def metadata_cache(self) -> MetadataCache | None: ...

    @property
    def replica_manager(self) -> ReplicaManager | None: ...

    @property
    def log_manager(self) -> LogManager | None: ...

    @property
    def cluster_controller(self) -> KafkaController | None: ...

    @property
    def zk(self) -> KafkaZkClient | None: ...

    @property
    def group_coordinator(self) -> GroupCoordinatorService | None: ...

    @property
    def txn_coordinator(self) -> TransactionCoordinatorService | None: ...

    @property
    def server(self) -> SocketServerView | None: ...

    @property
    def apis(self) -> ApisView: ...

    @property
    def loop(self) -> asyncio.AbstractEventLoop: ...
