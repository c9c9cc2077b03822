"""The admin requests kafka-metadata-quorum and kafka-features send, raw through the
project's codec over one blocking connection: ApiVersions, DescribeCluster, DescribeQuorum
(v2, with the voters' directory ids and endpoints), AddRaftVoter, RemoveRaftVoter,
UpdateFeatures.

Where a request goes follows Kafka's admin client: with ``--bootstrap-server`` to the
bootstrap broker, which forwards the quorum requests to the active controller; with
``--bootstrap-controller`` to the active controller, found with DescribeCluster v1
(endpoint type controller) on a bootstrap controller.

Who may call it: scripts.kafka_metadata_quorum, scripts.kafka_features. Keeps nothing on disk.
"""
from __future__ import annotations

from typing import TextIO

from kafpy.protocol import messages
from kafpy.protocol.api_keys import ApiKey
from kafpy.protocol.codec import MessageT
from kafpy.protocol.errors import ErrorCode
from kafpy.scripts._cli import debug_traceback
from kafpy.scripts._clients import BrokerError
from kafpy.scripts.kafka_acls_client import AclAdminClient

METADATA_TOPIC = "__cluster_metadata"
_CONTROLLER_ENDPOINTS = 2  # DescribeCluster v1 endpoint type of the controllers


# error names whose Java exception is not simply the CamelCase name + Exception
_JAVA_EXCEPTIONS = {ErrorCode.CLUSTER_AUTHORIZATION_FAILED: "ClusterAuthorizationException",
                    ErrorCode.UNKNOWN_TOPIC_OR_PARTITION: "UnknownTopicOrPartitionException"}


def java_exception(error: BrokerError) -> str:
    """The Java exception Kafka's admin client raises for the error code of ``error``, as the
    tools print it: ``org.apache.kafka.common.errors.VoterNotFoundException: <message>``."""
    code = error.error_code
    name = _JAVA_EXCEPTIONS.get(code) or "".join(w.capitalize() for w in code.name.split("_")) + "Exception"
    return f"org.apache.kafka.common.errors.{name}: {error}"


class TerseFailure(Exception):
    """An error the KRaft tools (MetadataQuorumCommand, FeatureCommand) print as its message alone."""


#: what a KRaft tool's command may fail with once its arguments were read
FAILURES = (TerseFailure, BrokerError, OSError)


def report_failure(error: BaseException, err: TextIO) -> int:
    """Print a failed command as both KRaft tools do (a broker's error as its Java exception)
    and return the exit code 1; called inside the ``except`` block."""
    err.write((java_exception(error) if isinstance(error, BrokerError) else str(error)) + "\n")
    if not isinstance(error, TerseFailure):
        debug_traceback()
    return 1


class QuorumAdminClient:
    """One connection to the node that answers a tool's requests (the bootstrap broker, or
    the active controller), with the versions it supports. It connects on the first request,
    as Kafka's admin client does: a tool checks its arguments before the network is tried."""

    def __init__(self, bootstrap: str, *, controllers: bool, props: dict[str, str] | None = None,
                 timeout: float = 30.0) -> None:
        self.props = dict(props or {})
        self.timeout = timeout
        self.controllers = controllers
        self.bootstrap = bootstrap
        self._conn: AclAdminClient | None = None

    @property
    def conn(self) -> AclAdminClient:
        if self._conn is None:
            self._conn = AclAdminClient(self.bootstrap, self.props, self.timeout)
            if self.controllers:
                self._to_active_controller()
        return self._conn

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def __enter__(self) -> QuorumAdminClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _to_active_controller(self) -> None:
        self.to_node(self.describe_cluster().controller_id)

    def to_node(self, node_id: int) -> None:
        """Send the next requests to node ``node_id`` (a broker, or with ``--bootstrap-controller``
        a controller), as the admin client's describeFeatures(nodeId) does."""
        cluster = self.describe_cluster()
        for node in cluster.brokers:
            if node.broker_id == node_id:
                active = AclAdminClient(f"{node.host}:{node.port}", self.props, self.timeout)
                self.conn.close()
                self._conn = active
                return
        raise BrokerError(ErrorCode.INVALID_REQUEST, f"No node with id {node_id} is known")

    def call(self, answer: type[MessageT], api_key: ApiKey, ours: int, body: messages.Message) -> MessageT:
        """Send ``body`` at the highest version both sides support (at most ``ours``)."""
        return self.conn.request(answer, api_key, self.conn._version(api_key, ours), body)

    def api_versions(self) -> messages.ApiVersionsResponse:
        """The ApiVersions answer with the node's supported and finalized features, at v4 as
        Kafka 4's clients ask (before v4 a node leaves out the ranges starting at 0, KIP-1022)."""
        v = self.conn._version(ApiKey.API_VERSIONS, 4)
        resp = self.conn.request(messages.ApiVersionsResponse, ApiKey.API_VERSIONS, v,
                                 messages.ApiVersionsRequest(client_software_name="apache-kafka-java",
                                                             client_software_version="4.4.0"))
        if resp.error_code != ErrorCode.NONE:
            raise BrokerError(resp.error_code)
        return resp

    def describe_cluster(self) -> messages.DescribeClusterResponse:
        endpoint_type = _CONTROLLER_ENDPOINTS if self.controllers else 1
        resp = self.call(messages.DescribeClusterResponse, ApiKey.DESCRIBE_CLUSTER, 1,
                         messages.DescribeClusterRequest(endpoint_type=endpoint_type))
        if resp.error_code != ErrorCode.NONE:
            raise BrokerError(resp.error_code, resp.error_message)
        return resp

    def describe_quorum(self) -> tuple[messages.DescribeQuorumResponse.PartitionData,
                                       list[messages.DescribeQuorumResponse.Node]]:
        """The metadata partition's quorum state and the voters' endpoints."""
        req = messages.DescribeQuorumRequest(topics=[messages.DescribeQuorumRequest.TopicData(
            topic_name=METADATA_TOPIC,
            partitions=[messages.DescribeQuorumRequest.PartitionData(partition_index=0)])])
        resp = self.call(messages.DescribeQuorumResponse, ApiKey.DESCRIBE_QUORUM, 2, req)
        if resp.error_code != ErrorCode.NONE:
            raise BrokerError(resp.error_code, resp.error_message)
        for topic in resp.topics:
            for partition in topic.partitions:
                if partition.error_code != ErrorCode.NONE:
                    raise BrokerError(partition.error_code, partition.error_message)
                return partition, list(resp.nodes)
        raise BrokerError(ErrorCode.UNKNOWN_SERVER_ERROR, "The response did not contain the metadata partition")

    def add_raft_voter(self, voter_id: int, directory_id: bytes,
                       endpoints: list[tuple[str, str, int]], timeout_ms: int = 30000) -> None:
        listeners = [messages.AddRaftVoterRequest.Listener(name=n, host=h, port=p) for n, h, p in endpoints]
        resp = self.call(messages.AddRaftVoterResponse, ApiKey.ADD_RAFT_VOTER, 0,
                         messages.AddRaftVoterRequest(cluster_id=None, timeout_ms=timeout_ms, voter_id=voter_id,
                                                      voter_directory_id=directory_id, listeners=listeners))
        if resp.error_code != ErrorCode.NONE:
            raise BrokerError(resp.error_code, resp.error_message)

    def remove_raft_voter(self, voter_id: int, directory_id: bytes) -> None:
        resp = self.call(messages.RemoveRaftVoterResponse, ApiKey.REMOVE_RAFT_VOTER, 0,
                         messages.RemoveRaftVoterRequest(cluster_id=None, voter_id=voter_id,
                                                         voter_directory_id=directory_id))
        if resp.error_code != ErrorCode.NONE:
            raise BrokerError(resp.error_code, resp.error_message)

    def unregister_controller(self, controller_id: int) -> None:
        """UnregisterController (KIP-1073): the controller's registration leaves the metadata."""
        resp = self.call(messages.UnregisterControllerResponse, ApiKey.UNREGISTER_CONTROLLER, 0,
                         messages.UnregisterControllerRequest(controller_id=controller_id))
        if resp.error_code != ErrorCode.NONE:
            raise BrokerError(resp.error_code, resp.error_message)
