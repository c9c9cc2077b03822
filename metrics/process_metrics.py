"""The broker process's own figures, under the names Kafka's dashboards ask for:

- ``kafka_server_kafkaserver_linux_disk_read_bytes`` / ``_write_bytes``: the bytes this
  process made the block layer read and write, from ``/proc/self/io`` (``read_bytes``,
  ``write_bytes``), as Kafka's ``LinuxIoMetricsCollector`` reads them for
  ``kafka.server:type=KafkaServer,name=linux-disk-{read,write}-bytes``;
- ``jvm_gc_collection_seconds{gc}`` (count and sum): the collections of CPython's cyclic
  garbage collector per generation and the wall time they took, timed by a ``gc.callbacks``
  hook, which is what the JVM's collector summary reports for its collectors;
- ``jvm_threads_current``: the threads of the process (``/proc/self/task``), as the JVM
  reports its live threads.

There is no honest figure for ``jvm_memory_used_bytes`` (CPython has no heap with a size of
its own: objects live in the process's memory, which ``process_resident_memory_bytes``
already reports), so it is not exported.

Who may call it: ``web.metrics_endpoint`` registers ``RuntimeCollector`` when the HTTP
listener is on; ``GcTimer.install`` hooks the collector once per process.
"""
from __future__ import annotations

import gc
import os
import threading
import time
from pathlib import Path
from typing import Callable, Iterator

from prometheus_client.core import Metric

PROC_IO = Path("/proc/self/io")
PROC_TASKS = Path("/proc/self/task")


def read_proc_io(path: Path = PROC_IO) -> dict[str, int]:
    """``/proc/self/io``'s fields (``read_bytes``, ``write_bytes``...); empty where the kernel
    has none (not Linux, or no task I/O accounting)."""
    try:
        text = path.read_text()
    except OSError:
        return {}
    out: dict[str, int] = {}
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if value.strip().isdigit():
            out[key.strip()] = int(value)
    return out


def thread_count(tasks: Path = PROC_TASKS) -> int:
    """The process's threads (every OS thread, as the JVM counts its own); Python's threads
    where /proc is not there."""
    try:
        return len(os.listdir(tasks))
    except OSError:
        return threading.active_count()


class GcTimer:
    """Counts and times CPython's garbage collections per generation (``gc.callbacks``).

    Keeps per generation the collections seen and their total wall time. One per process
    (``GcTimer.shared``): the collector is the process's, not a broker's. The clock is
    passed in for tests."""

    _shared: "GcTimer | None" = None
    _lock = threading.Lock()

    def __init__(self, clock: Callable[[], float] = time.perf_counter) -> None:
        self.clock = clock
        generations = len(gc.get_stats())
        self.counts = [0] * generations
        self.seconds = [0.0] * generations
        self._started = 0.0

    @classmethod
    def shared(cls) -> "GcTimer":
        with cls._lock:
            if cls._shared is None:
                timer = cls()
                gc.callbacks.append(timer.on_gc)
                cls._shared = timer
            return cls._shared

    def on_gc(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._started = self.clock()
            return
        gen = info.get("generation", 0)
        if 0 <= gen < len(self.counts):
            self.counts[gen] += 1
            self.seconds[gen] += self.clock() - self._started


class RuntimeCollector:
    """Collects the disk bytes, GC and thread figures at scrape time (see the module)."""

    def __init__(self, gc_timer: GcTimer, proc_io: Path = PROC_IO, tasks: Path = PROC_TASKS) -> None:
        self.gc_timer = gc_timer
        self.proc_io = proc_io
        self.tasks = tasks

    def describe(self) -> list[Metric]:
        return []

    def collect(self) -> Iterator[Metric]:
        io = read_proc_io(self.proc_io)
        for field, what in (("read_bytes", "read"), ("write_bytes", "write")):
            if field in io:
                name = f"kafka_server_kafkaserver_linux_disk_{what}_bytes"
                m = Metric(name, f"kafka.server:type=KafkaServer,name=linux-disk-{what}-bytes "
                                 f"(/proc/self/io {field})", "gauge")
                m.add_sample(name, {}, io[field])
                yield m
        t = self.gc_timer
        s = Metric("jvm_gc_collection_seconds", "CPython garbage collections per generation and their wall time",
                   "summary")
        for gen, (n, secs) in enumerate(zip(t.counts, t.seconds)):
            labels = {"gc": f"generation{gen}"}
            s.add_sample("jvm_gc_collection_seconds_count", labels, n)
            s.add_sample("jvm_gc_collection_seconds_sum", labels, secs)
        yield s
        m = Metric("jvm_threads_current", "Threads of the broker process", "gauge")
        m.add_sample("jvm_threads_current", {}, thread_count(self.tasks))
        yield m
