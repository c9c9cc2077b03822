"""The replica fetchers of one broker: which fetcher follows which partition (Kafka's
``AbstractFetcherManager`` / ``ReplicaFetcherManager``).

Who may call it: the broker's replica manager when partitions become followers
(``add_fetcher_for_partitions``) or stop being followers (``remove_fetcher_for_partitions``),
and at shutdown. Use from the event loop's thread only.

Partitions are spread over num.replica.fetchers fetchers per leader broker by Kafka's rule,
abs(31 * topic.hashCode() + partition) % num.replica.fetchers with Java's String.hashCode,
so a partition goes to the same fetcher id as on a Kafka broker. Each fetcher is one
asyncio task with its own connection to the leader (client id
``broker-<id>-fetcher-<fetcher id>``, as Kafka's). A fetcher whose leader broker moved to
another host or port is replaced; idle fetchers are stopped by
``shutdown_idle_fetcher_threads``.

``resize_thread_pool`` (num.replica.fetchers altered dynamically, Kafka's
``resizeThreadPool``) takes every partition off its fetcher and adds it again at the offset
it had reached, so the hash spreads them over the new number of fetchers; fetchers left
without partitions stop.
"""
from __future__ import annotations

import asyncio
import dataclasses
import logging
from typing import Callable, Iterable, Mapping

from kafpy.replication.broker_connection import Timer
from kafpy.replication.fetch_state import (BrokerEndPoint, InitialFetchState, PartitionFetchState, ReplicaFetcherConfig,
                                     TopicPartition)
from kafpy.replication.fetcher import FetcherCore
from kafpy.replication.fetcher_thread import LeaderErrorCallback, ReplicaFetcherThread
from kafpy.replication.follower_log import FollowerLog
from kafpy.replication.leader_endpoint import LeaderEndPoint, RemoteLeaderEndPoint
from kafpy.replication.network_client import ConnectionSecurity, NetworkClient, NetworkClientConfig

__all__ = ["ReplicaFetcherManager", "fetcher_id_for", "java_string_hash"]

log = logging.getLogger("kafka.server.ReplicaFetcherManager")

LeaderEndPointFactory = Callable[[BrokerEndPoint, int], LeaderEndPoint]


def java_string_hash(s: str) -> int:
    """Java's ``String.hashCode`` (over UTF-16 code units, 32-bit wrap-around)."""
    h = 0
    data = s.encode("utf-16-be")
    for i in range(0, len(data), 2):
        h = (31 * h + (data[i] << 8 | data[i + 1])) & 0xFFFFFFFF
    return h - (1 << 32) if h & 0x80000000 else h


def fetcher_id_for(tp: TopicPartition, num_fetchers: int) -> int:
    """Kafka's ``AbstractFetcherManager.getFetcherId``."""
    topic, partition = tp
    n = (31 * java_string_hash(topic) + partition) & 0xFFFFFFFF
    n = n - (1 << 32) if n & 0x80000000 else n
    n = 0 if n == -(1 << 31) else abs(n)   # Kafka's Utils.abs
    return n % num_fetchers


class ReplicaFetcherManager:
    """Fetchers keyed by (leader broker id, fetcher id). ``replica_logs`` finds a follower
    partition's local log; ``leader_endpoint_factory(source, fetcher_id)`` makes the leader
    end point of a new fetcher (by default a ``RemoteLeaderEndPoint`` over a new
    ``NetworkClient`` with ``client_config``); ``on_leader_error`` gets partitions whose
    fetch failed in a way that suggests looking their leader up again."""

    def __init__(self, config: ReplicaFetcherConfig, replica_logs: Callable[[TopicPartition], FollowerLog | None], *,
                 client_config: NetworkClientConfig | None = None,
                 leader_endpoint_factory: LeaderEndPointFactory | None = None,
                 on_leader_error: LeaderErrorCallback | None = None, timer: Timer | None = None,
                 security: ConnectionSecurity | None = None) -> None:
        """``security``: the inter-broker listener's, for the connections to the leaders."""
        self.config = config
        self.security = security
        self.replica_logs = replica_logs
        self.client_config = client_config
        self.leader_endpoint_factory = leader_endpoint_factory or self._remote_leader
        self.on_leader_error = on_leader_error
        self.timer = timer
        self.fetcher_threads: dict[tuple[int, int], ReplicaFetcherThread] = {}
        self._failed_of_stopped: set[TopicPartition] = set()   # failed partitions of fetchers shut down
        # adding partitions and resizing await fetcher shutdowns: one at a time (Kafka's lock)
        self._lock = asyncio.Lock()

    def get_fetcher_id(self, tp: TopicPartition) -> int:
        return fetcher_id_for(tp, self.config.num_fetchers)

    async def add_fetcher_for_partitions(self, initial: Mapping[TopicPartition, InitialFetchState]) -> None:
        """Starts fetching each partition from its leader at its initial offset and epoch,
        moving it off any fetcher of another leader."""
        async with self._lock:
            await self._add_fetcher_for_partitions(initial)

    async def _add_fetcher_for_partitions(self, initial: Mapping[TopicPartition, InitialFetchState]) -> None:
        grouped: dict[tuple[int, int], dict[TopicPartition, InitialFetchState]] = {}
        self._failed_of_stopped.difference_update(initial)
        for tp, init in initial.items():
            grouped.setdefault((init.leader.id, self.get_fetcher_id(tp)), {})[tp] = init
        for key, states in grouped.items():
            for other_key, other in self.fetcher_threads.items():
                if other_key != key:
                    other.remove_partitions(states)
            source = next(iter(states.values())).leader
            thread = self.fetcher_threads.get(key)
            if thread is not None and thread.source != source:
                log.info("Leader broker %d moved from %s:%d to %s:%d: replacing %s", source.id, thread.source.host,
                         thread.source.port, source.host, source.port, thread.name)
                del self.fetcher_threads[key]
                await thread.shutdown()
                thread = None
            if thread is None:
                thread = self._new_thread(key[1], source)
                self.fetcher_threads[key] = thread
                thread.start()
            thread.add_partitions(states)
            log.info("Added fetcher to broker %d for partitions %s", source.id,
                     ", ".join(f"{tp} (offset {s.init_offset}, epoch {s.current_leader_epoch})"
                               for tp, s in states.items()))

    def remove_fetcher_for_partitions(self, tps: Iterable[TopicPartition]) -> dict[TopicPartition, PartitionFetchState]:
        """Stops fetching ``tps``; returns the fetch states they had."""
        tps = list(tps)
        self._failed_of_stopped.difference_update(tps)
        out: dict[TopicPartition, PartitionFetchState] = {}
        for thread in self.fetcher_threads.values():
            out.update(thread.remove_partitions(tps))
        if tps:
            log.info("Removed fetcher for partitions %s", ", ".join(map(str, tps)))
        return out

    def fetch_state(self, tp: TopicPartition) -> PartitionFetchState | None:
        for thread in self.fetcher_threads.values():
            state = thread.core.states.get(tp)
            if state is not None:
                return state
        return None

    def failed_partitions(self) -> set[TopicPartition]:
        """Partitions no fetcher fetches until they are added again (Kafka's
        ``FailedPartitions``): fenced by a newer leader epoch, or their log failed."""
        out = set(self._failed_of_stopped)
        for thread in self.fetcher_threads.values():
            out |= thread.core.failed
        return out

    async def resize_thread_pool(self, new_size: int) -> None:
        """num.replica.fetchers changed: spread every followed partition over ``new_size``
        fetchers per leader, each resuming at its fetch offset and leader epoch."""
        new_size = max(1, new_size)
        async with self._lock:
            current = self.config.num_fetchers
            log.info("[ReplicaFetcherManager on broker %d] Resizing fetcher thread pool size from %d to %d",
                     self.config.replica_id, current, new_size)
            self.config = dataclasses.replace(self.config, num_fetchers=new_size)
            if new_size != current:
                failed = self.failed_partitions()
                moved: dict[TopicPartition, InitialFetchState] = {}
                for thread in self.fetcher_threads.values():
                    for tp, st in thread.remove_partitions(list(thread.core.states)).items():
                        moved[tp] = InitialFetchState(thread.source, st.topic_id, st.fetch_offset,
                                                      st.current_leader_epoch)
                await self._add_fetcher_for_partitions(moved)
                self._failed_of_stopped |= failed - set(moved)
            await self._shutdown_idle()

    async def shutdown_idle_fetcher_threads(self) -> None:
        async with self._lock:
            await self._shutdown_idle()

    async def _shutdown_idle(self) -> None:
        for key, thread in list(self.fetcher_threads.items()):
            if thread.partition_count == 0:
                self._failed_of_stopped |= thread.core.failed
                del self.fetcher_threads[key]
                await thread.shutdown()

    async def shutdown(self) -> None:
        threads, self.fetcher_threads = list(self.fetcher_threads.values()), {}
        for thread in threads:
            await thread.shutdown()

    # -- internals -----------------------------------------------------------------------
    def _new_thread(self, fetcher_id: int, source: BrokerEndPoint) -> ReplicaFetcherThread:
        core = FetcherCore(self.config, self.replica_logs, name=f"ReplicaFetcherThread-{fetcher_id}-{source.id}")
        return ReplicaFetcherThread(fetcher_id, source, self.leader_endpoint_factory(source, fetcher_id), core,
                                    timer=self.timer, on_leader_error=self.on_leader_error)

    def _remote_leader(self, source: BrokerEndPoint, fetcher_id: int) -> LeaderEndPoint:
        client = NetworkClient(source.host, source.port, client_id=f"broker-{self.config.replica_id}-fetcher-"
                               f"{fetcher_id}", node_id=source.id, config=self.client_config, timer=self.timer,
                               security=self.security)
        return RemoteLeaderEndPoint(client, self.config.replica_id, self.config.broker_epoch)
