"""Replica assignment as Kafka's AdminUtils/AdminZkClient do it (examples from AdminUtils' docs)."""
from __future__ import annotations

import random
from collections import Counter

import pytest

from kafpy.protocol.errors import ErrorCode
from kafpy.replication.assignment import (AssignmentError, BrokerMetadata, assign_replicas_to_brokers,
                                    new_partitions_assignment, rack_alternated_broker_list,
                                    validate_topic_assignment)


def test_rack_unaware_matches_kafkas_documented_table():
    # AdminUtils' javadoc table: 5 brokers, 10 partitions, RF 3, start index 0
    got = assign_replicas_to_brokers([0, 1, 2, 3, 4], 10, 3, fixed_start_index=0)
    assert got[0] == [0, 1, 2] and got[1] == [1, 2, 3] and got[4] == [4, 0, 1]
    # from partition 5 on the followers shift by one more
    assert got[5] == [0, 2, 3] and got[6] == [1, 3, 4] and got[9] == [4, 1, 2]


def test_random_start_is_injectable_and_leaders_spread_evenly():
    a = assign_replicas_to_brokers([3, 1, 2], 6, 2, rng=random.Random(7))
    b = assign_replicas_to_brokers([1, 2, 3], 6, 2, rng=random.Random(7))
    assert a == b  # brokers are taken in id order; same seed, same result
    assert Counter(r[0] for r in a.values()) == {1: 2, 2: 2, 3: 2}
    assert Counter(x for r in a.values() for x in r) == {1: 4, 2: 4, 3: 4}
    assert all(len(set(r)) == 2 for r in a.values())
    starts = {tuple(assign_replicas_to_brokers([1, 2, 3], 1, 1, rng=random.Random(s))[0])
              for s in range(20)}
    assert len(starts) > 1  # the start really is random


def test_assignment_errors_carry_kafka_codes():
    with pytest.raises(AssignmentError) as e:
        assign_replicas_to_brokers([1, 2], 3, 3)
    assert e.value.error_code == ErrorCode.INVALID_REPLICATION_FACTOR
    assert str(e.value) == "Replication factor: 3 larger than available brokers: 2."
    with pytest.raises(AssignmentError) as e:
        assign_replicas_to_brokers([1, 2], 3, 0)
    assert e.value.error_code == ErrorCode.INVALID_REPLICATION_FACTOR
    with pytest.raises(AssignmentError) as e:
        assign_replicas_to_brokers([1, 2], 0, 1)
    assert e.value.error_code == ErrorCode.INVALID_PARTITIONS
    with pytest.raises(AssignmentError) as e:
        assign_replicas_to_brokers([BrokerMetadata(1, "a"), BrokerMetadata(2)], 1, 1)
    assert e.value.error_code == ErrorCode.UNKNOWN_SERVER_ERROR


def test_rack_aware_matches_kafkas_documented_example():
    racks = {0: "rack1", 1: "rack3", 2: "rack3", 3: "rack2", 4: "rack2", 5: "rack1"}
    assert rack_alternated_broker_list(racks) == [0, 3, 1, 5, 4, 2]
    brokers = [BrokerMetadata(b, r) for b, r in racks.items()]
    got = assign_replicas_to_brokers(brokers, 7, 3, fixed_start_index=0)
    assert [got[p] for p in range(6)] == [[0, 3, 1], [3, 1, 5], [1, 5, 4], [5, 4, 2],
                                         [4, 2, 0], [2, 0, 3]]
    assert got[6] == [0, 4, 2]
    for replicas in got.values():  # three racks, three replicas: one per rack
        assert len({racks[b] for b in replicas}) == 3


def test_added_partitions_continue_where_partition_zero_starts():
    existing = {0: [2, 3, 1], 1: [3, 1, 2]}
    got = new_partitions_assignment("t", existing, [1, 2, 3], 4)
    # start index = position of broker 2 (first id >= 2) = 1; numbering from 2
    assert got == assign_replicas_to_brokers([1, 2, 3], 2, 3, fixed_start_index=1,
                                             start_partition_id=2)
    assert sorted(got) == [2, 3] and all(len(r) == 3 for r in got.values())


def test_added_partitions_errors_and_manual_assignment():
    existing = {0: [1, 2], 1: [2, 1]}
    with pytest.raises(AssignmentError) as e:
        new_partitions_assignment("t", existing, [1, 2], 2)
    assert e.value.error_code == ErrorCode.INVALID_PARTITIONS
    assert "Topic t currently has 2 partitions, 2 would not be an increase." in str(e.value)
    assert new_partitions_assignment("t", existing, [1, 2, 3], 3, manual={2: [3, 1]}) == {2: [3, 1]}
    cases = [({2: []}, ErrorCode.INVALID_REPLICA_ASSIGNMENT),
             ({2: [1, 1]}, ErrorCode.INVALID_REPLICA_ASSIGNMENT),
             ({2: [1, 9]}, ErrorCode.BROKER_NOT_AVAILABLE),
             ({2: [1, 2, 3]}, ErrorCode.INVALID_REPLICA_ASSIGNMENT)]
    for manual, code in cases:
        with pytest.raises(AssignmentError) as e:
            new_partitions_assignment("t", existing, [1, 2, 3], 3, manual=manual)
        assert e.value.error_code == code, manual


def test_manual_topic_assignment_validation():
    validate_topic_assignment({0: [1, 2], 1: [2, 3]})
    for bad in ({0: [1, 2], 1: [2]}, {0: [1, 1]}, {0: [1], 2: [2]}):
        with pytest.raises(AssignmentError) as e:
            validate_topic_assignment(bad)
        assert e.value.error_code == ErrorCode.INVALID_REPLICA_ASSIGNMENT
