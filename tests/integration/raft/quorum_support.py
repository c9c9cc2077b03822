"""Helpers for the controller-quorum tests: controller properties for three voters, formatting
their directories with our ``kafka-storage format``, and typed requests to a controller over a
plain socket (``kafpy.protocol.codec``), so the tests can ask any controller for
DescribeQuorum / DescribeCluster / ApiVersions."""
from __future__ import annotations

import socket
import struct
import subprocess
import sys
from pathlib import Path
from typing import Mapping, TypeVar

from kafpy.protocol import codec
from kafpy.protocol.message_base import Message
from kafpy.protocol.messages import (
    DescribeClusterRequest, DescribeClusterResponse, DescribeQuorumRequest, DescribeQuorumResponse,
    RequestHeader,
)

from tests.support.kafka_dist import java_command
from tests.support.ports import LOOPBACK, free_ports

REPO_ROOT = Path(__file__).resolve().parents[3]
FAST_QUORUM = {  # short timeouts so elections take well under a second
    "controller.quorum.election.timeout.ms": "500",
    "controller.quorum.fetch.timeout.ms": "1000",
    "controller.quorum.election.backoff.max.ms": "500",
    "controller.quorum.request.timeout.ms": "1000",
}
_R = TypeVar("_R", bound=Message)


def apache_server_command(config: Path, heap: str = "384m", log_level: str | None = None) -> list[str]:
    """Apache Kafka 4.4's ``kafka-server-start <config>`` on the suite's light JVM (serial GC, C1
    only, the server's CDS archive when one was dumped: kafka_dist.java_command), as
    ReferenceKafka runs it for the suite: a controller of these tests carries a few records a
    second, and G1 and C2 cost it about twice the CPU (and seconds more to start on a loaded
    machine, where a quorum's timeouts are short)."""
    return java_command("4", "kafka-server-start", [str(config)], heap=heap, log_level=log_level, light_jvm=True)


def voters_string(ports: Mapping[int, int]) -> str:
    return ",".join(f"{n}@{LOOPBACK}:{p}" for n, p in sorted(ports.items()))


def controller_properties(node_id: int, ports: Mapping[int, int], work: Path,
                          extra: Mapping[str, str] | None = None) -> dict[str, str]:
    return {
        "process.roles": "controller",
        "node.id": str(node_id),
        "controller.quorum.voters": voters_string(ports),
        "listeners": f"CONTROLLER://{LOOPBACK}:{ports[node_id]}",
        "controller.listener.names": "CONTROLLER",
        "listener.security.protocol.map": "CONTROLLER:PLAINTEXT",
        "log.dirs": str(work / f"controller-{node_id}"),
        **FAST_QUORUM,
        **(extra or {}),
    }


def write_properties(path: Path, props: Mapping[str, str]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"{k}={v}\n" for k, v in props.items()))
    return path


def kafpy_format(config: Path, cluster_id: str, *extra: str) -> None:
    """Our ``kafka-storage.sh format -t <id> -c <config> [extra ...]``."""
    subprocess.run([sys.executable, "-m", "kafpy.scripts.kafka_storage", "format", "-t", cluster_id,
                    "-c", str(config), *extra], check=True, capture_output=True, text=True, cwd=REPO_ROOT,
                   timeout=60)


def dynamic_quorum_properties(node_id: int, ports: Mapping[int, int], work: Path) -> dict[str, str]:
    """A controller of a dynamic quorum: bootstrap servers instead of static voters."""
    props = controller_properties(node_id, ports, work)
    del props["controller.quorum.voters"]
    props["controller.quorum.bootstrap.servers"] = ",".join(f"{LOOPBACK}:{p}" for _, p in sorted(ports.items()))
    return props


def initial_controllers(ports: Mapping[int, int], directory_ids: Mapping[int, str]) -> str:
    """``--initial-controllers``: id@host:port:directory-id for each voter."""
    return ",".join(f"{n}@{LOOPBACK}:{p}:{directory_ids[n]}" for n, p in sorted(ports.items()))


def three_ports() -> dict[int, int]:
    return dict(zip((1, 2, 3), free_ports(3)))


def call(port: int, request: Message, response_type: type[_R], version: int, timeout: float = 5.0) -> _R:
    """One request on a new connection; the decoded response."""
    api_key = request.API_KEY
    assert api_key is not None
    header = RequestHeader(request_api_key=api_key, request_api_version=version, correlation_id=11,
                           client_id="quorum-test")
    with socket.create_connection((LOOPBACK, port), timeout=timeout) as sock:
        sock.settimeout(timeout)
        sock.sendall(codec.encode_request(header, request))
        size = struct.unpack(">i", _recv(sock, 4))[0]
        corr, body = codec.decode_response(api_key, version, _recv(sock, size))
    assert corr == 11 and isinstance(body, response_type)
    return body


def _recv(sock: socket.socket, n: int) -> bytes:
    out = bytearray()
    while len(out) < n:
        chunk = sock.recv(n - len(out))
        if not chunk:
            raise ConnectionError("closed")
        out += chunk
    return bytes(out)


def describe_quorum(port: int) -> DescribeQuorumResponse.PartitionData:
    request = DescribeQuorumRequest(topics=[DescribeQuorumRequest.TopicData(
        topic_name="__cluster_metadata", partitions=[DescribeQuorumRequest.PartitionData(partition_index=0)])])
    response = call(port, request, DescribeQuorumResponse, 2)
    return response.topics[0].partitions[0]


def describe_quorum_response(port: int) -> DescribeQuorumResponse:
    """DescribeQuorum v2 whole: the partition's voters and observers and the voters' endpoints
    (``nodes``)."""
    request = DescribeQuorumRequest(topics=[DescribeQuorumRequest.TopicData(
        topic_name="__cluster_metadata", partitions=[DescribeQuorumRequest.PartitionData(partition_index=0)])])
    return call(port, request, DescribeQuorumResponse, 2)


def controller_id(port: int) -> int:
    response = call(port, DescribeClusterRequest(endpoint_type=2), DescribeClusterResponse, 1)
    return response.controller_id
