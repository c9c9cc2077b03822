"""The clients of a fault run, each on its own thread, writing what they see to the History:
producers (kafka-python and confluent-kafka; idempotent acks=all, plain acks=all, acks=1),
two group consumers (one of each library) committing after each poll, and an observer that
reads the group's committed offsets once a second. Values are ``<producer>:<n>``, so the
checker knows who sent what and in which order."""
from __future__ import annotations

import threading
import time

from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition as CTP
from kafka import KafkaConsumer, KafkaProducer
from kafka.structs import OffsetAndMetadata

from .history import History

GROUP = "chaos-group"

# name -> (library, idempotent, acks)
PRODUCERS = {
    "kp-idem": ("kafka-python", True, "all"),
    "kp-acks1": ("kafka-python", False, 1),
    "ck-idem": ("confluent", True, "all"),
    "ck-all": ("confluent", False, "all"),
}
IDEMPOTENT = {n for n, (_, idem, _) in PRODUCERS.items() if idem}
ACKS_ALL = {n for n, (_, _, acks) in PRODUCERS.items() if acks == "all"}


class Worker:
    """A loop on a daemon thread until ``stop()``; errors end up in the History."""

    def __init__(self, name: str, history: History) -> None:
        self.name = name
        self.history = history
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._main, name=name, daemon=True)

    def start(self) -> "Worker":
        self.thread.start()
        return self

    def _main(self) -> None:
        try:
            self.run()
        except Exception as e:  # noqa: BLE001 - a client dying is an event, not a harness crash
            self.history.record("client_died", client=self.name, error=repr(e))

    def run(self) -> None:
        raise NotImplementedError

    def stop(self, timeout: float = 60) -> None:
        self._stop.set()
        self.thread.join(timeout)


class ProducerWorker(Worker):
    def __init__(self, name: str, history: History, bootstrap: list[str], topic: str, rate: float):
        super().__init__(name, history)
        self.library, self.idempotent, self.acks = PRODUCERS[name]
        self.bootstrap, self.topic, self.rate = bootstrap, topic, rate

    def run(self) -> None:
        if self.library == "kafka-python":
            self._run_kafka_python()
        else:
            self._run_confluent()

    def _ack(self, value: str, partition: int, offset: int) -> None:
        self.history.record("ack", producer=self.name, value=value, partition=partition, offset=offset)

    def _error(self, value: str, error: object) -> None:
        self.history.record("error", producer=self.name, value=value, error=str(error)[:200])

    def _run_kafka_python(self) -> None:
        extra = {"enable_idempotence": True, "max_in_flight_requests_per_connection": 5} \
            if self.idempotent else {"retries": 0}
        p = KafkaProducer(bootstrap_servers=self.bootstrap, acks=self.acks, linger_ms=5,
                          request_timeout_ms=8000, max_block_ms=5000, delivery_timeout_ms=60000,
                          **extra)
        n = 0
        try:
            while not self._stop.is_set():
                value = f"{self.name}:{n}"
                n += 1
                self.history.record("send", producer=self.name, value=value)
                try:
                    fut = p.send(self.topic, value.encode())
                except Exception as e:  # noqa: BLE001 - e.g. no metadata within max_block_ms
                    self._error(value, e)
                    continue
                fut.add_callback(lambda md, v=value: self._ack(v, md.partition, md.offset))
                fut.add_errback(lambda e, v=value: self._error(v, e))
                time.sleep(1 / self.rate)
            p.flush(timeout=60)
        finally:
            p.close(timeout=5)

    def _run_confluent(self) -> None:
        p = Producer({"bootstrap.servers": ",".join(self.bootstrap), "log_level": 2, "acks": self.acks,
                      "enable.idempotence": self.idempotent, "linger.ms": 5,
                      "message.timeout.ms": 60000, "socket.timeout.ms": 8000})

        def delivered(err, msg) -> None:
            value = msg.value().decode()
            if err is None:
                self._ack(value, msg.partition(), msg.offset())
            else:
                self._error(value, err)

        n = 0
        while not self._stop.is_set():
            value = f"{self.name}:{n}"
            n += 1
            self.history.record("send", producer=self.name, value=value)
            try:
                p.produce(self.topic, value.encode(), on_delivery=delivered)
            except (BufferError, KafkaException) as e:
                self._error(value, e)
            p.poll(1 / self.rate)
        p.flush(60)


class KafkaPythonConsumer(Worker):
    def __init__(self, name: str, history: History, bootstrap: list[str], topic: str):
        super().__init__(name, history)
        self.bootstrap, self.topic = bootstrap, topic

    def run(self) -> None:
        c = KafkaConsumer(self.topic, group_id=GROUP, bootstrap_servers=self.bootstrap,
                          enable_auto_commit=False, auto_offset_reset="earliest",
                          session_timeout_ms=10000, heartbeat_interval_ms=1000,
                          request_timeout_ms=15000, max_poll_records=200)
        try:
            while not self._stop.is_set():
                batch = c.poll(timeout_ms=500)
                offsets = {}
                for tp, recs in batch.items():
                    for r in recs:
                        self.history.record("consume", consumer=self.name, partition=tp.partition,
                                            offset=r.offset, value=r.value.decode())
                    offsets[tp] = OffsetAndMetadata(recs[-1].offset + 1, "", -1)
                if offsets:
                    try:
                        c.commit(offsets)
                    except Exception as e:  # noqa: BLE001 - a failed commit is allowed
                        self.history.record("commit_failed", consumer=self.name, error=str(e)[:200])
                        continue
                    for tp, om in offsets.items():
                        self.history.record("commit", consumer=self.name, partition=tp.partition,
                                            offset=om.offset)
        finally:
            c.close(autocommit=False)


class ConfluentConsumer(Worker):
    def __init__(self, name: str, history: History, bootstrap: list[str], topic: str):
        super().__init__(name, history)
        self.bootstrap, self.topic = bootstrap, topic

    def run(self) -> None:
        c = Consumer({"bootstrap.servers": ",".join(self.bootstrap), "log_level": 2, "group.id": GROUP,
                      "enable.auto.commit": False, "auto.offset.reset": "earliest",
                      "session.timeout.ms": 10000, "heartbeat.interval.ms": 1000})
        c.subscribe([self.topic])
        try:
            while not self._stop.is_set():
                msgs = c.consume(num_messages=200, timeout=0.5)
                good = [m for m in msgs if m.error() is None]
                for m in good:
                    value = m.value()
                    assert value is not None
                    self.history.record("consume", consumer=self.name, partition=m.partition(),
                                        offset=m.offset(), value=value.decode())
                if not good:
                    continue
                try:
                    done = c.commit(asynchronous=False)
                except KafkaException as e:
                    self.history.record("commit_failed", consumer=self.name, error=str(e)[:200])
                    continue
                for tp in done or []:
                    if tp.error is None and tp.offset >= 0:
                        self.history.record("commit", consumer=self.name, partition=tp.partition,
                                            offset=tp.offset)
        finally:
            c.close()


class CommittedObserver(Worker):
    """OffsetFetch for the group once a second (a consumer that never joins)."""

    def __init__(self, history: History, bootstrap: list[str], topic: str, partitions: int):
        super().__init__("observer", history)
        self.bootstrap, self.topic, self.partitions = bootstrap, topic, partitions

    def run(self) -> None:
        c = Consumer({"bootstrap.servers": ",".join(self.bootstrap), "log_level": 2, "group.id": GROUP})
        try:
            while not self._stop.wait(1.0):
                try:
                    tps = c.committed([CTP(self.topic, p) for p in range(self.partitions)], timeout=5)
                except KafkaException:
                    continue
                for tp in tps:
                    if tp.error is None and tp.offset >= 0:
                        self.history.record("committed", partition=tp.partition, offset=tp.offset)
        finally:
            c.close()


def read_back(bootstrap: list[str], topic: str, partitions: int, history: History,
              timeout: float = 60) -> dict[int, list[tuple[int, str]]]:
    """Every record of every partition from offset 0 to its high watermark, recorded as one
    ``final`` event per partition."""
    c = Consumer({"bootstrap.servers": ",".join(bootstrap), "log_level": 2, "group.id": "chaos-readback",
                  "enable.auto.commit": False, "enable.partition.eof": True})
    out: dict[int, list[tuple[int, str]]] = {p: [] for p in range(partitions)}
    try:
        ends = {p: c.get_watermark_offsets(CTP(topic, p), timeout=20)[1] for p in range(partitions)}
        c.assign([CTP(topic, p, 0) for p in range(partitions)])
        pending = {p for p, end in ends.items() if end > 0}
        deadline = time.monotonic() + timeout
        while pending and time.monotonic() < deadline:
            for m in c.consume(num_messages=1000, timeout=1.0):
                if m.error() is not None:
                    continue
                p, off, value = m.partition(), m.offset(), m.value()
                assert p is not None and off is not None and value is not None
                out[p].append((off, value.decode()))
                if off + 1 >= ends[p]:
                    pending.discard(p)
    finally:
        c.close()
    for p, recs in out.items():
        history.record("final", partition=p, end=ends[p], records=recs)
    return out


__all__ = ["ProducerWorker", "KafkaPythonConsumer", "ConfluentConsumer",
           "CommittedObserver", "read_back", "PRODUCERS", "IDEMPOTENT", "ACKS_ALL", "GROUP"]
