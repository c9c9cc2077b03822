"""The replica fetcher's vocabulary: partitions, their fetch state, the fetcher's settings.

Who may call it: the fetcher core, thread and manager, and the leader end points (in
``replication``); the broker when it adds partitions to the fetcher manager. No I/O here.

Kafka's names: ``PartitionFetchState`` (fetch offset, lag, current leader epoch, delay,
Truncating/Fetching, last fetched epoch), ``InitialFetchState``, ``BrokerEndPoint`` and
the replica.fetch.* broker configs.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Mapping, NamedTuple

from kafpy.protocol.errors import ErrorCode

from kafpy.replication.follower_log import UNDEFINED_EPOCH
from kafpy.replication.network_client import NetworkClientConfig

__all__ = ["TopicPartition", "FetchState", "PartitionFetchState", "InitialFetchState", "BrokerEndPoint",
           "EpochEndOffset", "ReplicaFetcherConfig", "LEADER_ERRORS",
           "replica_client_config"]


class TopicPartition(NamedTuple):
    topic: str
    partition: int

    def __str__(self) -> str:
        return f"{self.topic}-{self.partition}"


class BrokerEndPoint(NamedTuple):
    """The broker a partition's leader lives on, as reached on the inter-broker listener."""

    id: int
    host: str
    port: int


class FetchState(enum.Enum):
    """Truncating: the partition waits for OffsetsForLeaderEpoch (or truncation to its high
    watermark) before fetching; Fetching: it is in the Fetch requests."""

    TRUNCATING = "Truncating"
    FETCHING = "Fetching"


@dataclass(slots=True)
class PartitionFetchState:
    """Where one partition's fetching stands. ``delayed_until_ms`` (time of the fetcher's
    clock) holds a partition back after an error (replica.fetch.backoff.ms)."""

    topic_id: bytes
    fetch_offset: int
    current_leader_epoch: int
    state: FetchState
    last_fetched_epoch: int = UNDEFINED_EPOCH
    lag: int | None = None
    delayed_until_ms: float = 0.0

    def is_delayed(self, now_ms: float) -> bool:
        return now_ms < self.delayed_until_ms

    def is_ready_for_fetch(self, now_ms: float) -> bool:
        return self.state is FetchState.FETCHING and not self.is_delayed(now_ms)

    def is_truncating(self, now_ms: float) -> bool:
        return self.state is FetchState.TRUNCATING and not self.is_delayed(now_ms)


@dataclass(frozen=True, slots=True)
class InitialFetchState:
    """How to start fetching a partition: from ``leader``, in ``current_leader_epoch``, at
    ``init_offset`` (the follower's log end offset when its log has leader epochs, else its
    high watermark, as Kafka's ``ReplicaManager.initialFetchOffset``)."""

    leader: BrokerEndPoint
    topic_id: bytes
    init_offset: int
    current_leader_epoch: int


class EpochEndOffset(NamedTuple):
    """The leader's answer about one epoch: OffsetsForLeaderEpoch's result, or a Fetch
    response's ``diverging_epoch`` (then ``error_code`` is NONE)."""

    error_code: int
    leader_epoch: int
    end_offset: int


@dataclass(frozen=True, slots=True)
class ReplicaFetcherConfig:
    """The fetcher's settings. ``replica_id`` is this broker's id and ``broker_epoch`` its
    registration epoch (sent in Fetch v15+, -1 when unknown). ``truncate_on_fetch``: send
    ``last_fetched_epoch`` and truncate on ``diverging_epoch`` (Kafka with IBP >= 2.7);
    otherwise every new leader epoch starts with OffsetsForLeaderEpoch."""

    replica_id: int
    broker_epoch: int = -1
    fetch_max_bytes: int = 1048576          # replica.fetch.max.bytes (per partition)
    response_max_bytes: int = 10485760      # replica.fetch.response.max.bytes
    min_bytes: int = 1                      # replica.fetch.min.bytes
    max_wait_ms: int = 500                  # replica.fetch.wait.max.ms
    backoff_ms: int = 1000                  # replica.fetch.backoff.ms
    num_fetchers: int = 1                   # num.replica.fetchers
    truncate_on_fetch: bool = True

    @classmethod
    def from_properties(cls, props: Mapping[str, str | int | float], replica_id: int,
                        broker_epoch: int = -1) -> "ReplicaFetcherConfig":
        """From the broker's replica.fetch.* and num.replica.fetchers; defaults for the rest."""
        d = cls(replica_id)
        return cls(
            replica_id=replica_id,
            broker_epoch=broker_epoch,
            fetch_max_bytes=int(props.get("replica.fetch.max.bytes", d.fetch_max_bytes)),
            response_max_bytes=int(props.get("replica.fetch.response.max.bytes", d.response_max_bytes)),
            min_bytes=int(props.get("replica.fetch.min.bytes", d.min_bytes)),
            max_wait_ms=int(props.get("replica.fetch.wait.max.ms", d.max_wait_ms)),
            backoff_ms=int(props.get("replica.fetch.backoff.ms", d.backoff_ms)),
            num_fetchers=max(1, int(props.get("num.replica.fetchers", d.num_fetchers))),
        )


def replica_client_config(props: Mapping[str, str | int | float]) -> NetworkClientConfig:
    """The settings of a fetcher's connection, as Kafka's ``ReplicaFetcherBlockingSend``:
    replica.socket.timeout.ms bounds each request (the leader may hold a Fetch for
    replica.fetch.wait.max.ms on top); reconnect backoff from the broker's settings."""
    mapped = {k: v for k, v in props.items() if k != "request.timeout.ms"}
    if "replica.socket.timeout.ms" in props:
        mapped["request.timeout.ms"] = props["replica.socket.timeout.ms"]
    return NetworkClientConfig.from_properties(mapped)


# Errors after which a partition backs off and its leader should be looked up again (the
# leader moved, or its broker cannot be reached).
LEADER_ERRORS = frozenset({
    ErrorCode.NETWORK_EXCEPTION, ErrorCode.REQUEST_TIMED_OUT,
    ErrorCode.NOT_LEADER_OR_FOLLOWER, ErrorCode.FENCED_LEADER_EPOCH, ErrorCode.UNKNOWN_LEADER_EPOCH,
    ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ErrorCode.UNKNOWN_TOPIC_ID, ErrorCode.INCONSISTENT_TOPIC_ID,
    ErrorCode.REPLICA_NOT_AVAILABLE,
})
