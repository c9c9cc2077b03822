"""The requests kafka-share-groups and kafka-console-share-consumer need, sent raw through the project's codec over blocking
connections (kafka-python knows no share group API): Metadata, FindCoordinator,
ListGroups (type share), ShareGroupDescribe, DescribeShareGroupOffsets,
AlterShareGroupOffsets, DeleteShareGroupOffsets, DeleteGroups and ListOffsets, each at the
highest version both sides support. PLAINTEXT connections.

Who may call it: scripts.kafka_share_groups, scripts.kafka_console_share_consumer. Keeps nothing on disk.
"""
from __future__ import annotations

import socket
import struct
import time

from kafpy.protocol import codec
from kafpy.protocol.codec import MessageT
from kafpy.protocol import messages
from kafpy.protocol.api_keys import ApiKey
from kafpy.protocol.errors import ErrorCode
from kafpy.scripts._clients import BrokerError

_VERSIONS = {ApiKey.METADATA: 12, ApiKey.FIND_COORDINATOR: 4, ApiKey.LIST_GROUPS: 5,
             ApiKey.SHARE_GROUP_DESCRIBE: 1, ApiKey.DESCRIBE_SHARE_GROUP_OFFSETS: 1,
             ApiKey.ALTER_SHARE_GROUP_OFFSETS: 0, ApiKey.DELETE_SHARE_GROUP_OFFSETS: 0,
             ApiKey.DELETE_GROUPS: 2, ApiKey.LIST_OFFSETS: 7,
             # kafka-console-share-consumer's member
             ApiKey.SHARE_GROUP_HEARTBEAT: 1, ApiKey.SHARE_FETCH: 1, ApiKey.SHARE_ACKNOWLEDGE: 1}


class _Connection:
    """One blocking connection to one broker, with its ApiVersions."""

    def __init__(self, host: str, port: int, timeout: float) -> None:
        self.sock = socket.create_connection((host.strip("[]"), port), timeout=timeout)
        self.correlation = 0
        resp = self.request(messages.ApiVersionsResponse, ApiKey.API_VERSIONS, 0, messages.ApiVersionsRequest())
        if resp.error_code != ErrorCode.NONE:
            raise BrokerError(resp.error_code)
        self.versions = {k.api_key: (k.min_version, k.max_version) for k in resp.api_keys}

    def _recv(self, n: int) -> bytes:
        buf = bytearray()
        while len(buf) < n:
            chunk = self.sock.recv(n - len(buf))
            if not chunk:
                raise ConnectionError("the broker closed the connection")
            buf += chunk
        return bytes(buf)

    def request(self, answer: type[MessageT], api_key: int, version: int, body: messages.Message) -> MessageT:
        self.correlation += 1
        header = messages.RequestHeader(request_api_key=api_key, request_api_version=version,
                                 correlation_id=self.correlation, client_id="kafka-share-groups")
        self.sock.sendall(codec.encode_request(header, body))
        (size,) = struct.unpack(">i", self._recv(4))
        resp = codec.decode_response(api_key, version, self._recv(size))[1]
        assert isinstance(resp, answer)  # the API's response class
        return resp

    def send(self, answer: type[MessageT], api_key: ApiKey, body: messages.Message) -> MessageT:
        theirs = self.versions.get(api_key)
        if theirs is None:
            raise BrokerError(ErrorCode.UNSUPPORTED_VERSION,
                              f"The node does not support {ApiKey(api_key).name}")
        return self.request(answer, api_key, min(_VERSIONS[api_key], theirs[1]), body)

    def close(self) -> None:
        self.sock.close()


class ShareGroupAdmin:
    """The cluster as kafka-share-groups sees it: connections by node id, opened on use."""

    def __init__(self, bootstrap: str, timeout: float = 30.0) -> None:
        self.timeout = timeout
        last: Exception | None = None
        conn: _Connection | None = None
        for server in (s.strip() for s in bootstrap.split(",") if s.strip()):
            host, _, port = server.rpartition(":")
            try:
                conn = _Connection(host, int(port), timeout)
                break
            except (OSError, ValueError) as e:
                last = e
        if conn is None:
            raise ConnectionError(f"no bootstrap server reachable among {bootstrap}: {last}")
        self.bootstrap = conn
        self._nodes: dict[int, _Connection] = {}
        self.metadata = self.bootstrap.send(messages.MetadataResponse, ApiKey.METADATA, messages.MetadataRequest(
            topics=None, allow_auto_topic_creation=False))
        self.brokers = {b.node_id: (b.host, b.port) for b in self.metadata.brokers}

    def __enter__(self) -> "ShareGroupAdmin":
        return self

    def __exit__(self, *exc: object) -> None:
        for c in [self.bootstrap, *self._nodes.values()]:
            if c is not None:
                c.close()

    def node(self, node_id: int) -> _Connection:
        if node_id not in self._nodes:
            host, port = self.brokers[node_id]
            self._nodes[node_id] = _Connection(host, port, self.timeout)
        return self._nodes[node_id]

    def topics(self) -> dict[str | None, messages.MetadataResponse.MetadataResponseTopic]:
        """Topic name -> its Metadata entry (partitions with their leaders)."""
        return {t.name: t for t in self.metadata.topics if t.error_code == ErrorCode.NONE}

    def coordinator(self, group_id: str) -> tuple[int, str]:
        """(node id, "host:port") of the group's coordinator."""
        deadline = time.monotonic() + self.timeout
        while True:
            resp = self.bootstrap.send(messages.FindCoordinatorResponse, ApiKey.FIND_COORDINATOR, messages.FindCoordinatorRequest(
                key_type=0, coordinator_keys=[group_id]))
            c = resp.coordinators[0]
            if c.error_code == ErrorCode.NONE:
                break
            # retriable (the offsets topic being created, a coordinator loading): as the
            # admin client does, ask again until the timeout
            if not ErrorCode.of_known(c.error_code).retriable or time.monotonic() > deadline:
                raise BrokerError(c.error_code, c.error_message)
            time.sleep(0.1)
        self.brokers.setdefault(c.node_id, (c.host, c.port))
        return c.node_id, f"{c.host}:{c.port}"

    def list_groups(self, states: list[str] | None = None) -> list[messages.ListGroupsResponse.ListedGroup]:
        out = []
        for node_id in sorted(self.brokers):
            resp = self.node(node_id).send(messages.ListGroupsResponse, ApiKey.LIST_GROUPS, messages.ListGroupsRequest(
                states_filter=states or [], types_filter=["share"]))
            if resp.error_code != ErrorCode.NONE:
                raise BrokerError(resp.error_code)
            out.extend(resp.groups)
        return out

    def describe(self, group_id: str) -> tuple[messages.ShareGroupDescribeResponse.DescribedGroup, str, int]:
        """(ShareGroupDescribe's group, coordinator "host:port", coordinator id)."""
        node_id, address = self.coordinator(group_id)
        resp = self.node(node_id).send(messages.ShareGroupDescribeResponse, ApiKey.SHARE_GROUP_DESCRIBE, messages.ShareGroupDescribeRequest(
            group_ids=[group_id], include_authorized_operations=False))
        return resp.groups[0], address, node_id

    def describe_offsets(self, group_id: str
                         ) -> messages.DescribeShareGroupOffsetsResponse.DescribeShareGroupOffsetsResponseGroup:
        node_id, _ = self.coordinator(group_id)
        resp = self.node(node_id).send(messages.DescribeShareGroupOffsetsResponse, ApiKey.DESCRIBE_SHARE_GROUP_OFFSETS, messages.DescribeShareGroupOffsetsRequest(groups=[
            messages.DescribeShareGroupOffsetsRequest.DescribeShareGroupOffsetsRequestGroup(group_id=group_id, topics=None)]))
        return resp.groups[0]

    def alter_offsets(self, group_id: str, offsets: dict[tuple[str, int], int]
                      ) -> messages.AlterShareGroupOffsetsResponse:
        node_id, _ = self.coordinator(group_id)
        by_topic: dict[str, list] = {}
        for (t, p), o in offsets.items():
            by_topic.setdefault(t, []).append(messages.AlterShareGroupOffsetsRequest.AlterShareGroupOffsetsRequestPartition(
                partition_index=p, start_offset=o))
        return self.node(node_id).send(messages.AlterShareGroupOffsetsResponse, ApiKey.ALTER_SHARE_GROUP_OFFSETS, messages.AlterShareGroupOffsetsRequest(group_id=group_id, topics=[
            messages.AlterShareGroupOffsetsRequest.AlterShareGroupOffsetsRequestTopic(topic_name=t, partitions=ps)
            for t, ps in by_topic.items()]))

    def delete_offsets(self, group_id: str, topics: list[str]) -> messages.DeleteShareGroupOffsetsResponse:
        node_id, _ = self.coordinator(group_id)
        return self.node(node_id).send(messages.DeleteShareGroupOffsetsResponse, ApiKey.DELETE_SHARE_GROUP_OFFSETS, messages.DeleteShareGroupOffsetsRequest(
            group_id=group_id, topics=[messages.DeleteShareGroupOffsetsRequest.DeleteShareGroupOffsetsRequestTopic(topic_name=t) for t in topics]))

    def delete_group(self, group_id: str) -> int:
        node_id, _ = self.coordinator(group_id)
        resp = self.node(node_id).send(messages.DeleteGroupsResponse, ApiKey.DELETE_GROUPS, messages.DeleteGroupsRequest(groups_names=[group_id]))
        return resp.results[0].error_code

    def list_offset(self, topic: str, partition: int, timestamp: int) -> int:
        """The offset ListOffsets answers for `timestamp` (-2 earliest, -1 latest)."""
        meta = self.topics()[topic]
        leader = next(p.leader_id for p in meta.partitions if p.partition_index == partition)
        resp = self.node(leader).send(messages.ListOffsetsResponse, ApiKey.LIST_OFFSETS, messages.ListOffsetsRequest(replica_id=-1, isolation_level=0, topics=[
            messages.ListOffsetsRequest.ListOffsetsTopic(name=topic, partitions=[messages.ListOffsetsRequest.ListOffsetsPartition(
                partition_index=partition, current_leader_epoch=-1, timestamp=timestamp)])]))
        p = resp.topics[0].partitions[0]
        if p.error_code != ErrorCode.NONE:
            raise BrokerError(p.error_code)
        return p.offset
