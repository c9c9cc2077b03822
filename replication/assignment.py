"""Kafka's replica assignment for new topics and added partitions (AdminUtils.assignReplicasToBrokers,
AdminZkClient.createNewPartitionsAssignment and the validation of a manual assignment).

Rack-unaware: the first replica of each partition goes round-robin over the brokers from a
random start; the other replicas follow at an increasing shift, so leaders spread evenly and a
broker's followers are spread over the other brokers. Rack-aware (every broker has a rack):
the same walk over a rack-alternated broker list, skipping brokers whose rack (or who) already
holds a replica while another rack (broker) has none.

The random start and shift come from an injectable ``random.Random`` so tests are
deterministic. Brokers are taken in id order, as Kafka's callers sort them.

Who may call it: whoever answers CreateTopics/CreatePartitions (the controller or the admin
path in front of ZooKeeper). Pure functions; errors are ``AssignmentError`` with Kafka's code.
"""
from __future__ import annotations

import random
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from kafpy.protocol.errors import ErrorCode, KafkaError

_RANDOM = random.Random()


@dataclass(frozen=True)
class BrokerMetadata:
    """A broker as assignment sees it."""

    id: int
    rack: str | None = None


class AssignmentError(KafkaError):
    """An assignment Kafka refuses; ``error_code`` is what CreateTopics/CreatePartitions answer."""

    def __init__(self, error_code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.error_code = ErrorCode(error_code)


def assign_replicas_to_brokers(brokers: Iterable[BrokerMetadata | int], n_partitions: int,
                               replication_factor: int, fixed_start_index: int = -1,
                               start_partition_id: int = -1,
                               rng: random.Random | None = None) -> dict[int, list[int]]:
    """Partition id -> replica list, the first replica being the preferred leader.

    ``fixed_start_index`` >= 0 replaces both random draws (start and shift), as in Kafka;
    ``start_partition_id`` numbers the result from there (for added partitions).
    """
    metas = sorted((b if isinstance(b, BrokerMetadata) else BrokerMetadata(b) for b in brokers),
                   key=lambda b: b.id)
    if n_partitions <= 0:
        raise AssignmentError(ErrorCode.INVALID_PARTITIONS,
                              "Number of partitions must be larger than 0.")
    if replication_factor <= 0:
        raise AssignmentError(ErrorCode.INVALID_REPLICATION_FACTOR,
                              "Replication factor must be larger than 0.")
    if replication_factor > len(metas):
        raise AssignmentError(ErrorCode.INVALID_REPLICATION_FACTOR,
                              f"Replication factor: {replication_factor} larger than available "
                              f"brokers: {len(metas)}.")
    rng = rng or _RANDOM
    if all(b.rack is None for b in metas):
        return _rack_unaware([b.id for b in metas], n_partitions, replication_factor,
                             fixed_start_index, start_partition_id, rng)
    if any(b.rack is None for b in metas):
        # Kafka's AdminOperationException, which reaches clients as UNKNOWN_SERVER_ERROR
        raise AssignmentError(ErrorCode.UNKNOWN_SERVER_ERROR,
                              "Not all brokers have rack information for replica rack aware "
                              "assignment.")
    return _rack_aware({b.id: b.rack for b in metas if b.rack is not None}, n_partitions,
                       replication_factor, fixed_start_index, start_partition_id, rng)


def _replica_index(first_replica_index: int, shift: int, replica_index: int, n_brokers: int) -> int:
    return (first_replica_index + 1 + (shift + replica_index) % (n_brokers - 1)) % n_brokers


def _start_and_shift(n_brokers: int, fixed_start_index: int, rng: random.Random) -> tuple[int, int]:
    if fixed_start_index >= 0:
        return fixed_start_index, fixed_start_index
    start = rng.randrange(n_brokers)
    return start, rng.randrange(n_brokers)


def _first_replicas(n_brokers: int, n_partitions: int, fixed_start_index: int,
                    start_partition_id: int, rng: random.Random) -> Iterator[tuple[int, int, int]]:
    """(partition id, index of its first replica, follower shift): round-robin from a random
    start, the shift growing by one every time the walk wraps around the brokers."""
    start, shift = _start_and_shift(n_brokers, fixed_start_index, rng)
    first_partition = max(0, start_partition_id)
    for partition in range(first_partition, first_partition + n_partitions):
        if partition > 0 and partition % n_brokers == 0:
            shift += 1
        yield partition, (partition + start) % n_brokers, shift


def _rack_unaware(broker_ids: list[int], n_partitions: int, replication_factor: int,
                  fixed_start_index: int, start_partition_id: int,
                  rng: random.Random) -> dict[int, list[int]]:
    n = len(broker_ids)
    return {partition: [broker_ids[first]] + [broker_ids[_replica_index(first, shift, j, n)]
                                              for j in range(replication_factor - 1)]
            for partition, first, shift in _first_replicas(n, n_partitions, fixed_start_index,
                                                           start_partition_id, rng)}


def rack_alternated_broker_list(broker_racks: Mapping[int, str]) -> list[int]:
    """Brokers interleaved by rack (racks in name order, brokers in id order):
    rack1: 0,1,2 / rack2: 3,4,5 / rack3: 6,7,8 gives 0,3,6,1,4,7,2,5,8."""
    by_rack: dict[str, list[int]] = {}
    for broker, rack in sorted(broker_racks.items()):
        by_rack.setdefault(rack, []).append(broker)
    columns = [by_rack[rack] for rack in sorted(by_rack)]
    return [col[i] for i in range(max(map(len, columns))) for col in columns if i < len(col)]


def _rack_aware(broker_racks: dict[int, str], n_partitions: int, replication_factor: int,
                fixed_start_index: int, start_partition_id: int,
                rng: random.Random) -> dict[int, list[int]]:
    n_racks = len(set(broker_racks.values()))
    arranged = rack_alternated_broker_list(broker_racks)
    n = len(arranged)
    result: dict[int, list[int]] = {}
    for partition, first, shift in _first_replicas(n, n_partitions, fixed_start_index,
                                                   start_partition_id, rng):
        leader = arranged[first]
        replicas = [leader]
        racks_with_replicas = {broker_racks[leader]}
        brokers_with_replicas = {leader}
        k = 0
        for _ in range(replication_factor - 1):
            while True:
                broker = arranged[_replica_index(first, shift * n_racks, k, n)]
                rack = broker_racks[broker]
                k += 1
                # skip a rack that already has a replica while another has none, and a broker
                # that already has one while another has none
                if ((rack not in racks_with_replicas or len(racks_with_replicas) == n_racks)
                        and (broker not in brokers_with_replicas or len(brokers_with_replicas) == n)):
                    replicas.append(broker)
                    racks_with_replicas.add(rack)
                    brokers_with_replicas.add(broker)
                    break
        result[partition] = replicas
    return result


# --------------------------------------------------------------------------- CreatePartitions
def new_partitions_assignment(topic: str, existing: Mapping[int, Sequence[int]],
                              brokers: Iterable[BrokerMetadata | int], num_partitions: int,
                              manual: Mapping[int, Sequence[int]] | None = None,
                              rng: random.Random | None = None) -> dict[int, list[int]]:
    """Assignment of the partitions CreatePartitions adds (existing ones never move).

    Without a manual assignment Kafka continues the round-robin where partition 0's first
    replica sits (``start index`` = position of the first broker with id >= that replica),
    numbering from the current partition count, with partition 0's replication factor.
    """
    metas = sorted((b if isinstance(b, BrokerMetadata) else BrokerMetadata(b) for b in brokers),
                   key=lambda b: b.id)
    if 0 not in existing:
        raise AssignmentError(ErrorCode.UNKNOWN_SERVER_ERROR,
                              f"Unexpected existing replica assignment for topic '{topic}', "
                              f"partition id 0 is missing. Assignment: {dict(existing)}")
    partition0 = list(existing[0])
    to_add = num_partitions - len(existing)
    if to_add <= 0:
        raise AssignmentError(ErrorCode.INVALID_PARTITIONS,
                              f"The number of partitions for a topic can only be increased. Topic "
                              f"{topic} currently has {len(existing)} partitions, {num_partitions} "
                              f"would not be an increase.")
    if manual is not None:
        validate_added_partitions(manual, len(partition0), {b.id for b in metas})
        return {p: list(r) for p, r in manual.items()}
    start = next((i for i, b in enumerate(metas) if b.id >= partition0[0]), 0)
    return assign_replicas_to_brokers(metas, to_add, len(partition0), start, len(existing), rng)


def validate_added_partitions(manual: Mapping[int, Sequence[int]], replication_factor: int,
                              broker_ids: set[int]) -> None:
    """AdminZkClient.validateReplicaAssignment for partitions given by the client."""
    for partition, replicas in manual.items():
        if not replicas:
            raise AssignmentError(ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                                  f"Cannot have replication factor of 0 for partition id {partition}.")
        if len(set(replicas)) != len(replicas):
            raise AssignmentError(ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                                  "Duplicate brokers not allowed in replica assignment: "
                                  f"{', '.join(map(str, replicas))} for partition id {partition}.")
        if not set(replicas) <= broker_ids:
            raise AssignmentError(ErrorCode.BROKER_NOT_AVAILABLE,
                                  f"Some brokers specified for partition id {partition} are not "
                                  f"available. Specified brokers: {', '.join(map(str, replicas))}, "
                                  f"available brokers: {', '.join(map(str, sorted(broker_ids)))}.")
    bad = sorted((p, len(r)) for p, r in manual.items() if len(r) != replication_factor)
    if bad:
        raise AssignmentError(ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                              "Inconsistent replication factor between partitions, partition 0 has "
                              f"{replication_factor} while partitions [{', '.join(str(p) for p, _ in bad)}] "
                              f"have replication factors [{', '.join(str(n) for _, n in bad)}], "
                              "respectively.")


def validate_topic_assignment(assignment: Mapping[int, Sequence[int]]) -> None:
    """AdminZkClient.validateTopicCreate's checks of a manual assignment for a new topic."""
    if len({len(r) for r in assignment.values()}) != 1:
        raise AssignmentError(ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                              "All partitions should have the same number of replicas")
    for replicas in assignment.values():
        if len(set(replicas)) != len(replicas):
            raise AssignmentError(ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                                  f"Duplicate replica assignment found: {dict(assignment)}")
    if sorted(assignment) != list(range(len(assignment))):
        raise AssignmentError(ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                              "partitions should be a consecutive 0-based integer sequence")
