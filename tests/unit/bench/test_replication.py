"""bench.replication's pure helpers: the failover topic's layout and the side-by-side table."""
from __future__ import annotations

import math

from bench.replication import format_table, replica_assignment, row_names, table_rows


def test_replica_assignment_puts_partition_0_on_the_chosen_leader_and_rotates():
    assert replica_assignment([0, 1, 2], 1, 4) == "1:2:0,2:0:1,0:1:2,1:2:0"


def test_replica_assignment_uses_the_given_ids():
    assert replica_assignment([5, 7, 9], 9, 2) == "9:5:7,5:7:9"


def test_row_names_carry_the_record_counts():
    names = row_names(1_000_000)
    assert names[0] == "produce acks=all 1000k x 100 B  MB/s"
    assert names[2] == "produce acks=all 200k x 1 KiB  MB/s"
    assert len(names) == len(set(names)) == 7


def test_table_rows_take_medians_and_kafpy_over_kafka():
    results = {"kafpy": {"a": [10.0, 30.0, 20.0], "b": [1.0], "only ours": [3.0]},
               "kafka": {"a": [40.0, 40.0, 50.0], "b": [0.0]}}
    rows = table_rows(results)
    assert [r[0] for r in rows] == ["a", "b"]
    assert rows[0] == ("a", 20.0, 40.0, 0.5)
    assert math.isnan(rows[1][3])


def test_table_rows_without_kafka_results_are_empty():
    assert table_rows({"kafpy": {"a": [1.0]}, "kafka": {}}) == []


def test_format_table_has_a_header_and_one_line_per_row():
    text = format_table([("produce MB/s", 12.5, 50.0, 0.25)])
    header, line = text.splitlines()
    assert header.split() == ["row", "kafpy", "Kafka", "3.9.1", "ratio"]
    assert line.split()[-3:] == ["12.50", "50.00", "0.25"]
