"""The converge-failure diagnosis of tests/faults (diagnose.py), on lines as Cluster.unhealthy
writes them and on a broker log written here."""
from __future__ import annotations

from pathlib import Path

from tests.faults import diagnose

UNHEALTHY = ["b0: __consumer_offsets-2 leader 1 isr [1, 2]", "b0: __consumer_offsets-3 leader 2 isr [2, 1]",
             "b1: down", "b2: __consumer_offsets-2 leader 1 isr [1, 2]"]


def test_per_broker_counts_each_brokers_view_and_names_its_first_lines() -> None:
    assert diagnose.per_broker(UNHEALTHY, first=1) == (
        "b0: 2 (__consumer_offsets-2 leader 1 isr [1, 2]); b1: 1 (down); b2: 1 (__consumer_offsets-2 leader 1 isr [1, 2])")


def test_first_partition_skips_lines_that_name_no_partition() -> None:
    assert diagnose.first_partition(["b1: down", *UNHEALTHY[:1]]) == ("__consumer_offsets", 2, 1, [1, 2])
    assert diagnose.first_partition(["b1: down", "b0: no Metadata (OSError)"]) is None


def test_hints_quote_each_brokers_last_lines_about_that_partition_only(tmp_path: Path) -> None:
    log = tmp_path / "b1.log"
    log.write_text("\n".join([
        "INFO [Partition __consumer_offsets-2 broker=1] Leader starts at leader epoch 1",
        "INFO [Partition __consumer_offsets-20 broker=1] Leader starts at leader epoch 1",
        "INFO [Partition __consumer_offsets-2 broker=1] Expanding ISR from [1, 2] to [1, 2, 0]",
    ]) + "\n")
    text = diagnose.hints(UNHEALTHY, {1: log, 2: tmp_path / "missing.log"})
    assert text.startswith("__consumer_offsets-2 (leader 1, isr [1, 2]) || b1 log: ")
    assert "Expanding ISR" in text and "__consumer_offsets-20" not in text
    assert "b2 log: (no log:" in text
