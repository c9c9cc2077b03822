"""The process's disk bytes, garbage collections and threads under the names Strimzi's
dashboard queries (``metrics.process_metrics``)."""
import gc
from pathlib import Path

from prometheus_client import CollectorRegistry, generate_latest

from kafpy.metrics.process_metrics import GcTimer, RuntimeCollector, read_proc_io, thread_count


def _samples(collector: RuntimeCollector) -> dict[str, float]:
    registry = CollectorRegistry(auto_describe=False)
    registry.register(collector)
    text = generate_latest(registry).decode()
    return {line.rsplit(" ", 1)[0]: float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
            if line and not line.startswith("#")}


def test_disk_bytes_read_from_proc_self_io_fields(tmp_path: Path) -> None:
    io = tmp_path / "io"
    io.write_text("rchar: 10\nwchar: 20\nsyscr: 1\nsyscw: 2\nread_bytes: 4096\nwrite_bytes: 8192\n"
                  "cancelled_write_bytes: 0\n")
    s = _samples(RuntimeCollector(GcTimer(), proc_io=io, tasks=tmp_path))
    assert s["kafka_server_kafkaserver_linux_disk_read_bytes"] == 4096
    assert s["kafka_server_kafkaserver_linux_disk_write_bytes"] == 8192


def test_no_disk_gauges_where_the_kernel_has_no_io_accounting(tmp_path: Path) -> None:
    s = _samples(RuntimeCollector(GcTimer(), proc_io=tmp_path / "missing", tasks=tmp_path))
    assert not any(k.startswith("kafka_server_kafkaserver_linux_disk") for k in s)


def test_the_real_proc_self_io_has_both_fields() -> None:
    io = read_proc_io()
    assert io["write_bytes"] >= 0 and io["read_bytes"] >= 0


def test_gc_timer_counts_and_times_each_generation() -> None:
    ticks = iter([1.0, 1.25, 2.0, 2.5])
    timer = GcTimer(clock=lambda: next(ticks))
    timer.on_gc("start", {"generation": 0})
    timer.on_gc("stop", {"generation": 0, "collected": 3, "uncollectable": 0})
    timer.on_gc("start", {"generation": 2})
    timer.on_gc("stop", {"generation": 2, "collected": 0, "uncollectable": 0})
    s = _samples(RuntimeCollector(timer))
    assert s['jvm_gc_collection_seconds_count{gc="generation0"}'] == 1
    assert s['jvm_gc_collection_seconds_sum{gc="generation0"}'] == 0.25
    assert s['jvm_gc_collection_seconds_count{gc="generation2"}'] == 1
    assert s['jvm_gc_collection_seconds_sum{gc="generation2"}'] == 0.5
    assert s['jvm_gc_collection_seconds_count{gc="generation1"}'] == 0


def test_the_shared_timer_sees_real_collections() -> None:
    timer = GcTimer.shared()
    assert GcTimer.shared() is timer
    before = timer.counts[2]
    gc.collect()
    assert timer.counts[2] == before + 1


def test_threads_are_the_process_tasks(tmp_path: Path) -> None:
    for tid in ("100", "101", "102"):
        (tmp_path / tid).mkdir()
    assert thread_count(tmp_path) == 3
    assert thread_count() >= 1
    s = _samples(RuntimeCollector(GcTimer(), tasks=tmp_path))
    assert s["jvm_threads_current"] == 3
