"""A blocking raw Kafka connection for tests that must control every byte (requests encoded
with the project's codec or written by hand, responses decoded the same way), and small
helpers shared by the broker integration tests."""
from __future__ import annotations

import socket
import struct
import time
from typing import Any

from kafpy.protocol import codec
from kafpy.protocol.messages import CreateTopicsRequest, ProduceRequest, RequestHeader

PRODUCE = 0
CREATE_TOPICS = 19


class RawConnection:
    def __init__(self, host: str, port: int, timeout: float = 10.0) -> None:
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.sock.settimeout(timeout)
        self.correlation = 0

    def close(self) -> None:
        self.sock.close()

    def __enter__(self) -> "RawConnection":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def send_frame(self, payload: bytes) -> None:
        """A request without its size prefix; the prefix is added here."""
        self.sock.sendall(struct.pack(">i", len(payload)) + payload)

    def send_raw(self, data: bytes) -> None:
        self.sock.sendall(data)

    def frame(self, api_key: int, version: int, body: Any) -> bytes:
        """The encoded request frame (with size prefix) for the next correlation id."""
        self.correlation += 1
        header = RequestHeader(request_api_key=api_key, request_api_version=version,
                               correlation_id=self.correlation, client_id="kafpy-test")
        return codec.encode_request(header, body)

    def request(self, api_key: int, version: int, body: Any) -> Any:
        self.sock.sendall(self.frame(api_key, version, body))
        corr, resp = codec.decode_response(api_key, version, self.read_frame())
        assert corr == self.correlation
        return resp

    def _recv_exact(self, n: int) -> bytes:
        buf = bytearray()
        while len(buf) < n:
            chunk = self.sock.recv(n - len(buf))
            if not chunk:
                raise ConnectionError(f"closed after {len(buf)} of {n} bytes")
            buf += chunk
        return bytes(buf)

    def read_frame(self) -> bytes:
        (size,) = struct.unpack(">i", self._recv_exact(4))
        return self._recv_exact(size)

    def closed_by_peer(self) -> bool:
        """True when the broker closes the connection (EOF or reset) before the timeout,
        False when it sends something instead."""
        try:
            data = self.sock.recv(65536)
        except (ConnectionResetError, BrokenPipeError):
            return True
        except socket.timeout:
            return False
        return data == b""


def create_topic(bs_port: int, name: str, partitions: int = 1, configs: dict[str, str] | None = None) -> None:
    with RawConnection("127.0.0.1", bs_port) as c:
        T = CreateTopicsRequest
        resp = c.request(CREATE_TOPICS, 5, T(timeout_ms=30000, validate_only=False, topics=[T.CreatableTopic(
            name=name, num_partitions=partitions, replication_factor=1, assignments=[],
            configs=[T.CreatableTopicConfig(name=k, value=v) for k, v in (configs or {}).items()])]))
        assert resp.topics[0].error_code == 0, resp.topics[0].error_message


def produce_request(topic: str, records: bytes, partition: int = 0, acks: int = -1) -> ProduceRequest:
    P = ProduceRequest
    return P(transactional_id=None, acks=acks, timeout_ms=30000, topic_data=[
        P.TopicProduceData(name=topic, partition_data=[P.PartitionProduceData(index=partition, records=records)])])


def read_all(bootstrap: str, topic: str, partition: int = 0) -> list[tuple[int, bytes | None, bytes | None]]:
    """Every record of a partition, read with kafka-python (no group)."""
    from kafka import KafkaConsumer, TopicPartition
    tp = TopicPartition(topic, partition)
    consumer = KafkaConsumer(bootstrap_servers=bootstrap, consumer_timeout_ms=3000)
    try:
        consumer.assign([tp])
        end = consumer.end_offsets([tp])[tp]
        consumer.seek_to_beginning(tp)
        out: list[tuple[int, bytes | None, bytes | None]] = []
        deadline = time.monotonic() + 60
        while len(out) < end and time.monotonic() < deadline:
            for recs in consumer.poll(timeout_ms=500).values():
                out += [(m.offset, m.key, m.value) for m in recs]
        return out
    finally:
        consumer.close()


def produce_with_client(bootstrap: str, topic: str, values: list[bytes]) -> list[int]:
    from kafka import KafkaProducer
    p = KafkaProducer(bootstrap_servers=bootstrap)
    try:
        futs = [p.send(topic, value=v, partition=0) for v in values]
        p.flush(30)
        return [f.get(30).offset for f in futs]
    finally:
        p.close(10)
