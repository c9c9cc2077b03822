"""A transactional producer spoken in raw requests, for tests that must stop a transaction at
a chosen step (left Ongoing, prepared but not completed) or send what no client sends (a
transactional batch for a partition never added to the transaction)."""
from __future__ import annotations

from typing import Any

from kafpy.protocol.messages import (AddPartitionsToTxnRequest, DescribeTransactionsRequest, EndTxnRequest,
                               FindCoordinatorRequest, InitProducerIdRequest, ListOffsetsRequest,
                               ProduceRequest)
from kafpy.protocol.records import build_batch

from tests.integration.broker.raw import PRODUCE, RawConnection

FIND_COORDINATOR, INIT_PRODUCER_ID, ADD_PARTITIONS_TO_TXN, END_TXN = 10, 22, 24, 26
DESCRIBE_TRANSACTIONS, LIST_OFFSETS = 65, 2


def find_txn_coordinator(c: RawConnection, transactional_id: str) -> tuple[int, int, int]:
    """(error, node id, port) of the transaction coordinator, as FindCoordinator v3 answers."""
    r = c.request(FIND_COORDINATOR, 3, FindCoordinatorRequest(key=transactional_id, key_type=1))
    return r.error_code, r.node_id, r.port


def describe_txn(c: RawConnection, transactional_id: str) -> Any:
    return c.request(DESCRIBE_TRANSACTIONS, 0,
                     DescribeTransactionsRequest(transactional_ids=[transactional_id])).transaction_states[0]


def latest_offset(c: RawConnection, topic: str, partition: int, read_committed: bool) -> int:
    """The latest offset ListOffsets answers: the last stable offset under read_committed,
    else the high watermark (-1 on an error)."""
    L = ListOffsetsRequest
    r = c.request(LIST_OFFSETS, 5, L(replica_id=-1, isolation_level=int(read_committed), topics=[L.ListOffsetsTopic(
        name=topic, partitions=[L.ListOffsetsPartition(partition_index=partition, timestamp=-1)])]))
    p = r.topics[0].partitions[0]
    return -1 if p.error_code else p.offset


def produce_batch(c: RawConnection, topic: str, partition: int, batch: bytes, transactional_id: str | None,
                  version: int = 9) -> tuple[int, int]:
    """Append one batch with acks=-1: (error code, base offset)."""
    P = ProduceRequest
    r = c.request(PRODUCE, version, P(transactional_id=transactional_id, acks=-1, timeout_ms=30000, topic_data=[
        P.TopicProduceData(name=topic, partition_data=[P.PartitionProduceData(index=partition, records=batch)])]))
    pr = r.responses[0].partition_responses[0]
    return pr.error_code, pr.base_offset


class RawTxnProducer:
    """One transactional id's producer over a connection to its coordinator; produce goes
    over whatever connection the caller passes (the partition's leader)."""

    def __init__(self, coordinator: RawConnection, transactional_id: str, timeout_ms: int = 60000) -> None:
        self.c = coordinator
        self.transactional_id = transactional_id
        self.timeout_ms = timeout_ms
        self.producer_id = -1
        self.epoch = -1
        self._sequences: dict[tuple[str, int], int] = {}

    def init(self) -> int:
        r = self.c.request(INIT_PRODUCER_ID, 4, InitProducerIdRequest(
            transactional_id=self.transactional_id, transaction_timeout_ms=self.timeout_ms,
            producer_id=self.producer_id, producer_epoch=self.epoch))
        if r.error_code == 0:
            self.producer_id, self.epoch = r.producer_id, r.producer_epoch
            self._sequences.clear()
        return r.error_code

    def add_partitions(self, topic: str, partitions: list[int]) -> dict[int, int]:
        A = AddPartitionsToTxnRequest
        r = self.c.request(ADD_PARTITIONS_TO_TXN, 3, A(
            v3_and_below_transactional_id=self.transactional_id, v3_and_below_producer_id=self.producer_id,
            v3_and_below_producer_epoch=self.epoch,
            v3_and_below_topics=[A.AddPartitionsToTxnTopic(name=topic, partitions=partitions)]))
        return {p.partition_index: p.partition_error_code
                for t in r.results_by_topic_v3_and_below for p in t.results_by_partition}

    def produce(self, leader: RawConnection, topic: str, partition: int, values: list[bytes],
                version: int = 9) -> int:
        """Append one transactional batch; the partition's error code."""
        seq = self._sequences.get((topic, partition), 0)
        batch = build_batch([(None, v) for v in values], producer_id=self.producer_id,
                            producer_epoch=self.epoch, base_sequence=seq, is_transactional=True)
        error, _ = produce_batch(leader, topic, partition, batch, self.transactional_id, version)
        if error == 0:
            self._sequences[(topic, partition)] = seq + len(values)
        return error

    def end(self, commit: bool) -> int:
        return self.c.request(END_TXN, 3, EndTxnRequest(
            transactional_id=self.transactional_id, producer_id=self.producer_id,
            producer_epoch=self.epoch, committed=commit)).error_code
