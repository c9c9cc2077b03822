"""``socket.send.buffer.bytes`` and ``socket.receive.buffer.bytes``, as Kafka's Acceptor
applies them: SO_SNDBUF on every accepted socket, SO_RCVBUF on the listening socket (so
accepted sockets start with it), -1 for the OS's own autotuned sizes; TCP_NODELAY and
SO_KEEPALIVE always. Then a broker whose buffers are a few KiB still serves megabyte
fetches whole: the response goes out in hundreds of rounds of the writer's writability
callback."""
from __future__ import annotations

import asyncio
import socket
from types import SimpleNamespace
from typing import Iterator

import pytest
import uvloop

from kafpy.broker.apis import ApiRegistry
from kafpy.broker.config import KafkaConfig
from kafpy.broker.server import KafkaConnection, SocketServer
from tests.integration.broker.conftest import topic_name
from tests.support.kafpy_broker import KafpyBroker
from tests.support.ports import LOOPBACK


def plain_accepted_sizes() -> tuple[int, int]:
    """SO_SNDBUF and SO_RCVBUF of a socket accepted with nothing set: the OS's defaults."""
    with socket.create_server((LOOPBACK, 0)) as srv:
        with socket.create_connection(srv.getsockname()[:2]):
            accepted, _ = srv.accept()
            with accepted:
                return (accepted.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF),
                        accepted.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF))


def accepted_socket_options(settings: dict[str, str]) -> dict[str, int]:
    """Starts a SocketServer on a loopback port with ``settings``, connects once, and reads
    the options of the socket the server accepted."""
    loop = uvloop.new_event_loop()
    config = KafkaConfig({"listeners": f"PLAINTEXT://{LOOPBACK}:0", **settings})
    services = SimpleNamespace(quotas=None, share_partitions=None, user_configs=None)
    server = SocketServer(config, ApiRegistry([]), services, loop)  # type: ignore[arg-type]

    async def run() -> dict[str, int]:
        await server.start()
        try:
            _, writer = await asyncio.open_connection(LOOPBACK, server.bound_ports["PLAINTEXT"])
            try:
                for _ in range(200):
                    if server.connections:
                        break
                    await asyncio.sleep(0.01)
                conn: KafkaConnection = next(iter(server.connections))
                assert conn.transport is not None
                sock = conn.transport.get_extra_info("socket")
                return {
                    "sndbuf": sock.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF),
                    "rcvbuf": sock.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF),
                    "keepalive": sock.getsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE),
                    "nodelay": sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY),
                }
            finally:
                writer.close()
        finally:
            await server.stop_accepting()
            await server.drain_and_close()

    try:
        return loop.run_until_complete(run())
    finally:
        loop.close()


def test_configured_sizes_are_set_on_accepted_sockets() -> None:
    opts = accepted_socket_options({"socket.send.buffer.bytes": "102400",
                                    "socket.receive.buffer.bytes": "65536"})
    # Linux doubles what setsockopt asks for (the bookkeeping overhead), as Java's sockets see too
    assert opts == {"sndbuf": 2 * 102400, "rcvbuf": 2 * 65536, "keepalive": 1, "nodelay": 1}


def test_the_defaults_are_kafkas_100_kib() -> None:
    opts = accepted_socket_options({})
    assert (opts["sndbuf"], opts["rcvbuf"]) == (2 * 102400, 2 * 102400)


def test_minus_one_leaves_the_os_sizes() -> None:
    opts = accepted_socket_options({"socket.send.buffer.bytes": "-1", "socket.receive.buffer.bytes": "-1"})
    assert (opts["sndbuf"], opts["rcvbuf"]) == plain_accepted_sizes()
    assert opts["keepalive"] == 1 and opts["nodelay"] == 1


# ----------------------------------------------------------------- big fetches, tiny buffers
@pytest.fixture(scope="module")
def tiny_buffers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[KafpyBroker]:
    work = tmp_path_factory.mktemp("kafpy-tiny-buffers")
    b = KafpyBroker(work_dir=work, log_dir=work / "logs", start_timeout=150, overrides={
        "socket.send.buffer.bytes": 4096, "socket.receive.buffer.bytes": 4096})
    b.start()
    try:
        yield b
    finally:
        b.stop()


@pytest.mark.timeout(180)
def test_megabyte_fetches_arrive_whole_through_a_4_kib_send_buffer(tiny_buffers: KafpyBroker) -> None:
    from kafka import KafkaConsumer, KafkaProducer, TopicPartition
    from kafka.admin import KafkaAdminClient, NewTopic

    topic = topic_name("tiny-buffers")
    admin = KafkaAdminClient(bootstrap_servers=tiny_buffers.bootstrap)
    try:
        admin.create_topics([NewTopic(topic, 1, 1)])
    finally:
        admin.close()
    values = [bytes([i % 251]) * 20_000 + i.to_bytes(4, "big") for i in range(300)]   # ~6 MB
    producer = KafkaProducer(bootstrap_servers=tiny_buffers.bootstrap, batch_size=256 * 1024,
                             linger_ms=20, max_request_size=4 * 1024 * 1024)
    try:
        for v in values:
            producer.send(topic, value=v, partition=0)
        producer.flush(60)
    finally:
        producer.close(10)

    tp = TopicPartition(topic, 0)
    consumer = KafkaConsumer(bootstrap_servers=tiny_buffers.bootstrap, consumer_timeout_ms=15000,
                             max_partition_fetch_bytes=2 * 1024 * 1024, fetch_max_bytes=8 * 1024 * 1024)
    try:
        consumer.assign([tp])
        consumer.seek_to_beginning(tp)
        got = []
        for m in consumer:
            got.append((m.offset, m.value))
            if len(got) == len(values):
                break
    finally:
        consumer.close()
    assert [o for o, _ in got] == list(range(len(values)))
    assert [v for _, v in got] == values
