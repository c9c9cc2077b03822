"""The requests kafka-streams-groups needs, sent raw through the project's codec
(kafka-python's admin client knows no Streams group APIs): FindCoordinator, ListGroups,
StreamsGroupDescribe, OffsetFetch, OffsetCommit (an admin's, without a member epoch),
OffsetDelete, DeleteGroups and DeleteTopics to the group's coordinator or the bootstrap
broker, ListOffsets to each partition's leader (found with Metadata). Connections and versions as AclAdminClient makes them (one blocking
connection per broker, versions from ApiVersions, TLS and SASL/PLAIN from
``--command-config``).

Who may call it: scripts.kafka_streams_groups. Keeps nothing on disk.
"""
from __future__ import annotations


from kafpy.protocol import messages
from kafpy.protocol.codec import MessageT
from kafpy.protocol.api_keys import ApiKey
from kafpy.protocol.errors import ErrorCode
from kafpy.scripts._clients import BrokerError
from kafpy.scripts.kafka_acls_client import AclAdminClient

_LATEST = -1


# the newest versions that still name topics (OffsetFetch v10 and OffsetCommit v10 name
# them by id); this tool builds its requests by name
_BY_NAME = {int(ApiKey.OFFSET_FETCH): 9, int(ApiKey.OFFSET_COMMIT): 9}


class StreamsGroupsClient:
    """Admin requests about Streams groups; `close()` (or `with`) ends every connection."""

    def __init__(self, bootstrap: str, props: dict[str, str] | None = None,
                 timeout: float = 30.0) -> None:
        self.props, self.timeout = dict(props or {}), timeout
        self.bootstrap = AclAdminClient(bootstrap, self.props, timeout)
        self._brokers: dict[str, AclAdminClient] = {}

    def close(self) -> None:
        for c in [self.bootstrap, *self._brokers.values()]:
            c.close()

    def __enter__(self) -> "StreamsGroupsClient":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _call(self, answer: type[MessageT], client: AclAdminClient, api_key: int, body: messages.Message) -> MessageT:
        ours = min(type(body).VALID_VERSIONS[1], _BY_NAME.get(api_key, 1 << 15))
        return client.request(answer, api_key, client._version(api_key, ours), body)

    def _broker(self, host: str, port: int) -> AclAdminClient:
        address = f"{host}:{port}"
        if address not in self._brokers:
            self._brokers[address] = AclAdminClient(address, self.props, self.timeout)
        return self._brokers[address]

    # -- the coordinator -------------------------------------------------------------
    def coordinator(self, group: str) -> tuple[AclAdminClient, str]:
        """A connection to `group`'s coordinator and its "host:port (id)" text."""
        resp = self._call(messages.FindCoordinatorResponse, self.bootstrap, ApiKey.FIND_COORDINATOR,
                          messages.FindCoordinatorRequest(key=group, key_type=0, coordinator_keys=[group]))
        c = resp.coordinators[0] if getattr(resp, "coordinators", None) else resp
        if c.error_code != ErrorCode.NONE:
            raise BrokerError(c.error_code, c.error_message)
        return self._broker(c.host, c.port), f"{c.host}:{c.port} ({c.node_id})"

    # -- the requests ----------------------------------------------------------------
    def list_groups(self, states: list[str] | None = None) -> list[tuple[str, str]]:
        """(group id, state) of every Streams group the cluster's brokers coordinate."""
        out: dict[str, str] = {}
        for node in self._all_brokers():
            resp = self._call(messages.ListGroupsResponse, node, ApiKey.LIST_GROUPS, messages.ListGroupsRequest(
                states_filter=states or [], types_filter=["streams"]))
            if resp.error_code != ErrorCode.NONE:
                raise BrokerError(resp.error_code)
            out.update((g.group_id, g.group_state) for g in resp.groups)
        return sorted(out.items())

    def describe(self, group: str) -> tuple[messages.StreamsGroupDescribeResponse.DescribedGroup, str]:
        node, coordinator = self.coordinator(group)
        resp = self._call(messages.StreamsGroupDescribeResponse, node, ApiKey.STREAMS_GROUP_DESCRIBE,
                          messages.StreamsGroupDescribeRequest(group_ids=[group]))
        return resp.groups[0], coordinator

    def committed(self, group: str) -> dict[tuple[str, int], int]:
        node, _ = self.coordinator(group)
        resp = self._call(messages.OffsetFetchResponse, node, ApiKey.OFFSET_FETCH, messages.OffsetFetchRequest(
            groups=[messages.OffsetFetchRequest.OffsetFetchRequestGroup(group_id=group, topics=None)], require_stable=False))
        g = resp.groups[0]
        if g.error_code != ErrorCode.NONE:
            raise BrokerError(g.error_code)
        return {(t.name, p.partition_index): p.committed_offset
                for t in g.topics for p in t.partitions if p.committed_offset >= 0}

    def end_offsets(self, partitions: list[tuple[str, int]]) -> dict[tuple[str, int], int]:
        """Log end offsets, asked of each partition's leader."""
        return self.log_offsets(partitions, _LATEST)

    def log_offsets(self, partitions: list[tuple[str, int]], timestamp: int
                    ) -> dict[tuple[str, int], int]:
        """ListOffsets at `timestamp` (-1 latest, -2 earliest) of each partition, asked of
        its leader; a partition without an answer (no offset at or after a time: -1) is
        left out or given as -1."""
        leaders = self._leaders(sorted({t for t, _ in partitions}))
        by_leader: dict[tuple[str, int], list[tuple[str, int]]] = {}
        for tp in partitions:
            if tp in leaders:
                by_leader.setdefault(leaders[tp], []).append(tp)
        out: dict[tuple[str, int], int] = {}
        for address, tps in by_leader.items():
            topics: dict[str, list] = {}
            for t, p in tps:
                topics.setdefault(t, []).append(messages.ListOffsetsRequest.ListOffsetsPartition(partition_index=p, timestamp=timestamp))
            resp = self._call(messages.ListOffsetsResponse, self._broker(*address), ApiKey.LIST_OFFSETS, messages.ListOffsetsRequest(
                replica_id=-1, topics=[messages.ListOffsetsRequest.ListOffsetsTopic(name=t, partitions=ps) for t, ps in topics.items()]))
            for answered in resp.topics:
                for part in answered.partitions:
                    if part.error_code == ErrorCode.NONE:
                        out[(answered.name, part.partition_index)] = part.offset
        return out

    def alter_offsets(self, group: str, offsets: dict[tuple[str, int], int]) -> dict[tuple[str, int], int]:
        """OffsetCommit of an admin (no member, epoch -1): only an empty group takes it.
        Returns each partition's error code."""
        node, _ = self.coordinator(group)
        topics: dict[str, list] = {}
        for (t, p), off in sorted(offsets.items()):
            topics.setdefault(t, []).append(messages.OffsetCommitRequest.OffsetCommitRequestPartition(partition_index=p, committed_offset=off,
                                              committed_leader_epoch=-1, commit_timestamp=-1,
                                              committed_metadata=""))
        resp = self._call(messages.OffsetCommitResponse, node, ApiKey.OFFSET_COMMIT, messages.OffsetCommitRequest(
            group_id=group, generation_id_or_member_epoch=-1, member_id="",
            group_instance_id=None, retention_time_ms=-1,
            topics=[messages.OffsetCommitRequest.OffsetCommitRequestTopic(name=t, partitions=ps) for t, ps in topics.items()]))
        return {(t.name, p.partition_index): p.error_code for t in resp.topics for p in t.partitions}

    def delete_offsets(self, group: str, partitions: list[tuple[str, int]]
                       ) -> tuple[int, dict[tuple[str, int], int]]:
        """OffsetDelete: the group's error code and each partition's."""
        node, _ = self.coordinator(group)
        topics: dict[str, list] = {}
        for t, p in partitions:
            topics.setdefault(t, []).append(messages.OffsetDeleteRequest.OffsetDeleteRequestPartition(partition_index=p))
        resp = self._call(messages.OffsetDeleteResponse, node, ApiKey.OFFSET_DELETE, messages.OffsetDeleteRequest(
            group_id=group, topics=[messages.OffsetDeleteRequest.OffsetDeleteRequestTopic(name=t, partitions=ps) for t, ps in topics.items()]))
        return resp.error_code, {(t.name, p.partition_index): p.error_code
                                 for t in resp.topics for p in t.partitions}

    def partitions(self, topics: list[str]) -> tuple[list[tuple[str, int]], dict[str, int]]:
        """The partitions of `topics` (Metadata), and the error of each topic not found."""
        md = self._metadata(topics)
        found, errors = [], {}
        for t in md.topics:
            assert t.name is not None  # asked by name: every topic is answered with its name
            if t.error_code != ErrorCode.NONE:
                errors[t.name] = t.error_code
            else:
                found += [(t.name, p.partition_index) for p in t.partitions]
        return sorted(found), errors

    def delete_group(self, group: str) -> int:
        node, _ = self.coordinator(group)
        resp = self._call(messages.DeleteGroupsResponse, node, ApiKey.DELETE_GROUPS, messages.DeleteGroupsRequest(groups_names=[group]))
        return resp.results[0].error_code

    def delete_topics(self, topics: list[str]) -> dict[str | None, int]:
        resp = self._call(messages.DeleteTopicsResponse, self.bootstrap, ApiKey.DELETE_TOPICS, messages.DeleteTopicsRequest(
            topics=[messages.DeleteTopicsRequest.DeleteTopicState(name=t) for t in topics], topic_names=list(topics), timeout_ms=30000))
        return {r.name: r.error_code for r in resp.responses}

    # -- cluster metadata ------------------------------------------------------------
    def _metadata(self, topics: list[str] | None) -> messages.MetadataResponse:
        return self._call(messages.MetadataResponse, self.bootstrap, ApiKey.METADATA, messages.MetadataRequest(
            topics=None if topics is None else [messages.MetadataRequest.MetadataRequestTopic(name=t) for t in topics],
            allow_auto_topic_creation=False))

    def _all_brokers(self) -> list[AclAdminClient]:
        md = self._metadata([])
        return [self._broker(b.host, b.port) for b in md.brokers] or [self.bootstrap]

    def _leaders(self, topics: list[str]) -> dict[tuple[str, int], tuple[str, int]]:
        md = self._metadata(topics)
        address = {b.node_id: (b.host, b.port) for b in md.brokers}
        return {(t.name or "", p.partition_index): address[p.leader_id]
                for t in md.topics for p in t.partitions if p.leader_id in address}
