"""KIP-890 part 1 on the partition leader (Kafka's AddPartitionsToTxnManager and verification
guards): before the first transactional batch of a producer's transaction is appended to a
partition, the transaction coordinator confirms that the partition is in the ongoing
transaction (AddPartitionsToTxn v4+ with verifyOnly), so a late or stray batch cannot open a
transaction the coordinator will never end (a hanging transaction).

Only a batch that would start a transaction on the partition is verified: once the
partition's producer state has an ongoing transaction for that producer and epoch, later
batches append at once. The coordinator is asked directly when this broker leads the
transactional id's `__transaction_state` partition, else over a NetworkClient per broker.

Transaction version 2 (KIP-890 part 2): a Produce v12 or TxnOffsetCommit v5 comes from a
client that no longer sends AddPartitionsToTxn, so the same call adds the partition to the
transaction instead of only checking it (`verify(..., add=True)`: AddPartitionsToTxn v5
without verifyOnly, Kafka's AddPartitionsToTxnManager with the addPartition operation),
whatever transaction.partition.verification.enable says. An add the coordinator answers
CONCURRENT_TRANSACTIONS (the previous transaction's markers still out, as right after a
commit) is asked again every `add.partitions.to.txn.retry.backoff.ms` (20) until
`add.partitions.to.txn.retry.backoff.max.ms` (100, at most request.timeout.ms) have passed
(`add_retry_delay`, used by Produce), as Kafka 4.4's ReplicaManager does for the addPartition
operation: a client that starts its next transaction at once rarely sees the error (franz-go
backs off for seconds on it).

A guard per (topic, partition, producer id) is set when verification starts and voided by a
marker for that producer on the partition (`on_marker`): a batch verified before the
transaction ended is refused (INVALID_TXN_STATE) instead of starting a new one.

Pipelined Produce requests of one producer run as tasks of their own here, where Kafka
reads the next request of a connection only once the previous one is answered. So that
the batches of a producer still reach each partition in the order sent (else a later
batch appended while an earlier one waits for the coordinator is out of sequence), the
requests of a producer with batches to verify take turns (`wait_turn`/`end_turn`), in
arrival order, and so do its other requests while some wait (`turn_pending`): a turn
ends once the request's batches are appended or refused, and by then an earlier batch
may have started the transaction, so the next one appends without asking. A guard shared anyway is dropped only when the last of its holders is done: one
verification that failed must not void another's.

Errors reach the producer as Kafka 4.4 answers each Produce version (`produce_error`):
PRODUCER_FENCED as INVALID_PRODUCER_EPOCH; TRANSACTION_ABORTABLE as INVALID_TXN_STATE up to
v10 (v11+ clients know it); what the client should just retry (coordinator moving or
loading, network) as NOT_ENOUGH_REPLICAS, which does not make it refresh its metadata, and
so CONCURRENT_TRANSACTIONS up to v11, while v12+ clients get it as it is.

Who calls it: broker/handlers/produce.py and broker/handlers/txn_markers.py, on the event loop
thread. Nothing on disk.
"""
from __future__ import annotations

import asyncio
import logging
from collections import defaultdict
from typing import TYPE_CHECKING, Callable

from kafpy.protocol.errors import ErrorCode, UnsupportedVersion
from kafpy.protocol.messages import AddPartitionsToTxnRequest
from kafpy.protocol.records import (ATTRIBUTES_LOW_BYTE_OFFSET, BATCH_HEADER_SIZE, MAGIC_OFFSET, PRODUCER_ID_AND_EPOCH,
                                    PRODUCER_ID_OFFSET, TRANSACTIONAL_MASK)
from kafpy.protocol.topics import TRANSACTION_STATE_TOPIC_NAME
from kafpy.protocol.api_keys import ApiKey

from kafpy.coordinator.group.partitioner import partition_for
from kafpy.coordinator.transaction.clients import BrokerClients
from kafpy.coordinator.transaction.state import TV_2

if TYPE_CHECKING:
    from kafpy.coordinator.transaction.service import TransactionCoordinatorService
    from kafpy.replication.metadata_cache import BrokerInfo, MetadataCache
    from kafpy.replication.network_client import NetworkClient
    from kafpy.replication.partition import Partition

log = logging.getLogger("kafka.server.AddPartitionsToTxnManager")

TopicPartition = tuple[str, int]
_RETRIABLE = (ErrorCode.NETWORK_EXCEPTION, ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, ErrorCode.COORDINATOR_NOT_AVAILABLE,
              ErrorCode.NOT_COORDINATOR)
PARTITION_NOT_ADDED = "Partition was not added to the transaction"
# Kafka's produceRequestVersionToTransactionSupportedOperation: v11 knows TRANSACTION_ABORTABLE
# (genericErrorSupported), v12 lets the leader add the partition (addPartition, epoch bumps)
PRODUCE_GENERIC_ERROR_VERSION = 11
PRODUCE_ADD_PARTITION_VERSION = 12


def produce_error(error: ErrorCode, api_version: int) -> tuple[ErrorCode, str | None]:
    """What a Produce of `api_version` answers for a verification error (Kafka 4.4's
    AddPartitionsToTxnManager then ReplicaManager mappings)."""
    if error == ErrorCode.PRODUCER_FENCED:
        return ErrorCode.INVALID_PRODUCER_EPOCH, None
    if error == ErrorCode.TRANSACTION_ABORTABLE and api_version < PRODUCE_GENERIC_ERROR_VERSION:
        error = ErrorCode.INVALID_TXN_STATE
    if error in (ErrorCode.CLUSTER_AUTHORIZATION_FAILED, ErrorCode.INVALID_TXN_STATE):
        return ErrorCode.INVALID_TXN_STATE, PARTITION_NOT_ADDED
    if error in _RETRIABLE or (error == ErrorCode.CONCURRENT_TRANSACTIONS
                               and api_version < PRODUCE_ADD_PARTITION_VERSION):
        return ErrorCode.NOT_ENOUGH_REPLICAS, ("Unable to verify the partition has been added to the transaction. "
                                       f"Underlying error: {error.name}")
    return error, None


def transactional_producer(records: bytes | bytearray | memoryview | None) -> tuple[int, int] | None:
    """(producer id, epoch) of a partition's first batch when it is transactional (magic 2)."""
    if (records is None or len(records) < BATCH_HEADER_SIZE or records[MAGIC_OFFSET] != 2
            or not records[ATTRIBUTES_LOW_BYTE_OFFSET] & TRANSACTIONAL_MASK):
        return None
    return PRODUCER_ID_AND_EPOCH.unpack_from(records, PRODUCER_ID_OFFSET)


class _Guard:
    """A verification guard; `holders` counts the verifications sharing it."""

    __slots__ = ("holders",)

    def __init__(self) -> None:
        self.holders = 0


class TxnVerifier:
    """`local_coordinator()` is this broker's TransactionCoordinatorService (or None);
    `client_factory(broker_info)` makes a NetworkClient for another broker."""

    def __init__(self, broker_id: int, metadata_cache: MetadataCache,
                 local_coordinator: Callable[[], TransactionCoordinatorService | None],
                 client_factory: Callable[[BrokerInfo], NetworkClient], enabled: bool = True,
                 add_retry_backoff_ms: int = 20, add_retry_max_ms: int = 100) -> None:
        self.broker_id = broker_id
        self.enabled = enabled
        self.add_retry_backoff_ms = add_retry_backoff_ms
        self.add_retry_max_ms = add_retry_max_ms
        self._metadata = metadata_cache
        self._local = local_coordinator
        self._clients = BrokerClients(metadata_cache, client_factory)
        self._guards: dict[tuple[str, int, int], _Guard] = {}
        # producer id -> the turn of its latest request with batches to verify
        self._turns: dict[int, asyncio.Future] = {}

    async def close(self) -> None:
        await self._clients.close()

    # ------------------------------------------------------------------ guards
    def needs_verification(self, partition: Partition, producer_id: int, epoch: int) -> bool:
        """Whether a transactional batch would start the producer's transaction here."""
        entry = partition.log.producer_state.producers.get(producer_id)
        return entry is None or entry.current_txn_first_offset < 0 or entry.epoch != epoch

    def turn_pending(self, producer_id: int) -> bool:
        """Whether requests of the producer are waiting or taking their turn: a later one
        must queue behind them even with nothing to verify."""
        turn = self._turns.get(producer_id)
        return turn is not None and not turn.done()

    async def wait_turn(self, producer_id: int) -> asyncio.Future:
        """Wait until the producer's earlier requests with batches to verify have ended
        their turns; returns this request's turn, for `end_turn`."""
        turn = asyncio.get_running_loop().create_future()
        before = self._turns.get(producer_id)
        self._turns[producer_id] = turn
        if before is None or before.done():
            return turn
        try:
            await asyncio.shield(before)
        except asyncio.CancelledError:
            # the requests after this one still wait for the one before it
            before.add_done_callback(lambda _: self.end_turn(producer_id, turn))
            raise
        return turn

    def end_turn(self, producer_id: int, turn: asyncio.Future) -> None:
        """The request's batches are appended or refused: the next request goes on (once
        the calling task yields, so after what it appends in the same step)."""
        if not turn.done():
            turn.set_result(None)
        if self._turns.get(producer_id) is turn:
            del self._turns[producer_id]

    def start(self, topic: str, index: int, producer_id: int) -> object:
        """The guard of a verification starting now (an existing one is shared); every
        `start` is paired with one `done`."""
        guard = self._guards.setdefault((topic, index, producer_id), _Guard())
        guard.holders += 1
        return guard

    def holds(self, topic: str, index: int, producer_id: int, guard: object) -> bool:
        """Whether `guard` is still current: no marker ended a transaction meanwhile."""
        return self._guards.get((topic, index, producer_id)) is guard

    def done(self, topic: str, index: int, producer_id: int, guard: object) -> None:
        """One verification sharing `guard` is over; the last one drops it."""
        assert isinstance(guard, _Guard)
        guard.holders -= 1
        if guard.holders <= 0 and self._guards.get((topic, index, producer_id)) is guard:
            del self._guards[(topic, index, producer_id)]

    def on_marker(self, topic: str, index: int, producer_id: int) -> None:
        """A marker for the producer was appended on the partition: its verification is void."""
        self._guards.pop((topic, index, producer_id), None)

    # ------------------------------------------------------------------ verification
    def add_retry_delay(self, errors: dict[TopicPartition, ErrorCode], elapsed_ms: float
                        ) -> float | None:
        """Seconds to wait before asking again for an add (`verify(..., add=True)`) answered
        `errors` `elapsed_ms` after the first question, or None to answer the producer now:
        Kafka retries CONCURRENT_TRANSACTIONS until add.partitions.to.txn.retry.backoff.max.ms
        have passed. The caller takes new guards for each question (a marker of the previous
        transaction voids the old ones meanwhile), as Kafka starts each retry's verification
        afresh."""
        if elapsed_ms >= self.add_retry_max_ms or ErrorCode.CONCURRENT_TRANSACTIONS not in errors.values():
            return None
        return self.add_retry_backoff_ms / 1000

    def _coordinator_node(self, transactional_id: str) -> int | None:
        info = self._metadata.topic(TRANSACTION_STATE_TOPIC_NAME)
        if info is None or not info.partitions:
            return None
        part = info.partitions.get(partition_for(transactional_id, len(info.partitions)))
        if part is None or part.leader < 0 or (part.leader != self.broker_id
                                               and self._metadata.broker(part.leader) is None):
            return None
        return part.leader

    async def verify(self, transactional_id: str, producer_id: int, epoch: int,
                     partitions: list[TopicPartition], add: bool = False
                     ) -> dict[TopicPartition, ErrorCode]:
        """The coordinator's answer for each partition (NONE when it is in the transaction,
        or, with `add`, once it was added to a version 2 transaction), as the coordinator
        gives it; `produce_error` maps it for the producer."""
        node = self._coordinator_node(transactional_id)
        if node is None:
            return {tp: ErrorCode.COORDINATOR_NOT_AVAILABLE for tp in partitions}
        if node == self.broker_id:
            service = self._local()
            if service is None:
                return {tp: ErrorCode.COORDINATOR_NOT_AVAILABLE for tp in partitions}
            coordinator = service.coordinator
            if add:
                error = await coordinator.add_partitions(transactional_id, producer_id, epoch,
                                                         partitions, service.now_ms(), TV_2)
                return {tp: error for tp in partitions}
            return coordinator.verify_partitions(transactional_id, producer_id, epoch, partitions)
        try:
            client = self._clients.get(node)
            await client.ready()
            if client.api_version(ApiKey.ADD_PARTITIONS_TO_TXN) < 4:
                # a coordinator that cannot verify: the batch appends unverified, as in Kafka
                return {tp: ErrorCode.NONE for tp in partitions}
            resp = await client.send(ApiKey.ADD_PARTITIONS_TO_TXN,
                                     _verify_request(transactional_id, producer_id, epoch, partitions,
                                                     verify_only=not add))
        except asyncio.CancelledError:
            raise
        except UnsupportedVersion:
            return {tp: ErrorCode.NONE for tp in partitions}
        except Exception as e:  # noqa: BLE001 - connection trouble: the producer retries
            log.info("AddPartitionsToTxn to broker %d failed: %s", node, e)
            return {tp: ErrorCode.NETWORK_EXCEPTION for tp in partitions}
        if resp.error_code:
            return {tp: ErrorCode(resp.error_code) for tp in partitions}
        found = {(t.name, p.partition_index): ErrorCode(p.partition_error_code)
                 for r in resp.results_by_transaction if r.transactional_id == transactional_id
                 for t in r.topic_results for p in t.results_by_partition}
        return {tp: found.get(tp, ErrorCode.INVALID_TXN_STATE) for tp in partitions}



def _verify_request(transactional_id: str, producer_id: int, epoch: int,
                    partitions: list[TopicPartition], verify_only: bool = True
                    ) -> AddPartitionsToTxnRequest:
    by_topic: dict[str, list[int]] = defaultdict(list)
    for topic, p in partitions:
        by_topic[topic].append(p)
    return AddPartitionsToTxnRequest(transactions=[AddPartitionsToTxnRequest.AddPartitionsToTxnTransaction(
        transactional_id=transactional_id, producer_id=producer_id, producer_epoch=epoch, verify_only=verify_only,
        topics=[AddPartitionsToTxnRequest.AddPartitionsToTxnTopic(name=t, partitions=ps) for t, ps in by_topic.items()])])
