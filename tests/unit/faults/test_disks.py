"""The pure parts of the fault harness's log disks: names, throttle lines, counters."""
from __future__ import annotations

from tests.faults.disks import Limits, owner_pid, parse_serviced


def test_names_carry_the_owning_process_id_in_hex():
    assert owner_pid("kfz1f4-b0.img") == 500
    assert owner_pid("kfz1f4-b2-slow") == 500
    assert owner_pid("other-b0.img") is None
    assert owner_pid("kfzbr") is None


def test_limits_become_one_line_per_blkio_file_for_the_device():
    lines = Limits(write_bps=262144, write_iops=8, read_bps=1048576, read_iops=20).files("7:3")
    assert lines == {"blkio.throttle.write_bps_device": "7:3 262144",
                     "blkio.throttle.write_iops_device": "7:3 8",
                     "blkio.throttle.read_bps_device": "7:3 1048576",
                     "blkio.throttle.read_iops_device": "7:3 20"}


def test_serviced_counts_the_devices_total_only():
    text = ("7:0 Read 2\n7:0 Write 12\n7:0 Sync 12\n7:0 Async 2\n7:0 Discard 0\n7:0 Total 14\n"
            "7:1 Read 5\n7:1 Total 5\nTotal 19\n")
    assert parse_serviced(text, "7:0") == 14
    assert parse_serviced(text, "7:1") == 5
    assert parse_serviced(text, "7:9") == 0
    assert parse_serviced("", "7:0") == 0
