"""Three ControllerServers in this test's event loop, on real TCP sockets with the raft
requests going through NetworkClient: they elect one leader, records appended on the leader
are committed on all three (and handed to every node's listener in order), a record is
committed with one voter of three down (a majority) but not with two down, and the
controller listener serves the controller's APIs only."""
from __future__ import annotations

import asyncio
import socket
import struct
from pathlib import Path
from typing import Callable, Sequence


from kafpy.broker.config import KafkaConfig
from kafpy.broker.controller_server import ControllerServer
from kafpy.protocol.messages import (
    ApiVersionsRequest, ApiVersionsResponse, DescribeClusterRequest, DescribeClusterResponse,
)
from kafpy.metadata.controller.quorum_controller import encode_records
from kafpy.protocol.messages import ConfigRecord
from kafpy.raft.kafka_raft_client import Batch, LeaderAndEpoch

from tests.integration.raft.quorum_support import (
    call, controller_properties, describe_quorum, kafpy_format, three_ports, write_properties,
)
from tests.support.ports import LOOPBACK
from tests.support.wire import encode_request, roundtrip

CLUSTER_ID = "q1ZlA6B0TG2yjsT4cBnu3g"


def record(value: str) -> bytes:
    """A metadata record (every controller replays what the log commits)."""
    (encoded,) = encode_records([ConfigRecord(resource_type=4, resource_name="", name="x", value=value)])
    return encoded


ONE, TWO, THREE, FOUR = OURS = tuple(record(v) for v in ("one", "two", "three", "four"))


class Recorder:
    def __init__(self) -> None:
        self.records: list[bytes] = []
        self.leaders: list[LeaderAndEpoch] = []

    def handle_commit(self, batches: Sequence[Batch]) -> None:
        # the active controller writes its own records too (bootstrap, NoOpRecords): keep the test's
        self.records.extend(r for b in batches if not b.control for r in b.records if r in OURS)

    def handle_leader_change(self, leader: LeaderAndEpoch) -> None:
        self.leaders.append(leader)


async def wait_until(predicate: Callable[[], bool], timeout: float = 20.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError("condition not reached in time")
        await asyncio.sleep(0.02)


def leaders(servers: dict[int, ControllerServer]) -> list[int]:
    return [n for n, s in servers.items() if s.raft is not None and s.raft.core.is_leader()]


def test_three_controllers_on_sockets(tmp_path: Path) -> None:
    ports = three_ports()
    configs = {}
    for node in ports:
        path = write_properties(tmp_path / f"c{node}.properties", controller_properties(node, ports, tmp_path))
        kafpy_format(path, CLUSTER_ID)
        configs[node] = KafkaConfig.from_file(str(path), [])
    asyncio.run(_run(configs, ports))


async def _run(configs: dict[int, KafkaConfig], ports: dict[int, int]) -> None:
    servers = {n: ControllerServer(c) for n, c in configs.items()}
    recorders = {n: Recorder() for n in servers}
    try:
        for node, server in servers.items():
            await server.start()
            assert server.raft is not None
            server.raft.register(recorders[node])
        await wait_until(lambda: len(leaders(servers)) == 1)
        leader = leaders(servers)[0]
        raft = servers[leader].raft
        assert raft is not None
        raft.schedule_append([ONE, TWO])
        await wait_until(lambda: all(r.records == [ONE, TWO] for r in recorders.values()))
        assert all(r.leaders[-1] == LeaderAndEpoch(leader, raft.core.epoch) for r in recorders.values())
        # the quorum controller appends too (its no-op records), so the log may grow between
        # the answer and the check: ask again until one answer matches the log as it stands
        for _ in range(50):
            quorum = await asyncio.to_thread(describe_quorum, ports[leader])
            if quorum.high_watermark == raft.core.log.end_offset():
                break
            await asyncio.sleep(0.1)
        assert quorum.leader_id == leader and quorum.high_watermark == raft.core.log.end_offset()

        # one follower down: the leader and the other follower are a majority
        followers = [n for n in servers if n != leader]
        await servers[followers[0]].shutdown()
        raft.schedule_append([THREE])
        await wait_until(lambda: recorders[followers[1]].records[-1:] == [THREE])
        assert recorders[leader].records[-1] == THREE
        # both down: appended, never committed
        await servers[followers[1]].shutdown()
        hw = raft.core.high_watermark()
        offset = raft.schedule_append([FOUR])
        await asyncio.sleep(0.5)
        # (the active controller may append a NoOpRecord after it, never committed either)
        assert raft.core.log.end_offset() > offset and raft.core.high_watermark() == hw
        assert recorders[leader].records[-1] == THREE
    finally:
        for server in servers.values():
            await server.shutdown()


def test_controller_listener_serves_only_the_controller_apis(tmp_path: Path) -> None:
    ports = three_ports()
    path = write_properties(tmp_path / "c1.properties", controller_properties(1, ports, tmp_path))
    kafpy_format(path, CLUSTER_ID)
    config = KafkaConfig.from_file(str(path), [])

    async def run() -> None:
        server = ControllerServer(config)
        await server.start()
        try:
            versions = await asyncio.to_thread(call, ports[1], ApiVersionsRequest(
                client_software_name="t", client_software_version="1"), ApiVersionsResponse, 3)
            # the raft APIs (voter changes included), DescribeQuorum, DescribeCluster, and what the
            # quorum controller serves: Kafka 4.4's controller APIs but for delegation tokens, SASL
            # and DescribeUserScramCredentials (FetchSnapshot, 59, and AssignReplicasToDirs, 73, included)
            assert sorted(k.api_key for k in versions.api_keys) == [
                1, 18, 19, 20, 29, 30, 31, 32, 33, 37, 43, 44, 45, 46, 49, 51, 52, 53, 54, 55, 56, 57, 58,
                59, 60, 62, 63, 64, 67, 70, 73, 80, 81, 82]
            # DescribeCluster for brokers: INVALID_REQUEST (42) at v0, MISMATCHED_ENDPOINT_TYPE (114)
            # at v1, UNSUPPORTED_ENDPOINT_TYPE (115) for an unknown type; for controllers it
            # lists the voters on this listener
            for request, version, error in ((DescribeClusterRequest(), 0, 42),
                                            (DescribeClusterRequest(endpoint_type=1), 1, 114),
                                            (DescribeClusterRequest(endpoint_type=7), 1, 115)):
                refused = await asyncio.to_thread(call, ports[1], request, DescribeClusterResponse, version)
                assert refused.error_code == error
            cluster = await asyncio.to_thread(call, ports[1], DescribeClusterRequest(endpoint_type=2),
                                              DescribeClusterResponse, 1)
            assert (cluster.error_code, cluster.cluster_id) == (0, CLUSTER_ID)
            assert [(b.broker_id, b.port) for b in cluster.brokers] == sorted(ports.items())
            assert cluster.cluster_authorized_operations == -2147483648
            ops = (await asyncio.to_thread(call, ports[1], DescribeClusterRequest(
                endpoint_type=2, include_cluster_authorized_operations=True), DescribeClusterResponse, 1)
                   ).cluster_authorized_operations
            # no authorizer: every cluster operation (ALTER 7, CLUSTER_ACTION 9), never READ (3)
            assert ops & (1 << 7) and ops & (1 << 9) and not ops & (1 << 3)
            # ApiVersions at a version it does not know: v0 UNSUPPORTED_VERSION (35) with the ranges
            frame = await asyncio.to_thread(roundtrip, LOOPBACK, ports[1], encode_request(18, 99, 5))
            assert struct.unpack_from(">ih", frame, 0) == (5, 35)
            # Metadata (3) is not enabled on a controller listener: the connection is closed
            closed = await asyncio.to_thread(_closed_after, ports[1], encode_request(3, 0, 1, b"\x00\x00\x00\x00"))
            assert closed
        finally:
            await server.shutdown()
    asyncio.run(run())


def _closed_after(port: int, frame: bytes) -> bool:
    with socket.create_connection((LOOPBACK, port), timeout=5) as sock:
        sock.settimeout(5)
        sock.sendall(frame)
        try:
            return sock.recv(1) == b""
        except ConnectionResetError:
            return True


