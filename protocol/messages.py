"""Kafka protocol messages, generated from ``protocol/schema/`` by ``python -m kafpy.protocol.generate``.
Do not edit.

One class per message; nested structs are attributes of their message class, named by
the spec's struct type. ``FIELDS`` of each class lists its fields as ``Field`` entries
in spec order (``kafpy.protocol.codec`` compiles encoders/decoders from them). Version ranges
are ``(low, high)`` tuples, ``None`` for "none"; ``0x7fff`` means "and later".
"""
# fmt: off
# flake8: noqa

from __future__ import annotations

from enum import IntEnum
from typing import Any

from kafpy.protocol.message_base import UNSET as _UNSET
from kafpy.protocol.message_base import ZERO_UUID, ApiSpec, Field, Message, Struct



class AbortTransactionRecord(Message):
    __slots__ = ('reason',)
    NAME = 'AbortTransactionRecord'
    KIND = 'metadata'
    API_KEY = 25
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('reason', 'string', (0, 32767), (0, 32767), 0, (0, 32767), 'inherit', None),
    )

    def __init__(self, *, reason: str | None = None) -> None:
        self.reason = reason


class AccessControlEntryRecord(Message):
    __slots__ = ('id', 'resource_type', 'resource_name', 'pattern_type', 'principal', 'host', 'operation', 'permission_type')
    NAME = 'AccessControlEntryRecord'
    KIND = 'metadata'
    API_KEY = 18
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('id', 'uuid', (0, 32767), None, None, None, 'inherit', ZERO_UUID),
        Field('resource_type', 'int8', (0, 32767), None, None, None, 'inherit', 0),
        Field('resource_name', 'string', (0, 32767), None, None, None, 'inherit', ''),
        Field('pattern_type', 'int8', (0, 32767), None, None, None, 'inherit', 0),
        Field('principal', 'string', (0, 32767), None, None, None, 'inherit', ''),
        Field('host', 'string', (0, 32767), None, None, None, 'inherit', ''),
        Field('operation', 'int8', (0, 32767), None, None, None, 'inherit', 0),
        Field('permission_type', 'int8', (0, 32767), None, None, None, 'inherit', 0),
    )

    def __init__(self, *, id: bytes = ZERO_UUID, resource_type: int = 0, resource_name: str = '', pattern_type: int = 0, principal: str = '', host: str = '', operation: int = 0, permission_type: int = 0) -> None:
        self.id = id
        self.resource_type = resource_type
        self.resource_name = resource_name
        self.pattern_type = pattern_type
        self.principal = principal
        self.host = host
        self.operation = operation
        self.permission_type = permission_type


class AddOffsetsToTxnRequest(Message):
    __slots__ = ('transactional_id', 'producer_id', 'producer_epoch', 'group_id')
    NAME = 'AddOffsetsToTxnRequest'
    KIND = 'request'
    API_KEY = 25
    VALID_VERSIONS = (0, 4)
    FLEXIBLE_VERSIONS = (3, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('transactional_id', 'string', (0, 32767), None, None, None, 'inherit', ''),
        Field('producer_id', 'int64', (0, 32767), None, None, None, 'inherit', 0),
        Field('producer_epoch', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        Field('group_id', 'string', (0, 32767), None, None, None, 'inherit', ''),
    )

    def __init__(self, *, transactional_id: str = '', producer_id: int = 0, producer_epoch: int = 0, group_id: str = '') -> None:
        self.transactional_id = transactional_id
        self.producer_id = producer_id
        self.producer_epoch = producer_epoch
        self.group_id = group_id


class AddOffsetsToTxnResponse(Message):
    __slots__ = ('throttle_time_ms', 'error_code')
    NAME = 'AddOffsetsToTxnResponse'
    KIND = 'response'
    API_KEY = 25
    VALID_VERSIONS = (0, 4)
    FLEXIBLE_VERSIONS = (3, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('throttle_time_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
    )

    def __init__(self, *, throttle_time_ms: int = 0, error_code: int = 0) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code


class AddPartitionsToTxnRequest(Message):
    __slots__ = ('transactions', 'v3_and_below_transactional_id', 'v3_and_below_producer_id', 'v3_and_below_producer_epoch', 'v3_and_below_topics')
    NAME = 'AddPartitionsToTxnRequest'
    KIND = 'request'
    API_KEY = 24
    VALID_VERSIONS = (0, 5)
    FLEXIBLE_VERSIONS = (3, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('transactions', '[]AddPartitionsToTxnTransaction', (4, 32767), None, None, None, 'inherit', ()),
        Field('v3_and_below_transactional_id', 'string', (0, 3), None, None, None, 'inherit', ''),
        Field('v3_and_below_producer_id', 'int64', (0, 3), None, None, None, 'inherit', 0),
        Field('v3_and_below_producer_epoch', 'int16', (0, 3), None, None, None, 'inherit', 0),
        Field('v3_and_below_topics', '[]AddPartitionsToTxnTopic', (0, 3), None, None, None, 'inherit', ()),
    )

    class AddPartitionsToTxnTopic(Struct):
        __slots__ = ('name', 'partitions')
        FIELDS = (
            Field('name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('partitions', '[]int32', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, name: str = '', partitions: list[int] = _UNSET) -> None:
            self.name = name
            self.partitions = [] if partitions is _UNSET else partitions

    class AddPartitionsToTxnTransaction(Struct):
        __slots__ = ('transactional_id', 'producer_id', 'producer_epoch', 'verify_only', 'topics')
        FIELDS = (
            Field('transactional_id', 'string', (4, 32767), None, None, None, 'inherit', ''),
            Field('producer_id', 'int64', (4, 32767), None, None, None, 'inherit', 0),
            Field('producer_epoch', 'int16', (4, 32767), None, None, None, 'inherit', 0),
            Field('verify_only', 'bool', (4, 32767), None, None, None, 'inherit', False),
            Field('topics', '[]AddPartitionsToTxnTopic', (4, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, transactional_id: str = '', producer_id: int = 0, producer_epoch: int = 0, verify_only: bool = False, topics: list[AddPartitionsToTxnRequest.AddPartitionsToTxnTopic] = _UNSET) -> None:
            self.transactional_id = transactional_id
            self.producer_id = producer_id
            self.producer_epoch = producer_epoch
            self.verify_only = verify_only
            self.topics = [] if topics is _UNSET else topics

    def __init__(self, *, transactions: list[AddPartitionsToTxnRequest.AddPartitionsToTxnTransaction] = _UNSET, v3_and_below_transactional_id: str = '', v3_and_below_producer_id: int = 0, v3_and_below_producer_epoch: int = 0, v3_and_below_topics: list[AddPartitionsToTxnRequest.AddPartitionsToTxnTopic] = _UNSET) -> None:
        self.transactions = [] if transactions is _UNSET else transactions
        self.v3_and_below_transactional_id = v3_and_below_transactional_id
        self.v3_and_below_producer_id = v3_and_below_producer_id
        self.v3_and_below_producer_epoch = v3_and_below_producer_epoch
        self.v3_and_below_topics = [] if v3_and_below_topics is _UNSET else v3_and_below_topics


class AddPartitionsToTxnResponse(Message):
    __slots__ = ('throttle_time_ms', 'error_code', 'results_by_transaction', 'results_by_topic_v3_and_below')
    NAME = 'AddPartitionsToTxnResponse'
    KIND = 'response'
    API_KEY = 24
    VALID_VERSIONS = (0, 5)
    FLEXIBLE_VERSIONS = (3, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('throttle_time_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('error_code', 'int16', (4, 32767), None, None, None, 'inherit', 0),
        Field('results_by_transaction', '[]AddPartitionsToTxnResult', (4, 32767), None, None, None, 'inherit', ()),
        Field('results_by_topic_v3_and_below', '[]AddPartitionsToTxnTopicResult', (0, 3), None, None, None, 'inherit', ()),
    )

    class AddPartitionsToTxnPartitionResult(Struct):
        __slots__ = ('partition_index', 'partition_error_code')
        FIELDS = (
            Field('partition_index', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('partition_error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, partition_index: int = 0, partition_error_code: int = 0) -> None:
            self.partition_index = partition_index
            self.partition_error_code = partition_error_code

    class AddPartitionsToTxnResult(Struct):
        __slots__ = ('transactional_id', 'topic_results')
        FIELDS = (
            Field('transactional_id', 'string', (4, 32767), None, None, None, 'inherit', ''),
            Field('topic_results', '[]AddPartitionsToTxnTopicResult', (4, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, transactional_id: str = '', topic_results: list[AddPartitionsToTxnResponse.AddPartitionsToTxnTopicResult] = _UNSET) -> None:
            self.transactional_id = transactional_id
            self.topic_results = [] if topic_results is _UNSET else topic_results

    class AddPartitionsToTxnTopicResult(Struct):
        __slots__ = ('name', 'results_by_partition')
        FIELDS = (
            Field('name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('results_by_partition', '[]AddPartitionsToTxnPartitionResult', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, name: str = '', results_by_partition: list[AddPartitionsToTxnResponse.AddPartitionsToTxnPartitionResult] = _UNSET) -> None:
            self.name = name
            self.results_by_partition = [] if results_by_partition is _UNSET else results_by_partition

    def __init__(self, *, throttle_time_ms: int = 0, error_code: int = 0, results_by_transaction: list[AddPartitionsToTxnResponse.AddPartitionsToTxnResult] = _UNSET, results_by_topic_v3_and_below: list[AddPartitionsToTxnResponse.AddPartitionsToTxnTopicResult] = _UNSET) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.results_by_transaction = [] if results_by_transaction is _UNSET else results_by_transaction
        self.results_by_topic_v3_and_below = [] if results_by_topic_v3_and_below is _UNSET else results_by_topic_v3_and_below


class AddRaftVoterRequest(Message):
    __slots__ = ('cluster_id', 'timeout_ms', 'voter_id', 'voter_directory_id', 'listeners', 'ack_when_committed')
    NAME = 'AddRaftVoterRequest'
    KIND = 'request'
    API_KEY = 80
    VALID_VERSIONS = (0, 1)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('cluster_id', 'string', (0, 32767), (0, 32767), None, None, 'inherit', ''),
        Field('timeout_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('voter_id', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('voter_directory_id', 'uuid', (0, 32767), None, None, None, 'inherit', ZERO_UUID),
        Field('listeners', '[]Listener', (0, 32767), None, None, None, 'inherit', ()),
        Field('ack_when_committed', 'bool', (1, 32767), None, None, None, 'inherit', True),
    )

    class Listener(Struct):
        __slots__ = ('name', 'host', 'port')
        FIELDS = (
            Field('name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('host', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('port', 'uint16', (0, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, name: str = '', host: str = '', port: int = 0) -> None:
            self.name = name
            self.host = host
            self.port = port

    def __init__(self, *, cluster_id: str | None = '', timeout_ms: int = 0, voter_id: int = 0, voter_directory_id: bytes = ZERO_UUID, listeners: list[AddRaftVoterRequest.Listener] = _UNSET, ack_when_committed: bool = True) -> None:
        self.cluster_id = cluster_id
        self.timeout_ms = timeout_ms
        self.voter_id = voter_id
        self.voter_directory_id = voter_directory_id
        self.listeners = [] if listeners is _UNSET else listeners
        self.ack_when_committed = ack_when_committed


class AddRaftVoterResponse(Message):
    __slots__ = ('throttle_time_ms', 'error_code', 'error_message')
    NAME = 'AddRaftVoterResponse'
    KIND = 'response'
    API_KEY = 80
    VALID_VERSIONS = (0, 1)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('throttle_time_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        Field('error_message', 'string', (0, 32767), (0, 32767), None, None, 'inherit', ''),
    )

    def __init__(self, *, throttle_time_ms: int = 0, error_code: int = 0, error_message: str | None = '') -> None:
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.error_message = error_message


class AllocateProducerIdsRequest(Message):
    __slots__ = ('broker_id', 'broker_epoch')
    NAME = 'AllocateProducerIdsRequest'
    KIND = 'request'
    API_KEY = 67
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('broker_id', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('broker_epoch', 'int64', (0, 32767), None, None, None, 'inherit', -1),
    )

    def __init__(self, *, broker_id: int = 0, broker_epoch: int = -1) -> None:
        self.broker_id = broker_id
        self.broker_epoch = broker_epoch


class AllocateProducerIdsResponse(Message):
    __slots__ = ('throttle_time_ms', 'error_code', 'producer_id_start', 'producer_id_len')
    NAME = 'AllocateProducerIdsResponse'
    KIND = 'response'
    API_KEY = 67
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('throttle_time_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        Field('producer_id_start', 'int64', (0, 32767), None, None, None, 'inherit', 0),
        Field('producer_id_len', 'int32', (0, 32767), None, None, None, 'inherit', 0),
    )

    def __init__(self, *, throttle_time_ms: int = 0, error_code: int = 0, producer_id_start: int = 0, producer_id_len: int = 0) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.producer_id_start = producer_id_start
        self.producer_id_len = producer_id_len


class AlterClientQuotasRequest(Message):
    __slots__ = ('entries', 'validate_only')
    NAME = 'AlterClientQuotasRequest'
    KIND = 'request'
    API_KEY = 49
    VALID_VERSIONS = (0, 1)
    FLEXIBLE_VERSIONS = (1, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('entries', '[]EntryData', (0, 32767), None, None, None, 'inherit', ()),
        Field('validate_only', 'bool', (0, 32767), None, None, None, 'inherit', False),
    )

    class EntityData(Struct):
        __slots__ = ('entity_type', 'entity_name')
        FIELDS = (
            Field('entity_type', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('entity_name', 'string', (0, 32767), (0, 32767), None, None, 'inherit', ''),
        )

        def __init__(self, *, entity_type: str = '', entity_name: str | None = '') -> None:
            self.entity_type = entity_type
            self.entity_name = entity_name

    class EntryData(Struct):
        __slots__ = ('entity', 'ops')
        FIELDS = (
            Field('entity', '[]EntityData', (0, 32767), None, None, None, 'inherit', ()),
            Field('ops', '[]OpData', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, entity: list[AlterClientQuotasRequest.EntityData] = _UNSET, ops: list[AlterClientQuotasRequest.OpData] = _UNSET) -> None:
            self.entity = [] if entity is _UNSET else entity
            self.ops = [] if ops is _UNSET else ops

    class OpData(Struct):
        __slots__ = ('key', 'value', 'remove')
        FIELDS = (
            Field('key', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('value', 'float64', (0, 32767), None, None, None, 'inherit', 0.0),
            Field('remove', 'bool', (0, 32767), None, None, None, 'inherit', False),
        )

        def __init__(self, *, key: str = '', value: float = 0.0, remove: bool = False) -> None:
            self.key = key
            self.value = value
            self.remove = remove

    def __init__(self, *, entries: list[AlterClientQuotasRequest.EntryData] = _UNSET, validate_only: bool = False) -> None:
        self.entries = [] if entries is _UNSET else entries
        self.validate_only = validate_only


class AlterClientQuotasResponse(Message):
    __slots__ = ('throttle_time_ms', 'entries')
    NAME = 'AlterClientQuotasResponse'
    KIND = 'response'
    API_KEY = 49
    VALID_VERSIONS = (0, 1)
    FLEXIBLE_VERSIONS = (1, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('throttle_time_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('entries', '[]EntryData', (0, 32767), None, None, None, 'inherit', ()),
    )

    class EntityData(Struct):
        __slots__ = ('entity_type', 'entity_name')
        FIELDS = (
            Field('entity_type', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('entity_name', 'string', (0, 32767), (0, 32767), None, None, 'inherit', ''),
        )

        def __init__(self, *, entity_type: str = '', entity_name: str | None = '') -> None:
            self.entity_type = entity_type
            self.entity_name = entity_name

    class EntryData(Struct):
        __slots__ = ('error_code', 'error_message', 'entity')
        FIELDS = (
            Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
            Field('error_message', 'string', (0, 32767), (0, 32767), None, None, 'inherit', ''),
            Field('entity', '[]EntityData', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, error_code: int = 0, error_message: str | None = '', entity: list[AlterClientQuotasResponse.EntityData] = _UNSET) -> None:
            self.error_code = error_code
            self.error_message = error_message
            self.entity = [] if entity is _UNSET else entity

    def __init__(self, *, throttle_time_ms: int = 0, entries: list[AlterClientQuotasResponse.EntryData] = _UNSET) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.entries = [] if entries is _UNSET else entries


class AlterConfigsRequest(Message):
    __slots__ = ('resources', 'validate_only')
    NAME = 'AlterConfigsRequest'
    KIND = 'request'
    API_KEY = 33
    VALID_VERSIONS = (0, 2)
    FLEXIBLE_VERSIONS = (2, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('resources', '[]AlterConfigsResource', (0, 32767), None, None, None, 'inherit', ()),
        Field('validate_only', 'bool', (0, 32767), None, None, None, 'inherit', False),
    )

    class AlterConfigsResource(Struct):
        __slots__ = ('resource_type', 'resource_name', 'configs')
        FIELDS = (
            Field('resource_type', 'int8', (0, 32767), None, None, None, 'inherit', 0),
            Field('resource_name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('configs', '[]AlterableConfig', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, resource_type: int = 0, resource_name: str = '', configs: list[AlterConfigsRequest.AlterableConfig] = _UNSET) -> None:
            self.resource_type = resource_type
            self.resource_name = resource_name
            self.configs = [] if configs is _UNSET else configs

    class AlterableConfig(Struct):
        __slots__ = ('name', 'value')
        FIELDS = (
            Field('name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('value', 'string', (0, 32767), (0, 32767), None, None, 'inherit', ''),
        )

        def __init__(self, *, name: str = '', value: str | None = '') -> None:
            self.name = name
            self.value = value

    def __init__(self, *, resources: list[AlterConfigsRequest.AlterConfigsResource] = _UNSET, validate_only: bool = False) -> None:
        self.resources = [] if resources is _UNSET else resources
        self.validate_only = validate_only


class AlterConfigsResponse(Message):
    __slots__ = ('throttle_time_ms', 'responses')
    NAME = 'AlterConfigsResponse'
    KIND = 'response'
    API_KEY = 33
    VALID_VERSIONS = (0, 2)
    FLEXIBLE_VERSIONS = (2, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('throttle_time_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('responses', '[]AlterConfigsResourceResponse', (0, 32767), None, None, None, 'inherit', ()),
    )

    class AlterConfigsResourceResponse(Struct):
        __slots__ = ('error_code', 'error_message', 'resource_type', 'resource_name')
        FIELDS = (
            Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
            Field('error_message', 'string', (0, 32767), (0, 32767), None, None, 'inherit', ''),
            Field('resource_type', 'int8', (0, 32767), None, None, None, 'inherit', 0),
            Field('resource_name', 'string', (0, 32767), None, None, None, 'inherit', ''),
        )

        def __init__(self, *, error_code: int = 0, error_message: str | None = '', resource_type: int = 0, resource_name: str = '') -> None:
            self.error_code = error_code
            self.error_message = error_message
            self.resource_type = resource_type
            self.resource_name = resource_name

    def __init__(self, *, throttle_time_ms: int = 0, responses: list[AlterConfigsResponse.AlterConfigsResourceResponse] = _UNSET) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.responses = [] if responses is _UNSET else responses


class AlterPartitionReassignmentsRequest(Message):
    __slots__ = ('timeout_ms', 'allow_replication_factor_change', 'topics')
    NAME = 'AlterPartitionReassignmentsRequest'
    KIND = 'request'
    API_KEY = 45
    VALID_VERSIONS = (0, 1)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('timeout_ms', 'int32', (0, 32767), None, None, None, 'inherit', 60000),
        Field('allow_replication_factor_change', 'bool', (1, 32767), None, None, None, 'inherit', True),
        Field('topics', '[]ReassignableTopic', (0, 32767), None, None, None, 'inherit', ()),
    )

    class ReassignablePartition(Struct):
        __slots__ = ('partition_index', 'replicas')
        FIELDS = (
            Field('partition_index', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('replicas', '[]int32', (0, 32767), (0, 32767), None, None, 'inherit', None),
        )

        def __init__(self, *, partition_index: int = 0, replicas: list[int] | None = None) -> None:
            self.partition_index = partition_index
            self.replicas = replicas

    class ReassignableTopic(Struct):
        __slots__ = ('name', 'partitions')
        FIELDS = (
            Field('name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('partitions', '[]ReassignablePartition', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, name: str = '', partitions: list[AlterPartitionReassignmentsRequest.ReassignablePartition] = _UNSET) -> None:
            self.name = name
            self.partitions = [] if partitions is _UNSET else partitions

    def __init__(self, *, timeout_ms: int = 60000, allow_replication_factor_change: bool = True, topics: list[AlterPartitionReassignmentsRequest.ReassignableTopic] = _UNSET) -> None:
        self.timeout_ms = timeout_ms
        self.allow_replication_factor_change = allow_replication_factor_change
        self.topics = [] if topics is _UNSET else topics


class AlterPartitionReassignmentsResponse(Message):
    __slots__ = ('throttle_time_ms', 'allow_replication_factor_change', 'error_code', 'error_message', 'responses')
    NAME = 'AlterPartitionReassignmentsResponse'
    KIND = 'response'
    API_KEY = 45
    VALID_VERSIONS = (0, 1)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('throttle_time_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('allow_replication_factor_change', 'bool', (1, 32767), None, None, None, 'inherit', True),
        Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        Field('error_message', 'string', (0, 32767), (0, 32767), None, None, 'inherit', ''),
        Field('responses', '[]ReassignableTopicResponse', (0, 32767), None, None, None, 'inherit', ()),
    )

    class ReassignablePartitionResponse(Struct):
        __slots__ = ('partition_index', 'error_code', 'error_message')
        FIELDS = (
            Field('partition_index', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
            Field('error_message', 'string', (0, 32767), (0, 32767), None, None, 'inherit', ''),
        )

        def __init__(self, *, partition_index: int = 0, error_code: int = 0, error_message: str | None = '') -> None:
            self.partition_index = partition_index
            self.error_code = error_code
            self.error_message = error_message

    class ReassignableTopicResponse(Struct):
        __slots__ = ('name', 'partitions')
        FIELDS = (
            Field('name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('partitions', '[]ReassignablePartitionResponse', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, name: str = '', partitions: list[AlterPartitionReassignmentsResponse.ReassignablePartitionResponse] = _UNSET) -> None:
            self.name = name
            self.partitions = [] if partitions is _UNSET else partitions

    def __init__(self, *, throttle_time_ms: int = 0, allow_replication_factor_change: bool = True, error_code: int = 0, error_message: str | None = '', responses: list[AlterPartitionReassignmentsResponse.ReassignableTopicResponse] = _UNSET) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.allow_replication_factor_change = allow_replication_factor_change
        self.error_code = error_code
        self.error_message = error_message
        self.responses = [] if responses is _UNSET else responses


class AlterPartitionRequest(Message):
    __slots__ = ('broker_id', 'broker_epoch', 'topics')
    NAME = 'AlterPartitionRequest'
    KIND = 'request'
    API_KEY = 56
    VALID_VERSIONS = (0, 3)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('broker_id', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('broker_epoch', 'int64', (0, 32767), None, None, None, 'inherit', -1),
        Field('topics', '[]TopicData', (0, 32767), None, None, None, 'inherit', ()),
    )

    class BrokerState(Struct):
        __slots__ = ('broker_id', 'broker_epoch')
        FIELDS = (
            Field('broker_id', 'int32', (3, 32767), None, None, None, 'inherit', 0),
            Field('broker_epoch', 'int64', (3, 32767), None, None, None, 'inherit', -1),
        )

        def __init__(self, *, broker_id: int = 0, broker_epoch: int = -1) -> None:
            self.broker_id = broker_id
            self.broker_epoch = broker_epoch

    class PartitionData(Struct):
        __slots__ = ('partition_index', 'leader_epoch', 'new_isr', 'new_isr_with_epochs', 'leader_recovery_state', 'partition_epoch')
        FIELDS = (
            Field('partition_index', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('leader_epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('new_isr', '[]int32', (0, 2), None, None, None, 'inherit', ()),
            Field('new_isr_with_epochs', '[]BrokerState', (3, 32767), None, None, None, 'inherit', ()),
            Field('leader_recovery_state', 'int8', (1, 32767), None, None, None, 'inherit', 0),
            Field('partition_epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, partition_index: int = 0, leader_epoch: int = 0, new_isr: list[int] = _UNSET, new_isr_with_epochs: list[AlterPartitionRequest.BrokerState] = _UNSET, leader_recovery_state: int = 0, partition_epoch: int = 0) -> None:
            self.partition_index = partition_index
            self.leader_epoch = leader_epoch
            self.new_isr = [] if new_isr is _UNSET else new_isr
            self.new_isr_with_epochs = [] if new_isr_with_epochs is _UNSET else new_isr_with_epochs
            self.leader_recovery_state = leader_recovery_state
            self.partition_epoch = partition_epoch

    class TopicData(Struct):
        __slots__ = ('topic_name', 'topic_id', 'partitions')
        FIELDS = (
            Field('topic_name', 'string', (0, 1), None, None, None, 'inherit', ''),
            Field('topic_id', 'uuid', (2, 32767), None, None, None, 'inherit', ZERO_UUID),
            Field('partitions', '[]PartitionData', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, topic_name: str = '', topic_id: bytes = ZERO_UUID, partitions: list[AlterPartitionRequest.PartitionData] = _UNSET) -> None:
            self.topic_name = topic_name
            self.topic_id = topic_id
            self.partitions = [] if partitions is _UNSET else partitions

    def __init__(self, *, broker_id: int = 0, broker_epoch: int = -1, topics: list[AlterPartitionRequest.TopicData] = _UNSET) -> None:
        self.broker_id = broker_id
        self.broker_epoch = broker_epoch
        self.topics = [] if topics is _UNSET else topics


class AlterPartitionResponse(Message):
    __slots__ = ('throttle_time_ms', 'error_code', 'topics')
    NAME = 'AlterPartitionResponse'
    KIND = 'response'
    API_KEY = 56
    VALID_VERSIONS = (0, 3)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('throttle_time_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        Field('topics', '[]TopicData', (0, 32767), None, None, None, 'inherit', ()),
    )

    class PartitionData(Struct):
        __slots__ = ('partition_index', 'error_code', 'leader_id', 'leader_epoch', 'isr', 'leader_recovery_state', 'partition_epoch')
        FIELDS = (
            Field('partition_index', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
            Field('leader_id', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('leader_epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('isr', '[]int32', (0, 32767), None, None, None, 'inherit', ()),
            Field('leader_recovery_state', 'int8', (1, 32767), None, None, None, 'inherit', 0),
            Field('partition_epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, partition_index: int = 0, error_code: int = 0, leader_id: int = 0, leader_epoch: int = 0, isr: list[int] = _UNSET, leader_recovery_state: int = 0, partition_epoch: int = 0) -> None:
            self.partition_index = partition_index
            self.error_code = error_code
            self.leader_id = leader_id
            self.leader_epoch = leader_epoch
            self.isr = [] if isr is _UNSET else isr
            self.leader_recovery_state = leader_recovery_state
            self.partition_epoch = partition_epoch

    class TopicData(Struct):
        __slots__ = ('topic_name', 'topic_id', 'partitions')
        FIELDS = (
            Field('topic_name', 'string', (0, 1), None, None, None, 'inherit', ''),
            Field('topic_id', 'uuid', (2, 32767), None, None, None, 'inherit', ZERO_UUID),
            Field('partitions', '[]PartitionData', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, topic_name: str = '', topic_id: bytes = ZERO_UUID, partitions: list[AlterPartitionResponse.PartitionData] = _UNSET) -> None:
            self.topic_name = topic_name
            self.topic_id = topic_id
            self.partitions = [] if partitions is _UNSET else partitions

    def __init__(self, *, throttle_time_ms: int = 0, error_code: int = 0, topics: list[AlterPartitionResponse.TopicData] = _UNSET) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.topics = [] if topics is _UNSET else topics


class AlterReplicaLogDirsRequest(Message):
    __slots__ = ('dirs',)
    NAME = 'AlterReplicaLogDirsRequest'
    KIND = 'request'
    API_KEY = 34
    VALID_VERSIONS = (0, 2)
    FLEXIBLE_VERSIONS = (2, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('dirs', '[]AlterReplicaLogDir', (0, 32767), None, None, None, 'inherit', ()),
    )

    class AlterReplicaLogDir(Struct):
        __slots__ = ('path', 'topics')
        FIELDS = (
            Field('path', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('topics', '[]AlterReplicaLogDirTopic', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, path: str = '', topics: list[AlterReplicaLogDirsRequest.AlterReplicaLogDirTopic] = _UNSET) -> None:
            self.path = path
            self.topics = [] if topics is _UNSET else topics

    class AlterReplicaLogDirTopic(Struct):
        __slots__ = ('name', 'partitions')
        FIELDS = (
            Field('name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('partitions', '[]int32', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, name: str = '', partitions: list[int] = _UNSET) -> None:
            self.name = name
            self.partitions = [] if partitions is _UNSET else partitions

    def __init__(self, *, dirs: list[AlterReplicaLogDirsRequest.AlterReplicaLogDir] = _UNSET) -> None:
        self.dirs = [] if dirs is _UNSET else dirs


class AlterReplicaLogDirsResponse(Message):
    __slots__ = ('throttle_time_ms', 'results')
    NAME = 'AlterReplicaLogDirsResponse'
    KIND = 'response'
    API_KEY = 34
    VALID_VERSIONS = (0, 2)
    FLEXIBLE_VERSIONS = (2, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('throttle_time_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('results', '[]AlterReplicaLogDirTopicResult', (0, 32767), None, None, None, 'inherit', ()),
    )

    class AlterReplicaLogDirPartitionResult(Struct):
        __slots__ = ('partition_index', 'error_code')
        FIELDS = (
            Field('partition_index', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, partition_index: int = 0, error_code: int = 0) -> None:
            self.partition_index = partition_index
            self.error_code = error_code

    class AlterReplicaLogDirTopicResult(Struct):
        __slots__ = ('topic_name', 'partitions')
        FIELDS = (
            Field('topic_name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('partitions', '[]AlterReplicaLogDirPartitionResult', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, topic_name: str = '', partitions: list[AlterReplicaLogDirsResponse.AlterReplicaLogDirPartitionResult] = _UNSET) -> None:
            self.topic_name = topic_name
            self.partitions = [] if partitions is _UNSET else partitions

    def __init__(self, *, throttle_time_ms: int = 0, results: list[AlterReplicaLogDirsResponse.AlterReplicaLogDirTopicResult] = _UNSET) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.results = [] if results is _UNSET else results


class AlterShareGroupOffsetsRequest(Message):
    __slots__ = ('group_id', 'topics')
    NAME = 'AlterShareGroupOffsetsRequest'
    KIND = 'request'
    API_KEY = 91
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('group_id', 'string', (0, 32767), None, None, None, 'inherit', ''),
        Field('topics', '[]AlterShareGroupOffsetsRequestTopic', (0, 32767), None, None, None, 'inherit', ()),
    )

    class AlterShareGroupOffsetsRequestPartition(Struct):
        __slots__ = ('partition_index', 'start_offset')
        FIELDS = (
            Field('partition_index', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('start_offset', 'int64', (0, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, partition_index: int = 0, start_offset: int = 0) -> None:
            self.partition_index = partition_index
            self.start_offset = start_offset

    class AlterShareGroupOffsetsRequestTopic(Struct):
        __slots__ = ('topic_name', 'partitions')
        FIELDS = (
            Field('topic_name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('partitions', '[]AlterShareGroupOffsetsRequestPartition', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, topic_name: str = '', partitions: list[AlterShareGroupOffsetsRequest.AlterShareGroupOffsetsRequestPartition] = _UNSET) -> None:
            self.topic_name = topic_name
            self.partitions = [] if partitions is _UNSET else partitions

    def __init__(self, *, group_id: str = '', topics: list[AlterShareGroupOffsetsRequest.AlterShareGroupOffsetsRequestTopic] = _UNSET) -> None:
        self.group_id = group_id
        self.topics = [] if topics is _UNSET else topics


class AlterShareGroupOffsetsResponse(Message):
    __slots__ = ('throttle_time_ms', 'error_code', 'error_message', 'responses')
    NAME = 'AlterShareGroupOffsetsResponse'
    KIND = 'response'
    API_KEY = 91
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('throttle_time_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        Field('error_message', 'string', (0, 32767), (0, 32767), None, None, 'inherit', None),
        Field('responses', '[]AlterShareGroupOffsetsResponseTopic', (0, 32767), None, None, None, 'inherit', ()),
    )

    class AlterShareGroupOffsetsResponsePartition(Struct):
        __slots__ = ('partition_index', 'error_code', 'error_message')
        FIELDS = (
            Field('partition_index', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
            Field('error_message', 'string', (0, 32767), (0, 32767), None, None, 'inherit', None),
        )

        def __init__(self, *, partition_index: int = 0, error_code: int = 0, error_message: str | None = None) -> None:
            self.partition_index = partition_index
            self.error_code = error_code
            self.error_message = error_message

    class AlterShareGroupOffsetsResponseTopic(Struct):
        __slots__ = ('topic_name', 'topic_id', 'partitions')
        FIELDS = (
            Field('topic_name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('topic_id', 'uuid', (0, 32767), None, None, None, 'inherit', ZERO_UUID),
            Field('partitions', '[]AlterShareGroupOffsetsResponsePartition', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, topic_name: str = '', topic_id: bytes = ZERO_UUID, partitions: list[AlterShareGroupOffsetsResponse.AlterShareGroupOffsetsResponsePartition] = _UNSET) -> None:
            self.topic_name = topic_name
            self.topic_id = topic_id
            self.partitions = [] if partitions is _UNSET else partitions

    def __init__(self, *, throttle_time_ms: int = 0, error_code: int = 0, error_message: str | None = None, responses: list[AlterShareGroupOffsetsResponse.AlterShareGroupOffsetsResponseTopic] = _UNSET) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.error_message = error_message
        self.responses = [] if responses is _UNSET else responses


class AlterUserScramCredentialsRequest(Message):
    __slots__ = ('deletions', 'upsertions')
    NAME = 'AlterUserScramCredentialsRequest'
    KIND = 'request'
    API_KEY = 51
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('deletions', '[]ScramCredentialDeletion', (0, 32767), None, None, None, 'inherit', ()),
        Field('upsertions', '[]ScramCredentialUpsertion', (0, 32767), None, None, None, 'inherit', ()),
    )

    class ScramCredentialDeletion(Struct):
        __slots__ = ('name', 'mechanism')
        FIELDS = (
            Field('name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('mechanism', 'int8', (0, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, name: str = '', mechanism: int = 0) -> None:
            self.name = name
            self.mechanism = mechanism

    class ScramCredentialUpsertion(Struct):
        __slots__ = ('name', 'mechanism', 'iterations', 'salt', 'salted_password')
        FIELDS = (
            Field('name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('mechanism', 'int8', (0, 32767), None, None, None, 'inherit', 0),
            Field('iterations', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('salt', 'bytes', (0, 32767), None, None, None, 'inherit', b''),
            Field('salted_password', 'bytes', (0, 32767), None, None, None, 'inherit', b''),
        )

        def __init__(self, *, name: str = '', mechanism: int = 0, iterations: int = 0, salt: bytes = b'', salted_password: bytes = b'') -> None:
            self.name = name
            self.mechanism = mechanism
            self.iterations = iterations
            self.salt = salt
            self.salted_password = salted_password

    def __init__(self, *, deletions: list[AlterUserScramCredentialsRequest.ScramCredentialDeletion] = _UNSET, upsertions: list[AlterUserScramCredentialsRequest.ScramCredentialUpsertion] = _UNSET) -> None:
        self.deletions = [] if deletions is _UNSET else deletions
        self.upsertions = [] if upsertions is _UNSET else upsertions


class AlterUserScramCredentialsResponse(Message):
    __slots__ = ('throttle_time_ms', 'results')
    NAME = 'AlterUserScramCredentialsResponse'
    KIND = 'response'
    API_KEY = 51
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('throttle_time_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('results', '[]AlterUserScramCredentialsResult', (0, 32767), None, None, None, 'inherit', ()),
    )

    class AlterUserScramCredentialsResult(Struct):
        __slots__ = ('user', 'error_code', 'error_message')
        FIELDS = (
            Field('user', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
            Field('error_message', 'string', (0, 32767), (0, 32767), None, None, 'inherit', ''),
        )

        def __init__(self, *, user: str = '', error_code: int = 0, error_message: str | None = '') -> None:
            self.user = user
            self.error_code = error_code
            self.error_message = error_message

    def __init__(self, *, throttle_time_ms: int = 0, results: list[AlterUserScramCredentialsResponse.AlterUserScramCredentialsResult] = _UNSET) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.results = [] if results is _UNSET else results


class ApiVersionsRequest(Message):
    __slots__ = ('client_software_name', 'client_software_version', 'cluster_id', 'node_id')
    NAME = 'ApiVersionsRequest'
    KIND = 'request'
    API_KEY = 18
    VALID_VERSIONS = (0, 5)
    FLEXIBLE_VERSIONS = (3, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('client_software_name', 'string', (3, 32767), None, None, None, 'inherit', ''),
        Field('client_software_version', 'string', (3, 32767), None, None, None, 'inherit', ''),
        Field('cluster_id', 'string', (5, 32767), (5, 32767), None, None, 'inherit', None),
        Field('node_id', 'int32', (5, 32767), None, None, None, 'inherit', -1),
    )

    def __init__(self, *, client_software_name: str = '', client_software_version: str = '', cluster_id: str | None = None, node_id: int = -1) -> None:
        self.client_software_name = client_software_name
        self.client_software_version = client_software_version
        self.cluster_id = cluster_id
        self.node_id = node_id


class ApiVersionsResponse(Message):
    __slots__ = ('error_code', 'api_keys', 'throttle_time_ms', 'supported_features', 'finalized_features_epoch', 'finalized_features', 'zk_migration_ready')
    NAME = 'ApiVersionsResponse'
    KIND = 'response'
    API_KEY = 18
    VALID_VERSIONS = (0, 5)
    FLEXIBLE_VERSIONS = (3, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        Field('api_keys', '[]ApiVersion', (0, 32767), None, None, None, 'inherit', ()),
        Field('throttle_time_ms', 'int32', (1, 32767), None, None, None, 'inherit', 0),
        Field('supported_features', '[]SupportedFeatureKey', (3, 32767), None, 0, (3, 32767), 'inherit', ()),
        Field('finalized_features_epoch', 'int64', (3, 32767), None, 1, (3, 32767), 'inherit', -1),
        Field('finalized_features', '[]FinalizedFeatureKey', (3, 32767), None, 2, (3, 32767), 'inherit', ()),
        Field('zk_migration_ready', 'bool', (3, 32767), None, 3, (3, 32767), 'inherit', False),
    )

    class ApiVersion(Struct):
        __slots__ = ('api_key', 'min_version', 'max_version')
        FIELDS = (
            Field('api_key', 'int16', (0, 32767), None, None, None, 'inherit', 0),
            Field('min_version', 'int16', (0, 32767), None, None, None, 'inherit', 0),
            Field('max_version', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, api_key: int = 0, min_version: int = 0, max_version: int = 0) -> None:
            self.api_key = api_key
            self.min_version = min_version
            self.max_version = max_version

    class FinalizedFeatureKey(Struct):
        __slots__ = ('name', 'max_version_level', 'min_version_level')
        FIELDS = (
            Field('name', 'string', (3, 32767), None, None, None, 'inherit', ''),
            Field('max_version_level', 'int16', (3, 32767), None, None, None, 'inherit', 0),
            Field('min_version_level', 'int16', (3, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, name: str = '', max_version_level: int = 0, min_version_level: int = 0) -> None:
            self.name = name
            self.max_version_level = max_version_level
            self.min_version_level = min_version_level

    class SupportedFeatureKey(Struct):
        __slots__ = ('name', 'min_version', 'max_version')
        FIELDS = (
            Field('name', 'string', (3, 32767), None, None, None, 'inherit', ''),
            Field('min_version', 'int16', (3, 32767), None, None, None, 'inherit', 0),
            Field('max_version', 'int16', (3, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, name: str = '', min_version: int = 0, max_version: int = 0) -> None:
            self.name = name
            self.min_version = min_version
            self.max_version = max_version

    def __init__(self, *, error_code: int = 0, api_keys: list[ApiVersionsResponse.ApiVersion] = _UNSET, throttle_time_ms: int = 0, supported_features: list[ApiVersionsResponse.SupportedFeatureKey] = _UNSET, finalized_features_epoch: int = -1, finalized_features: list[ApiVersionsResponse.FinalizedFeatureKey] = _UNSET, zk_migration_ready: bool = False) -> None:
        self.error_code = error_code
        self.api_keys = [] if api_keys is _UNSET else api_keys
        self.throttle_time_ms = throttle_time_ms
        self.supported_features = [] if supported_features is _UNSET else supported_features
        self.finalized_features_epoch = finalized_features_epoch
        self.finalized_features = [] if finalized_features is _UNSET else finalized_features
        self.zk_migration_ready = zk_migration_ready


class AssignReplicasToDirsRequest(Message):
    __slots__ = ('broker_id', 'broker_epoch', 'directories')
    NAME = 'AssignReplicasToDirsRequest'
    KIND = 'request'
    API_KEY = 73
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('broker_id', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('broker_epoch', 'int64', (0, 32767), None, None, None, 'inherit', -1),
        Field('directories', '[]DirectoryData', (0, 32767), None, None, None, 'inherit', ()),
    )

    class DirectoryData(Struct):
        __slots__ = ('id', 'topics')
        FIELDS = (
            Field('id', 'uuid', (0, 32767), None, None, None, 'inherit', ZERO_UUID),
            Field('topics', '[]TopicData', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, id: bytes = ZERO_UUID, topics: list[AssignReplicasToDirsRequest.TopicData] = _UNSET) -> None:
            self.id = id
            self.topics = [] if topics is _UNSET else topics

    class PartitionData(Struct):
        __slots__ = ('partition_index',)
        FIELDS = (
            Field('partition_index', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, partition_index: int = 0) -> None:
            self.partition_index = partition_index

    class TopicData(Struct):
        __slots__ = ('topic_id', 'partitions')
        FIELDS = (
            Field('topic_id', 'uuid', (0, 32767), None, None, None, 'inherit', ZERO_UUID),
            Field('partitions', '[]PartitionData', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, topic_id: bytes = ZERO_UUID, partitions: list[AssignReplicasToDirsRequest.PartitionData] = _UNSET) -> None:
            self.topic_id = topic_id
            self.partitions = [] if partitions is _UNSET else partitions

    def __init__(self, *, broker_id: int = 0, broker_epoch: int = -1, directories: list[AssignReplicasToDirsRequest.DirectoryData] = _UNSET) -> None:
        self.broker_id = broker_id
        self.broker_epoch = broker_epoch
        self.directories = [] if directories is _UNSET else directories


class AssignReplicasToDirsResponse(Message):
    __slots__ = ('throttle_time_ms', 'error_code', 'directories')
    NAME = 'AssignReplicasToDirsResponse'
    KIND = 'response'
    API_KEY = 73
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('throttle_time_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        Field('directories', '[]DirectoryData', (0, 32767), None, None, None, 'inherit', ()),
    )

    class DirectoryData(Struct):
        __slots__ = ('id', 'topics')
        FIELDS = (
            Field('id', 'uuid', (0, 32767), None, None, None, 'inherit', ZERO_UUID),
            Field('topics', '[]TopicData', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, id: bytes = ZERO_UUID, topics: list[AssignReplicasToDirsResponse.TopicData] = _UNSET) -> None:
            self.id = id
            self.topics = [] if topics is _UNSET else topics

    class PartitionData(Struct):
        __slots__ = ('partition_index', 'error_code')
        FIELDS = (
            Field('partition_index', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, partition_index: int = 0, error_code: int = 0) -> None:
            self.partition_index = partition_index
            self.error_code = error_code

    class TopicData(Struct):
        __slots__ = ('topic_id', 'partitions')
        FIELDS = (
            Field('topic_id', 'uuid', (0, 32767), None, None, None, 'inherit', ZERO_UUID),
            Field('partitions', '[]PartitionData', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, topic_id: bytes = ZERO_UUID, partitions: list[AssignReplicasToDirsResponse.PartitionData] = _UNSET) -> None:
            self.topic_id = topic_id
            self.partitions = [] if partitions is _UNSET else partitions

    def __init__(self, *, throttle_time_ms: int = 0, error_code: int = 0, directories: list[AssignReplicasToDirsResponse.DirectoryData] = _UNSET) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.directories = [] if directories is _UNSET else directories


class BeginQuorumEpochRequest(Message):
    __slots__ = ('cluster_id', 'voter_id', 'topics', 'leader_endpoints')
    NAME = 'BeginQuorumEpochRequest'
    KIND = 'request'
    API_KEY = 53
    VALID_VERSIONS = (0, 1)
    FLEXIBLE_VERSIONS = (1, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('cluster_id', 'string', (0, 32767), (0, 32767), None, None, 'inherit', None),
        Field('voter_id', 'int32', (1, 32767), None, None, None, 'inherit', -1),
        Field('topics', '[]TopicData', (0, 32767), None, None, None, 'inherit', ()),
        Field('leader_endpoints', '[]LeaderEndpoint', (1, 32767), None, None, None, 'inherit', ()),
    )

    class LeaderEndpoint(Struct):
        __slots__ = ('name', 'host', 'port')
        FIELDS = (
            Field('name', 'string', (1, 32767), None, None, None, 'inherit', ''),
            Field('host', 'string', (1, 32767), None, None, None, 'inherit', ''),
            Field('port', 'uint16', (1, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, name: str = '', host: str = '', port: int = 0) -> None:
            self.name = name
            self.host = host
            self.port = port

    class PartitionData(Struct):
        __slots__ = ('partition_index', 'voter_directory_id', 'leader_id', 'leader_epoch')
        FIELDS = (
            Field('partition_index', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('voter_directory_id', 'uuid', (1, 32767), None, None, None, 'inherit', ZERO_UUID),
            Field('leader_id', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('leader_epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, partition_index: int = 0, voter_directory_id: bytes = ZERO_UUID, leader_id: int = 0, leader_epoch: int = 0) -> None:
            self.partition_index = partition_index
            self.voter_directory_id = voter_directory_id
            self.leader_id = leader_id
            self.leader_epoch = leader_epoch

    class TopicData(Struct):
        __slots__ = ('topic_name', 'partitions')
        FIELDS = (
            Field('topic_name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('partitions', '[]PartitionData', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, topic_name: str = '', partitions: list[BeginQuorumEpochRequest.PartitionData] = _UNSET) -> None:
            self.topic_name = topic_name
            self.partitions = [] if partitions is _UNSET else partitions

    def __init__(self, *, cluster_id: str | None = None, voter_id: int = -1, topics: list[BeginQuorumEpochRequest.TopicData] = _UNSET, leader_endpoints: list[BeginQuorumEpochRequest.LeaderEndpoint] = _UNSET) -> None:
        self.cluster_id = cluster_id
        self.voter_id = voter_id
        self.topics = [] if topics is _UNSET else topics
        self.leader_endpoints = [] if leader_endpoints is _UNSET else leader_endpoints


class BeginQuorumEpochResponse(Message):
    __slots__ = ('error_code', 'topics', 'node_endpoints')
    NAME = 'BeginQuorumEpochResponse'
    KIND = 'response'
    API_KEY = 53
    VALID_VERSIONS = (0, 1)
    FLEXIBLE_VERSIONS = (1, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        Field('topics', '[]TopicData', (0, 32767), None, None, None, 'inherit', ()),
        Field('node_endpoints', '[]NodeEndpoint', (1, 32767), None, 0, (1, 32767), 'inherit', ()),
    )

    class NodeEndpoint(Struct):
        __slots__ = ('node_id', 'host', 'port')
        FIELDS = (
            Field('node_id', 'int32', (1, 32767), None, None, None, 'inherit', 0),
            Field('host', 'string', (1, 32767), None, None, None, 'inherit', ''),
            Field('port', 'uint16', (1, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, node_id: int = 0, host: str = '', port: int = 0) -> None:
            self.node_id = node_id
            self.host = host
            self.port = port

    class PartitionData(Struct):
        __slots__ = ('partition_index', 'error_code', 'leader_id', 'leader_epoch')
        FIELDS = (
            Field('partition_index', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
            Field('leader_id', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('leader_epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, partition_index: int = 0, error_code: int = 0, leader_id: int = 0, leader_epoch: int = 0) -> None:
            self.partition_index = partition_index
            self.error_code = error_code
            self.leader_id = leader_id
            self.leader_epoch = leader_epoch

    class TopicData(Struct):
        __slots__ = ('topic_name', 'partitions')
        FIELDS = (
            Field('topic_name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('partitions', '[]PartitionData', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, topic_name: str = '', partitions: list[BeginQuorumEpochResponse.PartitionData] = _UNSET) -> None:
            self.topic_name = topic_name
            self.partitions = [] if partitions is _UNSET else partitions

    def __init__(self, *, error_code: int = 0, topics: list[BeginQuorumEpochResponse.TopicData] = _UNSET, node_endpoints: list[BeginQuorumEpochResponse.NodeEndpoint] = _UNSET) -> None:
        self.error_code = error_code
        self.topics = [] if topics is _UNSET else topics
        self.node_endpoints = [] if node_endpoints is _UNSET else node_endpoints


class BeginTransactionRecord(Message):
    __slots__ = ('name',)
    NAME = 'BeginTransactionRecord'
    KIND = 'metadata'
    API_KEY = 23
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('name', 'string', (0, 32767), (0, 32767), 0, (0, 32767), 'inherit', None),
    )

    def __init__(self, *, name: str | None = None) -> None:
        self.name = name


class BrokerHeartbeatRequest(Message):
    __slots__ = ('broker_id', 'broker_epoch', 'current_metadata_offset', 'want_fence', 'want_shut_down', 'offline_log_dirs', 'cordoned_log_dirs')
    NAME = 'BrokerHeartbeatRequest'
    KIND = 'request'
    API_KEY = 63
    VALID_VERSIONS = (0, 2)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('broker_id', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('broker_epoch', 'int64', (0, 32767), None, None, None, 'inherit', -1),
        Field('current_metadata_offset', 'int64', (0, 32767), None, None, None, 'inherit', 0),
        Field('want_fence', 'bool', (0, 32767), None, None, None, 'inherit', False),
        Field('want_shut_down', 'bool', (0, 32767), None, None, None, 'inherit', False),
        Field('offline_log_dirs', '[]uuid', (1, 32767), None, 0, (1, 32767), 'inherit', ()),
        Field('cordoned_log_dirs', '[]uuid', (2, 32767), (2, 32767), 1, (2, 32767), 'inherit', None),
    )

    def __init__(self, *, broker_id: int = 0, broker_epoch: int = -1, current_metadata_offset: int = 0, want_fence: bool = False, want_shut_down: bool = False, offline_log_dirs: list[bytes] = _UNSET, cordoned_log_dirs: list[bytes] | None = None) -> None:
        self.broker_id = broker_id
        self.broker_epoch = broker_epoch
        self.current_metadata_offset = current_metadata_offset
        self.want_fence = want_fence
        self.want_shut_down = want_shut_down
        self.offline_log_dirs = [] if offline_log_dirs is _UNSET else offline_log_dirs
        self.cordoned_log_dirs = cordoned_log_dirs


class BrokerHeartbeatResponse(Message):
    __slots__ = ('throttle_time_ms', 'error_code', 'is_caught_up', 'is_fenced', 'should_shut_down')
    NAME = 'BrokerHeartbeatResponse'
    KIND = 'response'
    API_KEY = 63
    VALID_VERSIONS = (0, 2)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('throttle_time_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        Field('is_caught_up', 'bool', (0, 32767), None, None, None, 'inherit', False),
        Field('is_fenced', 'bool', (0, 32767), None, None, None, 'inherit', True),
        Field('should_shut_down', 'bool', (0, 32767), None, None, None, 'inherit', False),
    )

    def __init__(self, *, throttle_time_ms: int = 0, error_code: int = 0, is_caught_up: bool = False, is_fenced: bool = True, should_shut_down: bool = False) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.is_caught_up = is_caught_up
        self.is_fenced = is_fenced
        self.should_shut_down = should_shut_down


class BrokerRegistrationChangeRecord(Message):
    __slots__ = ('broker_id', 'broker_epoch', 'fenced', 'in_controlled_shutdown', 'log_dirs', 'cordoned_log_dirs')
    NAME = 'BrokerRegistrationChangeRecord'
    KIND = 'metadata'
    API_KEY = 17
    VALID_VERSIONS = (0, 3)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('broker_id', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('broker_epoch', 'int64', (0, 32767), None, None, None, 'inherit', 0),
        Field('fenced', 'int8', (0, 32767), None, 0, (0, 32767), 'inherit', 0),
        Field('in_controlled_shutdown', 'int8', (1, 32767), None, 1, (1, 32767), 'inherit', 0),
        Field('log_dirs', '[]uuid', (2, 32767), None, 2, (2, 32767), 'inherit', ()),
        Field('cordoned_log_dirs', '[]uuid', (3, 32767), (3, 32767), 3, (3, 32767), 'inherit', None),
    )

    def __init__(self, *, broker_id: int = 0, broker_epoch: int = 0, fenced: int = 0, in_controlled_shutdown: int = 0, log_dirs: list[bytes] = _UNSET, cordoned_log_dirs: list[bytes] | None = None) -> None:
        self.broker_id = broker_id
        self.broker_epoch = broker_epoch
        self.fenced = fenced
        self.in_controlled_shutdown = in_controlled_shutdown
        self.log_dirs = [] if log_dirs is _UNSET else log_dirs
        self.cordoned_log_dirs = cordoned_log_dirs


class BrokerRegistrationRequest(Message):
    __slots__ = ('broker_id', 'cluster_id', 'incarnation_id', 'listeners', 'features', 'rack', 'is_migrating_zk_broker', 'log_dirs', 'previous_broker_epoch')
    NAME = 'BrokerRegistrationRequest'
    KIND = 'request'
    API_KEY = 62
    VALID_VERSIONS = (0, 4)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('broker_id', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('cluster_id', 'string', (0, 32767), None, None, None, 'inherit', ''),
        Field('incarnation_id', 'uuid', (0, 32767), None, None, None, 'inherit', ZERO_UUID),
        Field('listeners', '[]Listener', (0, 32767), None, None, None, 'inherit', ()),
        Field('features', '[]Feature', (0, 32767), None, None, None, 'inherit', ()),
        Field('rack', 'string', (0, 32767), (0, 32767), None, None, 'inherit', ''),
        Field('is_migrating_zk_broker', 'bool', (1, 32767), None, None, None, 'inherit', False),
        Field('log_dirs', '[]uuid', (2, 32767), None, None, None, 'inherit', ()),
        Field('previous_broker_epoch', 'int64', (3, 32767), None, None, None, 'inherit', -1),
    )

    class Feature(Struct):
        __slots__ = ('name', 'min_supported_version', 'max_supported_version')
        FIELDS = (
            Field('name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('min_supported_version', 'int16', (0, 32767), None, None, None, 'inherit', 0),
            Field('max_supported_version', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, name: str = '', min_supported_version: int = 0, max_supported_version: int = 0) -> None:
            self.name = name
            self.min_supported_version = min_supported_version
            self.max_supported_version = max_supported_version

    class Listener(Struct):
        __slots__ = ('name', 'host', 'port', 'security_protocol')
        FIELDS = (
            Field('name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('host', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('port', 'uint16', (0, 32767), None, None, None, 'inherit', 0),
            Field('security_protocol', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, name: str = '', host: str = '', port: int = 0, security_protocol: int = 0) -> None:
            self.name = name
            self.host = host
            self.port = port
            self.security_protocol = security_protocol

    def __init__(self, *, broker_id: int = 0, cluster_id: str = '', incarnation_id: bytes = ZERO_UUID, listeners: list[BrokerRegistrationRequest.Listener] = _UNSET, features: list[BrokerRegistrationRequest.Feature] = _UNSET, rack: str | None = '', is_migrating_zk_broker: bool = False, log_dirs: list[bytes] = _UNSET, previous_broker_epoch: int = -1) -> None:
        self.broker_id = broker_id
        self.cluster_id = cluster_id
        self.incarnation_id = incarnation_id
        self.listeners = [] if listeners is _UNSET else listeners
        self.features = [] if features is _UNSET else features
        self.rack = rack
        self.is_migrating_zk_broker = is_migrating_zk_broker
        self.log_dirs = [] if log_dirs is _UNSET else log_dirs
        self.previous_broker_epoch = previous_broker_epoch


class BrokerRegistrationResponse(Message):
    __slots__ = ('throttle_time_ms', 'error_code', 'broker_epoch')
    NAME = 'BrokerRegistrationResponse'
    KIND = 'response'
    API_KEY = 62
    VALID_VERSIONS = (0, 4)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('throttle_time_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        Field('broker_epoch', 'int64', (0, 32767), None, None, None, 'inherit', -1),
    )

    def __init__(self, *, throttle_time_ms: int = 0, error_code: int = 0, broker_epoch: int = -1) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.broker_epoch = broker_epoch


class ClearElrRecord(Message):
    __slots__ = ('topic_name',)
    NAME = 'ClearElrRecord'
    KIND = 'metadata'
    API_KEY = 28
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('topic_name', 'string', (0, 32767), None, None, None, 'inherit', ''),
    )

    def __init__(self, *, topic_name: str = '') -> None:
        self.topic_name = topic_name


class ClientQuotaRecord(Message):
    __slots__ = ('entity', 'key', 'value', 'remove')
    NAME = 'ClientQuotaRecord'
    KIND = 'metadata'
    API_KEY = 14
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('entity', '[]EntityData', (0, 32767), None, None, None, 'inherit', ()),
        Field('key', 'string', (0, 32767), None, None, None, 'inherit', ''),
        Field('value', 'float64', (0, 32767), None, None, None, 'inherit', 0.0),
        Field('remove', 'bool', (0, 32767), None, None, None, 'inherit', False),
    )

    class EntityData(Struct):
        __slots__ = ('entity_type', 'entity_name')
        FIELDS = (
            Field('entity_type', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('entity_name', 'string', (0, 32767), (0, 32767), None, None, 'inherit', ''),
        )

        def __init__(self, *, entity_type: str = '', entity_name: str | None = '') -> None:
            self.entity_type = entity_type
            self.entity_name = entity_name

    def __init__(self, *, entity: list[ClientQuotaRecord.EntityData] = _UNSET, key: str = '', value: float = 0.0, remove: bool = False) -> None:
        self.entity = [] if entity is _UNSET else entity
        self.key = key
        self.value = value
        self.remove = remove


class ConfigRecord(Message):
    __slots__ = ('resource_type', 'resource_name', 'name', 'value')
    NAME = 'ConfigRecord'
    KIND = 'metadata'
    API_KEY = 4
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('resource_type', 'int8', (0, 32767), None, None, None, 'inherit', 0),
        Field('resource_name', 'string', (0, 32767), None, None, None, 'inherit', ''),
        Field('name', 'string', (0, 32767), None, None, None, 'inherit', ''),
        Field('value', 'string', (0, 32767), (0, 32767), None, None, 'inherit', ''),
    )

    def __init__(self, *, resource_type: int = 0, resource_name: str = '', name: str = '', value: str | None = '') -> None:
        self.resource_type = resource_type
        self.resource_name = resource_name
        self.name = name
        self.value = value


class ConsumerGroupCurrentMemberAssignmentKey(Message):
    __slots__ = ('group_id', 'member_id')
    NAME = 'ConsumerGroupCurrentMemberAssignmentKey'
    KIND = 'data'
    API_KEY = None
    VALID_VERSIONS = (8, 8)
    FLEXIBLE_VERSIONS = None
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('group_id', 'string', (8, 8), None, None, None, 'inherit', ''),
        Field('member_id', 'string', (8, 8), None, None, None, 'inherit', ''),
    )

    def __init__(self, *, group_id: str = '', member_id: str = '') -> None:
        self.group_id = group_id
        self.member_id = member_id


class ConsumerGroupCurrentMemberAssignmentValue(Message):
    __slots__ = ('member_epoch', 'previous_member_epoch', 'state', 'assigned_partitions', 'partitions_pending_revocation')
    NAME = 'ConsumerGroupCurrentMemberAssignmentValue'
    KIND = 'data'
    API_KEY = None
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('member_epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('previous_member_epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('state', 'int8', (0, 32767), None, None, None, 'inherit', 0),
        Field('assigned_partitions', '[]TopicPartitions', (0, 32767), None, None, None, 'inherit', ()),
        Field('partitions_pending_revocation', '[]TopicPartitions', (0, 32767), None, None, None, 'inherit', ()),
    )

    class TopicPartitions(Struct):
        __slots__ = ('topic_id', 'partitions', 'assignment_epochs')
        FIELDS = (
            Field('topic_id', 'uuid', (0, 32767), None, None, None, 'inherit', ZERO_UUID),
            Field('partitions', '[]int32', (0, 32767), None, None, None, 'inherit', ()),
            Field('assignment_epochs', '[]int32', (0, 32767), (0, 32767), 0, (0, 32767), 'inherit', None),
        )

        def __init__(self, *, topic_id: bytes = ZERO_UUID, partitions: list[int] = _UNSET, assignment_epochs: list[int] | None = None) -> None:
            self.topic_id = topic_id
            self.partitions = [] if partitions is _UNSET else partitions
            self.assignment_epochs = assignment_epochs

    def __init__(self, *, member_epoch: int = 0, previous_member_epoch: int = 0, state: int = 0, assigned_partitions: list[ConsumerGroupCurrentMemberAssignmentValue.TopicPartitions] = _UNSET, partitions_pending_revocation: list[ConsumerGroupCurrentMemberAssignmentValue.TopicPartitions] = _UNSET) -> None:
        self.member_epoch = member_epoch
        self.previous_member_epoch = previous_member_epoch
        self.state = state
        self.assigned_partitions = [] if assigned_partitions is _UNSET else assigned_partitions
        self.partitions_pending_revocation = [] if partitions_pending_revocation is _UNSET else partitions_pending_revocation


class ConsumerGroupDescribeRequest(Message):
    __slots__ = ('group_ids', 'include_authorized_operations')
    NAME = 'ConsumerGroupDescribeRequest'
    KIND = 'request'
    API_KEY = 69
    VALID_VERSIONS = (0, 1)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('group_ids', '[]string', (0, 32767), None, None, None, 'inherit', ()),
        Field('include_authorized_operations', 'bool', (0, 32767), None, None, None, 'inherit', False),
    )

    def __init__(self, *, group_ids: list[str] = _UNSET, include_authorized_operations: bool = False) -> None:
        self.group_ids = [] if group_ids is _UNSET else group_ids
        self.include_authorized_operations = include_authorized_operations


class ConsumerGroupDescribeResponse(Message):
    __slots__ = ('throttle_time_ms', 'groups')
    NAME = 'ConsumerGroupDescribeResponse'
    KIND = 'response'
    API_KEY = 69
    VALID_VERSIONS = (0, 1)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('throttle_time_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('groups', '[]DescribedGroup', (0, 32767), None, None, None, 'inherit', ()),
    )

    class Assignment(Struct):
        __slots__ = ('topic_partitions',)
        FIELDS = (
            Field('topic_partitions', '[]TopicPartitions', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, topic_partitions: list[ConsumerGroupDescribeResponse.TopicPartitions] = _UNSET) -> None:
            self.topic_partitions = [] if topic_partitions is _UNSET else topic_partitions

    class DescribedGroup(Struct):
        __slots__ = ('error_code', 'error_message', 'group_id', 'group_state', 'group_epoch', 'assignment_epoch', 'assignor_name', 'members', 'authorized_operations')
        FIELDS = (
            Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
            Field('error_message', 'string', (0, 32767), (0, 32767), None, None, 'inherit', None),
            Field('group_id', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('group_state', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('group_epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('assignment_epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('assignor_name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('members', '[]Member', (0, 32767), None, None, None, 'inherit', ()),
            Field('authorized_operations', 'int32', (0, 32767), None, None, None, 'inherit', -2147483648),
        )

        def __init__(self, *, error_code: int = 0, error_message: str | None = None, group_id: str = '', group_state: str = '', group_epoch: int = 0, assignment_epoch: int = 0, assignor_name: str = '', members: list[ConsumerGroupDescribeResponse.Member] = _UNSET, authorized_operations: int = -2147483648) -> None:
            self.error_code = error_code
            self.error_message = error_message
            self.group_id = group_id
            self.group_state = group_state
            self.group_epoch = group_epoch
            self.assignment_epoch = assignment_epoch
            self.assignor_name = assignor_name
            self.members = [] if members is _UNSET else members
            self.authorized_operations = authorized_operations

    class Member(Struct):
        __slots__ = ('member_id', 'instance_id', 'rack_id', 'member_epoch', 'client_id', 'client_host', 'subscribed_topic_names', 'subscribed_topic_regex', 'assignment', 'target_assignment', 'member_type')
        FIELDS = (
            Field('member_id', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('instance_id', 'string', (0, 32767), (0, 32767), None, None, 'inherit', None),
            Field('rack_id', 'string', (0, 32767), (0, 32767), None, None, 'inherit', None),
            Field('member_epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('client_id', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('client_host', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('subscribed_topic_names', '[]string', (0, 32767), None, None, None, 'inherit', ()),
            Field('subscribed_topic_regex', 'string', (0, 32767), (0, 32767), None, None, 'inherit', None),
            Field('assignment', 'Assignment', (0, 32767), None, None, None, 'inherit', 'Assignment'),
            Field('target_assignment', 'Assignment', (0, 32767), None, None, None, 'inherit', 'Assignment'),
            Field('member_type', 'int8', (1, 32767), None, None, None, 'inherit', -1),
        )

        def __init__(self, *, member_id: str = '', instance_id: str | None = None, rack_id: str | None = None, member_epoch: int = 0, client_id: str = '', client_host: str = '', subscribed_topic_names: list[str] = _UNSET, subscribed_topic_regex: str | None = None, assignment: ConsumerGroupDescribeResponse.Assignment = _UNSET, target_assignment: ConsumerGroupDescribeResponse.Assignment = _UNSET, member_type: int = -1) -> None:
            self.member_id = member_id
            self.instance_id = instance_id
            self.rack_id = rack_id
            self.member_epoch = member_epoch
            self.client_id = client_id
            self.client_host = client_host
            self.subscribed_topic_names = [] if subscribed_topic_names is _UNSET else subscribed_topic_names
            self.subscribed_topic_regex = subscribed_topic_regex
            self.assignment = ConsumerGroupDescribeResponse.Assignment() if assignment is _UNSET else assignment
            self.target_assignment = ConsumerGroupDescribeResponse.Assignment() if target_assignment is _UNSET else target_assignment
            self.member_type = member_type

    class TopicPartitions(Struct):
        __slots__ = ('topic_id', 'topic_name', 'partitions')
        FIELDS = (
            Field('topic_id', 'uuid', (0, 32767), None, None, None, 'inherit', ZERO_UUID),
            Field('topic_name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('partitions', '[]int32', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, topic_id: bytes = ZERO_UUID, topic_name: str = '', partitions: list[int] = _UNSET) -> None:
            self.topic_id = topic_id
            self.topic_name = topic_name
            self.partitions = [] if partitions is _UNSET else partitions

    def __init__(self, *, throttle_time_ms: int = 0, groups: list[ConsumerGroupDescribeResponse.DescribedGroup] = _UNSET) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.groups = [] if groups is _UNSET else groups


class ConsumerGroupHeartbeatRequest(Message):
    __slots__ = ('group_id', 'member_id', 'member_epoch', 'instance_id', 'rack_id', 'rebalance_timeout_ms', 'subscribed_topic_names', 'subscribed_topic_regex', 'server_assignor', 'topic_partitions')
    NAME = 'ConsumerGroupHeartbeatRequest'
    KIND = 'request'
    API_KEY = 68
    VALID_VERSIONS = (0, 1)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('group_id', 'string', (0, 32767), None, None, None, 'inherit', ''),
        Field('member_id', 'string', (0, 32767), None, None, None, 'inherit', ''),
        Field('member_epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('instance_id', 'string', (0, 32767), (0, 32767), None, None, 'inherit', None),
        Field('rack_id', 'string', (0, 32767), (0, 32767), None, None, 'inherit', None),
        Field('rebalance_timeout_ms', 'int32', (0, 32767), None, None, None, 'inherit', -1),
        Field('subscribed_topic_names', '[]string', (0, 32767), (0, 32767), None, None, 'inherit', None),
        Field('subscribed_topic_regex', 'string', (1, 32767), (1, 32767), None, None, 'inherit', None),
        Field('server_assignor', 'string', (0, 32767), (0, 32767), None, None, 'inherit', None),
        Field('topic_partitions', '[]TopicPartitions', (0, 32767), (0, 32767), None, None, 'inherit', None),
    )

    class TopicPartitions(Struct):
        __slots__ = ('topic_id', 'partitions')
        FIELDS = (
            Field('topic_id', 'uuid', (0, 32767), None, None, None, 'inherit', ZERO_UUID),
            Field('partitions', '[]int32', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, topic_id: bytes = ZERO_UUID, partitions: list[int] = _UNSET) -> None:
            self.topic_id = topic_id
            self.partitions = [] if partitions is _UNSET else partitions

    def __init__(self, *, group_id: str = '', member_id: str = '', member_epoch: int = 0, instance_id: str | None = None, rack_id: str | None = None, rebalance_timeout_ms: int = -1, subscribed_topic_names: list[str] | None = None, subscribed_topic_regex: str | None = None, server_assignor: str | None = None, topic_partitions: list[ConsumerGroupHeartbeatRequest.TopicPartitions] | None = None) -> None:
        self.group_id = group_id
        self.member_id = member_id
        self.member_epoch = member_epoch
        self.instance_id = instance_id
        self.rack_id = rack_id
        self.rebalance_timeout_ms = rebalance_timeout_ms
        self.subscribed_topic_names = subscribed_topic_names
        self.subscribed_topic_regex = subscribed_topic_regex
        self.server_assignor = server_assignor
        self.topic_partitions = topic_partitions


class ConsumerGroupHeartbeatResponse(Message):
    __slots__ = ('throttle_time_ms', 'error_code', 'error_message', 'member_id', 'member_epoch', 'heartbeat_interval_ms', 'assignment')
    NAME = 'ConsumerGroupHeartbeatResponse'
    KIND = 'response'
    API_KEY = 68
    VALID_VERSIONS = (0, 1)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('throttle_time_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        Field('error_message', 'string', (0, 32767), (0, 32767), None, None, 'inherit', None),
        Field('member_id', 'string', (0, 32767), (0, 32767), None, None, 'inherit', None),
        Field('member_epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('heartbeat_interval_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('assignment', 'Assignment', (0, 32767), (0, 32767), None, None, 'inherit', None),
    )

    class Assignment(Struct):
        __slots__ = ('topic_partitions',)
        FIELDS = (
            Field('topic_partitions', '[]TopicPartitions', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, topic_partitions: list[ConsumerGroupHeartbeatResponse.TopicPartitions] = _UNSET) -> None:
            self.topic_partitions = [] if topic_partitions is _UNSET else topic_partitions

    class TopicPartitions(Struct):
        __slots__ = ('topic_id', 'partitions')
        FIELDS = (
            Field('topic_id', 'uuid', (0, 32767), None, None, None, 'inherit', ZERO_UUID),
            Field('partitions', '[]int32', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, topic_id: bytes = ZERO_UUID, partitions: list[int] = _UNSET) -> None:
            self.topic_id = topic_id
            self.partitions = [] if partitions is _UNSET else partitions

    def __init__(self, *, throttle_time_ms: int = 0, error_code: int = 0, error_message: str | None = None, member_id: str | None = None, member_epoch: int = 0, heartbeat_interval_ms: int = 0, assignment: ConsumerGroupHeartbeatResponse.Assignment | None = None) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.error_message = error_message
        self.member_id = member_id
        self.member_epoch = member_epoch
        self.heartbeat_interval_ms = heartbeat_interval_ms
        self.assignment = assignment


class ConsumerGroupMemberMetadataKey(Message):
    __slots__ = ('group_id', 'member_id')
    NAME = 'ConsumerGroupMemberMetadataKey'
    KIND = 'data'
    API_KEY = None
    VALID_VERSIONS = (5, 5)
    FLEXIBLE_VERSIONS = None
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('group_id', 'string', (5, 5), None, None, None, 'inherit', ''),
        Field('member_id', 'string', (5, 5), None, None, None, 'inherit', ''),
    )

    def __init__(self, *, group_id: str = '', member_id: str = '') -> None:
        self.group_id = group_id
        self.member_id = member_id


class ConsumerGroupMemberMetadataValue(Message):
    __slots__ = ('instance_id', 'rack_id', 'client_id', 'client_host', 'subscribed_topic_names', 'subscribed_topic_regex', 'rebalance_timeout_ms', 'server_assignor', 'classic_member_metadata')
    NAME = 'ConsumerGroupMemberMetadataValue'
    KIND = 'data'
    API_KEY = None
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('instance_id', 'string', (0, 32767), (0, 32767), None, None, 'inherit', ''),
        Field('rack_id', 'string', (0, 32767), (0, 32767), None, None, 'inherit', ''),
        Field('client_id', 'string', (0, 32767), None, None, None, 'inherit', ''),
        Field('client_host', 'string', (0, 32767), None, None, None, 'inherit', ''),
        Field('subscribed_topic_names', '[]string', (0, 32767), None, None, None, 'inherit', ()),
        Field('subscribed_topic_regex', 'string', (0, 32767), (0, 32767), None, None, 'inherit', ''),
        Field('rebalance_timeout_ms', 'int32', (0, 32767), None, None, None, 'inherit', -1),
        Field('server_assignor', 'string', (0, 32767), (0, 32767), None, None, 'inherit', ''),
        Field('classic_member_metadata', 'ClassicMemberMetadata', (0, 32767), (0, 32767), 0, (0, 32767), 'inherit', None),
    )

    class ClassicMemberMetadata(Struct):
        __slots__ = ('session_timeout_ms', 'supported_protocols')
        FIELDS = (
            Field('session_timeout_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('supported_protocols', '[]ClassicProtocol', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, session_timeout_ms: int = 0, supported_protocols: list[ConsumerGroupMemberMetadataValue.ClassicProtocol] = _UNSET) -> None:
            self.session_timeout_ms = session_timeout_ms
            self.supported_protocols = [] if supported_protocols is _UNSET else supported_protocols

    class ClassicProtocol(Struct):
        __slots__ = ('name', 'metadata')
        FIELDS = (
            Field('name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('metadata', 'bytes', (0, 32767), None, None, None, 'inherit', b''),
        )

        def __init__(self, *, name: str = '', metadata: bytes = b'') -> None:
            self.name = name
            self.metadata = metadata

    def __init__(self, *, instance_id: str | None = '', rack_id: str | None = '', client_id: str = '', client_host: str = '', subscribed_topic_names: list[str] = _UNSET, subscribed_topic_regex: str | None = '', rebalance_timeout_ms: int = -1, server_assignor: str | None = '', classic_member_metadata: ConsumerGroupMemberMetadataValue.ClassicMemberMetadata | None = None) -> None:
        self.instance_id = instance_id
        self.rack_id = rack_id
        self.client_id = client_id
        self.client_host = client_host
        self.subscribed_topic_names = [] if subscribed_topic_names is _UNSET else subscribed_topic_names
        self.subscribed_topic_regex = subscribed_topic_regex
        self.rebalance_timeout_ms = rebalance_timeout_ms
        self.server_assignor = server_assignor
        self.classic_member_metadata = classic_member_metadata


class ConsumerGroupMetadataKey(Message):
    __slots__ = ('group_id',)
    NAME = 'ConsumerGroupMetadataKey'
    KIND = 'data'
    API_KEY = None
    VALID_VERSIONS = (3, 3)
    FLEXIBLE_VERSIONS = None
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('group_id', 'string', (3, 3), None, None, None, 'inherit', ''),
    )

    def __init__(self, *, group_id: str = '') -> None:
        self.group_id = group_id


class ConsumerGroupMetadataValue(Message):
    __slots__ = ('epoch', 'metadata_hash')
    NAME = 'ConsumerGroupMetadataValue'
    KIND = 'data'
    API_KEY = None
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('metadata_hash', 'int64', (0, 32767), None, 0, (0, 32767), 'inherit', 0),
    )

    def __init__(self, *, epoch: int = 0, metadata_hash: int = 0) -> None:
        self.epoch = epoch
        self.metadata_hash = metadata_hash


class ConsumerGroupPartitionMetadataKey(Message):
    __slots__ = ('group_id',)
    NAME = 'ConsumerGroupPartitionMetadataKey'
    KIND = 'data'
    API_KEY = None
    VALID_VERSIONS = (4, 4)
    FLEXIBLE_VERSIONS = None
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('group_id', 'string', (4, 4), None, None, None, 'inherit', ''),
    )

    def __init__(self, *, group_id: str = '') -> None:
        self.group_id = group_id


class ConsumerGroupPartitionMetadataValue(Message):
    __slots__ = ('topics',)
    NAME = 'ConsumerGroupPartitionMetadataValue'
    KIND = 'data'
    API_KEY = None
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('topics', '[]TopicMetadata', (0, 32767), None, None, None, 'inherit', ()),
    )

    class PartitionMetadata(Struct):
        __slots__ = ('partition', 'racks')
        FIELDS = (
            Field('partition', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('racks', '[]string', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, partition: int = 0, racks: list[str] = _UNSET) -> None:
            self.partition = partition
            self.racks = [] if racks is _UNSET else racks

    class TopicMetadata(Struct):
        __slots__ = ('topic_id', 'topic_name', 'num_partitions', 'partition_metadata')
        FIELDS = (
            Field('topic_id', 'uuid', (0, 32767), None, None, None, 'inherit', ZERO_UUID),
            Field('topic_name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('num_partitions', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('partition_metadata', '[]PartitionMetadata', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, topic_id: bytes = ZERO_UUID, topic_name: str = '', num_partitions: int = 0, partition_metadata: list[ConsumerGroupPartitionMetadataValue.PartitionMetadata] = _UNSET) -> None:
            self.topic_id = topic_id
            self.topic_name = topic_name
            self.num_partitions = num_partitions
            self.partition_metadata = [] if partition_metadata is _UNSET else partition_metadata

    def __init__(self, *, topics: list[ConsumerGroupPartitionMetadataValue.TopicMetadata] = _UNSET) -> None:
        self.topics = [] if topics is _UNSET else topics


class ConsumerGroupRegularExpressionKey(Message):
    __slots__ = ('group_id', 'regular_expression')
    NAME = 'ConsumerGroupRegularExpressionKey'
    KIND = 'data'
    API_KEY = None
    VALID_VERSIONS = (16, 16)
    FLEXIBLE_VERSIONS = None
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('group_id', 'string', (16, 16), None, None, None, 'inherit', ''),
        Field('regular_expression', 'string', (16, 16), None, None, None, 'inherit', ''),
    )

    def __init__(self, *, group_id: str = '', regular_expression: str = '') -> None:
        self.group_id = group_id
        self.regular_expression = regular_expression


class ConsumerGroupRegularExpressionValue(Message):
    __slots__ = ('topics', 'version', 'timestamp')
    NAME = 'ConsumerGroupRegularExpressionValue'
    KIND = 'data'
    API_KEY = None
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('topics', '[]string', (0, 32767), None, None, None, 'inherit', ()),
        Field('version', 'int64', (0, 32767), None, None, None, 'inherit', 0),
        Field('timestamp', 'int64', (0, 32767), None, None, None, 'inherit', 0),
    )

    def __init__(self, *, topics: list[str] = _UNSET, version: int = 0, timestamp: int = 0) -> None:
        self.topics = [] if topics is _UNSET else topics
        self.version = version
        self.timestamp = timestamp


class ConsumerGroupTargetAssignmentMemberKey(Message):
    __slots__ = ('group_id', 'member_id')
    NAME = 'ConsumerGroupTargetAssignmentMemberKey'
    KIND = 'data'
    API_KEY = None
    VALID_VERSIONS = (7, 7)
    FLEXIBLE_VERSIONS = None
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('group_id', 'string', (7, 7), None, None, None, 'inherit', ''),
        Field('member_id', 'string', (7, 7), None, None, None, 'inherit', ''),
    )

    def __init__(self, *, group_id: str = '', member_id: str = '') -> None:
        self.group_id = group_id
        self.member_id = member_id


class ConsumerGroupTargetAssignmentMemberValue(Message):
    __slots__ = ('topic_partitions',)
    NAME = 'ConsumerGroupTargetAssignmentMemberValue'
    KIND = 'data'
    API_KEY = None
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('topic_partitions', '[]TopicPartition', (0, 32767), None, None, None, 'inherit', ()),
    )

    class TopicPartition(Struct):
        __slots__ = ('topic_id', 'partitions')
        FIELDS = (
            Field('topic_id', 'uuid', (0, 32767), None, None, None, 'inherit', ZERO_UUID),
            Field('partitions', '[]int32', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, topic_id: bytes = ZERO_UUID, partitions: list[int] = _UNSET) -> None:
            self.topic_id = topic_id
            self.partitions = [] if partitions is _UNSET else partitions

    def __init__(self, *, topic_partitions: list[ConsumerGroupTargetAssignmentMemberValue.TopicPartition] = _UNSET) -> None:
        self.topic_partitions = [] if topic_partitions is _UNSET else topic_partitions


class ConsumerGroupTargetAssignmentMetadataKey(Message):
    __slots__ = ('group_id',)
    NAME = 'ConsumerGroupTargetAssignmentMetadataKey'
    KIND = 'data'
    API_KEY = None
    VALID_VERSIONS = (6, 6)
    FLEXIBLE_VERSIONS = None
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('group_id', 'string', (6, 6), None, None, None, 'inherit', ''),
    )

    def __init__(self, *, group_id: str = '') -> None:
        self.group_id = group_id


class ConsumerGroupTargetAssignmentMetadataValue(Message):
    __slots__ = ('assignment_epoch', 'assignment_timestamp')
    NAME = 'ConsumerGroupTargetAssignmentMetadataValue'
    KIND = 'data'
    API_KEY = None
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('assignment_epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('assignment_timestamp', 'int64', (0, 32767), None, 0, (0, 32767), 'inherit', 0),
    )

    def __init__(self, *, assignment_epoch: int = 0, assignment_timestamp: int = 0) -> None:
        self.assignment_epoch = assignment_epoch
        self.assignment_timestamp = assignment_timestamp


class ConsumerProtocolAssignment(Message):
    __slots__ = ('assigned_partitions', 'user_data')
    NAME = 'ConsumerProtocolAssignment'
    KIND = 'data'
    API_KEY = None
    VALID_VERSIONS = (0, 3)
    FLEXIBLE_VERSIONS = None
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('assigned_partitions', '[]TopicPartition', (0, 32767), None, None, None, 'inherit', ()),
        Field('user_data', 'bytes', (0, 32767), (0, 32767), None, None, 'inherit', None),
    )

    class TopicPartition(Struct):
        __slots__ = ('topic', 'partitions')
        FIELDS = (
            Field('topic', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('partitions', '[]int32', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, topic: str = '', partitions: list[int] = _UNSET) -> None:
            self.topic = topic
            self.partitions = [] if partitions is _UNSET else partitions

    def __init__(self, *, assigned_partitions: list[ConsumerProtocolAssignment.TopicPartition] = _UNSET, user_data: bytes | None = None) -> None:
        self.assigned_partitions = [] if assigned_partitions is _UNSET else assigned_partitions
        self.user_data = user_data


class ConsumerProtocolSubscription(Message):
    __slots__ = ('topics', 'user_data', 'owned_partitions', 'generation_id', 'rack_id')
    NAME = 'ConsumerProtocolSubscription'
    KIND = 'data'
    API_KEY = None
    VALID_VERSIONS = (0, 3)
    FLEXIBLE_VERSIONS = None
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('topics', '[]string', (0, 32767), None, None, None, 'inherit', ()),
        Field('user_data', 'bytes', (0, 32767), (0, 32767), None, None, 'inherit', None),
        Field('owned_partitions', '[]TopicPartition', (1, 32767), None, None, None, 'inherit', ()),
        Field('generation_id', 'int32', (2, 32767), None, None, None, 'inherit', -1),
        Field('rack_id', 'string', (3, 32767), (3, 32767), None, None, 'inherit', None),
    )

    class TopicPartition(Struct):
        __slots__ = ('topic', 'partitions')
        FIELDS = (
            Field('topic', 'string', (1, 32767), None, None, None, 'inherit', ''),
            Field('partitions', '[]int32', (1, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, topic: str = '', partitions: list[int] = _UNSET) -> None:
            self.topic = topic
            self.partitions = [] if partitions is _UNSET else partitions

    def __init__(self, *, topics: list[str] = _UNSET, user_data: bytes | None = None, owned_partitions: list[ConsumerProtocolSubscription.TopicPartition] = _UNSET, generation_id: int = -1, rack_id: str | None = None) -> None:
        self.topics = [] if topics is _UNSET else topics
        self.user_data = user_data
        self.owned_partitions = [] if owned_partitions is _UNSET else owned_partitions
        self.generation_id = generation_id
        self.rack_id = rack_id


class ControlledShutdownRequest(Message):
    __slots__ = ('broker_id', 'broker_epoch')
    NAME = 'ControlledShutdownRequest'
    KIND = 'request'
    API_KEY = 7
    VALID_VERSIONS = (0, 3)
    FLEXIBLE_VERSIONS = (3, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('broker_id', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('broker_epoch', 'int64', (2, 32767), None, None, None, 'inherit', -1),
    )

    def __init__(self, *, broker_id: int = 0, broker_epoch: int = -1) -> None:
        self.broker_id = broker_id
        self.broker_epoch = broker_epoch


class ControlledShutdownResponse(Message):
    __slots__ = ('error_code', 'remaining_partitions')
    NAME = 'ControlledShutdownResponse'
    KIND = 'response'
    API_KEY = 7
    VALID_VERSIONS = (0, 3)
    FLEXIBLE_VERSIONS = (3, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        Field('remaining_partitions', '[]RemainingPartition', (0, 32767), None, None, None, 'inherit', ()),
    )

    class RemainingPartition(Struct):
        __slots__ = ('topic_name', 'partition_index')
        FIELDS = (
            Field('topic_name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('partition_index', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, topic_name: str = '', partition_index: int = 0) -> None:
            self.topic_name = topic_name
            self.partition_index = partition_index

    def __init__(self, *, error_code: int = 0, remaining_partitions: list[ControlledShutdownResponse.RemainingPartition] = _UNSET) -> None:
        self.error_code = error_code
        self.remaining_partitions = [] if remaining_partitions is _UNSET else remaining_partitions


class ControllerRegistrationRequest(Message):
    __slots__ = ('controller_id', 'incarnation_id', 'zk_migration_ready', 'listeners', 'features')
    NAME = 'ControllerRegistrationRequest'
    KIND = 'request'
    API_KEY = 70
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('controller_id', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('incarnation_id', 'uuid', (0, 32767), None, None, None, 'inherit', ZERO_UUID),
        Field('zk_migration_ready', 'bool', (0, 32767), None, None, None, 'inherit', False),
        Field('listeners', '[]Listener', (0, 32767), None, None, None, 'inherit', ()),
        Field('features', '[]Feature', (0, 32767), None, None, None, 'inherit', ()),
    )

    class Feature(Struct):
        __slots__ = ('name', 'min_supported_version', 'max_supported_version')
        FIELDS = (
            Field('name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('min_supported_version', 'int16', (0, 32767), None, None, None, 'inherit', 0),
            Field('max_supported_version', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, name: str = '', min_supported_version: int = 0, max_supported_version: int = 0) -> None:
            self.name = name
            self.min_supported_version = min_supported_version
            self.max_supported_version = max_supported_version

    class Listener(Struct):
        __slots__ = ('name', 'host', 'port', 'security_protocol')
        FIELDS = (
            Field('name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('host', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('port', 'uint16', (0, 32767), None, None, None, 'inherit', 0),
            Field('security_protocol', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, name: str = '', host: str = '', port: int = 0, security_protocol: int = 0) -> None:
            self.name = name
            self.host = host
            self.port = port
            self.security_protocol = security_protocol

    def __init__(self, *, controller_id: int = 0, incarnation_id: bytes = ZERO_UUID, zk_migration_ready: bool = False, listeners: list[ControllerRegistrationRequest.Listener] = _UNSET, features: list[ControllerRegistrationRequest.Feature] = _UNSET) -> None:
        self.controller_id = controller_id
        self.incarnation_id = incarnation_id
        self.zk_migration_ready = zk_migration_ready
        self.listeners = [] if listeners is _UNSET else listeners
        self.features = [] if features is _UNSET else features


class ControllerRegistrationResponse(Message):
    __slots__ = ('throttle_time_ms', 'error_code', 'error_message')
    NAME = 'ControllerRegistrationResponse'
    KIND = 'response'
    API_KEY = 70
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('throttle_time_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        Field('error_message', 'string', (0, 32767), (0, 32767), None, None, 'inherit', ''),
    )

    def __init__(self, *, throttle_time_ms: int = 0, error_code: int = 0, error_message: str | None = '') -> None:
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.error_message = error_message


class CreateAclsRequest(Message):
    __slots__ = ('creations',)
    NAME = 'CreateAclsRequest'
    KIND = 'request'
    API_KEY = 30
    VALID_VERSIONS = (0, 3)
    FLEXIBLE_VERSIONS = (2, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('creations', '[]AclCreation', (0, 32767), None, None, None, 'inherit', ()),
    )

    class AclCreation(Struct):
        __slots__ = ('resource_type', 'resource_name', 'resource_pattern_type', 'principal', 'host', 'operation', 'permission_type')
        FIELDS = (
            Field('resource_type', 'int8', (0, 32767), None, None, None, 'inherit', 0),
            Field('resource_name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('resource_pattern_type', 'int8', (1, 32767), None, None, None, 'inherit', 3),
            Field('principal', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('host', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('operation', 'int8', (0, 32767), None, None, None, 'inherit', 0),
            Field('permission_type', 'int8', (0, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, resource_type: int = 0, resource_name: str = '', resource_pattern_type: int = 3, principal: str = '', host: str = '', operation: int = 0, permission_type: int = 0) -> None:
            self.resource_type = resource_type
            self.resource_name = resource_name
            self.resource_pattern_type = resource_pattern_type
            self.principal = principal
            self.host = host
            self.operation = operation
            self.permission_type = permission_type

    def __init__(self, *, creations: list[CreateAclsRequest.AclCreation] = _UNSET) -> None:
        self.creations = [] if creations is _UNSET else creations


class CreateAclsResponse(Message):
    __slots__ = ('throttle_time_ms', 'results')
    NAME = 'CreateAclsResponse'
    KIND = 'response'
    API_KEY = 30
    VALID_VERSIONS = (0, 3)
    FLEXIBLE_VERSIONS = (2, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('throttle_time_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('results', '[]AclCreationResult', (0, 32767), None, None, None, 'inherit', ()),
    )

    class AclCreationResult(Struct):
        __slots__ = ('error_code', 'error_message')
        FIELDS = (
            Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
            Field('error_message', 'string', (0, 32767), (0, 32767), None, None, 'inherit', ''),
        )

        def __init__(self, *, error_code: int = 0, error_message: str | None = '') -> None:
            self.error_code = error_code
            self.error_message = error_message

    def __init__(self, *, throttle_time_ms: int = 0, results: list[CreateAclsResponse.AclCreationResult] = _UNSET) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.results = [] if results is _UNSET else results


class CreateDelegationTokenRequest(Message):
    __slots__ = ('owner_principal_type', 'owner_principal_name', 'renewers', 'max_lifetime_ms')
    NAME = 'CreateDelegationTokenRequest'
    KIND = 'request'
    API_KEY = 38
    VALID_VERSIONS = (0, 3)
    FLEXIBLE_VERSIONS = (2, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('owner_principal_type', 'string', (3, 32767), (3, 32767), None, None, 'inherit', ''),
        Field('owner_principal_name', 'string', (3, 32767), (3, 32767), None, None, 'inherit', ''),
        Field('renewers', '[]CreatableRenewers', (0, 32767), None, None, None, 'inherit', ()),
        Field('max_lifetime_ms', 'int64', (0, 32767), None, None, None, 'inherit', 0),
    )

    class CreatableRenewers(Struct):
        __slots__ = ('principal_type', 'principal_name')
        FIELDS = (
            Field('principal_type', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('principal_name', 'string', (0, 32767), None, None, None, 'inherit', ''),
        )

        def __init__(self, *, principal_type: str = '', principal_name: str = '') -> None:
            self.principal_type = principal_type
            self.principal_name = principal_name

    def __init__(self, *, owner_principal_type: str | None = '', owner_principal_name: str | None = '', renewers: list[CreateDelegationTokenRequest.CreatableRenewers] = _UNSET, max_lifetime_ms: int = 0) -> None:
        self.owner_principal_type = owner_principal_type
        self.owner_principal_name = owner_principal_name
        self.renewers = [] if renewers is _UNSET else renewers
        self.max_lifetime_ms = max_lifetime_ms


class CreateDelegationTokenResponse(Message):
    __slots__ = ('error_code', 'principal_type', 'principal_name', 'token_requester_principal_type', 'token_requester_principal_name', 'issue_timestamp_ms', 'expiry_timestamp_ms', 'max_timestamp_ms', 'token_id', 'hmac', 'throttle_time_ms')
    NAME = 'CreateDelegationTokenResponse'
    KIND = 'response'
    API_KEY = 38
    VALID_VERSIONS = (0, 3)
    FLEXIBLE_VERSIONS = (2, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        Field('principal_type', 'string', (0, 32767), None, None, None, 'inherit', ''),
        Field('principal_name', 'string', (0, 32767), None, None, None, 'inherit', ''),
        Field('token_requester_principal_type', 'string', (3, 32767), None, None, None, 'inherit', ''),
        Field('token_requester_principal_name', 'string', (3, 32767), None, None, None, 'inherit', ''),
        Field('issue_timestamp_ms', 'int64', (0, 32767), None, None, None, 'inherit', 0),
        Field('expiry_timestamp_ms', 'int64', (0, 32767), None, None, None, 'inherit', 0),
        Field('max_timestamp_ms', 'int64', (0, 32767), None, None, None, 'inherit', 0),
        Field('token_id', 'string', (0, 32767), None, None, None, 'inherit', ''),
        Field('hmac', 'bytes', (0, 32767), None, None, None, 'inherit', b''),
        Field('throttle_time_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
    )

    def __init__(self, *, error_code: int = 0, principal_type: str = '', principal_name: str = '', token_requester_principal_type: str = '', token_requester_principal_name: str = '', issue_timestamp_ms: int = 0, expiry_timestamp_ms: int = 0, max_timestamp_ms: int = 0, token_id: str = '', hmac: bytes = b'', throttle_time_ms: int = 0) -> None:
        self.error_code = error_code
        self.principal_type = principal_type
        self.principal_name = principal_name
        self.token_requester_principal_type = token_requester_principal_type
        self.token_requester_principal_name = token_requester_principal_name
        self.issue_timestamp_ms = issue_timestamp_ms
        self.expiry_timestamp_ms = expiry_timestamp_ms
        self.max_timestamp_ms = max_timestamp_ms
        self.token_id = token_id
        self.hmac = hmac
        self.throttle_time_ms = throttle_time_ms


class CreatePartitionsRequest(Message):
    __slots__ = ('topics', 'timeout_ms', 'validate_only')
    NAME = 'CreatePartitionsRequest'
    KIND = 'request'
    API_KEY = 37
    VALID_VERSIONS = (0, 3)
    FLEXIBLE_VERSIONS = (2, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('topics', '[]CreatePartitionsTopic', (0, 32767), None, None, None, 'inherit', ()),
        Field('timeout_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('validate_only', 'bool', (0, 32767), None, None, None, 'inherit', False),
    )

    class CreatePartitionsAssignment(Struct):
        __slots__ = ('broker_ids',)
        FIELDS = (
            Field('broker_ids', '[]int32', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, broker_ids: list[int] = _UNSET) -> None:
            self.broker_ids = [] if broker_ids is _UNSET else broker_ids

    class CreatePartitionsTopic(Struct):
        __slots__ = ('name', 'count', 'assignments')
        FIELDS = (
            Field('name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('count', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('assignments', '[]CreatePartitionsAssignment', (0, 32767), (0, 32767), None, None, 'inherit', ()),
        )

        def __init__(self, *, name: str = '', count: int = 0, assignments: list[CreatePartitionsRequest.CreatePartitionsAssignment] | None = _UNSET) -> None:
            self.name = name
            self.count = count
            self.assignments = [] if assignments is _UNSET else assignments

    def __init__(self, *, topics: list[CreatePartitionsRequest.CreatePartitionsTopic] = _UNSET, timeout_ms: int = 0, validate_only: bool = False) -> None:
        self.topics = [] if topics is _UNSET else topics
        self.timeout_ms = timeout_ms
        self.validate_only = validate_only


class CreatePartitionsResponse(Message):
    __slots__ = ('throttle_time_ms', 'results')
    NAME = 'CreatePartitionsResponse'
    KIND = 'response'
    API_KEY = 37
    VALID_VERSIONS = (0, 3)
    FLEXIBLE_VERSIONS = (2, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('throttle_time_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('results', '[]CreatePartitionsTopicResult', (0, 32767), None, None, None, 'inherit', ()),
    )

    class CreatePartitionsTopicResult(Struct):
        __slots__ = ('name', 'error_code', 'error_message')
        FIELDS = (
            Field('name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
            Field('error_message', 'string', (0, 32767), (0, 32767), None, None, 'inherit', None),
        )

        def __init__(self, *, name: str = '', error_code: int = 0, error_message: str | None = None) -> None:
            self.name = name
            self.error_code = error_code
            self.error_message = error_message

    def __init__(self, *, throttle_time_ms: int = 0, results: list[CreatePartitionsResponse.CreatePartitionsTopicResult] = _UNSET) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.results = [] if results is _UNSET else results


class CreateTopicsRequest(Message):
    __slots__ = ('topics', 'timeout_ms', 'validate_only')
    NAME = 'CreateTopicsRequest'
    KIND = 'request'
    API_KEY = 19
    VALID_VERSIONS = (0, 7)
    FLEXIBLE_VERSIONS = (5, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('topics', '[]CreatableTopic', (0, 32767), None, None, None, 'inherit', ()),
        Field('timeout_ms', 'int32', (0, 32767), None, None, None, 'inherit', 60000),
        Field('validate_only', 'bool', (1, 32767), None, None, None, 'inherit', False),
    )

    class CreatableReplicaAssignment(Struct):
        __slots__ = ('partition_index', 'broker_ids')
        FIELDS = (
            Field('partition_index', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('broker_ids', '[]int32', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, partition_index: int = 0, broker_ids: list[int] = _UNSET) -> None:
            self.partition_index = partition_index
            self.broker_ids = [] if broker_ids is _UNSET else broker_ids

    class CreatableTopic(Struct):
        __slots__ = ('name', 'num_partitions', 'replication_factor', 'assignments', 'configs')
        FIELDS = (
            Field('name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('num_partitions', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('replication_factor', 'int16', (0, 32767), None, None, None, 'inherit', 0),
            Field('assignments', '[]CreatableReplicaAssignment', (0, 32767), None, None, None, 'inherit', ()),
            Field('configs', '[]CreatableTopicConfig', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, name: str = '', num_partitions: int = 0, replication_factor: int = 0, assignments: list[CreateTopicsRequest.CreatableReplicaAssignment] = _UNSET, configs: list[CreateTopicsRequest.CreatableTopicConfig] = _UNSET) -> None:
            self.name = name
            self.num_partitions = num_partitions
            self.replication_factor = replication_factor
            self.assignments = [] if assignments is _UNSET else assignments
            self.configs = [] if configs is _UNSET else configs

    class CreatableTopicConfig(Struct):
        __slots__ = ('name', 'value')
        FIELDS = (
            Field('name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('value', 'string', (0, 32767), (0, 32767), None, None, 'inherit', ''),
        )

        def __init__(self, *, name: str = '', value: str | None = '') -> None:
            self.name = name
            self.value = value

    def __init__(self, *, topics: list[CreateTopicsRequest.CreatableTopic] = _UNSET, timeout_ms: int = 60000, validate_only: bool = False) -> None:
        self.topics = [] if topics is _UNSET else topics
        self.timeout_ms = timeout_ms
        self.validate_only = validate_only


class CreateTopicsResponse(Message):
    __slots__ = ('throttle_time_ms', 'topics')
    NAME = 'CreateTopicsResponse'
    KIND = 'response'
    API_KEY = 19
    VALID_VERSIONS = (0, 7)
    FLEXIBLE_VERSIONS = (5, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('throttle_time_ms', 'int32', (2, 32767), None, None, None, 'inherit', 0),
        Field('topics', '[]CreatableTopicResult', (0, 32767), None, None, None, 'inherit', ()),
    )

    class CreatableTopicConfigs(Struct):
        __slots__ = ('name', 'value', 'read_only', 'config_source', 'is_sensitive')
        FIELDS = (
            Field('name', 'string', (5, 32767), None, None, None, 'inherit', ''),
            Field('value', 'string', (5, 32767), (5, 32767), None, None, 'inherit', ''),
            Field('read_only', 'bool', (5, 32767), None, None, None, 'inherit', False),
            Field('config_source', 'int8', (5, 32767), None, None, None, 'inherit', -1),
            Field('is_sensitive', 'bool', (5, 32767), None, None, None, 'inherit', False),
        )

        def __init__(self, *, name: str = '', value: str | None = '', read_only: bool = False, config_source: int = -1, is_sensitive: bool = False) -> None:
            self.name = name
            self.value = value
            self.read_only = read_only
            self.config_source = config_source
            self.is_sensitive = is_sensitive

    class CreatableTopicResult(Struct):
        __slots__ = ('name', 'topic_id', 'error_code', 'error_message', 'topic_config_error_code', 'num_partitions', 'replication_factor', 'configs')
        FIELDS = (
            Field('name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('topic_id', 'uuid', (7, 32767), None, None, None, 'inherit', ZERO_UUID),
            Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
            Field('error_message', 'string', (1, 32767), (0, 32767), None, None, 'inherit', ''),
            Field('topic_config_error_code', 'int16', (5, 32767), None, 0, (5, 32767), 'inherit', 0),
            Field('num_partitions', 'int32', (5, 32767), None, None, None, 'inherit', -1),
            Field('replication_factor', 'int16', (5, 32767), None, None, None, 'inherit', -1),
            Field('configs', '[]CreatableTopicConfigs', (5, 32767), (5, 32767), None, None, 'inherit', ()),
        )

        def __init__(self, *, name: str = '', topic_id: bytes = ZERO_UUID, error_code: int = 0, error_message: str | None = '', topic_config_error_code: int = 0, num_partitions: int = -1, replication_factor: int = -1, configs: list[CreateTopicsResponse.CreatableTopicConfigs] | None = _UNSET) -> None:
            self.name = name
            self.topic_id = topic_id
            self.error_code = error_code
            self.error_message = error_message
            self.topic_config_error_code = topic_config_error_code
            self.num_partitions = num_partitions
            self.replication_factor = replication_factor
            self.configs = [] if configs is _UNSET else configs

    def __init__(self, *, throttle_time_ms: int = 0, topics: list[CreateTopicsResponse.CreatableTopicResult] = _UNSET) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.topics = [] if topics is _UNSET else topics


class DelegationTokenRecord(Message):
    __slots__ = ('owner', 'requester', 'renewers', 'issue_timestamp', 'max_timestamp', 'expiration_timestamp', 'token_id')
    NAME = 'DelegationTokenRecord'
    KIND = 'metadata'
    API_KEY = 10
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('owner', 'string', (0, 32767), None, None, None, 'inherit', ''),
        Field('requester', 'string', (0, 32767), None, None, None, 'inherit', ''),
        Field('renewers', '[]string', (0, 32767), None, None, None, 'inherit', ()),
        Field('issue_timestamp', 'int64', (0, 32767), None, None, None, 'inherit', 0),
        Field('max_timestamp', 'int64', (0, 32767), None, None, None, 'inherit', 0),
        Field('expiration_timestamp', 'int64', (0, 32767), None, None, None, 'inherit', 0),
        Field('token_id', 'string', (0, 32767), None, None, None, 'inherit', ''),
    )

    def __init__(self, *, owner: str = '', requester: str = '', renewers: list[str] = _UNSET, issue_timestamp: int = 0, max_timestamp: int = 0, expiration_timestamp: int = 0, token_id: str = '') -> None:
        self.owner = owner
        self.requester = requester
        self.renewers = [] if renewers is _UNSET else renewers
        self.issue_timestamp = issue_timestamp
        self.max_timestamp = max_timestamp
        self.expiration_timestamp = expiration_timestamp
        self.token_id = token_id


class DeleteAclsRequest(Message):
    __slots__ = ('filters',)
    NAME = 'DeleteAclsRequest'
    KIND = 'request'
    API_KEY = 31
    VALID_VERSIONS = (0, 3)
    FLEXIBLE_VERSIONS = (2, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('filters', '[]DeleteAclsFilter', (0, 32767), None, None, None, 'inherit', ()),
    )

    class DeleteAclsFilter(Struct):
        __slots__ = ('resource_type_filter', 'resource_name_filter', 'pattern_type_filter', 'principal_filter', 'host_filter', 'operation', 'permission_type')
        FIELDS = (
            Field('resource_type_filter', 'int8', (0, 32767), None, None, None, 'inherit', 0),
            Field('resource_name_filter', 'string', (0, 32767), (0, 32767), None, None, 'inherit', ''),
            Field('pattern_type_filter', 'int8', (1, 32767), None, None, None, 'inherit', 3),
            Field('principal_filter', 'string', (0, 32767), (0, 32767), None, None, 'inherit', ''),
            Field('host_filter', 'string', (0, 32767), (0, 32767), None, None, 'inherit', ''),
            Field('operation', 'int8', (0, 32767), None, None, None, 'inherit', 0),
            Field('permission_type', 'int8', (0, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, resource_type_filter: int = 0, resource_name_filter: str | None = '', pattern_type_filter: int = 3, principal_filter: str | None = '', host_filter: str | None = '', operation: int = 0, permission_type: int = 0) -> None:
            self.resource_type_filter = resource_type_filter
            self.resource_name_filter = resource_name_filter
            self.pattern_type_filter = pattern_type_filter
            self.principal_filter = principal_filter
            self.host_filter = host_filter
            self.operation = operation
            self.permission_type = permission_type

    def __init__(self, *, filters: list[DeleteAclsRequest.DeleteAclsFilter] = _UNSET) -> None:
        self.filters = [] if filters is _UNSET else filters


class DeleteAclsResponse(Message):
    __slots__ = ('throttle_time_ms', 'filter_results')
    NAME = 'DeleteAclsResponse'
    KIND = 'response'
    API_KEY = 31
    VALID_VERSIONS = (0, 3)
    FLEXIBLE_VERSIONS = (2, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('throttle_time_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('filter_results', '[]DeleteAclsFilterResult', (0, 32767), None, None, None, 'inherit', ()),
    )

    class DeleteAclsFilterResult(Struct):
        __slots__ = ('error_code', 'error_message', 'matching_acls')
        FIELDS = (
            Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
            Field('error_message', 'string', (0, 32767), (0, 32767), None, None, 'inherit', ''),
            Field('matching_acls', '[]DeleteAclsMatchingAcl', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, error_code: int = 0, error_message: str | None = '', matching_acls: list[DeleteAclsResponse.DeleteAclsMatchingAcl] = _UNSET) -> None:
            self.error_code = error_code
            self.error_message = error_message
            self.matching_acls = [] if matching_acls is _UNSET else matching_acls

    class DeleteAclsMatchingAcl(Struct):
        __slots__ = ('error_code', 'error_message', 'resource_type', 'resource_name', 'pattern_type', 'principal', 'host', 'operation', 'permission_type')
        FIELDS = (
            Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
            Field('error_message', 'string', (0, 32767), (0, 32767), None, None, 'inherit', ''),
            Field('resource_type', 'int8', (0, 32767), None, None, None, 'inherit', 0),
            Field('resource_name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('pattern_type', 'int8', (1, 32767), None, None, None, 'inherit', 3),
            Field('principal', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('host', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('operation', 'int8', (0, 32767), None, None, None, 'inherit', 0),
            Field('permission_type', 'int8', (0, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, error_code: int = 0, error_message: str | None = '', resource_type: int = 0, resource_name: str = '', pattern_type: int = 3, principal: str = '', host: str = '', operation: int = 0, permission_type: int = 0) -> None:
            self.error_code = error_code
            self.error_message = error_message
            self.resource_type = resource_type
            self.resource_name = resource_name
            self.pattern_type = pattern_type
            self.principal = principal
            self.host = host
            self.operation = operation
            self.permission_type = permission_type

    def __init__(self, *, throttle_time_ms: int = 0, filter_results: list[DeleteAclsResponse.DeleteAclsFilterResult] = _UNSET) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.filter_results = [] if filter_results is _UNSET else filter_results


class DeleteGroupsRequest(Message):
    __slots__ = ('groups_names',)
    NAME = 'DeleteGroupsRequest'
    KIND = 'request'
    API_KEY = 42
    VALID_VERSIONS = (0, 3)
    FLEXIBLE_VERSIONS = (2, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('groups_names', '[]string', (0, 32767), None, None, None, 'inherit', ()),
    )

    def __init__(self, *, groups_names: list[str] = _UNSET) -> None:
        self.groups_names = [] if groups_names is _UNSET else groups_names


class DeleteGroupsResponse(Message):
    __slots__ = ('throttle_time_ms', 'results')
    NAME = 'DeleteGroupsResponse'
    KIND = 'response'
    API_KEY = 42
    VALID_VERSIONS = (0, 3)
    FLEXIBLE_VERSIONS = (2, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('throttle_time_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('results', '[]DeletableGroupResult', (0, 32767), None, None, None, 'inherit', ()),
    )

    class DeletableGroupResult(Struct):
        __slots__ = ('group_id', 'error_code', 'error_message')
        FIELDS = (
            Field('group_id', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
            Field('error_message', 'string', (3, 32767), (3, 32767), None, None, 'inherit', None),
        )

        def __init__(self, *, group_id: str = '', error_code: int = 0, error_message: str | None = None) -> None:
            self.group_id = group_id
            self.error_code = error_code
            self.error_message = error_message

    def __init__(self, *, throttle_time_ms: int = 0, results: list[DeleteGroupsResponse.DeletableGroupResult] = _UNSET) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.results = [] if results is _UNSET else results


class DeleteRecordsRequest(Message):
    __slots__ = ('topics', 'timeout_ms')
    NAME = 'DeleteRecordsRequest'
    KIND = 'request'
    API_KEY = 21
    VALID_VERSIONS = (0, 2)
    FLEXIBLE_VERSIONS = (2, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('topics', '[]DeleteRecordsTopic', (0, 32767), None, None, None, 'inherit', ()),
        Field('timeout_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
    )

    class DeleteRecordsPartition(Struct):
        __slots__ = ('partition_index', 'offset')
        FIELDS = (
            Field('partition_index', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('offset', 'int64', (0, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, partition_index: int = 0, offset: int = 0) -> None:
            self.partition_index = partition_index
            self.offset = offset

    class DeleteRecordsTopic(Struct):
        __slots__ = ('name', 'partitions')
        FIELDS = (
            Field('name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('partitions', '[]DeleteRecordsPartition', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, name: str = '', partitions: list[DeleteRecordsRequest.DeleteRecordsPartition] = _UNSET) -> None:
            self.name = name
            self.partitions = [] if partitions is _UNSET else partitions

    def __init__(self, *, topics: list[DeleteRecordsRequest.DeleteRecordsTopic] = _UNSET, timeout_ms: int = 0) -> None:
        self.topics = [] if topics is _UNSET else topics
        self.timeout_ms = timeout_ms


class DeleteRecordsResponse(Message):
    __slots__ = ('throttle_time_ms', 'topics')
    NAME = 'DeleteRecordsResponse'
    KIND = 'response'
    API_KEY = 21
    VALID_VERSIONS = (0, 2)
    FLEXIBLE_VERSIONS = (2, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('throttle_time_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('topics', '[]DeleteRecordsTopicResult', (0, 32767), None, None, None, 'inherit', ()),
    )

    class DeleteRecordsPartitionResult(Struct):
        __slots__ = ('partition_index', 'low_watermark', 'error_code')
        FIELDS = (
            Field('partition_index', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('low_watermark', 'int64', (0, 32767), None, None, None, 'inherit', 0),
            Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, partition_index: int = 0, low_watermark: int = 0, error_code: int = 0) -> None:
            self.partition_index = partition_index
            self.low_watermark = low_watermark
            self.error_code = error_code

    class DeleteRecordsTopicResult(Struct):
        __slots__ = ('name', 'partitions')
        FIELDS = (
            Field('name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('partitions', '[]DeleteRecordsPartitionResult', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, name: str = '', partitions: list[DeleteRecordsResponse.DeleteRecordsPartitionResult] = _UNSET) -> None:
            self.name = name
            self.partitions = [] if partitions is _UNSET else partitions

    def __init__(self, *, throttle_time_ms: int = 0, topics: list[DeleteRecordsResponse.DeleteRecordsTopicResult] = _UNSET) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.topics = [] if topics is _UNSET else topics


class DeleteShareGroupOffsetsRequest(Message):
    __slots__ = ('group_id', 'topics')
    NAME = 'DeleteShareGroupOffsetsRequest'
    KIND = 'request'
    API_KEY = 92
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('group_id', 'string', (0, 32767), None, None, None, 'inherit', ''),
        Field('topics', '[]DeleteShareGroupOffsetsRequestTopic', (0, 32767), None, None, None, 'inherit', ()),
    )

    class DeleteShareGroupOffsetsRequestTopic(Struct):
        __slots__ = ('topic_name',)
        FIELDS = (
            Field('topic_name', 'string', (0, 32767), None, None, None, 'inherit', ''),
        )

        def __init__(self, *, topic_name: str = '') -> None:
            self.topic_name = topic_name

    def __init__(self, *, group_id: str = '', topics: list[DeleteShareGroupOffsetsRequest.DeleteShareGroupOffsetsRequestTopic] = _UNSET) -> None:
        self.group_id = group_id
        self.topics = [] if topics is _UNSET else topics


class DeleteShareGroupOffsetsResponse(Message):
    __slots__ = ('throttle_time_ms', 'error_code', 'error_message', 'responses')
    NAME = 'DeleteShareGroupOffsetsResponse'
    KIND = 'response'
    API_KEY = 92
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('throttle_time_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        Field('error_message', 'string', (0, 32767), (0, 32767), None, None, 'inherit', None),
        Field('responses', '[]DeleteShareGroupOffsetsResponseTopic', (0, 32767), None, None, None, 'inherit', ()),
    )

    class DeleteShareGroupOffsetsResponseTopic(Struct):
        __slots__ = ('topic_name', 'topic_id', 'error_code', 'error_message')
        FIELDS = (
            Field('topic_name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('topic_id', 'uuid', (0, 32767), None, None, None, 'inherit', ZERO_UUID),
            Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
            Field('error_message', 'string', (0, 32767), (0, 32767), None, None, 'inherit', None),
        )

        def __init__(self, *, topic_name: str = '', topic_id: bytes = ZERO_UUID, error_code: int = 0, error_message: str | None = None) -> None:
            self.topic_name = topic_name
            self.topic_id = topic_id
            self.error_code = error_code
            self.error_message = error_message

    def __init__(self, *, throttle_time_ms: int = 0, error_code: int = 0, error_message: str | None = None, responses: list[DeleteShareGroupOffsetsResponse.DeleteShareGroupOffsetsResponseTopic] = _UNSET) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.error_message = error_message
        self.responses = [] if responses is _UNSET else responses


class DeleteShareGroupStateRequest(Message):
    __slots__ = ('group_id', 'topics')
    NAME = 'DeleteShareGroupStateRequest'
    KIND = 'request'
    API_KEY = 86
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('group_id', 'string', (0, 32767), None, None, None, 'inherit', ''),
        Field('topics', '[]DeleteStateData', (0, 32767), None, None, None, 'inherit', ()),
    )

    class DeleteStateData(Struct):
        __slots__ = ('topic_id', 'partitions')
        FIELDS = (
            Field('topic_id', 'uuid', (0, 32767), None, None, None, 'inherit', ZERO_UUID),
            Field('partitions', '[]PartitionData', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, topic_id: bytes = ZERO_UUID, partitions: list[DeleteShareGroupStateRequest.PartitionData] = _UNSET) -> None:
            self.topic_id = topic_id
            self.partitions = [] if partitions is _UNSET else partitions

    class PartitionData(Struct):
        __slots__ = ('partition',)
        FIELDS = (
            Field('partition', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, partition: int = 0) -> None:
            self.partition = partition

    def __init__(self, *, group_id: str = '', topics: list[DeleteShareGroupStateRequest.DeleteStateData] = _UNSET) -> None:
        self.group_id = group_id
        self.topics = [] if topics is _UNSET else topics


class DeleteShareGroupStateResponse(Message):
    __slots__ = ('results',)
    NAME = 'DeleteShareGroupStateResponse'
    KIND = 'response'
    API_KEY = 86
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('results', '[]DeleteStateResult', (0, 32767), None, None, None, 'inherit', ()),
    )

    class DeleteStateResult(Struct):
        __slots__ = ('topic_id', 'partitions')
        FIELDS = (
            Field('topic_id', 'uuid', (0, 32767), None, None, None, 'inherit', ZERO_UUID),
            Field('partitions', '[]PartitionResult', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, topic_id: bytes = ZERO_UUID, partitions: list[DeleteShareGroupStateResponse.PartitionResult] = _UNSET) -> None:
            self.topic_id = topic_id
            self.partitions = [] if partitions is _UNSET else partitions

    class PartitionResult(Struct):
        __slots__ = ('partition', 'error_code', 'error_message')
        FIELDS = (
            Field('partition', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
            Field('error_message', 'string', (0, 32767), (0, 32767), None, None, 'inherit', None),
        )

        def __init__(self, *, partition: int = 0, error_code: int = 0, error_message: str | None = None) -> None:
            self.partition = partition
            self.error_code = error_code
            self.error_message = error_message

    def __init__(self, *, results: list[DeleteShareGroupStateResponse.DeleteStateResult] = _UNSET) -> None:
        self.results = [] if results is _UNSET else results


class DeleteTopicsRequest(Message):
    __slots__ = ('topics', 'topic_names', 'timeout_ms')
    NAME = 'DeleteTopicsRequest'
    KIND = 'request'
    API_KEY = 20
    VALID_VERSIONS = (0, 6)
    FLEXIBLE_VERSIONS = (4, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('topics', '[]DeleteTopicState', (6, 32767), None, None, None, 'inherit', ()),
        Field('topic_names', '[]string', (0, 5), None, None, None, 'inherit', ()),
        Field('timeout_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
    )

    class DeleteTopicState(Struct):
        __slots__ = ('name', 'topic_id')
        FIELDS = (
            Field('name', 'string', (6, 32767), (6, 32767), None, None, 'inherit', None),
            Field('topic_id', 'uuid', (6, 32767), None, None, None, 'inherit', ZERO_UUID),
        )

        def __init__(self, *, name: str | None = None, topic_id: bytes = ZERO_UUID) -> None:
            self.name = name
            self.topic_id = topic_id

    def __init__(self, *, topics: list[DeleteTopicsRequest.DeleteTopicState] = _UNSET, topic_names: list[str] = _UNSET, timeout_ms: int = 0) -> None:
        self.topics = [] if topics is _UNSET else topics
        self.topic_names = [] if topic_names is _UNSET else topic_names
        self.timeout_ms = timeout_ms


class DeleteTopicsResponse(Message):
    __slots__ = ('throttle_time_ms', 'responses')
    NAME = 'DeleteTopicsResponse'
    KIND = 'response'
    API_KEY = 20
    VALID_VERSIONS = (0, 6)
    FLEXIBLE_VERSIONS = (4, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('throttle_time_ms', 'int32', (1, 32767), None, None, None, 'inherit', 0),
        Field('responses', '[]DeletableTopicResult', (0, 32767), None, None, None, 'inherit', ()),
    )

    class DeletableTopicResult(Struct):
        __slots__ = ('name', 'topic_id', 'error_code', 'error_message')
        FIELDS = (
            Field('name', 'string', (0, 32767), (6, 32767), None, None, 'inherit', ''),
            Field('topic_id', 'uuid', (6, 32767), None, None, None, 'inherit', ZERO_UUID),
            Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
            Field('error_message', 'string', (5, 32767), (5, 32767), None, None, 'inherit', None),
        )

        def __init__(self, *, name: str | None = '', topic_id: bytes = ZERO_UUID, error_code: int = 0, error_message: str | None = None) -> None:
            self.name = name
            self.topic_id = topic_id
            self.error_code = error_code
            self.error_message = error_message

    def __init__(self, *, throttle_time_ms: int = 0, responses: list[DeleteTopicsResponse.DeletableTopicResult] = _UNSET) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.responses = [] if responses is _UNSET else responses


class DescribeAclsRequest(Message):
    __slots__ = ('resource_type_filter', 'resource_name_filter', 'pattern_type_filter', 'principal_filter', 'host_filter', 'operation', 'permission_type')
    NAME = 'DescribeAclsRequest'
    KIND = 'request'
    API_KEY = 29
    VALID_VERSIONS = (0, 3)
    FLEXIBLE_VERSIONS = (2, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('resource_type_filter', 'int8', (0, 32767), None, None, None, 'inherit', 0),
        Field('resource_name_filter', 'string', (0, 32767), (0, 32767), None, None, 'inherit', ''),
        Field('pattern_type_filter', 'int8', (1, 32767), None, None, None, 'inherit', 3),
        Field('principal_filter', 'string', (0, 32767), (0, 32767), None, None, 'inherit', ''),
        Field('host_filter', 'string', (0, 32767), (0, 32767), None, None, 'inherit', ''),
        Field('operation', 'int8', (0, 32767), None, None, None, 'inherit', 0),
        Field('permission_type', 'int8', (0, 32767), None, None, None, 'inherit', 0),
    )

    def __init__(self, *, resource_type_filter: int = 0, resource_name_filter: str | None = '', pattern_type_filter: int = 3, principal_filter: str | None = '', host_filter: str | None = '', operation: int = 0, permission_type: int = 0) -> None:
        self.resource_type_filter = resource_type_filter
        self.resource_name_filter = resource_name_filter
        self.pattern_type_filter = pattern_type_filter
        self.principal_filter = principal_filter
        self.host_filter = host_filter
        self.operation = operation
        self.permission_type = permission_type


class DescribeAclsResponse(Message):
    __slots__ = ('throttle_time_ms', 'error_code', 'error_message', 'resources')
    NAME = 'DescribeAclsResponse'
    KIND = 'response'
    API_KEY = 29
    VALID_VERSIONS = (0, 3)
    FLEXIBLE_VERSIONS = (2, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('throttle_time_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        Field('error_message', 'string', (0, 32767), (0, 32767), None, None, 'inherit', ''),
        Field('resources', '[]DescribeAclsResource', (0, 32767), None, None, None, 'inherit', ()),
    )

    class AclDescription(Struct):
        __slots__ = ('principal', 'host', 'operation', 'permission_type')
        FIELDS = (
            Field('principal', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('host', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('operation', 'int8', (0, 32767), None, None, None, 'inherit', 0),
            Field('permission_type', 'int8', (0, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, principal: str = '', host: str = '', operation: int = 0, permission_type: int = 0) -> None:
            self.principal = principal
            self.host = host
            self.operation = operation
            self.permission_type = permission_type

    class DescribeAclsResource(Struct):
        __slots__ = ('resource_type', 'resource_name', 'pattern_type', 'acls')
        FIELDS = (
            Field('resource_type', 'int8', (0, 32767), None, None, None, 'inherit', 0),
            Field('resource_name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('pattern_type', 'int8', (1, 32767), None, None, None, 'inherit', 3),
            Field('acls', '[]AclDescription', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, resource_type: int = 0, resource_name: str = '', pattern_type: int = 3, acls: list[DescribeAclsResponse.AclDescription] = _UNSET) -> None:
            self.resource_type = resource_type
            self.resource_name = resource_name
            self.pattern_type = pattern_type
            self.acls = [] if acls is _UNSET else acls

    def __init__(self, *, throttle_time_ms: int = 0, error_code: int = 0, error_message: str | None = '', resources: list[DescribeAclsResponse.DescribeAclsResource] = _UNSET) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.error_message = error_message
        self.resources = [] if resources is _UNSET else resources


class DescribeClientQuotasRequest(Message):
    __slots__ = ('components', 'strict')
    NAME = 'DescribeClientQuotasRequest'
    KIND = 'request'
    API_KEY = 48
    VALID_VERSIONS = (0, 1)
    FLEXIBLE_VERSIONS = (1, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('components', '[]ComponentData', (0, 32767), None, None, None, 'inherit', ()),
        Field('strict', 'bool', (0, 32767), None, None, None, 'inherit', False),
    )

    class ComponentData(Struct):
        __slots__ = ('entity_type', 'match_type', 'match')
        FIELDS = (
            Field('entity_type', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('match_type', 'int8', (0, 32767), None, None, None, 'inherit', 0),
            Field('match', 'string', (0, 32767), (0, 32767), None, None, 'inherit', ''),
        )

        def __init__(self, *, entity_type: str = '', match_type: int = 0, match: str | None = '') -> None:
            self.entity_type = entity_type
            self.match_type = match_type
            self.match = match

    def __init__(self, *, components: list[DescribeClientQuotasRequest.ComponentData] = _UNSET, strict: bool = False) -> None:
        self.components = [] if components is _UNSET else components
        self.strict = strict


class DescribeClientQuotasResponse(Message):
    __slots__ = ('throttle_time_ms', 'error_code', 'error_message', 'entries')
    NAME = 'DescribeClientQuotasResponse'
    KIND = 'response'
    API_KEY = 48
    VALID_VERSIONS = (0, 1)
    FLEXIBLE_VERSIONS = (1, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('throttle_time_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        Field('error_message', 'string', (0, 32767), (0, 32767), None, None, 'inherit', ''),
        Field('entries', '[]EntryData', (0, 32767), (0, 32767), None, None, 'inherit', ()),
    )

    class EntityData(Struct):
        __slots__ = ('entity_type', 'entity_name')
        FIELDS = (
            Field('entity_type', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('entity_name', 'string', (0, 32767), (0, 32767), None, None, 'inherit', ''),
        )

        def __init__(self, *, entity_type: str = '', entity_name: str | None = '') -> None:
            self.entity_type = entity_type
            self.entity_name = entity_name

    class EntryData(Struct):
        __slots__ = ('entity', 'values')
        FIELDS = (
            Field('entity', '[]EntityData', (0, 32767), None, None, None, 'inherit', ()),
            Field('values', '[]ValueData', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, entity: list[DescribeClientQuotasResponse.EntityData] = _UNSET, values: list[DescribeClientQuotasResponse.ValueData] = _UNSET) -> None:
            self.entity = [] if entity is _UNSET else entity
            self.values = [] if values is _UNSET else values

    class ValueData(Struct):
        __slots__ = ('key', 'value')
        FIELDS = (
            Field('key', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('value', 'float64', (0, 32767), None, None, None, 'inherit', 0.0),
        )

        def __init__(self, *, key: str = '', value: float = 0.0) -> None:
            self.key = key
            self.value = value

    def __init__(self, *, throttle_time_ms: int = 0, error_code: int = 0, error_message: str | None = '', entries: list[DescribeClientQuotasResponse.EntryData] | None = _UNSET) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.error_message = error_message
        self.entries = [] if entries is _UNSET else entries


class DescribeClusterRequest(Message):
    __slots__ = ('include_cluster_authorized_operations', 'endpoint_type', 'include_fenced_brokers')
    NAME = 'DescribeClusterRequest'
    KIND = 'request'
    API_KEY = 60
    VALID_VERSIONS = (0, 2)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('include_cluster_authorized_operations', 'bool', (0, 32767), None, None, None, 'inherit', False),
        Field('endpoint_type', 'int8', (1, 32767), None, None, None, 'inherit', 1),
        Field('include_fenced_brokers', 'bool', (2, 32767), None, None, None, 'inherit', False),
    )

    def __init__(self, *, include_cluster_authorized_operations: bool = False, endpoint_type: int = 1, include_fenced_brokers: bool = False) -> None:
        self.include_cluster_authorized_operations = include_cluster_authorized_operations
        self.endpoint_type = endpoint_type
        self.include_fenced_brokers = include_fenced_brokers


class DescribeClusterResponse(Message):
    __slots__ = ('throttle_time_ms', 'error_code', 'error_message', 'endpoint_type', 'cluster_id', 'controller_id', 'brokers', 'cluster_authorized_operations')
    NAME = 'DescribeClusterResponse'
    KIND = 'response'
    API_KEY = 60
    VALID_VERSIONS = (0, 2)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('throttle_time_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        Field('error_message', 'string', (0, 32767), (0, 32767), None, None, 'inherit', None),
        Field('endpoint_type', 'int8', (1, 32767), None, None, None, 'inherit', 1),
        Field('cluster_id', 'string', (0, 32767), None, None, None, 'inherit', ''),
        Field('controller_id', 'int32', (0, 32767), None, None, None, 'inherit', -1),
        Field('brokers', '[]DescribeClusterBroker', (0, 32767), None, None, None, 'inherit', ()),
        Field('cluster_authorized_operations', 'int32', (0, 32767), None, None, None, 'inherit', -2147483648),
    )

    class DescribeClusterBroker(Struct):
        __slots__ = ('broker_id', 'host', 'port', 'rack', 'is_fenced')
        FIELDS = (
            Field('broker_id', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('host', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('port', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('rack', 'string', (0, 32767), (0, 32767), None, None, 'inherit', None),
            Field('is_fenced', 'bool', (2, 32767), None, None, None, 'inherit', False),
        )

        def __init__(self, *, broker_id: int = 0, host: str = '', port: int = 0, rack: str | None = None, is_fenced: bool = False) -> None:
            self.broker_id = broker_id
            self.host = host
            self.port = port
            self.rack = rack
            self.is_fenced = is_fenced

    def __init__(self, *, throttle_time_ms: int = 0, error_code: int = 0, error_message: str | None = None, endpoint_type: int = 1, cluster_id: str = '', controller_id: int = -1, brokers: list[DescribeClusterResponse.DescribeClusterBroker] = _UNSET, cluster_authorized_operations: int = -2147483648) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.error_message = error_message
        self.endpoint_type = endpoint_type
        self.cluster_id = cluster_id
        self.controller_id = controller_id
        self.brokers = [] if brokers is _UNSET else brokers
        self.cluster_authorized_operations = cluster_authorized_operations


class DescribeConfigsRequest(Message):
    __slots__ = ('resources', 'include_synonyms', 'include_documentation')
    NAME = 'DescribeConfigsRequest'
    KIND = 'request'
    API_KEY = 32
    VALID_VERSIONS = (0, 4)
    FLEXIBLE_VERSIONS = (4, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('resources', '[]DescribeConfigsResource', (0, 32767), None, None, None, 'inherit', ()),
        Field('include_synonyms', 'bool', (1, 32767), None, None, None, 'inherit', False),
        Field('include_documentation', 'bool', (3, 32767), None, None, None, 'inherit', False),
    )

    class DescribeConfigsResource(Struct):
        __slots__ = ('resource_type', 'resource_name', 'configuration_keys')
        FIELDS = (
            Field('resource_type', 'int8', (0, 32767), None, None, None, 'inherit', 0),
            Field('resource_name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('configuration_keys', '[]string', (0, 32767), (0, 32767), None, None, 'inherit', ()),
        )

        def __init__(self, *, resource_type: int = 0, resource_name: str = '', configuration_keys: list[str] | None = _UNSET) -> None:
            self.resource_type = resource_type
            self.resource_name = resource_name
            self.configuration_keys = [] if configuration_keys is _UNSET else configuration_keys

    def __init__(self, *, resources: list[DescribeConfigsRequest.DescribeConfigsResource] = _UNSET, include_synonyms: bool = False, include_documentation: bool = False) -> None:
        self.resources = [] if resources is _UNSET else resources
        self.include_synonyms = include_synonyms
        self.include_documentation = include_documentation


class DescribeConfigsResponse(Message):
    __slots__ = ('throttle_time_ms', 'results')
    NAME = 'DescribeConfigsResponse'
    KIND = 'response'
    API_KEY = 32
    VALID_VERSIONS = (0, 4)
    FLEXIBLE_VERSIONS = (4, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('throttle_time_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('results', '[]DescribeConfigsResult', (0, 32767), None, None, None, 'inherit', ()),
    )

    class DescribeConfigsResourceResult(Struct):
        __slots__ = ('name', 'value', 'read_only', 'is_default', 'config_source', 'is_sensitive', 'synonyms', 'config_type', 'documentation')
        FIELDS = (
            Field('name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('value', 'string', (0, 32767), (0, 32767), None, None, 'inherit', ''),
            Field('read_only', 'bool', (0, 32767), None, None, None, 'inherit', False),
            Field('is_default', 'bool', (0, 0), None, None, None, 'inherit', False),
            Field('config_source', 'int8', (1, 32767), None, None, None, 'inherit', -1),
            Field('is_sensitive', 'bool', (0, 32767), None, None, None, 'inherit', False),
            Field('synonyms', '[]DescribeConfigsSynonym', (1, 32767), None, None, None, 'inherit', ()),
            Field('config_type', 'int8', (3, 32767), None, None, None, 'inherit', 0),
            Field('documentation', 'string', (3, 32767), (0, 32767), None, None, 'inherit', ''),
        )

        def __init__(self, *, name: str = '', value: str | None = '', read_only: bool = False, is_default: bool = False, config_source: int = -1, is_sensitive: bool = False, synonyms: list[DescribeConfigsResponse.DescribeConfigsSynonym] = _UNSET, config_type: int = 0, documentation: str | None = '') -> None:
            self.name = name
            self.value = value
            self.read_only = read_only
            self.is_default = is_default
            self.config_source = config_source
            self.is_sensitive = is_sensitive
            self.synonyms = [] if synonyms is _UNSET else synonyms
            self.config_type = config_type
            self.documentation = documentation

    class DescribeConfigsResult(Struct):
        __slots__ = ('error_code', 'error_message', 'resource_type', 'resource_name', 'configs')
        FIELDS = (
            Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
            Field('error_message', 'string', (0, 32767), (0, 32767), None, None, 'inherit', ''),
            Field('resource_type', 'int8', (0, 32767), None, None, None, 'inherit', 0),
            Field('resource_name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('configs', '[]DescribeConfigsResourceResult', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, error_code: int = 0, error_message: str | None = '', resource_type: int = 0, resource_name: str = '', configs: list[DescribeConfigsResponse.DescribeConfigsResourceResult] = _UNSET) -> None:
            self.error_code = error_code
            self.error_message = error_message
            self.resource_type = resource_type
            self.resource_name = resource_name
            self.configs = [] if configs is _UNSET else configs

    class DescribeConfigsSynonym(Struct):
        __slots__ = ('name', 'value', 'source')
        FIELDS = (
            Field('name', 'string', (1, 32767), None, None, None, 'inherit', ''),
            Field('value', 'string', (1, 32767), (0, 32767), None, None, 'inherit', ''),
            Field('source', 'int8', (1, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, name: str = '', value: str | None = '', source: int = 0) -> None:
            self.name = name
            self.value = value
            self.source = source

    def __init__(self, *, throttle_time_ms: int = 0, results: list[DescribeConfigsResponse.DescribeConfigsResult] = _UNSET) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.results = [] if results is _UNSET else results


class DescribeDelegationTokenRequest(Message):
    __slots__ = ('owners',)
    NAME = 'DescribeDelegationTokenRequest'
    KIND = 'request'
    API_KEY = 41
    VALID_VERSIONS = (0, 3)
    FLEXIBLE_VERSIONS = (2, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('owners', '[]DescribeDelegationTokenOwner', (0, 32767), (0, 32767), None, None, 'inherit', ()),
    )

    class DescribeDelegationTokenOwner(Struct):
        __slots__ = ('principal_type', 'principal_name')
        FIELDS = (
            Field('principal_type', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('principal_name', 'string', (0, 32767), None, None, None, 'inherit', ''),
        )

        def __init__(self, *, principal_type: str = '', principal_name: str = '') -> None:
            self.principal_type = principal_type
            self.principal_name = principal_name

    def __init__(self, *, owners: list[DescribeDelegationTokenRequest.DescribeDelegationTokenOwner] | None = _UNSET) -> None:
        self.owners = [] if owners is _UNSET else owners


class DescribeDelegationTokenResponse(Message):
    __slots__ = ('error_code', 'tokens', 'throttle_time_ms')
    NAME = 'DescribeDelegationTokenResponse'
    KIND = 'response'
    API_KEY = 41
    VALID_VERSIONS = (0, 3)
    FLEXIBLE_VERSIONS = (2, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        Field('tokens', '[]DescribedDelegationToken', (0, 32767), None, None, None, 'inherit', ()),
        Field('throttle_time_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
    )

    class DescribedDelegationToken(Struct):
        __slots__ = ('principal_type', 'principal_name', 'token_requester_principal_type', 'token_requester_principal_name', 'issue_timestamp', 'expiry_timestamp', 'max_timestamp', 'token_id', 'hmac', 'renewers')
        FIELDS = (
            Field('principal_type', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('principal_name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('token_requester_principal_type', 'string', (3, 32767), None, None, None, 'inherit', ''),
            Field('token_requester_principal_name', 'string', (3, 32767), None, None, None, 'inherit', ''),
            Field('issue_timestamp', 'int64', (0, 32767), None, None, None, 'inherit', 0),
            Field('expiry_timestamp', 'int64', (0, 32767), None, None, None, 'inherit', 0),
            Field('max_timestamp', 'int64', (0, 32767), None, None, None, 'inherit', 0),
            Field('token_id', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('hmac', 'bytes', (0, 32767), None, None, None, 'inherit', b''),
            Field('renewers', '[]DescribedDelegationTokenRenewer', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, principal_type: str = '', principal_name: str = '', token_requester_principal_type: str = '', token_requester_principal_name: str = '', issue_timestamp: int = 0, expiry_timestamp: int = 0, max_timestamp: int = 0, token_id: str = '', hmac: bytes = b'', renewers: list[DescribeDelegationTokenResponse.DescribedDelegationTokenRenewer] = _UNSET) -> None:
            self.principal_type = principal_type
            self.principal_name = principal_name
            self.token_requester_principal_type = token_requester_principal_type
            self.token_requester_principal_name = token_requester_principal_name
            self.issue_timestamp = issue_timestamp
            self.expiry_timestamp = expiry_timestamp
            self.max_timestamp = max_timestamp
            self.token_id = token_id
            self.hmac = hmac
            self.renewers = [] if renewers is _UNSET else renewers

    class DescribedDelegationTokenRenewer(Struct):
        __slots__ = ('principal_type', 'principal_name')
        FIELDS = (
            Field('principal_type', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('principal_name', 'string', (0, 32767), None, None, None, 'inherit', ''),
        )

        def __init__(self, *, principal_type: str = '', principal_name: str = '') -> None:
            self.principal_type = principal_type
            self.principal_name = principal_name

    def __init__(self, *, error_code: int = 0, tokens: list[DescribeDelegationTokenResponse.DescribedDelegationToken] = _UNSET, throttle_time_ms: int = 0) -> None:
        self.error_code = error_code
        self.tokens = [] if tokens is _UNSET else tokens
        self.throttle_time_ms = throttle_time_ms


class DescribeGroupsRequest(Message):
    __slots__ = ('groups', 'include_authorized_operations')
    NAME = 'DescribeGroupsRequest'
    KIND = 'request'
    API_KEY = 15
    VALID_VERSIONS = (0, 6)
    FLEXIBLE_VERSIONS = (5, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('groups', '[]string', (0, 32767), None, None, None, 'inherit', ()),
        Field('include_authorized_operations', 'bool', (3, 32767), None, None, None, 'inherit', False),
    )

    def __init__(self, *, groups: list[str] = _UNSET, include_authorized_operations: bool = False) -> None:
        self.groups = [] if groups is _UNSET else groups
        self.include_authorized_operations = include_authorized_operations


class DescribeGroupsResponse(Message):
    __slots__ = ('throttle_time_ms', 'groups')
    NAME = 'DescribeGroupsResponse'
    KIND = 'response'
    API_KEY = 15
    VALID_VERSIONS = (0, 6)
    FLEXIBLE_VERSIONS = (5, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('throttle_time_ms', 'int32', (1, 32767), None, None, None, 'inherit', 0),
        Field('groups', '[]DescribedGroup', (0, 32767), None, None, None, 'inherit', ()),
    )

    class DescribedGroup(Struct):
        __slots__ = ('error_code', 'error_message', 'group_id', 'group_state', 'protocol_type', 'protocol_data', 'members', 'authorized_operations')
        FIELDS = (
            Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
            Field('error_message', 'string', (6, 32767), (6, 32767), None, None, 'inherit', None),
            Field('group_id', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('group_state', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('protocol_type', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('protocol_data', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('members', '[]DescribedGroupMember', (0, 32767), None, None, None, 'inherit', ()),
            Field('authorized_operations', 'int32', (3, 32767), None, None, None, 'inherit', -2147483648),
        )

        def __init__(self, *, error_code: int = 0, error_message: str | None = None, group_id: str = '', group_state: str = '', protocol_type: str = '', protocol_data: str = '', members: list[DescribeGroupsResponse.DescribedGroupMember] = _UNSET, authorized_operations: int = -2147483648) -> None:
            self.error_code = error_code
            self.error_message = error_message
            self.group_id = group_id
            self.group_state = group_state
            self.protocol_type = protocol_type
            self.protocol_data = protocol_data
            self.members = [] if members is _UNSET else members
            self.authorized_operations = authorized_operations

    class DescribedGroupMember(Struct):
        __slots__ = ('member_id', 'group_instance_id', 'client_id', 'client_host', 'member_metadata', 'member_assignment')
        FIELDS = (
            Field('member_id', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('group_instance_id', 'string', (4, 32767), (4, 32767), None, None, 'inherit', None),
            Field('client_id', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('client_host', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('member_metadata', 'bytes', (0, 32767), None, None, None, 'inherit', b''),
            Field('member_assignment', 'bytes', (0, 32767), None, None, None, 'inherit', b''),
        )

        def __init__(self, *, member_id: str = '', group_instance_id: str | None = None, client_id: str = '', client_host: str = '', member_metadata: bytes = b'', member_assignment: bytes = b'') -> None:
            self.member_id = member_id
            self.group_instance_id = group_instance_id
            self.client_id = client_id
            self.client_host = client_host
            self.member_metadata = member_metadata
            self.member_assignment = member_assignment

    def __init__(self, *, throttle_time_ms: int = 0, groups: list[DescribeGroupsResponse.DescribedGroup] = _UNSET) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.groups = [] if groups is _UNSET else groups


class DescribeLogDirsRequest(Message):
    __slots__ = ('topics',)
    NAME = 'DescribeLogDirsRequest'
    KIND = 'request'
    API_KEY = 35
    VALID_VERSIONS = (0, 5)
    FLEXIBLE_VERSIONS = (2, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('topics', '[]DescribableLogDirTopic', (0, 32767), (0, 32767), None, None, 'inherit', ()),
    )

    class DescribableLogDirTopic(Struct):
        __slots__ = ('topic', 'partitions')
        FIELDS = (
            Field('topic', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('partitions', '[]int32', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, topic: str = '', partitions: list[int] = _UNSET) -> None:
            self.topic = topic
            self.partitions = [] if partitions is _UNSET else partitions

    def __init__(self, *, topics: list[DescribeLogDirsRequest.DescribableLogDirTopic] | None = _UNSET) -> None:
        self.topics = [] if topics is _UNSET else topics


class DescribeLogDirsResponse(Message):
    __slots__ = ('throttle_time_ms', 'error_code', 'results')
    NAME = 'DescribeLogDirsResponse'
    KIND = 'response'
    API_KEY = 35
    VALID_VERSIONS = (0, 5)
    FLEXIBLE_VERSIONS = (2, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('throttle_time_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('error_code', 'int16', (3, 32767), None, None, None, 'inherit', 0),
        Field('results', '[]DescribeLogDirsResult', (0, 32767), None, None, None, 'inherit', ()),
    )

    class DescribeLogDirsPartition(Struct):
        __slots__ = ('partition_index', 'partition_size', 'offset_lag', 'is_future_key')
        FIELDS = (
            Field('partition_index', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('partition_size', 'int64', (0, 32767), None, None, None, 'inherit', 0),
            Field('offset_lag', 'int64', (0, 32767), None, None, None, 'inherit', 0),
            Field('is_future_key', 'bool', (0, 32767), None, None, None, 'inherit', False),
        )

        def __init__(self, *, partition_index: int = 0, partition_size: int = 0, offset_lag: int = 0, is_future_key: bool = False) -> None:
            self.partition_index = partition_index
            self.partition_size = partition_size
            self.offset_lag = offset_lag
            self.is_future_key = is_future_key

    class DescribeLogDirsResult(Struct):
        __slots__ = ('error_code', 'log_dir', 'topics', 'total_bytes', 'usable_bytes', 'is_cordoned')
        FIELDS = (
            Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
            Field('log_dir', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('topics', '[]DescribeLogDirsTopic', (0, 32767), None, None, None, 'inherit', ()),
            Field('total_bytes', 'int64', (4, 32767), None, None, None, 'inherit', -1),
            Field('usable_bytes', 'int64', (4, 32767), None, None, None, 'inherit', -1),
            Field('is_cordoned', 'bool', (5, 32767), None, None, None, 'inherit', False),
        )

        def __init__(self, *, error_code: int = 0, log_dir: str = '', topics: list[DescribeLogDirsResponse.DescribeLogDirsTopic] = _UNSET, total_bytes: int = -1, usable_bytes: int = -1, is_cordoned: bool = False) -> None:
            self.error_code = error_code
            self.log_dir = log_dir
            self.topics = [] if topics is _UNSET else topics
            self.total_bytes = total_bytes
            self.usable_bytes = usable_bytes
            self.is_cordoned = is_cordoned

    class DescribeLogDirsTopic(Struct):
        __slots__ = ('name', 'partitions')
        FIELDS = (
            Field('name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('partitions', '[]DescribeLogDirsPartition', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, name: str = '', partitions: list[DescribeLogDirsResponse.DescribeLogDirsPartition] = _UNSET) -> None:
            self.name = name
            self.partitions = [] if partitions is _UNSET else partitions

    def __init__(self, *, throttle_time_ms: int = 0, error_code: int = 0, results: list[DescribeLogDirsResponse.DescribeLogDirsResult] = _UNSET) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.results = [] if results is _UNSET else results


class DescribeProducersRequest(Message):
    __slots__ = ('topics',)
    NAME = 'DescribeProducersRequest'
    KIND = 'request'
    API_KEY = 61
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('topics', '[]TopicRequest', (0, 32767), None, None, None, 'inherit', ()),
    )

    class TopicRequest(Struct):
        __slots__ = ('name', 'partition_indexes')
        FIELDS = (
            Field('name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('partition_indexes', '[]int32', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, name: str = '', partition_indexes: list[int] = _UNSET) -> None:
            self.name = name
            self.partition_indexes = [] if partition_indexes is _UNSET else partition_indexes

    def __init__(self, *, topics: list[DescribeProducersRequest.TopicRequest] = _UNSET) -> None:
        self.topics = [] if topics is _UNSET else topics


class DescribeProducersResponse(Message):
    __slots__ = ('throttle_time_ms', 'topics')
    NAME = 'DescribeProducersResponse'
    KIND = 'response'
    API_KEY = 61
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('throttle_time_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('topics', '[]TopicResponse', (0, 32767), None, None, None, 'inherit', ()),
    )

    class PartitionResponse(Struct):
        __slots__ = ('partition_index', 'error_code', 'error_message', 'active_producers')
        FIELDS = (
            Field('partition_index', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
            Field('error_message', 'string', (0, 32767), (0, 32767), None, None, 'inherit', None),
            Field('active_producers', '[]ProducerState', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, partition_index: int = 0, error_code: int = 0, error_message: str | None = None, active_producers: list[DescribeProducersResponse.ProducerState] = _UNSET) -> None:
            self.partition_index = partition_index
            self.error_code = error_code
            self.error_message = error_message
            self.active_producers = [] if active_producers is _UNSET else active_producers

    class ProducerState(Struct):
        __slots__ = ('producer_id', 'producer_epoch', 'last_sequence', 'last_timestamp', 'coordinator_epoch', 'current_txn_start_offset')
        FIELDS = (
            Field('producer_id', 'int64', (0, 32767), None, None, None, 'inherit', 0),
            Field('producer_epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('last_sequence', 'int32', (0, 32767), None, None, None, 'inherit', -1),
            Field('last_timestamp', 'int64', (0, 32767), None, None, None, 'inherit', -1),
            Field('coordinator_epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('current_txn_start_offset', 'int64', (0, 32767), None, None, None, 'inherit', -1),
        )

        def __init__(self, *, producer_id: int = 0, producer_epoch: int = 0, last_sequence: int = -1, last_timestamp: int = -1, coordinator_epoch: int = 0, current_txn_start_offset: int = -1) -> None:
            self.producer_id = producer_id
            self.producer_epoch = producer_epoch
            self.last_sequence = last_sequence
            self.last_timestamp = last_timestamp
            self.coordinator_epoch = coordinator_epoch
            self.current_txn_start_offset = current_txn_start_offset

    class TopicResponse(Struct):
        __slots__ = ('name', 'partitions')
        FIELDS = (
            Field('name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('partitions', '[]PartitionResponse', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, name: str = '', partitions: list[DescribeProducersResponse.PartitionResponse] = _UNSET) -> None:
            self.name = name
            self.partitions = [] if partitions is _UNSET else partitions

    def __init__(self, *, throttle_time_ms: int = 0, topics: list[DescribeProducersResponse.TopicResponse] = _UNSET) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.topics = [] if topics is _UNSET else topics


class DescribeQuorumRequest(Message):
    __slots__ = ('topics',)
    NAME = 'DescribeQuorumRequest'
    KIND = 'request'
    API_KEY = 55
    VALID_VERSIONS = (0, 2)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('topics', '[]TopicData', (0, 32767), None, None, None, 'inherit', ()),
    )

    class PartitionData(Struct):
        __slots__ = ('partition_index',)
        FIELDS = (
            Field('partition_index', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, partition_index: int = 0) -> None:
            self.partition_index = partition_index

    class TopicData(Struct):
        __slots__ = ('topic_name', 'partitions')
        FIELDS = (
            Field('topic_name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('partitions', '[]PartitionData', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, topic_name: str = '', partitions: list[DescribeQuorumRequest.PartitionData] = _UNSET) -> None:
            self.topic_name = topic_name
            self.partitions = [] if partitions is _UNSET else partitions

    def __init__(self, *, topics: list[DescribeQuorumRequest.TopicData] = _UNSET) -> None:
        self.topics = [] if topics is _UNSET else topics


class DescribeQuorumResponse(Message):
    __slots__ = ('error_code', 'error_message', 'topics', 'nodes')
    NAME = 'DescribeQuorumResponse'
    KIND = 'response'
    API_KEY = 55
    VALID_VERSIONS = (0, 2)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        Field('error_message', 'string', (2, 32767), (2, 32767), None, None, 'inherit', ''),
        Field('topics', '[]TopicData', (0, 32767), None, None, None, 'inherit', ()),
        Field('nodes', '[]Node', (2, 32767), None, None, None, 'inherit', ()),
    )

    class Listener(Struct):
        __slots__ = ('name', 'host', 'port')
        FIELDS = (
            Field('name', 'string', (2, 32767), None, None, None, 'inherit', ''),
            Field('host', 'string', (2, 32767), None, None, None, 'inherit', ''),
            Field('port', 'uint16', (2, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, name: str = '', host: str = '', port: int = 0) -> None:
            self.name = name
            self.host = host
            self.port = port

    class Node(Struct):
        __slots__ = ('node_id', 'listeners')
        FIELDS = (
            Field('node_id', 'int32', (2, 32767), None, None, None, 'inherit', 0),
            Field('listeners', '[]Listener', (2, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, node_id: int = 0, listeners: list[DescribeQuorumResponse.Listener] = _UNSET) -> None:
            self.node_id = node_id
            self.listeners = [] if listeners is _UNSET else listeners

    class PartitionData(Struct):
        __slots__ = ('partition_index', 'error_code', 'error_message', 'leader_id', 'leader_epoch', 'high_watermark', 'current_voters', 'observers')
        FIELDS = (
            Field('partition_index', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
            Field('error_message', 'string', (2, 32767), (2, 32767), None, None, 'inherit', ''),
            Field('leader_id', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('leader_epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('high_watermark', 'int64', (0, 32767), None, None, None, 'inherit', 0),
            Field('current_voters', '[]ReplicaState', (0, 32767), None, None, None, 'inherit', ()),
            Field('observers', '[]ReplicaState', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, partition_index: int = 0, error_code: int = 0, error_message: str | None = '', leader_id: int = 0, leader_epoch: int = 0, high_watermark: int = 0, current_voters: list[DescribeQuorumResponse.ReplicaState] = _UNSET, observers: list[DescribeQuorumResponse.ReplicaState] = _UNSET) -> None:
            self.partition_index = partition_index
            self.error_code = error_code
            self.error_message = error_message
            self.leader_id = leader_id
            self.leader_epoch = leader_epoch
            self.high_watermark = high_watermark
            self.current_voters = [] if current_voters is _UNSET else current_voters
            self.observers = [] if observers is _UNSET else observers

    class ReplicaState(Struct):
        __slots__ = ('replica_id', 'replica_directory_id', 'log_end_offset', 'last_fetch_timestamp', 'last_caught_up_timestamp')
        FIELDS = (
            Field('replica_id', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('replica_directory_id', 'uuid', (2, 32767), None, None, None, 'inherit', ZERO_UUID),
            Field('log_end_offset', 'int64', (0, 32767), None, None, None, 'inherit', 0),
            Field('last_fetch_timestamp', 'int64', (1, 32767), None, None, None, 'inherit', -1),
            Field('last_caught_up_timestamp', 'int64', (1, 32767), None, None, None, 'inherit', -1),
        )

        def __init__(self, *, replica_id: int = 0, replica_directory_id: bytes = ZERO_UUID, log_end_offset: int = 0, last_fetch_timestamp: int = -1, last_caught_up_timestamp: int = -1) -> None:
            self.replica_id = replica_id
            self.replica_directory_id = replica_directory_id
            self.log_end_offset = log_end_offset
            self.last_fetch_timestamp = last_fetch_timestamp
            self.last_caught_up_timestamp = last_caught_up_timestamp

    class TopicData(Struct):
        __slots__ = ('topic_name', 'partitions')
        FIELDS = (
            Field('topic_name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('partitions', '[]PartitionData', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, topic_name: str = '', partitions: list[DescribeQuorumResponse.PartitionData] = _UNSET) -> None:
            self.topic_name = topic_name
            self.partitions = [] if partitions is _UNSET else partitions

    def __init__(self, *, error_code: int = 0, error_message: str | None = '', topics: list[DescribeQuorumResponse.TopicData] = _UNSET, nodes: list[DescribeQuorumResponse.Node] = _UNSET) -> None:
        self.error_code = error_code
        self.error_message = error_message
        self.topics = [] if topics is _UNSET else topics
        self.nodes = [] if nodes is _UNSET else nodes


class DescribeShareGroupOffsetsRequest(Message):
    __slots__ = ('groups',)
    NAME = 'DescribeShareGroupOffsetsRequest'
    KIND = 'request'
    API_KEY = 90
    VALID_VERSIONS = (0, 1)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('groups', '[]DescribeShareGroupOffsetsRequestGroup', (0, 32767), None, None, None, 'inherit', ()),
    )

    class DescribeShareGroupOffsetsRequestGroup(Struct):
        __slots__ = ('group_id', 'topics')
        FIELDS = (
            Field('group_id', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('topics', '[]DescribeShareGroupOffsetsRequestTopic', (0, 32767), (0, 32767), None, None, 'inherit', ()),
        )

        def __init__(self, *, group_id: str = '', topics: list[DescribeShareGroupOffsetsRequest.DescribeShareGroupOffsetsRequestTopic] | None = _UNSET) -> None:
            self.group_id = group_id
            self.topics = [] if topics is _UNSET else topics

    class DescribeShareGroupOffsetsRequestTopic(Struct):
        __slots__ = ('topic_name', 'partitions')
        FIELDS = (
            Field('topic_name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('partitions', '[]int32', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, topic_name: str = '', partitions: list[int] = _UNSET) -> None:
            self.topic_name = topic_name
            self.partitions = [] if partitions is _UNSET else partitions

    def __init__(self, *, groups: list[DescribeShareGroupOffsetsRequest.DescribeShareGroupOffsetsRequestGroup] = _UNSET) -> None:
        self.groups = [] if groups is _UNSET else groups


class DescribeShareGroupOffsetsResponse(Message):
    __slots__ = ('throttle_time_ms', 'groups')
    NAME = 'DescribeShareGroupOffsetsResponse'
    KIND = 'response'
    API_KEY = 90
    VALID_VERSIONS = (0, 1)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('throttle_time_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('groups', '[]DescribeShareGroupOffsetsResponseGroup', (0, 32767), None, None, None, 'inherit', ()),
    )

    class DescribeShareGroupOffsetsResponseGroup(Struct):
        __slots__ = ('group_id', 'topics', 'error_code', 'error_message')
        FIELDS = (
            Field('group_id', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('topics', '[]DescribeShareGroupOffsetsResponseTopic', (0, 32767), None, None, None, 'inherit', ()),
            Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
            Field('error_message', 'string', (0, 32767), (0, 32767), None, None, 'inherit', None),
        )

        def __init__(self, *, group_id: str = '', topics: list[DescribeShareGroupOffsetsResponse.DescribeShareGroupOffsetsResponseTopic] = _UNSET, error_code: int = 0, error_message: str | None = None) -> None:
            self.group_id = group_id
            self.topics = [] if topics is _UNSET else topics
            self.error_code = error_code
            self.error_message = error_message

    class DescribeShareGroupOffsetsResponsePartition(Struct):
        __slots__ = ('partition_index', 'start_offset', 'leader_epoch', 'lag', 'error_code', 'error_message')
        FIELDS = (
            Field('partition_index', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('start_offset', 'int64', (0, 32767), None, None, None, 'inherit', 0),
            Field('leader_epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('lag', 'int64', (1, 32767), None, None, None, 'inherit', -1),
            Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
            Field('error_message', 'string', (0, 32767), (0, 32767), None, None, 'inherit', None),
        )

        def __init__(self, *, partition_index: int = 0, start_offset: int = 0, leader_epoch: int = 0, lag: int = -1, error_code: int = 0, error_message: str | None = None) -> None:
            self.partition_index = partition_index
            self.start_offset = start_offset
            self.leader_epoch = leader_epoch
            self.lag = lag
            self.error_code = error_code
            self.error_message = error_message

    class DescribeShareGroupOffsetsResponseTopic(Struct):
        __slots__ = ('topic_name', 'topic_id', 'partitions')
        FIELDS = (
            Field('topic_name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('topic_id', 'uuid', (0, 32767), None, None, None, 'inherit', ZERO_UUID),
            Field('partitions', '[]DescribeShareGroupOffsetsResponsePartition', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, topic_name: str = '', topic_id: bytes = ZERO_UUID, partitions: list[DescribeShareGroupOffsetsResponse.DescribeShareGroupOffsetsResponsePartition] = _UNSET) -> None:
            self.topic_name = topic_name
            self.topic_id = topic_id
            self.partitions = [] if partitions is _UNSET else partitions

    def __init__(self, *, throttle_time_ms: int = 0, groups: list[DescribeShareGroupOffsetsResponse.DescribeShareGroupOffsetsResponseGroup] = _UNSET) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.groups = [] if groups is _UNSET else groups


class DescribeTopicPartitionsRequest(Message):
    __slots__ = ('topics', 'response_partition_limit', 'cursor')
    NAME = 'DescribeTopicPartitionsRequest'
    KIND = 'request'
    API_KEY = 75
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('topics', '[]TopicRequest', (0, 32767), None, None, None, 'inherit', ()),
        Field('response_partition_limit', 'int32', (0, 32767), None, None, None, 'inherit', 2000),
        Field('cursor', 'Cursor', (0, 32767), (0, 32767), None, None, 'inherit', None),
    )

    class Cursor(Struct):
        __slots__ = ('topic_name', 'partition_index')
        FIELDS = (
            Field('topic_name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('partition_index', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, topic_name: str = '', partition_index: int = 0) -> None:
            self.topic_name = topic_name
            self.partition_index = partition_index

    class TopicRequest(Struct):
        __slots__ = ('name',)
        FIELDS = (
            Field('name', 'string', (0, 32767), None, None, None, 'inherit', ''),
        )

        def __init__(self, *, name: str = '') -> None:
            self.name = name

    def __init__(self, *, topics: list[DescribeTopicPartitionsRequest.TopicRequest] = _UNSET, response_partition_limit: int = 2000, cursor: DescribeTopicPartitionsRequest.Cursor | None = None) -> None:
        self.topics = [] if topics is _UNSET else topics
        self.response_partition_limit = response_partition_limit
        self.cursor = cursor


class DescribeTopicPartitionsResponse(Message):
    __slots__ = ('throttle_time_ms', 'topics', 'next_cursor')
    NAME = 'DescribeTopicPartitionsResponse'
    KIND = 'response'
    API_KEY = 75
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('throttle_time_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('topics', '[]DescribeTopicPartitionsResponseTopic', (0, 32767), None, None, None, 'inherit', ()),
        Field('next_cursor', 'Cursor', (0, 32767), (0, 32767), None, None, 'inherit', None),
    )

    class Cursor(Struct):
        __slots__ = ('topic_name', 'partition_index')
        FIELDS = (
            Field('topic_name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('partition_index', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, topic_name: str = '', partition_index: int = 0) -> None:
            self.topic_name = topic_name
            self.partition_index = partition_index

    class DescribeTopicPartitionsResponsePartition(Struct):
        __slots__ = ('error_code', 'partition_index', 'leader_id', 'leader_epoch', 'replica_nodes', 'isr_nodes', 'eligible_leader_replicas', 'last_known_elr', 'offline_replicas')
        FIELDS = (
            Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
            Field('partition_index', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('leader_id', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('leader_epoch', 'int32', (0, 32767), None, None, None, 'inherit', -1),
            Field('replica_nodes', '[]int32', (0, 32767), None, None, None, 'inherit', ()),
            Field('isr_nodes', '[]int32', (0, 32767), None, None, None, 'inherit', ()),
            Field('eligible_leader_replicas', '[]int32', (0, 32767), (0, 32767), None, None, 'inherit', None),
            Field('last_known_elr', '[]int32', (0, 32767), (0, 32767), None, None, 'inherit', None),
            Field('offline_replicas', '[]int32', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, error_code: int = 0, partition_index: int = 0, leader_id: int = 0, leader_epoch: int = -1, replica_nodes: list[int] = _UNSET, isr_nodes: list[int] = _UNSET, eligible_leader_replicas: list[int] | None = None, last_known_elr: list[int] | None = None, offline_replicas: list[int] = _UNSET) -> None:
            self.error_code = error_code
            self.partition_index = partition_index
            self.leader_id = leader_id
            self.leader_epoch = leader_epoch
            self.replica_nodes = [] if replica_nodes is _UNSET else replica_nodes
            self.isr_nodes = [] if isr_nodes is _UNSET else isr_nodes
            self.eligible_leader_replicas = eligible_leader_replicas
            self.last_known_elr = last_known_elr
            self.offline_replicas = [] if offline_replicas is _UNSET else offline_replicas

    class DescribeTopicPartitionsResponseTopic(Struct):
        __slots__ = ('error_code', 'name', 'topic_id', 'is_internal', 'partitions', 'topic_authorized_operations')
        FIELDS = (
            Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
            Field('name', 'string', (0, 32767), (0, 32767), None, None, 'inherit', ''),
            Field('topic_id', 'uuid', (0, 32767), None, None, None, 'inherit', ZERO_UUID),
            Field('is_internal', 'bool', (0, 32767), None, None, None, 'inherit', False),
            Field('partitions', '[]DescribeTopicPartitionsResponsePartition', (0, 32767), None, None, None, 'inherit', ()),
            Field('topic_authorized_operations', 'int32', (0, 32767), None, None, None, 'inherit', -2147483648),
        )

        def __init__(self, *, error_code: int = 0, name: str | None = '', topic_id: bytes = ZERO_UUID, is_internal: bool = False, partitions: list[DescribeTopicPartitionsResponse.DescribeTopicPartitionsResponsePartition] = _UNSET, topic_authorized_operations: int = -2147483648) -> None:
            self.error_code = error_code
            self.name = name
            self.topic_id = topic_id
            self.is_internal = is_internal
            self.partitions = [] if partitions is _UNSET else partitions
            self.topic_authorized_operations = topic_authorized_operations

    def __init__(self, *, throttle_time_ms: int = 0, topics: list[DescribeTopicPartitionsResponse.DescribeTopicPartitionsResponseTopic] = _UNSET, next_cursor: DescribeTopicPartitionsResponse.Cursor | None = None) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.topics = [] if topics is _UNSET else topics
        self.next_cursor = next_cursor


class DescribeTransactionsRequest(Message):
    __slots__ = ('transactional_ids',)
    NAME = 'DescribeTransactionsRequest'
    KIND = 'request'
    API_KEY = 65
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('transactional_ids', '[]string', (0, 32767), None, None, None, 'inherit', ()),
    )

    def __init__(self, *, transactional_ids: list[str] = _UNSET) -> None:
        self.transactional_ids = [] if transactional_ids is _UNSET else transactional_ids


class DescribeTransactionsResponse(Message):
    __slots__ = ('throttle_time_ms', 'transaction_states')
    NAME = 'DescribeTransactionsResponse'
    KIND = 'response'
    API_KEY = 65
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('throttle_time_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('transaction_states', '[]TransactionState', (0, 32767), None, None, None, 'inherit', ()),
    )

    class TopicData(Struct):
        __slots__ = ('topic', 'partitions')
        FIELDS = (
            Field('topic', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('partitions', '[]int32', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, topic: str = '', partitions: list[int] = _UNSET) -> None:
            self.topic = topic
            self.partitions = [] if partitions is _UNSET else partitions

    class TransactionState(Struct):
        __slots__ = ('error_code', 'transactional_id', 'transaction_state', 'transaction_timeout_ms', 'transaction_start_time_ms', 'producer_id', 'producer_epoch', 'topics')
        FIELDS = (
            Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
            Field('transactional_id', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('transaction_state', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('transaction_timeout_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('transaction_start_time_ms', 'int64', (0, 32767), None, None, None, 'inherit', 0),
            Field('producer_id', 'int64', (0, 32767), None, None, None, 'inherit', 0),
            Field('producer_epoch', 'int16', (0, 32767), None, None, None, 'inherit', 0),
            Field('topics', '[]TopicData', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, error_code: int = 0, transactional_id: str = '', transaction_state: str = '', transaction_timeout_ms: int = 0, transaction_start_time_ms: int = 0, producer_id: int = 0, producer_epoch: int = 0, topics: list[DescribeTransactionsResponse.TopicData] = _UNSET) -> None:
            self.error_code = error_code
            self.transactional_id = transactional_id
            self.transaction_state = transaction_state
            self.transaction_timeout_ms = transaction_timeout_ms
            self.transaction_start_time_ms = transaction_start_time_ms
            self.producer_id = producer_id
            self.producer_epoch = producer_epoch
            self.topics = [] if topics is _UNSET else topics

    def __init__(self, *, throttle_time_ms: int = 0, transaction_states: list[DescribeTransactionsResponse.TransactionState] = _UNSET) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.transaction_states = [] if transaction_states is _UNSET else transaction_states


class DescribeUserScramCredentialsRequest(Message):
    __slots__ = ('users',)
    NAME = 'DescribeUserScramCredentialsRequest'
    KIND = 'request'
    API_KEY = 50
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('users', '[]UserName', (0, 32767), (0, 32767), None, None, 'inherit', ()),
    )

    class UserName(Struct):
        __slots__ = ('name',)
        FIELDS = (
            Field('name', 'string', (0, 32767), None, None, None, 'inherit', ''),
        )

        def __init__(self, *, name: str = '') -> None:
            self.name = name

    def __init__(self, *, users: list[DescribeUserScramCredentialsRequest.UserName] | None = _UNSET) -> None:
        self.users = [] if users is _UNSET else users


class DescribeUserScramCredentialsResponse(Message):
    __slots__ = ('throttle_time_ms', 'error_code', 'error_message', 'results')
    NAME = 'DescribeUserScramCredentialsResponse'
    KIND = 'response'
    API_KEY = 50
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('throttle_time_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        Field('error_message', 'string', (0, 32767), (0, 32767), None, None, 'inherit', ''),
        Field('results', '[]DescribeUserScramCredentialsResult', (0, 32767), None, None, None, 'inherit', ()),
    )

    class CredentialInfo(Struct):
        __slots__ = ('mechanism', 'iterations')
        FIELDS = (
            Field('mechanism', 'int8', (0, 32767), None, None, None, 'inherit', 0),
            Field('iterations', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, mechanism: int = 0, iterations: int = 0) -> None:
            self.mechanism = mechanism
            self.iterations = iterations

    class DescribeUserScramCredentialsResult(Struct):
        __slots__ = ('user', 'error_code', 'error_message', 'credential_infos')
        FIELDS = (
            Field('user', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
            Field('error_message', 'string', (0, 32767), (0, 32767), None, None, 'inherit', ''),
            Field('credential_infos', '[]CredentialInfo', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, user: str = '', error_code: int = 0, error_message: str | None = '', credential_infos: list[DescribeUserScramCredentialsResponse.CredentialInfo] = _UNSET) -> None:
            self.user = user
            self.error_code = error_code
            self.error_message = error_message
            self.credential_infos = [] if credential_infos is _UNSET else credential_infos

    def __init__(self, *, throttle_time_ms: int = 0, error_code: int = 0, error_message: str | None = '', results: list[DescribeUserScramCredentialsResponse.DescribeUserScramCredentialsResult] = _UNSET) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.error_message = error_message
        self.results = [] if results is _UNSET else results


class ElectLeadersRequest(Message):
    __slots__ = ('election_type', 'topic_partitions', 'timeout_ms')
    NAME = 'ElectLeadersRequest'
    KIND = 'request'
    API_KEY = 43
    VALID_VERSIONS = (0, 2)
    FLEXIBLE_VERSIONS = (2, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('election_type', 'int8', (1, 32767), None, None, None, 'inherit', 0),
        Field('topic_partitions', '[]TopicPartitions', (0, 32767), (0, 32767), None, None, 'inherit', ()),
        Field('timeout_ms', 'int32', (0, 32767), None, None, None, 'inherit', 60000),
    )

    class TopicPartitions(Struct):
        __slots__ = ('topic', 'partitions')
        FIELDS = (
            Field('topic', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('partitions', '[]int32', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, topic: str = '', partitions: list[int] = _UNSET) -> None:
            self.topic = topic
            self.partitions = [] if partitions is _UNSET else partitions

    def __init__(self, *, election_type: int = 0, topic_partitions: list[ElectLeadersRequest.TopicPartitions] | None = _UNSET, timeout_ms: int = 60000) -> None:
        self.election_type = election_type
        self.topic_partitions = [] if topic_partitions is _UNSET else topic_partitions
        self.timeout_ms = timeout_ms


class ElectLeadersResponse(Message):
    __slots__ = ('throttle_time_ms', 'error_code', 'replica_election_results')
    NAME = 'ElectLeadersResponse'
    KIND = 'response'
    API_KEY = 43
    VALID_VERSIONS = (0, 2)
    FLEXIBLE_VERSIONS = (2, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('throttle_time_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('error_code', 'int16', (1, 32767), None, None, None, 'inherit', 0),
        Field('replica_election_results', '[]ReplicaElectionResult', (0, 32767), None, None, None, 'inherit', ()),
    )

    class PartitionResult(Struct):
        __slots__ = ('partition_id', 'error_code', 'error_message')
        FIELDS = (
            Field('partition_id', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
            Field('error_message', 'string', (0, 32767), (0, 32767), None, None, 'inherit', ''),
        )

        def __init__(self, *, partition_id: int = 0, error_code: int = 0, error_message: str | None = '') -> None:
            self.partition_id = partition_id
            self.error_code = error_code
            self.error_message = error_message

    class ReplicaElectionResult(Struct):
        __slots__ = ('topic', 'partition_result')
        FIELDS = (
            Field('topic', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('partition_result', '[]PartitionResult', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, topic: str = '', partition_result: list[ElectLeadersResponse.PartitionResult] = _UNSET) -> None:
            self.topic = topic
            self.partition_result = [] if partition_result is _UNSET else partition_result

    def __init__(self, *, throttle_time_ms: int = 0, error_code: int = 0, replica_election_results: list[ElectLeadersResponse.ReplicaElectionResult] = _UNSET) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.replica_election_results = [] if replica_election_results is _UNSET else replica_election_results


class EndQuorumEpochRequest(Message):
    __slots__ = ('cluster_id', 'topics', 'leader_endpoints')
    NAME = 'EndQuorumEpochRequest'
    KIND = 'request'
    API_KEY = 54
    VALID_VERSIONS = (0, 1)
    FLEXIBLE_VERSIONS = (1, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('cluster_id', 'string', (0, 32767), (0, 32767), None, None, 'inherit', None),
        Field('topics', '[]TopicData', (0, 32767), None, None, None, 'inherit', ()),
        Field('leader_endpoints', '[]LeaderEndpoint', (1, 32767), None, None, None, 'inherit', ()),
    )

    class LeaderEndpoint(Struct):
        __slots__ = ('name', 'host', 'port')
        FIELDS = (
            Field('name', 'string', (1, 32767), None, None, None, 'inherit', ''),
            Field('host', 'string', (1, 32767), None, None, None, 'inherit', ''),
            Field('port', 'uint16', (1, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, name: str = '', host: str = '', port: int = 0) -> None:
            self.name = name
            self.host = host
            self.port = port

    class PartitionData(Struct):
        __slots__ = ('partition_index', 'leader_id', 'leader_epoch', 'preferred_successors', 'preferred_candidates')
        FIELDS = (
            Field('partition_index', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('leader_id', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('leader_epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('preferred_successors', '[]int32', (0, 0), None, None, None, 'inherit', ()),
            Field('preferred_candidates', '[]ReplicaInfo', (1, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, partition_index: int = 0, leader_id: int = 0, leader_epoch: int = 0, preferred_successors: list[int] = _UNSET, preferred_candidates: list[EndQuorumEpochRequest.ReplicaInfo] = _UNSET) -> None:
            self.partition_index = partition_index
            self.leader_id = leader_id
            self.leader_epoch = leader_epoch
            self.preferred_successors = [] if preferred_successors is _UNSET else preferred_successors
            self.preferred_candidates = [] if preferred_candidates is _UNSET else preferred_candidates

    class ReplicaInfo(Struct):
        __slots__ = ('candidate_id', 'candidate_directory_id')
        FIELDS = (
            Field('candidate_id', 'int32', (1, 32767), None, None, None, 'inherit', 0),
            Field('candidate_directory_id', 'uuid', (1, 32767), None, None, None, 'inherit', ZERO_UUID),
        )

        def __init__(self, *, candidate_id: int = 0, candidate_directory_id: bytes = ZERO_UUID) -> None:
            self.candidate_id = candidate_id
            self.candidate_directory_id = candidate_directory_id

    class TopicData(Struct):
        __slots__ = ('topic_name', 'partitions')
        FIELDS = (
            Field('topic_name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('partitions', '[]PartitionData', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, topic_name: str = '', partitions: list[EndQuorumEpochRequest.PartitionData] = _UNSET) -> None:
            self.topic_name = topic_name
            self.partitions = [] if partitions is _UNSET else partitions

    def __init__(self, *, cluster_id: str | None = None, topics: list[EndQuorumEpochRequest.TopicData] = _UNSET, leader_endpoints: list[EndQuorumEpochRequest.LeaderEndpoint] = _UNSET) -> None:
        self.cluster_id = cluster_id
        self.topics = [] if topics is _UNSET else topics
        self.leader_endpoints = [] if leader_endpoints is _UNSET else leader_endpoints


class EndQuorumEpochResponse(Message):
    __slots__ = ('error_code', 'topics', 'node_endpoints')
    NAME = 'EndQuorumEpochResponse'
    KIND = 'response'
    API_KEY = 54
    VALID_VERSIONS = (0, 1)
    FLEXIBLE_VERSIONS = (1, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        Field('topics', '[]TopicData', (0, 32767), None, None, None, 'inherit', ()),
        Field('node_endpoints', '[]NodeEndpoint', (1, 32767), None, 0, (1, 32767), 'inherit', ()),
    )

    class NodeEndpoint(Struct):
        __slots__ = ('node_id', 'host', 'port')
        FIELDS = (
            Field('node_id', 'int32', (1, 32767), None, None, None, 'inherit', 0),
            Field('host', 'string', (1, 32767), None, None, None, 'inherit', ''),
            Field('port', 'uint16', (1, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, node_id: int = 0, host: str = '', port: int = 0) -> None:
            self.node_id = node_id
            self.host = host
            self.port = port

    class PartitionData(Struct):
        __slots__ = ('partition_index', 'error_code', 'leader_id', 'leader_epoch')
        FIELDS = (
            Field('partition_index', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
            Field('leader_id', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('leader_epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, partition_index: int = 0, error_code: int = 0, leader_id: int = 0, leader_epoch: int = 0) -> None:
            self.partition_index = partition_index
            self.error_code = error_code
            self.leader_id = leader_id
            self.leader_epoch = leader_epoch

    class TopicData(Struct):
        __slots__ = ('topic_name', 'partitions')
        FIELDS = (
            Field('topic_name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('partitions', '[]PartitionData', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, topic_name: str = '', partitions: list[EndQuorumEpochResponse.PartitionData] = _UNSET) -> None:
            self.topic_name = topic_name
            self.partitions = [] if partitions is _UNSET else partitions

    def __init__(self, *, error_code: int = 0, topics: list[EndQuorumEpochResponse.TopicData] = _UNSET, node_endpoints: list[EndQuorumEpochResponse.NodeEndpoint] = _UNSET) -> None:
        self.error_code = error_code
        self.topics = [] if topics is _UNSET else topics
        self.node_endpoints = [] if node_endpoints is _UNSET else node_endpoints


class EndTransactionRecord(Message):
    __slots__ = ()
    NAME = 'EndTransactionRecord'
    KIND = 'metadata'
    API_KEY = 24
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
    )

    def __init__(self) -> None:
        pass


class EndTxnRequest(Message):
    __slots__ = ('transactional_id', 'producer_id', 'producer_epoch', 'committed')
    NAME = 'EndTxnRequest'
    KIND = 'request'
    API_KEY = 26
    VALID_VERSIONS = (0, 5)
    FLEXIBLE_VERSIONS = (3, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('transactional_id', 'string', (0, 32767), None, None, None, 'inherit', ''),
        Field('producer_id', 'int64', (0, 32767), None, None, None, 'inherit', 0),
        Field('producer_epoch', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        Field('committed', 'bool', (0, 32767), None, None, None, 'inherit', False),
    )

    def __init__(self, *, transactional_id: str = '', producer_id: int = 0, producer_epoch: int = 0, committed: bool = False) -> None:
        self.transactional_id = transactional_id
        self.producer_id = producer_id
        self.producer_epoch = producer_epoch
        self.committed = committed


class EndTxnResponse(Message):
    __slots__ = ('throttle_time_ms', 'error_code', 'producer_id', 'producer_epoch')
    NAME = 'EndTxnResponse'
    KIND = 'response'
    API_KEY = 26
    VALID_VERSIONS = (0, 5)
    FLEXIBLE_VERSIONS = (3, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('throttle_time_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        Field('producer_id', 'int64', (5, 32767), None, None, None, 'inherit', -1),
        Field('producer_epoch', 'int16', (5, 32767), None, None, None, 'inherit', -1),
    )

    def __init__(self, *, throttle_time_ms: int = 0, error_code: int = 0, producer_id: int = -1, producer_epoch: int = -1) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.producer_id = producer_id
        self.producer_epoch = producer_epoch


class EnvelopeRequest(Message):
    __slots__ = ('request_data', 'request_principal', 'client_host_address')
    NAME = 'EnvelopeRequest'
    KIND = 'request'
    API_KEY = 58
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('request_data', 'bytes', (0, 32767), None, None, None, 'inherit', b''),
        Field('request_principal', 'bytes', (0, 32767), (0, 32767), None, None, 'inherit', b''),
        Field('client_host_address', 'bytes', (0, 32767), None, None, None, 'inherit', b''),
    )

    def __init__(self, *, request_data: bytes = b'', request_principal: bytes | None = b'', client_host_address: bytes = b'') -> None:
        self.request_data = request_data
        self.request_principal = request_principal
        self.client_host_address = client_host_address


class EnvelopeResponse(Message):
    __slots__ = ('response_data', 'error_code')
    NAME = 'EnvelopeResponse'
    KIND = 'response'
    API_KEY = 58
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('response_data', 'bytes', (0, 32767), (0, 32767), None, None, 'inherit', None),
        Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
    )

    def __init__(self, *, response_data: bytes | None = None, error_code: int = 0) -> None:
        self.response_data = response_data
        self.error_code = error_code


class ExpireDelegationTokenRequest(Message):
    __slots__ = ('hmac', 'expiry_time_period_ms')
    NAME = 'ExpireDelegationTokenRequest'
    KIND = 'request'
    API_KEY = 40
    VALID_VERSIONS = (0, 2)
    FLEXIBLE_VERSIONS = (2, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('hmac', 'bytes', (0, 32767), None, None, None, 'inherit', b''),
        Field('expiry_time_period_ms', 'int64', (0, 32767), None, None, None, 'inherit', 0),
    )

    def __init__(self, *, hmac: bytes = b'', expiry_time_period_ms: int = 0) -> None:
        self.hmac = hmac
        self.expiry_time_period_ms = expiry_time_period_ms


class ExpireDelegationTokenResponse(Message):
    __slots__ = ('error_code', 'expiry_timestamp_ms', 'throttle_time_ms')
    NAME = 'ExpireDelegationTokenResponse'
    KIND = 'response'
    API_KEY = 40
    VALID_VERSIONS = (0, 2)
    FLEXIBLE_VERSIONS = (2, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        Field('expiry_timestamp_ms', 'int64', (0, 32767), None, None, None, 'inherit', 0),
        Field('throttle_time_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
    )

    def __init__(self, *, error_code: int = 0, expiry_timestamp_ms: int = 0, throttle_time_ms: int = 0) -> None:
        self.error_code = error_code
        self.expiry_timestamp_ms = expiry_timestamp_ms
        self.throttle_time_ms = throttle_time_ms


class FeatureLevelRecord(Message):
    __slots__ = ('name', 'feature_level')
    NAME = 'FeatureLevelRecord'
    KIND = 'metadata'
    API_KEY = 12
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('name', 'string', (0, 32767), None, None, None, 'inherit', ''),
        Field('feature_level', 'int16', (0, 32767), None, None, None, 'inherit', 0),
    )

    def __init__(self, *, name: str = '', feature_level: int = 0) -> None:
        self.name = name
        self.feature_level = feature_level


class FenceBrokerRecord(Message):
    __slots__ = ('id', 'epoch')
    NAME = 'FenceBrokerRecord'
    KIND = 'metadata'
    API_KEY = 7
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('id', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('epoch', 'int64', (0, 32767), None, None, None, 'inherit', 0),
    )

    def __init__(self, *, id: int = 0, epoch: int = 0) -> None:
        self.id = id
        self.epoch = epoch


class FetchRequest(Message):
    __slots__ = ('cluster_id', 'replica_id', 'replica_state', 'max_wait_ms', 'min_bytes', 'max_bytes', 'isolation_level', 'session_id', 'session_epoch', 'topics', 'forgotten_topics_data', 'rack_id')
    NAME = 'FetchRequest'
    KIND = 'request'
    API_KEY = 1
    VALID_VERSIONS = (0, 18)
    FLEXIBLE_VERSIONS = (12, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('cluster_id', 'string', (12, 32767), (12, 32767), 0, (12, 32767), 'inherit', None),
        Field('replica_id', 'int32', (0, 14), None, None, None, 'inherit', -1),
        Field('replica_state', 'ReplicaState', (15, 32767), None, 1, (15, 32767), 'inherit', 'ReplicaState'),
        Field('max_wait_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('min_bytes', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('max_bytes', 'int32', (3, 32767), None, None, None, 'inherit', 2147483647),
        Field('isolation_level', 'int8', (4, 32767), None, None, None, 'inherit', 0),
        Field('session_id', 'int32', (7, 32767), None, None, None, 'inherit', 0),
        Field('session_epoch', 'int32', (7, 32767), None, None, None, 'inherit', -1),
        Field('topics', '[]FetchTopic', (0, 32767), None, None, None, 'inherit', ()),
        Field('forgotten_topics_data', '[]ForgottenTopic', (7, 32767), None, None, None, 'inherit', ()),
        Field('rack_id', 'string', (11, 32767), None, None, None, 'inherit', ''),
    )

    class FetchPartition(Struct):
        __slots__ = ('partition', 'current_leader_epoch', 'fetch_offset', 'last_fetched_epoch', 'log_start_offset', 'partition_max_bytes', 'replica_directory_id', 'high_watermark')
        FIELDS = (
            Field('partition', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('current_leader_epoch', 'int32', (9, 32767), None, None, None, 'inherit', -1),
            Field('fetch_offset', 'int64', (0, 32767), None, None, None, 'inherit', 0),
            Field('last_fetched_epoch', 'int32', (12, 32767), None, None, None, 'inherit', -1),
            Field('log_start_offset', 'int64', (5, 32767), None, None, None, 'inherit', -1),
            Field('partition_max_bytes', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('replica_directory_id', 'uuid', (17, 32767), None, 0, (17, 32767), 'inherit', ZERO_UUID),
            Field('high_watermark', 'int64', (18, 32767), None, 1, (18, 32767), 'inherit', 9223372036854775807),
        )

        def __init__(self, *, partition: int = 0, current_leader_epoch: int = -1, fetch_offset: int = 0, last_fetched_epoch: int = -1, log_start_offset: int = -1, partition_max_bytes: int = 0, replica_directory_id: bytes = ZERO_UUID, high_watermark: int = 9223372036854775807) -> None:
            self.partition = partition
            self.current_leader_epoch = current_leader_epoch
            self.fetch_offset = fetch_offset
            self.last_fetched_epoch = last_fetched_epoch
            self.log_start_offset = log_start_offset
            self.partition_max_bytes = partition_max_bytes
            self.replica_directory_id = replica_directory_id
            self.high_watermark = high_watermark

    class FetchTopic(Struct):
        __slots__ = ('topic', 'topic_id', 'partitions')
        FIELDS = (
            Field('topic', 'string', (0, 12), None, None, None, 'inherit', ''),
            Field('topic_id', 'uuid', (13, 32767), None, None, None, 'inherit', ZERO_UUID),
            Field('partitions', '[]FetchPartition', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, topic: str = '', topic_id: bytes = ZERO_UUID, partitions: list[FetchRequest.FetchPartition] = _UNSET) -> None:
            self.topic = topic
            self.topic_id = topic_id
            self.partitions = [] if partitions is _UNSET else partitions

    class ForgottenTopic(Struct):
        __slots__ = ('topic', 'topic_id', 'partitions')
        FIELDS = (
            Field('topic', 'string', (7, 12), None, None, None, 'inherit', ''),
            Field('topic_id', 'uuid', (13, 32767), None, None, None, 'inherit', ZERO_UUID),
            Field('partitions', '[]int32', (7, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, topic: str = '', topic_id: bytes = ZERO_UUID, partitions: list[int] = _UNSET) -> None:
            self.topic = topic
            self.topic_id = topic_id
            self.partitions = [] if partitions is _UNSET else partitions

    class ReplicaState(Struct):
        __slots__ = ('replica_id', 'replica_epoch')
        FIELDS = (
            Field('replica_id', 'int32', (15, 32767), None, None, None, 'inherit', -1),
            Field('replica_epoch', 'int64', (15, 32767), None, None, None, 'inherit', -1),
        )

        def __init__(self, *, replica_id: int = -1, replica_epoch: int = -1) -> None:
            self.replica_id = replica_id
            self.replica_epoch = replica_epoch

    def __init__(self, *, cluster_id: str | None = None, replica_id: int = -1, replica_state: FetchRequest.ReplicaState = _UNSET, max_wait_ms: int = 0, min_bytes: int = 0, max_bytes: int = 2147483647, isolation_level: int = 0, session_id: int = 0, session_epoch: int = -1, topics: list[FetchRequest.FetchTopic] = _UNSET, forgotten_topics_data: list[FetchRequest.ForgottenTopic] = _UNSET, rack_id: str = '') -> None:
        self.cluster_id = cluster_id
        self.replica_id = replica_id
        self.replica_state = FetchRequest.ReplicaState() if replica_state is _UNSET else replica_state
        self.max_wait_ms = max_wait_ms
        self.min_bytes = min_bytes
        self.max_bytes = max_bytes
        self.isolation_level = isolation_level
        self.session_id = session_id
        self.session_epoch = session_epoch
        self.topics = [] if topics is _UNSET else topics
        self.forgotten_topics_data = [] if forgotten_topics_data is _UNSET else forgotten_topics_data
        self.rack_id = rack_id


class FetchResponse(Message):
    __slots__ = ('throttle_time_ms', 'error_code', 'session_id', 'responses', 'node_endpoints')
    NAME = 'FetchResponse'
    KIND = 'response'
    API_KEY = 1
    VALID_VERSIONS = (0, 18)
    FLEXIBLE_VERSIONS = (12, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('throttle_time_ms', 'int32', (1, 32767), None, None, None, 'inherit', 0),
        Field('error_code', 'int16', (7, 32767), None, None, None, 'inherit', 0),
        Field('session_id', 'int32', (7, 32767), None, None, None, 'inherit', 0),
        Field('responses', '[]FetchableTopicResponse', (0, 32767), None, None, None, 'inherit', ()),
        Field('node_endpoints', '[]NodeEndpoint', (16, 32767), None, 0, (16, 32767), 'inherit', ()),
    )

    class AbortedTransaction(Struct):
        __slots__ = ('producer_id', 'first_offset')
        FIELDS = (
            Field('producer_id', 'int64', (4, 32767), None, None, None, 'inherit', 0),
            Field('first_offset', 'int64', (4, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, producer_id: int = 0, first_offset: int = 0) -> None:
            self.producer_id = producer_id
            self.first_offset = first_offset

    class EpochEndOffset(Struct):
        __slots__ = ('epoch', 'end_offset')
        FIELDS = (
            Field('epoch', 'int32', (12, 32767), None, None, None, 'inherit', -1),
            Field('end_offset', 'int64', (12, 32767), None, None, None, 'inherit', -1),
        )

        def __init__(self, *, epoch: int = -1, end_offset: int = -1) -> None:
            self.epoch = epoch
            self.end_offset = end_offset

    class FetchableTopicResponse(Struct):
        __slots__ = ('topic', 'topic_id', 'partitions')
        FIELDS = (
            Field('topic', 'string', (0, 12), None, None, None, 'inherit', ''),
            Field('topic_id', 'uuid', (13, 32767), None, None, None, 'inherit', ZERO_UUID),
            Field('partitions', '[]PartitionData', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, topic: str = '', topic_id: bytes = ZERO_UUID, partitions: list[FetchResponse.PartitionData] = _UNSET) -> None:
            self.topic = topic
            self.topic_id = topic_id
            self.partitions = [] if partitions is _UNSET else partitions

    class LeaderIdAndEpoch(Struct):
        __slots__ = ('leader_id', 'leader_epoch')
        FIELDS = (
            Field('leader_id', 'int32', (12, 32767), None, None, None, 'inherit', -1),
            Field('leader_epoch', 'int32', (12, 32767), None, None, None, 'inherit', -1),
        )

        def __init__(self, *, leader_id: int = -1, leader_epoch: int = -1) -> None:
            self.leader_id = leader_id
            self.leader_epoch = leader_epoch

    class NodeEndpoint(Struct):
        __slots__ = ('node_id', 'host', 'port', 'rack')
        FIELDS = (
            Field('node_id', 'int32', (16, 32767), None, None, None, 'inherit', 0),
            Field('host', 'string', (16, 32767), None, None, None, 'inherit', ''),
            Field('port', 'int32', (16, 32767), None, None, None, 'inherit', 0),
            Field('rack', 'string', (16, 32767), (16, 32767), None, None, 'inherit', None),
        )

        def __init__(self, *, node_id: int = 0, host: str = '', port: int = 0, rack: str | None = None) -> None:
            self.node_id = node_id
            self.host = host
            self.port = port
            self.rack = rack

    class PartitionData(Struct):
        __slots__ = ('partition_index', 'error_code', 'high_watermark', 'last_stable_offset', 'log_start_offset', 'diverging_epoch', 'current_leader', 'snapshot_id', 'aborted_transactions', 'preferred_read_replica', 'records')
        FIELDS = (
            Field('partition_index', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
            Field('high_watermark', 'int64', (0, 32767), None, None, None, 'inherit', 0),
            Field('last_stable_offset', 'int64', (4, 32767), None, None, None, 'inherit', -1),
            Field('log_start_offset', 'int64', (5, 32767), None, None, None, 'inherit', -1),
            Field('diverging_epoch', 'EpochEndOffset', (12, 32767), None, 0, (12, 32767), 'inherit', 'EpochEndOffset'),
            Field('current_leader', 'LeaderIdAndEpoch', (12, 32767), None, 1, (12, 32767), 'inherit', 'LeaderIdAndEpoch'),
            Field('snapshot_id', 'SnapshotId', (12, 32767), None, 2, (12, 32767), 'inherit', 'SnapshotId'),
            Field('aborted_transactions', '[]AbortedTransaction', (4, 32767), (4, 32767), None, None, 'inherit', ()),
            Field('preferred_read_replica', 'int32', (11, 32767), None, None, None, 'inherit', -1),
            Field('records', 'records', (0, 32767), (0, 32767), None, None, 'inherit', None),
        )

        def __init__(self, *, partition_index: int = 0, error_code: int = 0, high_watermark: int = 0, last_stable_offset: int = -1, log_start_offset: int = -1, diverging_epoch: FetchResponse.EpochEndOffset = _UNSET, current_leader: FetchResponse.LeaderIdAndEpoch = _UNSET, snapshot_id: FetchResponse.SnapshotId = _UNSET, aborted_transactions: list[FetchResponse.AbortedTransaction] | None = _UNSET, preferred_read_replica: int = -1, records: Any = None) -> None:
            self.partition_index = partition_index
            self.error_code = error_code
            self.high_watermark = high_watermark
            self.last_stable_offset = last_stable_offset
            self.log_start_offset = log_start_offset
            self.diverging_epoch = FetchResponse.EpochEndOffset() if diverging_epoch is _UNSET else diverging_epoch
            self.current_leader = FetchResponse.LeaderIdAndEpoch() if current_leader is _UNSET else current_leader
            self.snapshot_id = FetchResponse.SnapshotId() if snapshot_id is _UNSET else snapshot_id
            self.aborted_transactions = [] if aborted_transactions is _UNSET else aborted_transactions
            self.preferred_read_replica = preferred_read_replica
            self.records = records

    class SnapshotId(Struct):
        __slots__ = ('end_offset', 'epoch')
        FIELDS = (
            Field('end_offset', 'int64', (0, 32767), None, None, None, 'inherit', -1),
            Field('epoch', 'int32', (0, 32767), None, None, None, 'inherit', -1),
        )

        def __init__(self, *, end_offset: int = -1, epoch: int = -1) -> None:
            self.end_offset = end_offset
            self.epoch = epoch

    def __init__(self, *, throttle_time_ms: int = 0, error_code: int = 0, session_id: int = 0, responses: list[FetchResponse.FetchableTopicResponse] = _UNSET, node_endpoints: list[FetchResponse.NodeEndpoint] = _UNSET) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.session_id = session_id
        self.responses = [] if responses is _UNSET else responses
        self.node_endpoints = [] if node_endpoints is _UNSET else node_endpoints


class FetchSnapshotRequest(Message):
    __slots__ = ('cluster_id', 'replica_id', 'max_bytes', 'topics')
    NAME = 'FetchSnapshotRequest'
    KIND = 'request'
    API_KEY = 59
    VALID_VERSIONS = (0, 1)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('cluster_id', 'string', (0, 32767), (0, 32767), 0, (0, 32767), 'inherit', None),
        Field('replica_id', 'int32', (0, 32767), None, None, None, 'inherit', -1),
        Field('max_bytes', 'int32', (0, 32767), None, None, None, 'inherit', 2147483647),
        Field('topics', '[]TopicSnapshot', (0, 32767), None, None, None, 'inherit', ()),
    )

    class PartitionSnapshot(Struct):
        __slots__ = ('partition', 'current_leader_epoch', 'snapshot_id', 'position', 'replica_directory_id')
        FIELDS = (
            Field('partition', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('current_leader_epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('snapshot_id', 'SnapshotId', (0, 32767), None, None, None, 'inherit', 'SnapshotId'),
            Field('position', 'int64', (0, 32767), None, None, None, 'inherit', 0),
            Field('replica_directory_id', 'uuid', (1, 32767), None, 0, (1, 32767), 'inherit', ZERO_UUID),
        )

        def __init__(self, *, partition: int = 0, current_leader_epoch: int = 0, snapshot_id: FetchSnapshotRequest.SnapshotId = _UNSET, position: int = 0, replica_directory_id: bytes = ZERO_UUID) -> None:
            self.partition = partition
            self.current_leader_epoch = current_leader_epoch
            self.snapshot_id = FetchSnapshotRequest.SnapshotId() if snapshot_id is _UNSET else snapshot_id
            self.position = position
            self.replica_directory_id = replica_directory_id

    class SnapshotId(Struct):
        __slots__ = ('end_offset', 'epoch')
        FIELDS = (
            Field('end_offset', 'int64', (0, 32767), None, None, None, 'inherit', 0),
            Field('epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, end_offset: int = 0, epoch: int = 0) -> None:
            self.end_offset = end_offset
            self.epoch = epoch

    class TopicSnapshot(Struct):
        __slots__ = ('name', 'partitions')
        FIELDS = (
            Field('name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('partitions', '[]PartitionSnapshot', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, name: str = '', partitions: list[FetchSnapshotRequest.PartitionSnapshot] = _UNSET) -> None:
            self.name = name
            self.partitions = [] if partitions is _UNSET else partitions

    def __init__(self, *, cluster_id: str | None = None, replica_id: int = -1, max_bytes: int = 2147483647, topics: list[FetchSnapshotRequest.TopicSnapshot] = _UNSET) -> None:
        self.cluster_id = cluster_id
        self.replica_id = replica_id
        self.max_bytes = max_bytes
        self.topics = [] if topics is _UNSET else topics


class FetchSnapshotResponse(Message):
    __slots__ = ('throttle_time_ms', 'error_code', 'topics', 'node_endpoints')
    NAME = 'FetchSnapshotResponse'
    KIND = 'response'
    API_KEY = 59
    VALID_VERSIONS = (0, 1)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('throttle_time_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        Field('topics', '[]TopicSnapshot', (0, 32767), None, None, None, 'inherit', ()),
        Field('node_endpoints', '[]NodeEndpoint', (1, 32767), None, 0, (1, 32767), 'inherit', ()),
    )

    class LeaderIdAndEpoch(Struct):
        __slots__ = ('leader_id', 'leader_epoch')
        FIELDS = (
            Field('leader_id', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('leader_epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, leader_id: int = 0, leader_epoch: int = 0) -> None:
            self.leader_id = leader_id
            self.leader_epoch = leader_epoch

    class NodeEndpoint(Struct):
        __slots__ = ('node_id', 'host', 'port')
        FIELDS = (
            Field('node_id', 'int32', (1, 32767), None, None, None, 'inherit', 0),
            Field('host', 'string', (1, 32767), None, None, None, 'inherit', ''),
            Field('port', 'uint16', (1, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, node_id: int = 0, host: str = '', port: int = 0) -> None:
            self.node_id = node_id
            self.host = host
            self.port = port

    class PartitionSnapshot(Struct):
        __slots__ = ('index', 'error_code', 'snapshot_id', 'current_leader', 'size', 'position', 'unaligned_records')
        FIELDS = (
            Field('index', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
            Field('snapshot_id', 'SnapshotId', (0, 32767), None, None, None, 'inherit', 'SnapshotId'),
            Field('current_leader', 'LeaderIdAndEpoch', (0, 32767), None, 0, (0, 32767), 'inherit', 'LeaderIdAndEpoch'),
            Field('size', 'int64', (0, 32767), None, None, None, 'inherit', 0),
            Field('position', 'int64', (0, 32767), None, None, None, 'inherit', 0),
            Field('unaligned_records', 'records', (0, 32767), None, None, None, 'inherit', None),
        )

        def __init__(self, *, index: int = 0, error_code: int = 0, snapshot_id: FetchSnapshotResponse.SnapshotId = _UNSET, current_leader: FetchSnapshotResponse.LeaderIdAndEpoch = _UNSET, size: int = 0, position: int = 0, unaligned_records: Any = None) -> None:
            self.index = index
            self.error_code = error_code
            self.snapshot_id = FetchSnapshotResponse.SnapshotId() if snapshot_id is _UNSET else snapshot_id
            self.current_leader = FetchSnapshotResponse.LeaderIdAndEpoch() if current_leader is _UNSET else current_leader
            self.size = size
            self.position = position
            self.unaligned_records = unaligned_records

    class SnapshotId(Struct):
        __slots__ = ('end_offset', 'epoch')
        FIELDS = (
            Field('end_offset', 'int64', (0, 32767), None, None, None, 'inherit', 0),
            Field('epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, end_offset: int = 0, epoch: int = 0) -> None:
            self.end_offset = end_offset
            self.epoch = epoch

    class TopicSnapshot(Struct):
        __slots__ = ('name', 'partitions')
        FIELDS = (
            Field('name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('partitions', '[]PartitionSnapshot', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, name: str = '', partitions: list[FetchSnapshotResponse.PartitionSnapshot] = _UNSET) -> None:
            self.name = name
            self.partitions = [] if partitions is _UNSET else partitions

    def __init__(self, *, throttle_time_ms: int = 0, error_code: int = 0, topics: list[FetchSnapshotResponse.TopicSnapshot] = _UNSET, node_endpoints: list[FetchSnapshotResponse.NodeEndpoint] = _UNSET) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.topics = [] if topics is _UNSET else topics
        self.node_endpoints = [] if node_endpoints is _UNSET else node_endpoints


class FindCoordinatorRequest(Message):
    __slots__ = ('key', 'key_type', 'coordinator_keys')
    NAME = 'FindCoordinatorRequest'
    KIND = 'request'
    API_KEY = 10
    VALID_VERSIONS = (0, 6)
    FLEXIBLE_VERSIONS = (3, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('key', 'string', (0, 3), None, None, None, 'inherit', ''),
        Field('key_type', 'int8', (1, 32767), None, None, None, 'inherit', 0),
        Field('coordinator_keys', '[]string', (4, 32767), None, None, None, 'inherit', ()),
    )

    def __init__(self, *, key: str = '', key_type: int = 0, coordinator_keys: list[str] = _UNSET) -> None:
        self.key = key
        self.key_type = key_type
        self.coordinator_keys = [] if coordinator_keys is _UNSET else coordinator_keys


class FindCoordinatorResponse(Message):
    __slots__ = ('throttle_time_ms', 'error_code', 'error_message', 'node_id', 'host', 'port', 'coordinators')
    NAME = 'FindCoordinatorResponse'
    KIND = 'response'
    API_KEY = 10
    VALID_VERSIONS = (0, 6)
    FLEXIBLE_VERSIONS = (3, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('throttle_time_ms', 'int32', (1, 32767), None, None, None, 'inherit', 0),
        Field('error_code', 'int16', (0, 3), None, None, None, 'inherit', 0),
        Field('error_message', 'string', (1, 3), (1, 3), None, None, 'inherit', ''),
        Field('node_id', 'int32', (0, 3), None, None, None, 'inherit', 0),
        Field('host', 'string', (0, 3), None, None, None, 'inherit', ''),
        Field('port', 'int32', (0, 3), None, None, None, 'inherit', 0),
        Field('coordinators', '[]Coordinator', (4, 32767), None, None, None, 'inherit', ()),
    )

    class Coordinator(Struct):
        __slots__ = ('key', 'node_id', 'host', 'port', 'error_code', 'error_message')
        FIELDS = (
            Field('key', 'string', (4, 32767), None, None, None, 'inherit', ''),
            Field('node_id', 'int32', (4, 32767), None, None, None, 'inherit', 0),
            Field('host', 'string', (4, 32767), None, None, None, 'inherit', ''),
            Field('port', 'int32', (4, 32767), None, None, None, 'inherit', 0),
            Field('error_code', 'int16', (4, 32767), None, None, None, 'inherit', 0),
            Field('error_message', 'string', (4, 32767), (4, 32767), None, None, 'inherit', ''),
        )

        def __init__(self, *, key: str = '', node_id: int = 0, host: str = '', port: int = 0, error_code: int = 0, error_message: str | None = '') -> None:
            self.key = key
            self.node_id = node_id
            self.host = host
            self.port = port
            self.error_code = error_code
            self.error_message = error_message

    def __init__(self, *, throttle_time_ms: int = 0, error_code: int = 0, error_message: str | None = '', node_id: int = 0, host: str = '', port: int = 0, coordinators: list[FindCoordinatorResponse.Coordinator] = _UNSET) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.error_message = error_message
        self.node_id = node_id
        self.host = host
        self.port = port
        self.coordinators = [] if coordinators is _UNSET else coordinators


class GetTelemetrySubscriptionsRequest(Message):
    __slots__ = ('client_instance_id',)
    NAME = 'GetTelemetrySubscriptionsRequest'
    KIND = 'request'
    API_KEY = 71
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('client_instance_id', 'uuid', (0, 32767), None, None, None, 'inherit', ZERO_UUID),
    )

    def __init__(self, *, client_instance_id: bytes = ZERO_UUID) -> None:
        self.client_instance_id = client_instance_id


class GetTelemetrySubscriptionsResponse(Message):
    __slots__ = ('throttle_time_ms', 'error_code', 'client_instance_id', 'subscription_id', 'accepted_compression_types', 'push_interval_ms', 'telemetry_max_bytes', 'delta_temporality', 'requested_metrics')
    NAME = 'GetTelemetrySubscriptionsResponse'
    KIND = 'response'
    API_KEY = 71
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('throttle_time_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        Field('client_instance_id', 'uuid', (0, 32767), None, None, None, 'inherit', ZERO_UUID),
        Field('subscription_id', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('accepted_compression_types', '[]int8', (0, 32767), None, None, None, 'inherit', ()),
        Field('push_interval_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('telemetry_max_bytes', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('delta_temporality', 'bool', (0, 32767), None, None, None, 'inherit', False),
        Field('requested_metrics', '[]string', (0, 32767), None, None, None, 'inherit', ()),
    )

    def __init__(self, *, throttle_time_ms: int = 0, error_code: int = 0, client_instance_id: bytes = ZERO_UUID, subscription_id: int = 0, accepted_compression_types: list[int] = _UNSET, push_interval_ms: int = 0, telemetry_max_bytes: int = 0, delta_temporality: bool = False, requested_metrics: list[str] = _UNSET) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.client_instance_id = client_instance_id
        self.subscription_id = subscription_id
        self.accepted_compression_types = [] if accepted_compression_types is _UNSET else accepted_compression_types
        self.push_interval_ms = push_interval_ms
        self.telemetry_max_bytes = telemetry_max_bytes
        self.delta_temporality = delta_temporality
        self.requested_metrics = [] if requested_metrics is _UNSET else requested_metrics


class GroupMetadataKey(Message):
    __slots__ = ('group',)
    NAME = 'GroupMetadataKey'
    KIND = 'data'
    API_KEY = None
    VALID_VERSIONS = (2, 2)
    FLEXIBLE_VERSIONS = None
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('group', 'string', (2, 2), None, None, None, 'inherit', ''),
    )

    def __init__(self, *, group: str = '') -> None:
        self.group = group


class GroupMetadataValue(Message):
    __slots__ = ('protocol_type', 'generation', 'protocol', 'leader', 'current_state_timestamp', 'members')
    NAME = 'GroupMetadataValue'
    KIND = 'data'
    API_KEY = None
    VALID_VERSIONS = (0, 4)
    FLEXIBLE_VERSIONS = (4, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('protocol_type', 'string', (0, 32767), None, None, None, 'inherit', ''),
        Field('generation', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('protocol', 'string', (0, 32767), (0, 32767), None, None, 'inherit', ''),
        Field('leader', 'string', (0, 32767), (0, 32767), None, None, 'inherit', ''),
        Field('current_state_timestamp', 'int64', (2, 32767), None, None, None, 'inherit', -1),
        Field('members', '[]MemberMetadata', (0, 32767), None, None, None, 'inherit', ()),
    )

    class MemberMetadata(Struct):
        __slots__ = ('member_id', 'group_instance_id', 'client_id', 'client_host', 'rebalance_timeout', 'session_timeout', 'subscription', 'assignment')
        FIELDS = (
            Field('member_id', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('group_instance_id', 'string', (3, 32767), (3, 32767), None, None, 'inherit', None),
            Field('client_id', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('client_host', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('rebalance_timeout', 'int32', (1, 32767), None, None, None, 'inherit', -1),
            Field('session_timeout', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('subscription', 'bytes', (0, 32767), None, None, None, 'inherit', b''),
            Field('assignment', 'bytes', (0, 32767), None, None, None, 'inherit', b''),
        )

        def __init__(self, *, member_id: str = '', group_instance_id: str | None = None, client_id: str = '', client_host: str = '', rebalance_timeout: int = -1, session_timeout: int = 0, subscription: bytes = b'', assignment: bytes = b'') -> None:
            self.member_id = member_id
            self.group_instance_id = group_instance_id
            self.client_id = client_id
            self.client_host = client_host
            self.rebalance_timeout = rebalance_timeout
            self.session_timeout = session_timeout
            self.subscription = subscription
            self.assignment = assignment

    def __init__(self, *, protocol_type: str = '', generation: int = 0, protocol: str | None = '', leader: str | None = '', current_state_timestamp: int = -1, members: list[GroupMetadataValue.MemberMetadata] = _UNSET) -> None:
        self.protocol_type = protocol_type
        self.generation = generation
        self.protocol = protocol
        self.leader = leader
        self.current_state_timestamp = current_state_timestamp
        self.members = [] if members is _UNSET else members


class HeartbeatRequest(Message):
    __slots__ = ('group_id', 'generation_id', 'member_id', 'group_instance_id')
    NAME = 'HeartbeatRequest'
    KIND = 'request'
    API_KEY = 12
    VALID_VERSIONS = (0, 4)
    FLEXIBLE_VERSIONS = (4, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('group_id', 'string', (0, 32767), None, None, None, 'inherit', ''),
        Field('generation_id', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('member_id', 'string', (0, 32767), None, None, None, 'inherit', ''),
        Field('group_instance_id', 'string', (3, 32767), (3, 32767), None, None, 'inherit', None),
    )

    def __init__(self, *, group_id: str = '', generation_id: int = 0, member_id: str = '', group_instance_id: str | None = None) -> None:
        self.group_id = group_id
        self.generation_id = generation_id
        self.member_id = member_id
        self.group_instance_id = group_instance_id


class HeartbeatResponse(Message):
    __slots__ = ('throttle_time_ms', 'error_code')
    NAME = 'HeartbeatResponse'
    KIND = 'response'
    API_KEY = 12
    VALID_VERSIONS = (0, 4)
    FLEXIBLE_VERSIONS = (4, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('throttle_time_ms', 'int32', (1, 32767), None, None, None, 'inherit', 0),
        Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
    )

    def __init__(self, *, throttle_time_ms: int = 0, error_code: int = 0) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code


class IncrementalAlterConfigsRequest(Message):
    __slots__ = ('resources', 'validate_only')
    NAME = 'IncrementalAlterConfigsRequest'
    KIND = 'request'
    API_KEY = 44
    VALID_VERSIONS = (0, 1)
    FLEXIBLE_VERSIONS = (1, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('resources', '[]AlterConfigsResource', (0, 32767), None, None, None, 'inherit', ()),
        Field('validate_only', 'bool', (0, 32767), None, None, None, 'inherit', False),
    )

    class AlterConfigsResource(Struct):
        __slots__ = ('resource_type', 'resource_name', 'configs')
        FIELDS = (
            Field('resource_type', 'int8', (0, 32767), None, None, None, 'inherit', 0),
            Field('resource_name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('configs', '[]AlterableConfig', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, resource_type: int = 0, resource_name: str = '', configs: list[IncrementalAlterConfigsRequest.AlterableConfig] = _UNSET) -> None:
            self.resource_type = resource_type
            self.resource_name = resource_name
            self.configs = [] if configs is _UNSET else configs

    class AlterableConfig(Struct):
        __slots__ = ('name', 'config_operation', 'value')
        FIELDS = (
            Field('name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('config_operation', 'int8', (0, 32767), None, None, None, 'inherit', 0),
            Field('value', 'string', (0, 32767), (0, 32767), None, None, 'inherit', ''),
        )

        def __init__(self, *, name: str = '', config_operation: int = 0, value: str | None = '') -> None:
            self.name = name
            self.config_operation = config_operation
            self.value = value

    def __init__(self, *, resources: list[IncrementalAlterConfigsRequest.AlterConfigsResource] = _UNSET, validate_only: bool = False) -> None:
        self.resources = [] if resources is _UNSET else resources
        self.validate_only = validate_only


class IncrementalAlterConfigsResponse(Message):
    __slots__ = ('throttle_time_ms', 'responses')
    NAME = 'IncrementalAlterConfigsResponse'
    KIND = 'response'
    API_KEY = 44
    VALID_VERSIONS = (0, 1)
    FLEXIBLE_VERSIONS = (1, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('throttle_time_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('responses', '[]AlterConfigsResourceResponse', (0, 32767), None, None, None, 'inherit', ()),
    )

    class AlterConfigsResourceResponse(Struct):
        __slots__ = ('error_code', 'error_message', 'resource_type', 'resource_name')
        FIELDS = (
            Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
            Field('error_message', 'string', (0, 32767), (0, 32767), None, None, 'inherit', ''),
            Field('resource_type', 'int8', (0, 32767), None, None, None, 'inherit', 0),
            Field('resource_name', 'string', (0, 32767), None, None, None, 'inherit', ''),
        )

        def __init__(self, *, error_code: int = 0, error_message: str | None = '', resource_type: int = 0, resource_name: str = '') -> None:
            self.error_code = error_code
            self.error_message = error_message
            self.resource_type = resource_type
            self.resource_name = resource_name

    def __init__(self, *, throttle_time_ms: int = 0, responses: list[IncrementalAlterConfigsResponse.AlterConfigsResourceResponse] = _UNSET) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.responses = [] if responses is _UNSET else responses


class InitProducerIdRequest(Message):
    __slots__ = ('transactional_id', 'transaction_timeout_ms', 'producer_id', 'producer_epoch')
    NAME = 'InitProducerIdRequest'
    KIND = 'request'
    API_KEY = 22
    VALID_VERSIONS = (0, 5)
    FLEXIBLE_VERSIONS = (2, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('transactional_id', 'string', (0, 32767), (0, 32767), None, None, 'inherit', ''),
        Field('transaction_timeout_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('producer_id', 'int64', (3, 32767), None, None, None, 'inherit', -1),
        Field('producer_epoch', 'int16', (3, 32767), None, None, None, 'inherit', -1),
    )

    def __init__(self, *, transactional_id: str | None = '', transaction_timeout_ms: int = 0, producer_id: int = -1, producer_epoch: int = -1) -> None:
        self.transactional_id = transactional_id
        self.transaction_timeout_ms = transaction_timeout_ms
        self.producer_id = producer_id
        self.producer_epoch = producer_epoch


class InitProducerIdResponse(Message):
    __slots__ = ('throttle_time_ms', 'error_code', 'producer_id', 'producer_epoch')
    NAME = 'InitProducerIdResponse'
    KIND = 'response'
    API_KEY = 22
    VALID_VERSIONS = (0, 5)
    FLEXIBLE_VERSIONS = (2, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('throttle_time_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        Field('producer_id', 'int64', (0, 32767), None, None, None, 'inherit', -1),
        Field('producer_epoch', 'int16', (0, 32767), None, None, None, 'inherit', 0),
    )

    def __init__(self, *, throttle_time_ms: int = 0, error_code: int = 0, producer_id: int = -1, producer_epoch: int = 0) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.producer_id = producer_id
        self.producer_epoch = producer_epoch


class InitializeShareGroupStateRequest(Message):
    __slots__ = ('group_id', 'topics')
    NAME = 'InitializeShareGroupStateRequest'
    KIND = 'request'
    API_KEY = 83
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('group_id', 'string', (0, 32767), None, None, None, 'inherit', ''),
        Field('topics', '[]InitializeStateData', (0, 32767), None, None, None, 'inherit', ()),
    )

    class InitializeStateData(Struct):
        __slots__ = ('topic_id', 'partitions')
        FIELDS = (
            Field('topic_id', 'uuid', (0, 32767), None, None, None, 'inherit', ZERO_UUID),
            Field('partitions', '[]PartitionData', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, topic_id: bytes = ZERO_UUID, partitions: list[InitializeShareGroupStateRequest.PartitionData] = _UNSET) -> None:
            self.topic_id = topic_id
            self.partitions = [] if partitions is _UNSET else partitions

    class PartitionData(Struct):
        __slots__ = ('partition', 'state_epoch', 'start_offset')
        FIELDS = (
            Field('partition', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('state_epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('start_offset', 'int64', (0, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, partition: int = 0, state_epoch: int = 0, start_offset: int = 0) -> None:
            self.partition = partition
            self.state_epoch = state_epoch
            self.start_offset = start_offset

    def __init__(self, *, group_id: str = '', topics: list[InitializeShareGroupStateRequest.InitializeStateData] = _UNSET) -> None:
        self.group_id = group_id
        self.topics = [] if topics is _UNSET else topics


class InitializeShareGroupStateResponse(Message):
    __slots__ = ('results',)
    NAME = 'InitializeShareGroupStateResponse'
    KIND = 'response'
    API_KEY = 83
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('results', '[]InitializeStateResult', (0, 32767), None, None, None, 'inherit', ()),
    )

    class InitializeStateResult(Struct):
        __slots__ = ('topic_id', 'partitions')
        FIELDS = (
            Field('topic_id', 'uuid', (0, 32767), None, None, None, 'inherit', ZERO_UUID),
            Field('partitions', '[]PartitionResult', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, topic_id: bytes = ZERO_UUID, partitions: list[InitializeShareGroupStateResponse.PartitionResult] = _UNSET) -> None:
            self.topic_id = topic_id
            self.partitions = [] if partitions is _UNSET else partitions

    class PartitionResult(Struct):
        __slots__ = ('partition', 'error_code', 'error_message')
        FIELDS = (
            Field('partition', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
            Field('error_message', 'string', (0, 32767), (0, 32767), None, None, 'inherit', None),
        )

        def __init__(self, *, partition: int = 0, error_code: int = 0, error_message: str | None = None) -> None:
            self.partition = partition
            self.error_code = error_code
            self.error_message = error_message

    def __init__(self, *, results: list[InitializeShareGroupStateResponse.InitializeStateResult] = _UNSET) -> None:
        self.results = [] if results is _UNSET else results


class JoinGroupRequest(Message):
    __slots__ = ('group_id', 'session_timeout_ms', 'rebalance_timeout_ms', 'member_id', 'group_instance_id', 'protocol_type', 'protocols', 'reason')
    NAME = 'JoinGroupRequest'
    KIND = 'request'
    API_KEY = 11
    VALID_VERSIONS = (0, 9)
    FLEXIBLE_VERSIONS = (6, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('group_id', 'string', (0, 32767), None, None, None, 'inherit', ''),
        Field('session_timeout_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('rebalance_timeout_ms', 'int32', (1, 32767), None, None, None, 'inherit', -1),
        Field('member_id', 'string', (0, 32767), None, None, None, 'inherit', ''),
        Field('group_instance_id', 'string', (5, 32767), (5, 32767), None, None, 'inherit', None),
        Field('protocol_type', 'string', (0, 32767), None, None, None, 'inherit', ''),
        Field('protocols', '[]JoinGroupRequestProtocol', (0, 32767), None, None, None, 'inherit', ()),
        Field('reason', 'string', (8, 32767), (8, 32767), None, None, 'inherit', None),
    )

    class JoinGroupRequestProtocol(Struct):
        __slots__ = ('name', 'metadata')
        FIELDS = (
            Field('name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('metadata', 'bytes', (0, 32767), None, None, None, 'inherit', b''),
        )

        def __init__(self, *, name: str = '', metadata: bytes = b'') -> None:
            self.name = name
            self.metadata = metadata

    def __init__(self, *, group_id: str = '', session_timeout_ms: int = 0, rebalance_timeout_ms: int = -1, member_id: str = '', group_instance_id: str | None = None, protocol_type: str = '', protocols: list[JoinGroupRequest.JoinGroupRequestProtocol] = _UNSET, reason: str | None = None) -> None:
        self.group_id = group_id
        self.session_timeout_ms = session_timeout_ms
        self.rebalance_timeout_ms = rebalance_timeout_ms
        self.member_id = member_id
        self.group_instance_id = group_instance_id
        self.protocol_type = protocol_type
        self.protocols = [] if protocols is _UNSET else protocols
        self.reason = reason


class JoinGroupResponse(Message):
    __slots__ = ('throttle_time_ms', 'error_code', 'generation_id', 'protocol_type', 'protocol_name', 'leader', 'skip_assignment', 'member_id', 'members')
    NAME = 'JoinGroupResponse'
    KIND = 'response'
    API_KEY = 11
    VALID_VERSIONS = (0, 9)
    FLEXIBLE_VERSIONS = (6, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('throttle_time_ms', 'int32', (2, 32767), None, None, None, 'inherit', 0),
        Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        Field('generation_id', 'int32', (0, 32767), None, None, None, 'inherit', -1),
        Field('protocol_type', 'string', (7, 32767), (7, 32767), None, None, 'inherit', None),
        Field('protocol_name', 'string', (0, 32767), (7, 32767), None, None, 'inherit', ''),
        Field('leader', 'string', (0, 32767), None, None, None, 'inherit', ''),
        Field('skip_assignment', 'bool', (9, 32767), None, None, None, 'inherit', False),
        Field('member_id', 'string', (0, 32767), None, None, None, 'inherit', ''),
        Field('members', '[]JoinGroupResponseMember', (0, 32767), None, None, None, 'inherit', ()),
    )

    class JoinGroupResponseMember(Struct):
        __slots__ = ('member_id', 'group_instance_id', 'metadata')
        FIELDS = (
            Field('member_id', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('group_instance_id', 'string', (5, 32767), (5, 32767), None, None, 'inherit', None),
            Field('metadata', 'bytes', (0, 32767), None, None, None, 'inherit', b''),
        )

        def __init__(self, *, member_id: str = '', group_instance_id: str | None = None, metadata: bytes = b'') -> None:
            self.member_id = member_id
            self.group_instance_id = group_instance_id
            self.metadata = metadata

    def __init__(self, *, throttle_time_ms: int = 0, error_code: int = 0, generation_id: int = -1, protocol_type: str | None = None, protocol_name: str | None = '', leader: str = '', skip_assignment: bool = False, member_id: str = '', members: list[JoinGroupResponse.JoinGroupResponseMember] = _UNSET) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.generation_id = generation_id
        self.protocol_type = protocol_type
        self.protocol_name = protocol_name
        self.leader = leader
        self.skip_assignment = skip_assignment
        self.member_id = member_id
        self.members = [] if members is _UNSET else members


class KRaftVersionRecord(Message):
    __slots__ = ('version', 'k_raft_version')
    NAME = 'KRaftVersionRecord'
    KIND = 'data'
    API_KEY = None
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('version', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        Field('k_raft_version', 'int16', (0, 32767), None, None, None, 'inherit', 0),
    )

    def __init__(self, *, version: int = 0, k_raft_version: int = 0) -> None:
        self.version = version
        self.k_raft_version = k_raft_version


class LeaderAndIsrRequest(Message):
    __slots__ = ('controller_id', 'is_k_raft_controller', 'controller_epoch', 'broker_epoch', 'type', 'ungrouped_partition_states', 'topic_states', 'live_leaders')
    NAME = 'LeaderAndIsrRequest'
    KIND = 'request'
    API_KEY = 4
    VALID_VERSIONS = (0, 7)
    FLEXIBLE_VERSIONS = (4, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('controller_id', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('is_k_raft_controller', 'bool', (7, 32767), None, None, None, 'inherit', False),
        Field('controller_epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('broker_epoch', 'int64', (2, 32767), None, None, None, 'inherit', -1),
        Field('type', 'int8', (5, 32767), None, None, None, 'inherit', 0),
        Field('ungrouped_partition_states', '[]LeaderAndIsrPartitionState', (0, 1), None, None, None, 'inherit', ()),
        Field('topic_states', '[]LeaderAndIsrTopicState', (2, 32767), None, None, None, 'inherit', ()),
        Field('live_leaders', '[]LeaderAndIsrLiveLeader', (0, 32767), None, None, None, 'inherit', ()),
    )

    class LeaderAndIsrLiveLeader(Struct):
        __slots__ = ('broker_id', 'host_name', 'port')
        FIELDS = (
            Field('broker_id', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('host_name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('port', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, broker_id: int = 0, host_name: str = '', port: int = 0) -> None:
            self.broker_id = broker_id
            self.host_name = host_name
            self.port = port

    class LeaderAndIsrPartitionState(Struct):
        __slots__ = ('topic_name', 'partition_index', 'controller_epoch', 'leader', 'leader_epoch', 'isr', 'partition_epoch', 'replicas', 'adding_replicas', 'removing_replicas', 'is_new', 'leader_recovery_state')
        FIELDS = (
            Field('topic_name', 'string', (0, 1), None, None, None, 'inherit', ''),
            Field('partition_index', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('controller_epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('leader', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('leader_epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('isr', '[]int32', (0, 32767), None, None, None, 'inherit', ()),
            Field('partition_epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('replicas', '[]int32', (0, 32767), None, None, None, 'inherit', ()),
            Field('adding_replicas', '[]int32', (3, 32767), None, None, None, 'inherit', ()),
            Field('removing_replicas', '[]int32', (3, 32767), None, None, None, 'inherit', ()),
            Field('is_new', 'bool', (1, 32767), None, None, None, 'inherit', False),
            Field('leader_recovery_state', 'int8', (6, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, topic_name: str = '', partition_index: int = 0, controller_epoch: int = 0, leader: int = 0, leader_epoch: int = 0, isr: list[int] = _UNSET, partition_epoch: int = 0, replicas: list[int] = _UNSET, adding_replicas: list[int] = _UNSET, removing_replicas: list[int] = _UNSET, is_new: bool = False, leader_recovery_state: int = 0) -> None:
            self.topic_name = topic_name
            self.partition_index = partition_index
            self.controller_epoch = controller_epoch
            self.leader = leader
            self.leader_epoch = leader_epoch
            self.isr = [] if isr is _UNSET else isr
            self.partition_epoch = partition_epoch
            self.replicas = [] if replicas is _UNSET else replicas
            self.adding_replicas = [] if adding_replicas is _UNSET else adding_replicas
            self.removing_replicas = [] if removing_replicas is _UNSET else removing_replicas
            self.is_new = is_new
            self.leader_recovery_state = leader_recovery_state

    class LeaderAndIsrTopicState(Struct):
        __slots__ = ('topic_name', 'topic_id', 'partition_states')
        FIELDS = (
            Field('topic_name', 'string', (2, 32767), None, None, None, 'inherit', ''),
            Field('topic_id', 'uuid', (5, 32767), None, None, None, 'inherit', ZERO_UUID),
            Field('partition_states', '[]LeaderAndIsrPartitionState', (2, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, topic_name: str = '', topic_id: bytes = ZERO_UUID, partition_states: list[LeaderAndIsrRequest.LeaderAndIsrPartitionState] = _UNSET) -> None:
            self.topic_name = topic_name
            self.topic_id = topic_id
            self.partition_states = [] if partition_states is _UNSET else partition_states

    def __init__(self, *, controller_id: int = 0, is_k_raft_controller: bool = False, controller_epoch: int = 0, broker_epoch: int = -1, type: int = 0, ungrouped_partition_states: list[LeaderAndIsrRequest.LeaderAndIsrPartitionState] = _UNSET, topic_states: list[LeaderAndIsrRequest.LeaderAndIsrTopicState] = _UNSET, live_leaders: list[LeaderAndIsrRequest.LeaderAndIsrLiveLeader] = _UNSET) -> None:
        self.controller_id = controller_id
        self.is_k_raft_controller = is_k_raft_controller
        self.controller_epoch = controller_epoch
        self.broker_epoch = broker_epoch
        self.type = type
        self.ungrouped_partition_states = [] if ungrouped_partition_states is _UNSET else ungrouped_partition_states
        self.topic_states = [] if topic_states is _UNSET else topic_states
        self.live_leaders = [] if live_leaders is _UNSET else live_leaders


class LeaderAndIsrResponse(Message):
    __slots__ = ('error_code', 'partition_errors', 'topics')
    NAME = 'LeaderAndIsrResponse'
    KIND = 'response'
    API_KEY = 4
    VALID_VERSIONS = (0, 7)
    FLEXIBLE_VERSIONS = (4, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        Field('partition_errors', '[]LeaderAndIsrPartitionError', (0, 4), None, None, None, 'inherit', ()),
        Field('topics', '[]LeaderAndIsrTopicError', (5, 32767), None, None, None, 'inherit', ()),
    )

    class LeaderAndIsrPartitionError(Struct):
        __slots__ = ('topic_name', 'partition_index', 'error_code')
        FIELDS = (
            Field('topic_name', 'string', (0, 4), None, None, None, 'inherit', ''),
            Field('partition_index', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, topic_name: str = '', partition_index: int = 0, error_code: int = 0) -> None:
            self.topic_name = topic_name
            self.partition_index = partition_index
            self.error_code = error_code

    class LeaderAndIsrTopicError(Struct):
        __slots__ = ('topic_id', 'partition_errors')
        FIELDS = (
            Field('topic_id', 'uuid', (5, 32767), None, None, None, 'inherit', ZERO_UUID),
            Field('partition_errors', '[]LeaderAndIsrPartitionError', (5, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, topic_id: bytes = ZERO_UUID, partition_errors: list[LeaderAndIsrResponse.LeaderAndIsrPartitionError] = _UNSET) -> None:
            self.topic_id = topic_id
            self.partition_errors = [] if partition_errors is _UNSET else partition_errors

    def __init__(self, *, error_code: int = 0, partition_errors: list[LeaderAndIsrResponse.LeaderAndIsrPartitionError] = _UNSET, topics: list[LeaderAndIsrResponse.LeaderAndIsrTopicError] = _UNSET) -> None:
        self.error_code = error_code
        self.partition_errors = [] if partition_errors is _UNSET else partition_errors
        self.topics = [] if topics is _UNSET else topics


class LeaderChangeMessage(Message):
    __slots__ = ('version', 'leader_id', 'voters', 'granting_voters')
    NAME = 'LeaderChangeMessage'
    KIND = 'data'
    API_KEY = None
    VALID_VERSIONS = (0, 1)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('version', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        Field('leader_id', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('voters', '[]Voter', (0, 32767), None, None, None, 'inherit', ()),
        Field('granting_voters', '[]Voter', (0, 32767), None, None, None, 'inherit', ()),
    )

    class Voter(Struct):
        __slots__ = ('voter_id', 'voter_directory_id')
        FIELDS = (
            Field('voter_id', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('voter_directory_id', 'uuid', (1, 32767), None, None, None, 'inherit', ZERO_UUID),
        )

        def __init__(self, *, voter_id: int = 0, voter_directory_id: bytes = ZERO_UUID) -> None:
            self.voter_id = voter_id
            self.voter_directory_id = voter_directory_id

    def __init__(self, *, version: int = 0, leader_id: int = 0, voters: list[LeaderChangeMessage.Voter] = _UNSET, granting_voters: list[LeaderChangeMessage.Voter] = _UNSET) -> None:
        self.version = version
        self.leader_id = leader_id
        self.voters = [] if voters is _UNSET else voters
        self.granting_voters = [] if granting_voters is _UNSET else granting_voters


class LeaveGroupRequest(Message):
    __slots__ = ('group_id', 'member_id', 'members')
    NAME = 'LeaveGroupRequest'
    KIND = 'request'
    API_KEY = 13
    VALID_VERSIONS = (0, 5)
    FLEXIBLE_VERSIONS = (4, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('group_id', 'string', (0, 32767), None, None, None, 'inherit', ''),
        Field('member_id', 'string', (0, 2), None, None, None, 'inherit', ''),
        Field('members', '[]MemberIdentity', (3, 32767), None, None, None, 'inherit', ()),
    )

    class MemberIdentity(Struct):
        __slots__ = ('member_id', 'group_instance_id', 'reason')
        FIELDS = (
            Field('member_id', 'string', (3, 32767), None, None, None, 'inherit', ''),
            Field('group_instance_id', 'string', (3, 32767), (3, 32767), None, None, 'inherit', None),
            Field('reason', 'string', (5, 32767), (5, 32767), None, None, 'inherit', None),
        )

        def __init__(self, *, member_id: str = '', group_instance_id: str | None = None, reason: str | None = None) -> None:
            self.member_id = member_id
            self.group_instance_id = group_instance_id
            self.reason = reason

    def __init__(self, *, group_id: str = '', member_id: str = '', members: list[LeaveGroupRequest.MemberIdentity] = _UNSET) -> None:
        self.group_id = group_id
        self.member_id = member_id
        self.members = [] if members is _UNSET else members


class LeaveGroupResponse(Message):
    __slots__ = ('throttle_time_ms', 'error_code', 'members')
    NAME = 'LeaveGroupResponse'
    KIND = 'response'
    API_KEY = 13
    VALID_VERSIONS = (0, 5)
    FLEXIBLE_VERSIONS = (4, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('throttle_time_ms', 'int32', (1, 32767), None, None, None, 'inherit', 0),
        Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        Field('members', '[]MemberResponse', (3, 32767), None, None, None, 'inherit', ()),
    )

    class MemberResponse(Struct):
        __slots__ = ('member_id', 'group_instance_id', 'error_code')
        FIELDS = (
            Field('member_id', 'string', (3, 32767), None, None, None, 'inherit', ''),
            Field('group_instance_id', 'string', (3, 32767), (3, 32767), None, None, 'inherit', ''),
            Field('error_code', 'int16', (3, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, member_id: str = '', group_instance_id: str | None = '', error_code: int = 0) -> None:
            self.member_id = member_id
            self.group_instance_id = group_instance_id
            self.error_code = error_code

    def __init__(self, *, throttle_time_ms: int = 0, error_code: int = 0, members: list[LeaveGroupResponse.MemberResponse] = _UNSET) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.members = [] if members is _UNSET else members


class ListClientMetricsResourcesRequest(Message):
    __slots__ = ()
    NAME = 'ListClientMetricsResourcesRequest'
    KIND = 'request'
    API_KEY = 74
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
    )

    def __init__(self) -> None:
        pass


class ListClientMetricsResourcesResponse(Message):
    __slots__ = ('throttle_time_ms', 'error_code', 'client_metrics_resources')
    NAME = 'ListClientMetricsResourcesResponse'
    KIND = 'response'
    API_KEY = 74
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('throttle_time_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        Field('client_metrics_resources', '[]ClientMetricsResource', (0, 32767), None, None, None, 'inherit', ()),
    )

    class ClientMetricsResource(Struct):
        __slots__ = ('name',)
        FIELDS = (
            Field('name', 'string', (0, 32767), None, None, None, 'inherit', ''),
        )

        def __init__(self, *, name: str = '') -> None:
            self.name = name

    def __init__(self, *, throttle_time_ms: int = 0, error_code: int = 0, client_metrics_resources: list[ListClientMetricsResourcesResponse.ClientMetricsResource] = _UNSET) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.client_metrics_resources = [] if client_metrics_resources is _UNSET else client_metrics_resources


class ListGroupsRequest(Message):
    __slots__ = ('states_filter', 'types_filter')
    NAME = 'ListGroupsRequest'
    KIND = 'request'
    API_KEY = 16
    VALID_VERSIONS = (0, 5)
    FLEXIBLE_VERSIONS = (3, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('states_filter', '[]string', (4, 32767), None, None, None, 'inherit', ()),
        Field('types_filter', '[]string', (5, 32767), None, None, None, 'inherit', ()),
    )

    def __init__(self, *, states_filter: list[str] = _UNSET, types_filter: list[str] = _UNSET) -> None:
        self.states_filter = [] if states_filter is _UNSET else states_filter
        self.types_filter = [] if types_filter is _UNSET else types_filter


class ListGroupsResponse(Message):
    __slots__ = ('throttle_time_ms', 'error_code', 'groups')
    NAME = 'ListGroupsResponse'
    KIND = 'response'
    API_KEY = 16
    VALID_VERSIONS = (0, 5)
    FLEXIBLE_VERSIONS = (3, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('throttle_time_ms', 'int32', (1, 32767), None, None, None, 'inherit', 0),
        Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        Field('groups', '[]ListedGroup', (0, 32767), None, None, None, 'inherit', ()),
    )

    class ListedGroup(Struct):
        __slots__ = ('group_id', 'protocol_type', 'group_state', 'group_type')
        FIELDS = (
            Field('group_id', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('protocol_type', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('group_state', 'string', (4, 32767), None, None, None, 'inherit', ''),
            Field('group_type', 'string', (5, 32767), None, None, None, 'inherit', ''),
        )

        def __init__(self, *, group_id: str = '', protocol_type: str = '', group_state: str = '', group_type: str = '') -> None:
            self.group_id = group_id
            self.protocol_type = protocol_type
            self.group_state = group_state
            self.group_type = group_type

    def __init__(self, *, throttle_time_ms: int = 0, error_code: int = 0, groups: list[ListGroupsResponse.ListedGroup] = _UNSET) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.groups = [] if groups is _UNSET else groups


class ListOffsetsRequest(Message):
    __slots__ = ('replica_id', 'isolation_level', 'topics', 'timeout_ms')
    NAME = 'ListOffsetsRequest'
    KIND = 'request'
    API_KEY = 2
    VALID_VERSIONS = (0, 11)
    FLEXIBLE_VERSIONS = (6, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('replica_id', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('isolation_level', 'int8', (2, 32767), None, None, None, 'inherit', 0),
        Field('topics', '[]ListOffsetsTopic', (0, 32767), None, None, None, 'inherit', ()),
        Field('timeout_ms', 'int32', (10, 32767), None, None, None, 'inherit', 0),
    )

    class ListOffsetsPartition(Struct):
        __slots__ = ('partition_index', 'current_leader_epoch', 'timestamp', 'max_num_offsets')
        FIELDS = (
            Field('partition_index', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('current_leader_epoch', 'int32', (4, 32767), None, None, None, 'inherit', -1),
            Field('timestamp', 'int64', (0, 32767), None, None, None, 'inherit', 0),
            Field('max_num_offsets', 'int32', (0, 0), None, None, None, 'inherit', 1),
        )

        def __init__(self, *, partition_index: int = 0, current_leader_epoch: int = -1, timestamp: int = 0, max_num_offsets: int = 1) -> None:
            self.partition_index = partition_index
            self.current_leader_epoch = current_leader_epoch
            self.timestamp = timestamp
            self.max_num_offsets = max_num_offsets

    class ListOffsetsTopic(Struct):
        __slots__ = ('name', 'partitions')
        FIELDS = (
            Field('name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('partitions', '[]ListOffsetsPartition', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, name: str = '', partitions: list[ListOffsetsRequest.ListOffsetsPartition] = _UNSET) -> None:
            self.name = name
            self.partitions = [] if partitions is _UNSET else partitions

    def __init__(self, *, replica_id: int = 0, isolation_level: int = 0, topics: list[ListOffsetsRequest.ListOffsetsTopic] = _UNSET, timeout_ms: int = 0) -> None:
        self.replica_id = replica_id
        self.isolation_level = isolation_level
        self.topics = [] if topics is _UNSET else topics
        self.timeout_ms = timeout_ms


class ListOffsetsResponse(Message):
    __slots__ = ('throttle_time_ms', 'topics')
    NAME = 'ListOffsetsResponse'
    KIND = 'response'
    API_KEY = 2
    VALID_VERSIONS = (0, 11)
    FLEXIBLE_VERSIONS = (6, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('throttle_time_ms', 'int32', (2, 32767), None, None, None, 'inherit', 0),
        Field('topics', '[]ListOffsetsTopicResponse', (0, 32767), None, None, None, 'inherit', ()),
    )

    class ListOffsetsPartitionResponse(Struct):
        __slots__ = ('partition_index', 'error_code', 'old_style_offsets', 'timestamp', 'offset', 'leader_epoch')
        FIELDS = (
            Field('partition_index', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
            Field('old_style_offsets', '[]int64', (0, 0), None, None, None, 'inherit', ()),
            Field('timestamp', 'int64', (1, 32767), None, None, None, 'inherit', -1),
            Field('offset', 'int64', (1, 32767), None, None, None, 'inherit', -1),
            Field('leader_epoch', 'int32', (4, 32767), None, None, None, 'inherit', -1),
        )

        def __init__(self, *, partition_index: int = 0, error_code: int = 0, old_style_offsets: list[int] = _UNSET, timestamp: int = -1, offset: int = -1, leader_epoch: int = -1) -> None:
            self.partition_index = partition_index
            self.error_code = error_code
            self.old_style_offsets = [] if old_style_offsets is _UNSET else old_style_offsets
            self.timestamp = timestamp
            self.offset = offset
            self.leader_epoch = leader_epoch

    class ListOffsetsTopicResponse(Struct):
        __slots__ = ('name', 'partitions')
        FIELDS = (
            Field('name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('partitions', '[]ListOffsetsPartitionResponse', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, name: str = '', partitions: list[ListOffsetsResponse.ListOffsetsPartitionResponse] = _UNSET) -> None:
            self.name = name
            self.partitions = [] if partitions is _UNSET else partitions

    def __init__(self, *, throttle_time_ms: int = 0, topics: list[ListOffsetsResponse.ListOffsetsTopicResponse] = _UNSET) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.topics = [] if topics is _UNSET else topics


class ListPartitionReassignmentsRequest(Message):
    __slots__ = ('timeout_ms', 'topics')
    NAME = 'ListPartitionReassignmentsRequest'
    KIND = 'request'
    API_KEY = 46
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('timeout_ms', 'int32', (0, 32767), None, None, None, 'inherit', 60000),
        Field('topics', '[]ListPartitionReassignmentsTopics', (0, 32767), (0, 32767), None, None, 'inherit', None),
    )

    class ListPartitionReassignmentsTopics(Struct):
        __slots__ = ('name', 'partition_indexes')
        FIELDS = (
            Field('name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('partition_indexes', '[]int32', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, name: str = '', partition_indexes: list[int] = _UNSET) -> None:
            self.name = name
            self.partition_indexes = [] if partition_indexes is _UNSET else partition_indexes

    def __init__(self, *, timeout_ms: int = 60000, topics: list[ListPartitionReassignmentsRequest.ListPartitionReassignmentsTopics] | None = None) -> None:
        self.timeout_ms = timeout_ms
        self.topics = topics


class ListPartitionReassignmentsResponse(Message):
    __slots__ = ('throttle_time_ms', 'error_code', 'error_message', 'topics')
    NAME = 'ListPartitionReassignmentsResponse'
    KIND = 'response'
    API_KEY = 46
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('throttle_time_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        Field('error_message', 'string', (0, 32767), (0, 32767), None, None, 'inherit', ''),
        Field('topics', '[]OngoingTopicReassignment', (0, 32767), None, None, None, 'inherit', ()),
    )

    class OngoingPartitionReassignment(Struct):
        __slots__ = ('partition_index', 'replicas', 'adding_replicas', 'removing_replicas')
        FIELDS = (
            Field('partition_index', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('replicas', '[]int32', (0, 32767), None, None, None, 'inherit', ()),
            Field('adding_replicas', '[]int32', (0, 32767), None, None, None, 'inherit', ()),
            Field('removing_replicas', '[]int32', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, partition_index: int = 0, replicas: list[int] = _UNSET, adding_replicas: list[int] = _UNSET, removing_replicas: list[int] = _UNSET) -> None:
            self.partition_index = partition_index
            self.replicas = [] if replicas is _UNSET else replicas
            self.adding_replicas = [] if adding_replicas is _UNSET else adding_replicas
            self.removing_replicas = [] if removing_replicas is _UNSET else removing_replicas

    class OngoingTopicReassignment(Struct):
        __slots__ = ('name', 'partitions')
        FIELDS = (
            Field('name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('partitions', '[]OngoingPartitionReassignment', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, name: str = '', partitions: list[ListPartitionReassignmentsResponse.OngoingPartitionReassignment] = _UNSET) -> None:
            self.name = name
            self.partitions = [] if partitions is _UNSET else partitions

    def __init__(self, *, throttle_time_ms: int = 0, error_code: int = 0, error_message: str | None = '', topics: list[ListPartitionReassignmentsResponse.OngoingTopicReassignment] = _UNSET) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.error_message = error_message
        self.topics = [] if topics is _UNSET else topics


class ListTransactionsRequest(Message):
    __slots__ = ('state_filters', 'producer_id_filters', 'duration_filter', 'transactional_id_pattern')
    NAME = 'ListTransactionsRequest'
    KIND = 'request'
    API_KEY = 66
    VALID_VERSIONS = (0, 2)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('state_filters', '[]string', (0, 32767), None, None, None, 'inherit', ()),
        Field('producer_id_filters', '[]int64', (0, 32767), None, None, None, 'inherit', ()),
        Field('duration_filter', 'int64', (1, 32767), None, None, None, 'inherit', -1),
        Field('transactional_id_pattern', 'string', (2, 32767), (2, 32767), None, None, 'inherit', None),
    )

    def __init__(self, *, state_filters: list[str] = _UNSET, producer_id_filters: list[int] = _UNSET, duration_filter: int = -1, transactional_id_pattern: str | None = None) -> None:
        self.state_filters = [] if state_filters is _UNSET else state_filters
        self.producer_id_filters = [] if producer_id_filters is _UNSET else producer_id_filters
        self.duration_filter = duration_filter
        self.transactional_id_pattern = transactional_id_pattern


class ListTransactionsResponse(Message):
    __slots__ = ('throttle_time_ms', 'error_code', 'unknown_state_filters', 'transaction_states')
    NAME = 'ListTransactionsResponse'
    KIND = 'response'
    API_KEY = 66
    VALID_VERSIONS = (0, 2)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('throttle_time_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        Field('unknown_state_filters', '[]string', (0, 32767), None, None, None, 'inherit', ()),
        Field('transaction_states', '[]TransactionState', (0, 32767), None, None, None, 'inherit', ()),
    )

    class TransactionState(Struct):
        __slots__ = ('transactional_id', 'producer_id', 'transaction_state')
        FIELDS = (
            Field('transactional_id', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('producer_id', 'int64', (0, 32767), None, None, None, 'inherit', 0),
            Field('transaction_state', 'string', (0, 32767), None, None, None, 'inherit', ''),
        )

        def __init__(self, *, transactional_id: str = '', producer_id: int = 0, transaction_state: str = '') -> None:
            self.transactional_id = transactional_id
            self.producer_id = producer_id
            self.transaction_state = transaction_state

    def __init__(self, *, throttle_time_ms: int = 0, error_code: int = 0, unknown_state_filters: list[str] = _UNSET, transaction_states: list[ListTransactionsResponse.TransactionState] = _UNSET) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.unknown_state_filters = [] if unknown_state_filters is _UNSET else unknown_state_filters
        self.transaction_states = [] if transaction_states is _UNSET else transaction_states


class MetadataRequest(Message):
    __slots__ = ('topics', 'allow_auto_topic_creation', 'include_cluster_authorized_operations', 'include_topic_authorized_operations')
    NAME = 'MetadataRequest'
    KIND = 'request'
    API_KEY = 3
    VALID_VERSIONS = (0, 13)
    FLEXIBLE_VERSIONS = (9, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('topics', '[]MetadataRequestTopic', (0, 32767), (1, 32767), None, None, 'inherit', ()),
        Field('allow_auto_topic_creation', 'bool', (4, 32767), None, None, None, 'inherit', True),
        Field('include_cluster_authorized_operations', 'bool', (8, 10), None, None, None, 'inherit', False),
        Field('include_topic_authorized_operations', 'bool', (8, 32767), None, None, None, 'inherit', False),
    )

    class MetadataRequestTopic(Struct):
        __slots__ = ('topic_id', 'name')
        FIELDS = (
            Field('topic_id', 'uuid', (10, 32767), None, None, None, 'inherit', ZERO_UUID),
            Field('name', 'string', (0, 32767), (10, 32767), None, None, 'inherit', ''),
        )

        def __init__(self, *, topic_id: bytes = ZERO_UUID, name: str | None = '') -> None:
            self.topic_id = topic_id
            self.name = name

    def __init__(self, *, topics: list[MetadataRequest.MetadataRequestTopic] | None = _UNSET, allow_auto_topic_creation: bool = True, include_cluster_authorized_operations: bool = False, include_topic_authorized_operations: bool = False) -> None:
        self.topics = [] if topics is _UNSET else topics
        self.allow_auto_topic_creation = allow_auto_topic_creation
        self.include_cluster_authorized_operations = include_cluster_authorized_operations
        self.include_topic_authorized_operations = include_topic_authorized_operations


class MetadataResponse(Message):
    __slots__ = ('throttle_time_ms', 'brokers', 'cluster_id', 'controller_id', 'topics', 'cluster_authorized_operations', 'error_code')
    NAME = 'MetadataResponse'
    KIND = 'response'
    API_KEY = 3
    VALID_VERSIONS = (0, 13)
    FLEXIBLE_VERSIONS = (9, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('throttle_time_ms', 'int32', (3, 32767), None, None, None, 'inherit', 0),
        Field('brokers', '[]MetadataResponseBroker', (0, 32767), None, None, None, 'inherit', ()),
        Field('cluster_id', 'string', (2, 32767), (2, 32767), None, None, 'inherit', None),
        Field('controller_id', 'int32', (1, 32767), None, None, None, 'inherit', -1),
        Field('topics', '[]MetadataResponseTopic', (0, 32767), None, None, None, 'inherit', ()),
        Field('cluster_authorized_operations', 'int32', (8, 10), None, None, None, 'inherit', -2147483648),
        Field('error_code', 'int16', (13, 32767), None, None, None, 'inherit', 0),
    )

    class MetadataResponseBroker(Struct):
        __slots__ = ('node_id', 'host', 'port', 'rack')
        FIELDS = (
            Field('node_id', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('host', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('port', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('rack', 'string', (1, 32767), (1, 32767), None, None, 'inherit', None),
        )

        def __init__(self, *, node_id: int = 0, host: str = '', port: int = 0, rack: str | None = None) -> None:
            self.node_id = node_id
            self.host = host
            self.port = port
            self.rack = rack

    class MetadataResponsePartition(Struct):
        __slots__ = ('error_code', 'partition_index', 'leader_id', 'leader_epoch', 'replica_nodes', 'isr_nodes', 'offline_replicas')
        FIELDS = (
            Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
            Field('partition_index', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('leader_id', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('leader_epoch', 'int32', (7, 32767), None, None, None, 'inherit', -1),
            Field('replica_nodes', '[]int32', (0, 32767), None, None, None, 'inherit', ()),
            Field('isr_nodes', '[]int32', (0, 32767), None, None, None, 'inherit', ()),
            Field('offline_replicas', '[]int32', (5, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, error_code: int = 0, partition_index: int = 0, leader_id: int = 0, leader_epoch: int = -1, replica_nodes: list[int] = _UNSET, isr_nodes: list[int] = _UNSET, offline_replicas: list[int] = _UNSET) -> None:
            self.error_code = error_code
            self.partition_index = partition_index
            self.leader_id = leader_id
            self.leader_epoch = leader_epoch
            self.replica_nodes = [] if replica_nodes is _UNSET else replica_nodes
            self.isr_nodes = [] if isr_nodes is _UNSET else isr_nodes
            self.offline_replicas = [] if offline_replicas is _UNSET else offline_replicas

    class MetadataResponseTopic(Struct):
        __slots__ = ('error_code', 'name', 'topic_id', 'is_internal', 'partitions', 'topic_authorized_operations')
        FIELDS = (
            Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
            Field('name', 'string', (0, 32767), (12, 32767), None, None, 'inherit', ''),
            Field('topic_id', 'uuid', (10, 32767), None, None, None, 'inherit', ZERO_UUID),
            Field('is_internal', 'bool', (1, 32767), None, None, None, 'inherit', False),
            Field('partitions', '[]MetadataResponsePartition', (0, 32767), None, None, None, 'inherit', ()),
            Field('topic_authorized_operations', 'int32', (8, 32767), None, None, None, 'inherit', -2147483648),
        )

        def __init__(self, *, error_code: int = 0, name: str | None = '', topic_id: bytes = ZERO_UUID, is_internal: bool = False, partitions: list[MetadataResponse.MetadataResponsePartition] = _UNSET, topic_authorized_operations: int = -2147483648) -> None:
            self.error_code = error_code
            self.name = name
            self.topic_id = topic_id
            self.is_internal = is_internal
            self.partitions = [] if partitions is _UNSET else partitions
            self.topic_authorized_operations = topic_authorized_operations

    def __init__(self, *, throttle_time_ms: int = 0, brokers: list[MetadataResponse.MetadataResponseBroker] = _UNSET, cluster_id: str | None = None, controller_id: int = -1, topics: list[MetadataResponse.MetadataResponseTopic] = _UNSET, cluster_authorized_operations: int = -2147483648, error_code: int = 0) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.brokers = [] if brokers is _UNSET else brokers
        self.cluster_id = cluster_id
        self.controller_id = controller_id
        self.topics = [] if topics is _UNSET else topics
        self.cluster_authorized_operations = cluster_authorized_operations
        self.error_code = error_code


class NoOpRecord(Message):
    __slots__ = ()
    NAME = 'NoOpRecord'
    KIND = 'metadata'
    API_KEY = 20
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
    )

    def __init__(self) -> None:
        pass


class OffsetCommitKey(Message):
    __slots__ = ('group', 'topic', 'partition')
    NAME = 'OffsetCommitKey'
    KIND = 'data'
    API_KEY = None
    VALID_VERSIONS = (0, 1)
    FLEXIBLE_VERSIONS = None
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('group', 'string', (0, 1), None, None, None, 'inherit', ''),
        Field('topic', 'string', (0, 1), None, None, None, 'inherit', ''),
        Field('partition', 'int32', (0, 1), None, None, None, 'inherit', 0),
    )

    def __init__(self, *, group: str = '', topic: str = '', partition: int = 0) -> None:
        self.group = group
        self.topic = topic
        self.partition = partition


class OffsetCommitRequest(Message):
    __slots__ = ('group_id', 'generation_id_or_member_epoch', 'member_id', 'group_instance_id', 'retention_time_ms', 'topics')
    NAME = 'OffsetCommitRequest'
    KIND = 'request'
    API_KEY = 8
    VALID_VERSIONS = (0, 10)
    FLEXIBLE_VERSIONS = (8, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('group_id', 'string', (0, 32767), None, None, None, 'inherit', ''),
        Field('generation_id_or_member_epoch', 'int32', (1, 32767), None, None, None, 'inherit', -1),
        Field('member_id', 'string', (1, 32767), None, None, None, 'inherit', ''),
        Field('group_instance_id', 'string', (7, 32767), (7, 32767), None, None, 'inherit', None),
        Field('retention_time_ms', 'int64', (2, 4), None, None, None, 'inherit', -1),
        Field('topics', '[]OffsetCommitRequestTopic', (0, 32767), None, None, None, 'inherit', ()),
    )

    class OffsetCommitRequestPartition(Struct):
        __slots__ = ('partition_index', 'committed_offset', 'committed_leader_epoch', 'commit_timestamp', 'committed_metadata')
        FIELDS = (
            Field('partition_index', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('committed_offset', 'int64', (0, 32767), None, None, None, 'inherit', 0),
            Field('committed_leader_epoch', 'int32', (6, 32767), None, None, None, 'inherit', -1),
            Field('commit_timestamp', 'int64', (1, 1), None, None, None, 'inherit', -1),
            Field('committed_metadata', 'string', (0, 32767), (0, 32767), None, None, 'inherit', ''),
        )

        def __init__(self, *, partition_index: int = 0, committed_offset: int = 0, committed_leader_epoch: int = -1, commit_timestamp: int = -1, committed_metadata: str | None = '') -> None:
            self.partition_index = partition_index
            self.committed_offset = committed_offset
            self.committed_leader_epoch = committed_leader_epoch
            self.commit_timestamp = commit_timestamp
            self.committed_metadata = committed_metadata

    class OffsetCommitRequestTopic(Struct):
        __slots__ = ('name', 'topic_id', 'partitions')
        FIELDS = (
            Field('name', 'string', (0, 9), None, None, None, 'inherit', ''),
            Field('topic_id', 'uuid', (10, 32767), None, None, None, 'inherit', ZERO_UUID),
            Field('partitions', '[]OffsetCommitRequestPartition', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, name: str = '', topic_id: bytes = ZERO_UUID, partitions: list[OffsetCommitRequest.OffsetCommitRequestPartition] = _UNSET) -> None:
            self.name = name
            self.topic_id = topic_id
            self.partitions = [] if partitions is _UNSET else partitions

    def __init__(self, *, group_id: str = '', generation_id_or_member_epoch: int = -1, member_id: str = '', group_instance_id: str | None = None, retention_time_ms: int = -1, topics: list[OffsetCommitRequest.OffsetCommitRequestTopic] = _UNSET) -> None:
        self.group_id = group_id
        self.generation_id_or_member_epoch = generation_id_or_member_epoch
        self.member_id = member_id
        self.group_instance_id = group_instance_id
        self.retention_time_ms = retention_time_ms
        self.topics = [] if topics is _UNSET else topics


class OffsetCommitResponse(Message):
    __slots__ = ('throttle_time_ms', 'topics')
    NAME = 'OffsetCommitResponse'
    KIND = 'response'
    API_KEY = 8
    VALID_VERSIONS = (0, 10)
    FLEXIBLE_VERSIONS = (8, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('throttle_time_ms', 'int32', (3, 32767), None, None, None, 'inherit', 0),
        Field('topics', '[]OffsetCommitResponseTopic', (0, 32767), None, None, None, 'inherit', ()),
    )

    class OffsetCommitResponsePartition(Struct):
        __slots__ = ('partition_index', 'error_code')
        FIELDS = (
            Field('partition_index', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, partition_index: int = 0, error_code: int = 0) -> None:
            self.partition_index = partition_index
            self.error_code = error_code

    class OffsetCommitResponseTopic(Struct):
        __slots__ = ('name', 'topic_id', 'partitions')
        FIELDS = (
            Field('name', 'string', (0, 9), None, None, None, 'inherit', ''),
            Field('topic_id', 'uuid', (10, 32767), None, None, None, 'inherit', ZERO_UUID),
            Field('partitions', '[]OffsetCommitResponsePartition', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, name: str = '', topic_id: bytes = ZERO_UUID, partitions: list[OffsetCommitResponse.OffsetCommitResponsePartition] = _UNSET) -> None:
            self.name = name
            self.topic_id = topic_id
            self.partitions = [] if partitions is _UNSET else partitions

    def __init__(self, *, throttle_time_ms: int = 0, topics: list[OffsetCommitResponse.OffsetCommitResponseTopic] = _UNSET) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.topics = [] if topics is _UNSET else topics


class OffsetCommitValue(Message):
    __slots__ = ('offset', 'leader_epoch', 'metadata', 'commit_timestamp', 'expire_timestamp', 'topic_id')
    NAME = 'OffsetCommitValue'
    KIND = 'data'
    API_KEY = None
    VALID_VERSIONS = (0, 4)
    FLEXIBLE_VERSIONS = (4, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('offset', 'int64', (0, 32767), None, None, None, 'inherit', 0),
        Field('leader_epoch', 'int32', (3, 32767), None, None, None, 'inherit', -1),
        Field('metadata', 'string', (0, 32767), None, None, None, 'inherit', ''),
        Field('commit_timestamp', 'int64', (0, 32767), None, None, None, 'inherit', 0),
        Field('expire_timestamp', 'int64', (1, 1), None, None, None, 'inherit', -1),
        Field('topic_id', 'uuid', (4, 32767), None, 0, (4, 32767), 'inherit', ZERO_UUID),
    )

    def __init__(self, *, offset: int = 0, leader_epoch: int = -1, metadata: str = '', commit_timestamp: int = 0, expire_timestamp: int = -1, topic_id: bytes = ZERO_UUID) -> None:
        self.offset = offset
        self.leader_epoch = leader_epoch
        self.metadata = metadata
        self.commit_timestamp = commit_timestamp
        self.expire_timestamp = expire_timestamp
        self.topic_id = topic_id


class OffsetDeleteRequest(Message):
    __slots__ = ('group_id', 'topics')
    NAME = 'OffsetDeleteRequest'
    KIND = 'request'
    API_KEY = 47
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = None
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('group_id', 'string', (0, 32767), None, None, None, 'inherit', ''),
        Field('topics', '[]OffsetDeleteRequestTopic', (0, 32767), None, None, None, 'inherit', ()),
    )

    class OffsetDeleteRequestPartition(Struct):
        __slots__ = ('partition_index',)
        FIELDS = (
            Field('partition_index', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, partition_index: int = 0) -> None:
            self.partition_index = partition_index

    class OffsetDeleteRequestTopic(Struct):
        __slots__ = ('name', 'partitions')
        FIELDS = (
            Field('name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('partitions', '[]OffsetDeleteRequestPartition', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, name: str = '', partitions: list[OffsetDeleteRequest.OffsetDeleteRequestPartition] = _UNSET) -> None:
            self.name = name
            self.partitions = [] if partitions is _UNSET else partitions

    def __init__(self, *, group_id: str = '', topics: list[OffsetDeleteRequest.OffsetDeleteRequestTopic] = _UNSET) -> None:
        self.group_id = group_id
        self.topics = [] if topics is _UNSET else topics


class OffsetDeleteResponse(Message):
    __slots__ = ('error_code', 'throttle_time_ms', 'topics')
    NAME = 'OffsetDeleteResponse'
    KIND = 'response'
    API_KEY = 47
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = None
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        Field('throttle_time_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('topics', '[]OffsetDeleteResponseTopic', (0, 32767), None, None, None, 'inherit', ()),
    )

    class OffsetDeleteResponsePartition(Struct):
        __slots__ = ('partition_index', 'error_code')
        FIELDS = (
            Field('partition_index', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, partition_index: int = 0, error_code: int = 0) -> None:
            self.partition_index = partition_index
            self.error_code = error_code

    class OffsetDeleteResponseTopic(Struct):
        __slots__ = ('name', 'partitions')
        FIELDS = (
            Field('name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('partitions', '[]OffsetDeleteResponsePartition', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, name: str = '', partitions: list[OffsetDeleteResponse.OffsetDeleteResponsePartition] = _UNSET) -> None:
            self.name = name
            self.partitions = [] if partitions is _UNSET else partitions

    def __init__(self, *, error_code: int = 0, throttle_time_ms: int = 0, topics: list[OffsetDeleteResponse.OffsetDeleteResponseTopic] = _UNSET) -> None:
        self.error_code = error_code
        self.throttle_time_ms = throttle_time_ms
        self.topics = [] if topics is _UNSET else topics


class OffsetFetchRequest(Message):
    __slots__ = ('group_id', 'topics', 'groups', 'require_stable')
    NAME = 'OffsetFetchRequest'
    KIND = 'request'
    API_KEY = 9
    VALID_VERSIONS = (0, 10)
    FLEXIBLE_VERSIONS = (6, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('group_id', 'string', (0, 7), None, None, None, 'inherit', ''),
        Field('topics', '[]OffsetFetchRequestTopic', (0, 7), (2, 7), None, None, 'inherit', ()),
        Field('groups', '[]OffsetFetchRequestGroup', (8, 32767), None, None, None, 'inherit', ()),
        Field('require_stable', 'bool', (7, 32767), None, None, None, 'inherit', False),
    )

    class OffsetFetchRequestGroup(Struct):
        __slots__ = ('group_id', 'member_id', 'member_epoch', 'topics')
        FIELDS = (
            Field('group_id', 'string', (8, 32767), None, None, None, 'inherit', ''),
            Field('member_id', 'string', (9, 32767), (9, 32767), None, None, 'inherit', None),
            Field('member_epoch', 'int32', (9, 32767), None, None, None, 'inherit', -1),
            Field('topics', '[]OffsetFetchRequestTopics', (8, 32767), (8, 32767), None, None, 'inherit', ()),
        )

        def __init__(self, *, group_id: str = '', member_id: str | None = None, member_epoch: int = -1, topics: list[OffsetFetchRequest.OffsetFetchRequestTopics] | None = _UNSET) -> None:
            self.group_id = group_id
            self.member_id = member_id
            self.member_epoch = member_epoch
            self.topics = [] if topics is _UNSET else topics

    class OffsetFetchRequestTopic(Struct):
        __slots__ = ('name', 'partition_indexes')
        FIELDS = (
            Field('name', 'string', (0, 7), None, None, None, 'inherit', ''),
            Field('partition_indexes', '[]int32', (0, 7), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, name: str = '', partition_indexes: list[int] = _UNSET) -> None:
            self.name = name
            self.partition_indexes = [] if partition_indexes is _UNSET else partition_indexes

    class OffsetFetchRequestTopics(Struct):
        __slots__ = ('name', 'topic_id', 'partition_indexes')
        FIELDS = (
            Field('name', 'string', (8, 9), None, None, None, 'inherit', ''),
            Field('topic_id', 'uuid', (10, 32767), None, None, None, 'inherit', ZERO_UUID),
            Field('partition_indexes', '[]int32', (8, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, name: str = '', topic_id: bytes = ZERO_UUID, partition_indexes: list[int] = _UNSET) -> None:
            self.name = name
            self.topic_id = topic_id
            self.partition_indexes = [] if partition_indexes is _UNSET else partition_indexes

    def __init__(self, *, group_id: str = '', topics: list[OffsetFetchRequest.OffsetFetchRequestTopic] | None = _UNSET, groups: list[OffsetFetchRequest.OffsetFetchRequestGroup] = _UNSET, require_stable: bool = False) -> None:
        self.group_id = group_id
        self.topics = [] if topics is _UNSET else topics
        self.groups = [] if groups is _UNSET else groups
        self.require_stable = require_stable


class OffsetFetchResponse(Message):
    __slots__ = ('throttle_time_ms', 'topics', 'error_code', 'groups')
    NAME = 'OffsetFetchResponse'
    KIND = 'response'
    API_KEY = 9
    VALID_VERSIONS = (0, 10)
    FLEXIBLE_VERSIONS = (6, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('throttle_time_ms', 'int32', (3, 32767), None, None, None, 'inherit', 0),
        Field('topics', '[]OffsetFetchResponseTopic', (0, 7), None, None, None, 'inherit', ()),
        Field('error_code', 'int16', (2, 7), None, None, None, 'inherit', 0),
        Field('groups', '[]OffsetFetchResponseGroup', (8, 32767), None, None, None, 'inherit', ()),
    )

    class OffsetFetchResponseGroup(Struct):
        __slots__ = ('group_id', 'topics', 'error_code')
        FIELDS = (
            Field('group_id', 'string', (8, 32767), None, None, None, 'inherit', ''),
            Field('topics', '[]OffsetFetchResponseTopics', (8, 32767), None, None, None, 'inherit', ()),
            Field('error_code', 'int16', (8, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, group_id: str = '', topics: list[OffsetFetchResponse.OffsetFetchResponseTopics] = _UNSET, error_code: int = 0) -> None:
            self.group_id = group_id
            self.topics = [] if topics is _UNSET else topics
            self.error_code = error_code

    class OffsetFetchResponsePartition(Struct):
        __slots__ = ('partition_index', 'committed_offset', 'committed_leader_epoch', 'metadata', 'error_code')
        FIELDS = (
            Field('partition_index', 'int32', (0, 7), None, None, None, 'inherit', 0),
            Field('committed_offset', 'int64', (0, 7), None, None, None, 'inherit', 0),
            Field('committed_leader_epoch', 'int32', (5, 7), None, None, None, 'inherit', -1),
            Field('metadata', 'string', (0, 7), (0, 7), None, None, 'inherit', ''),
            Field('error_code', 'int16', (0, 7), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, partition_index: int = 0, committed_offset: int = 0, committed_leader_epoch: int = -1, metadata: str | None = '', error_code: int = 0) -> None:
            self.partition_index = partition_index
            self.committed_offset = committed_offset
            self.committed_leader_epoch = committed_leader_epoch
            self.metadata = metadata
            self.error_code = error_code

    class OffsetFetchResponsePartitions(Struct):
        __slots__ = ('partition_index', 'committed_offset', 'committed_leader_epoch', 'metadata', 'error_code')
        FIELDS = (
            Field('partition_index', 'int32', (8, 32767), None, None, None, 'inherit', 0),
            Field('committed_offset', 'int64', (8, 32767), None, None, None, 'inherit', 0),
            Field('committed_leader_epoch', 'int32', (8, 32767), None, None, None, 'inherit', -1),
            Field('metadata', 'string', (8, 32767), (8, 32767), None, None, 'inherit', ''),
            Field('error_code', 'int16', (8, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, partition_index: int = 0, committed_offset: int = 0, committed_leader_epoch: int = -1, metadata: str | None = '', error_code: int = 0) -> None:
            self.partition_index = partition_index
            self.committed_offset = committed_offset
            self.committed_leader_epoch = committed_leader_epoch
            self.metadata = metadata
            self.error_code = error_code

    class OffsetFetchResponseTopic(Struct):
        __slots__ = ('name', 'partitions')
        FIELDS = (
            Field('name', 'string', (0, 7), None, None, None, 'inherit', ''),
            Field('partitions', '[]OffsetFetchResponsePartition', (0, 7), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, name: str = '', partitions: list[OffsetFetchResponse.OffsetFetchResponsePartition] = _UNSET) -> None:
            self.name = name
            self.partitions = [] if partitions is _UNSET else partitions

    class OffsetFetchResponseTopics(Struct):
        __slots__ = ('name', 'topic_id', 'partitions')
        FIELDS = (
            Field('name', 'string', (8, 9), None, None, None, 'inherit', ''),
            Field('topic_id', 'uuid', (10, 32767), None, None, None, 'inherit', ZERO_UUID),
            Field('partitions', '[]OffsetFetchResponsePartitions', (8, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, name: str = '', topic_id: bytes = ZERO_UUID, partitions: list[OffsetFetchResponse.OffsetFetchResponsePartitions] = _UNSET) -> None:
            self.name = name
            self.topic_id = topic_id
            self.partitions = [] if partitions is _UNSET else partitions

    def __init__(self, *, throttle_time_ms: int = 0, topics: list[OffsetFetchResponse.OffsetFetchResponseTopic] = _UNSET, error_code: int = 0, groups: list[OffsetFetchResponse.OffsetFetchResponseGroup] = _UNSET) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.topics = [] if topics is _UNSET else topics
        self.error_code = error_code
        self.groups = [] if groups is _UNSET else groups


class OffsetForLeaderEpochRequest(Message):
    __slots__ = ('replica_id', 'topics')
    NAME = 'OffsetForLeaderEpochRequest'
    KIND = 'request'
    API_KEY = 23
    VALID_VERSIONS = (0, 4)
    FLEXIBLE_VERSIONS = (4, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('replica_id', 'int32', (3, 32767), None, None, None, 'inherit', -2),
        Field('topics', '[]OffsetForLeaderTopic', (0, 32767), None, None, None, 'inherit', ()),
    )

    class OffsetForLeaderPartition(Struct):
        __slots__ = ('partition', 'current_leader_epoch', 'leader_epoch')
        FIELDS = (
            Field('partition', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('current_leader_epoch', 'int32', (2, 32767), None, None, None, 'inherit', -1),
            Field('leader_epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, partition: int = 0, current_leader_epoch: int = -1, leader_epoch: int = 0) -> None:
            self.partition = partition
            self.current_leader_epoch = current_leader_epoch
            self.leader_epoch = leader_epoch

    class OffsetForLeaderTopic(Struct):
        __slots__ = ('topic', 'partitions')
        FIELDS = (
            Field('topic', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('partitions', '[]OffsetForLeaderPartition', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, topic: str = '', partitions: list[OffsetForLeaderEpochRequest.OffsetForLeaderPartition] = _UNSET) -> None:
            self.topic = topic
            self.partitions = [] if partitions is _UNSET else partitions

    def __init__(self, *, replica_id: int = -2, topics: list[OffsetForLeaderEpochRequest.OffsetForLeaderTopic] = _UNSET) -> None:
        self.replica_id = replica_id
        self.topics = [] if topics is _UNSET else topics


class OffsetForLeaderEpochResponse(Message):
    __slots__ = ('throttle_time_ms', 'topics')
    NAME = 'OffsetForLeaderEpochResponse'
    KIND = 'response'
    API_KEY = 23
    VALID_VERSIONS = (0, 4)
    FLEXIBLE_VERSIONS = (4, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('throttle_time_ms', 'int32', (2, 32767), None, None, None, 'inherit', 0),
        Field('topics', '[]OffsetForLeaderTopicResult', (0, 32767), None, None, None, 'inherit', ()),
    )

    class EpochEndOffset(Struct):
        __slots__ = ('error_code', 'partition', 'leader_epoch', 'end_offset')
        FIELDS = (
            Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
            Field('partition', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('leader_epoch', 'int32', (1, 32767), None, None, None, 'inherit', -1),
            Field('end_offset', 'int64', (0, 32767), None, None, None, 'inherit', -1),
        )

        def __init__(self, *, error_code: int = 0, partition: int = 0, leader_epoch: int = -1, end_offset: int = -1) -> None:
            self.error_code = error_code
            self.partition = partition
            self.leader_epoch = leader_epoch
            self.end_offset = end_offset

    class OffsetForLeaderTopicResult(Struct):
        __slots__ = ('topic', 'partitions')
        FIELDS = (
            Field('topic', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('partitions', '[]EpochEndOffset', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, topic: str = '', partitions: list[OffsetForLeaderEpochResponse.EpochEndOffset] = _UNSET) -> None:
            self.topic = topic
            self.partitions = [] if partitions is _UNSET else partitions

    def __init__(self, *, throttle_time_ms: int = 0, topics: list[OffsetForLeaderEpochResponse.OffsetForLeaderTopicResult] = _UNSET) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.topics = [] if topics is _UNSET else topics


class PartitionChangeRecord(Message):
    __slots__ = ('partition_id', 'topic_id', 'isr', 'leader', 'replicas', 'removing_replicas', 'adding_replicas', 'leader_recovery_state', 'directories', 'eligible_leader_replicas', 'last_known_elr')
    NAME = 'PartitionChangeRecord'
    KIND = 'metadata'
    API_KEY = 5
    VALID_VERSIONS = (0, 2)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('partition_id', 'int32', (0, 32767), None, None, None, 'inherit', -1),
        Field('topic_id', 'uuid', (0, 32767), None, None, None, 'inherit', ZERO_UUID),
        Field('isr', '[]int32', (0, 32767), (0, 32767), 0, (0, 32767), 'inherit', None),
        Field('leader', 'int32', (0, 32767), None, 1, (0, 32767), 'inherit', -2),
        Field('replicas', '[]int32', (0, 32767), (0, 32767), 2, (0, 32767), 'inherit', None),
        Field('removing_replicas', '[]int32', (0, 32767), (0, 32767), 3, (0, 32767), 'inherit', None),
        Field('adding_replicas', '[]int32', (0, 32767), (0, 32767), 4, (0, 32767), 'inherit', None),
        Field('leader_recovery_state', 'int8', (0, 32767), None, 5, (0, 32767), 'inherit', -1),
        Field('directories', '[]uuid', (1, 32767), (1, 32767), 8, (1, 32767), 'inherit', None),
        Field('eligible_leader_replicas', '[]int32', (2, 32767), (2, 32767), 6, (2, 32767), 'inherit', None),
        Field('last_known_elr', '[]int32', (2, 32767), (2, 32767), 7, (2, 32767), 'inherit', None),
    )

    def __init__(self, *, partition_id: int = -1, topic_id: bytes = ZERO_UUID, isr: list[int] | None = None, leader: int = -2, replicas: list[int] | None = None, removing_replicas: list[int] | None = None, adding_replicas: list[int] | None = None, leader_recovery_state: int = -1, directories: list[bytes] | None = None, eligible_leader_replicas: list[int] | None = None, last_known_elr: list[int] | None = None) -> None:
        self.partition_id = partition_id
        self.topic_id = topic_id
        self.isr = isr
        self.leader = leader
        self.replicas = replicas
        self.removing_replicas = removing_replicas
        self.adding_replicas = adding_replicas
        self.leader_recovery_state = leader_recovery_state
        self.directories = directories
        self.eligible_leader_replicas = eligible_leader_replicas
        self.last_known_elr = last_known_elr


class PartitionRecord(Message):
    __slots__ = ('partition_id', 'topic_id', 'replicas', 'isr', 'removing_replicas', 'adding_replicas', 'leader', 'leader_recovery_state', 'leader_epoch', 'partition_epoch', 'directories', 'eligible_leader_replicas', 'last_known_elr')
    NAME = 'PartitionRecord'
    KIND = 'metadata'
    API_KEY = 3
    VALID_VERSIONS = (0, 2)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('partition_id', 'int32', (0, 32767), None, None, None, 'inherit', -1),
        Field('topic_id', 'uuid', (0, 32767), None, None, None, 'inherit', ZERO_UUID),
        Field('replicas', '[]int32', (0, 32767), None, None, None, 'inherit', ()),
        Field('isr', '[]int32', (0, 32767), None, None, None, 'inherit', ()),
        Field('removing_replicas', '[]int32', (0, 32767), None, None, None, 'inherit', ()),
        Field('adding_replicas', '[]int32', (0, 32767), None, None, None, 'inherit', ()),
        Field('leader', 'int32', (0, 32767), None, None, None, 'inherit', -1),
        Field('leader_recovery_state', 'int8', (0, 32767), None, 0, (0, 32767), 'inherit', 0),
        Field('leader_epoch', 'int32', (0, 32767), None, None, None, 'inherit', -1),
        Field('partition_epoch', 'int32', (0, 32767), None, None, None, 'inherit', -1),
        Field('directories', '[]uuid', (1, 32767), None, None, None, 'inherit', ()),
        Field('eligible_leader_replicas', '[]int32', (2, 32767), (2, 32767), 1, (2, 32767), 'inherit', None),
        Field('last_known_elr', '[]int32', (2, 32767), (2, 32767), 2, (2, 32767), 'inherit', None),
    )

    def __init__(self, *, partition_id: int = -1, topic_id: bytes = ZERO_UUID, replicas: list[int] = _UNSET, isr: list[int] = _UNSET, removing_replicas: list[int] = _UNSET, adding_replicas: list[int] = _UNSET, leader: int = -1, leader_recovery_state: int = 0, leader_epoch: int = -1, partition_epoch: int = -1, directories: list[bytes] = _UNSET, eligible_leader_replicas: list[int] | None = None, last_known_elr: list[int] | None = None) -> None:
        self.partition_id = partition_id
        self.topic_id = topic_id
        self.replicas = [] if replicas is _UNSET else replicas
        self.isr = [] if isr is _UNSET else isr
        self.removing_replicas = [] if removing_replicas is _UNSET else removing_replicas
        self.adding_replicas = [] if adding_replicas is _UNSET else adding_replicas
        self.leader = leader
        self.leader_recovery_state = leader_recovery_state
        self.leader_epoch = leader_epoch
        self.partition_epoch = partition_epoch
        self.directories = [] if directories is _UNSET else directories
        self.eligible_leader_replicas = eligible_leader_replicas
        self.last_known_elr = last_known_elr


class ProduceRequest(Message):
    __slots__ = ('transactional_id', 'acks', 'timeout_ms', 'topic_data')
    NAME = 'ProduceRequest'
    KIND = 'request'
    API_KEY = 0
    VALID_VERSIONS = (0, 13)
    FLEXIBLE_VERSIONS = (9, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('transactional_id', 'string', (3, 32767), (3, 32767), None, None, 'inherit', None),
        Field('acks', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        Field('timeout_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('topic_data', '[]TopicProduceData', (0, 32767), None, None, None, 'inherit', ()),
    )

    class PartitionProduceData(Struct):
        __slots__ = ('index', 'records')
        FIELDS = (
            Field('index', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('records', 'records', (0, 32767), (0, 32767), None, None, 'inherit', None),
        )

        def __init__(self, *, index: int = 0, records: Any = None) -> None:
            self.index = index
            self.records = records

    class TopicProduceData(Struct):
        __slots__ = ('name', 'topic_id', 'partition_data')
        FIELDS = (
            Field('name', 'string', (0, 12), None, None, None, 'inherit', ''),
            Field('topic_id', 'uuid', (13, 32767), None, None, None, 'inherit', ZERO_UUID),
            Field('partition_data', '[]PartitionProduceData', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, name: str = '', topic_id: bytes = ZERO_UUID, partition_data: list[ProduceRequest.PartitionProduceData] = _UNSET) -> None:
            self.name = name
            self.topic_id = topic_id
            self.partition_data = [] if partition_data is _UNSET else partition_data

    def __init__(self, *, transactional_id: str | None = None, acks: int = 0, timeout_ms: int = 0, topic_data: list[ProduceRequest.TopicProduceData] = _UNSET) -> None:
        self.transactional_id = transactional_id
        self.acks = acks
        self.timeout_ms = timeout_ms
        self.topic_data = [] if topic_data is _UNSET else topic_data


class ProduceResponse(Message):
    __slots__ = ('responses', 'throttle_time_ms', 'node_endpoints')
    NAME = 'ProduceResponse'
    KIND = 'response'
    API_KEY = 0
    VALID_VERSIONS = (0, 13)
    FLEXIBLE_VERSIONS = (9, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('responses', '[]TopicProduceResponse', (0, 32767), None, None, None, 'inherit', ()),
        Field('throttle_time_ms', 'int32', (1, 32767), None, None, None, 'inherit', 0),
        Field('node_endpoints', '[]NodeEndpoint', (10, 32767), None, 0, (10, 32767), 'inherit', ()),
    )

    class BatchIndexAndErrorMessage(Struct):
        __slots__ = ('batch_index', 'batch_index_error_message')
        FIELDS = (
            Field('batch_index', 'int32', (8, 32767), None, None, None, 'inherit', 0),
            Field('batch_index_error_message', 'string', (8, 32767), (8, 32767), None, None, 'inherit', None),
        )

        def __init__(self, *, batch_index: int = 0, batch_index_error_message: str | None = None) -> None:
            self.batch_index = batch_index
            self.batch_index_error_message = batch_index_error_message

    class LeaderIdAndEpoch(Struct):
        __slots__ = ('leader_id', 'leader_epoch')
        FIELDS = (
            Field('leader_id', 'int32', (10, 32767), None, None, None, 'inherit', -1),
            Field('leader_epoch', 'int32', (10, 32767), None, None, None, 'inherit', -1),
        )

        def __init__(self, *, leader_id: int = -1, leader_epoch: int = -1) -> None:
            self.leader_id = leader_id
            self.leader_epoch = leader_epoch

    class NodeEndpoint(Struct):
        __slots__ = ('node_id', 'host', 'port', 'rack')
        FIELDS = (
            Field('node_id', 'int32', (10, 32767), None, None, None, 'inherit', 0),
            Field('host', 'string', (10, 32767), None, None, None, 'inherit', ''),
            Field('port', 'int32', (10, 32767), None, None, None, 'inherit', 0),
            Field('rack', 'string', (10, 32767), (10, 32767), None, None, 'inherit', None),
        )

        def __init__(self, *, node_id: int = 0, host: str = '', port: int = 0, rack: str | None = None) -> None:
            self.node_id = node_id
            self.host = host
            self.port = port
            self.rack = rack

    class PartitionProduceResponse(Struct):
        __slots__ = ('index', 'error_code', 'base_offset', 'log_append_time_ms', 'log_start_offset', 'record_errors', 'error_message', 'current_leader')
        FIELDS = (
            Field('index', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
            Field('base_offset', 'int64', (0, 32767), None, None, None, 'inherit', 0),
            Field('log_append_time_ms', 'int64', (2, 32767), None, None, None, 'inherit', -1),
            Field('log_start_offset', 'int64', (5, 32767), None, None, None, 'inherit', -1),
            Field('record_errors', '[]BatchIndexAndErrorMessage', (8, 32767), None, None, None, 'inherit', ()),
            Field('error_message', 'string', (8, 32767), (8, 32767), None, None, 'inherit', None),
            Field('current_leader', 'LeaderIdAndEpoch', (10, 32767), None, 0, (10, 32767), 'inherit', 'LeaderIdAndEpoch'),
        )

        def __init__(self, *, index: int = 0, error_code: int = 0, base_offset: int = 0, log_append_time_ms: int = -1, log_start_offset: int = -1, record_errors: list[ProduceResponse.BatchIndexAndErrorMessage] = _UNSET, error_message: str | None = None, current_leader: ProduceResponse.LeaderIdAndEpoch = _UNSET) -> None:
            self.index = index
            self.error_code = error_code
            self.base_offset = base_offset
            self.log_append_time_ms = log_append_time_ms
            self.log_start_offset = log_start_offset
            self.record_errors = [] if record_errors is _UNSET else record_errors
            self.error_message = error_message
            self.current_leader = ProduceResponse.LeaderIdAndEpoch() if current_leader is _UNSET else current_leader

    class TopicProduceResponse(Struct):
        __slots__ = ('name', 'topic_id', 'partition_responses')
        FIELDS = (
            Field('name', 'string', (0, 12), None, None, None, 'inherit', ''),
            Field('topic_id', 'uuid', (13, 32767), None, None, None, 'inherit', ZERO_UUID),
            Field('partition_responses', '[]PartitionProduceResponse', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, name: str = '', topic_id: bytes = ZERO_UUID, partition_responses: list[ProduceResponse.PartitionProduceResponse] = _UNSET) -> None:
            self.name = name
            self.topic_id = topic_id
            self.partition_responses = [] if partition_responses is _UNSET else partition_responses

    def __init__(self, *, responses: list[ProduceResponse.TopicProduceResponse] = _UNSET, throttle_time_ms: int = 0, node_endpoints: list[ProduceResponse.NodeEndpoint] = _UNSET) -> None:
        self.responses = [] if responses is _UNSET else responses
        self.throttle_time_ms = throttle_time_ms
        self.node_endpoints = [] if node_endpoints is _UNSET else node_endpoints


class ProducerIdsRecord(Message):
    __slots__ = ('broker_id', 'broker_epoch', 'next_producer_id')
    NAME = 'ProducerIdsRecord'
    KIND = 'metadata'
    API_KEY = 15
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('broker_id', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('broker_epoch', 'int64', (0, 32767), None, None, None, 'inherit', -1),
        Field('next_producer_id', 'int64', (0, 32767), None, None, None, 'inherit', 0),
    )

    def __init__(self, *, broker_id: int = 0, broker_epoch: int = -1, next_producer_id: int = 0) -> None:
        self.broker_id = broker_id
        self.broker_epoch = broker_epoch
        self.next_producer_id = next_producer_id


class PushTelemetryRequest(Message):
    __slots__ = ('client_instance_id', 'subscription_id', 'terminating', 'compression_type', 'metrics')
    NAME = 'PushTelemetryRequest'
    KIND = 'request'
    API_KEY = 72
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('client_instance_id', 'uuid', (0, 32767), None, None, None, 'inherit', ZERO_UUID),
        Field('subscription_id', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('terminating', 'bool', (0, 32767), None, None, None, 'inherit', False),
        Field('compression_type', 'int8', (0, 32767), None, None, None, 'inherit', 0),
        Field('metrics', 'bytes', (0, 32767), None, None, None, 'inherit', b''),
    )

    def __init__(self, *, client_instance_id: bytes = ZERO_UUID, subscription_id: int = 0, terminating: bool = False, compression_type: int = 0, metrics: bytes = b'') -> None:
        self.client_instance_id = client_instance_id
        self.subscription_id = subscription_id
        self.terminating = terminating
        self.compression_type = compression_type
        self.metrics = metrics


class PushTelemetryResponse(Message):
    __slots__ = ('throttle_time_ms', 'error_code')
    NAME = 'PushTelemetryResponse'
    KIND = 'response'
    API_KEY = 72
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('throttle_time_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
    )

    def __init__(self, *, throttle_time_ms: int = 0, error_code: int = 0) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code


class ReadShareGroupStateRequest(Message):
    __slots__ = ('group_id', 'topics')
    NAME = 'ReadShareGroupStateRequest'
    KIND = 'request'
    API_KEY = 84
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('group_id', 'string', (0, 32767), None, None, None, 'inherit', ''),
        Field('topics', '[]ReadStateData', (0, 32767), None, None, None, 'inherit', ()),
    )

    class PartitionData(Struct):
        __slots__ = ('partition', 'leader_epoch')
        FIELDS = (
            Field('partition', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('leader_epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, partition: int = 0, leader_epoch: int = 0) -> None:
            self.partition = partition
            self.leader_epoch = leader_epoch

    class ReadStateData(Struct):
        __slots__ = ('topic_id', 'partitions')
        FIELDS = (
            Field('topic_id', 'uuid', (0, 32767), None, None, None, 'inherit', ZERO_UUID),
            Field('partitions', '[]PartitionData', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, topic_id: bytes = ZERO_UUID, partitions: list[ReadShareGroupStateRequest.PartitionData] = _UNSET) -> None:
            self.topic_id = topic_id
            self.partitions = [] if partitions is _UNSET else partitions

    def __init__(self, *, group_id: str = '', topics: list[ReadShareGroupStateRequest.ReadStateData] = _UNSET) -> None:
        self.group_id = group_id
        self.topics = [] if topics is _UNSET else topics


class ReadShareGroupStateResponse(Message):
    __slots__ = ('results',)
    NAME = 'ReadShareGroupStateResponse'
    KIND = 'response'
    API_KEY = 84
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('results', '[]ReadStateResult', (0, 32767), None, None, None, 'inherit', ()),
    )

    class PartitionResult(Struct):
        __slots__ = ('partition', 'error_code', 'error_message', 'state_epoch', 'start_offset', 'state_batches')
        FIELDS = (
            Field('partition', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
            Field('error_message', 'string', (0, 32767), (0, 32767), None, None, 'inherit', None),
            Field('state_epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('start_offset', 'int64', (0, 32767), None, None, None, 'inherit', 0),
            Field('state_batches', '[]StateBatch', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, partition: int = 0, error_code: int = 0, error_message: str | None = None, state_epoch: int = 0, start_offset: int = 0, state_batches: list[ReadShareGroupStateResponse.StateBatch] = _UNSET) -> None:
            self.partition = partition
            self.error_code = error_code
            self.error_message = error_message
            self.state_epoch = state_epoch
            self.start_offset = start_offset
            self.state_batches = [] if state_batches is _UNSET else state_batches

    class ReadStateResult(Struct):
        __slots__ = ('topic_id', 'partitions')
        FIELDS = (
            Field('topic_id', 'uuid', (0, 32767), None, None, None, 'inherit', ZERO_UUID),
            Field('partitions', '[]PartitionResult', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, topic_id: bytes = ZERO_UUID, partitions: list[ReadShareGroupStateResponse.PartitionResult] = _UNSET) -> None:
            self.topic_id = topic_id
            self.partitions = [] if partitions is _UNSET else partitions

    class StateBatch(Struct):
        __slots__ = ('first_offset', 'last_offset', 'delivery_state', 'delivery_count')
        FIELDS = (
            Field('first_offset', 'int64', (0, 32767), None, None, None, 'inherit', 0),
            Field('last_offset', 'int64', (0, 32767), None, None, None, 'inherit', 0),
            Field('delivery_state', 'int8', (0, 32767), None, None, None, 'inherit', 0),
            Field('delivery_count', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, first_offset: int = 0, last_offset: int = 0, delivery_state: int = 0, delivery_count: int = 0) -> None:
            self.first_offset = first_offset
            self.last_offset = last_offset
            self.delivery_state = delivery_state
            self.delivery_count = delivery_count

    def __init__(self, *, results: list[ReadShareGroupStateResponse.ReadStateResult] = _UNSET) -> None:
        self.results = [] if results is _UNSET else results


class ReadShareGroupStateSummaryRequest(Message):
    __slots__ = ('group_id', 'topics')
    NAME = 'ReadShareGroupStateSummaryRequest'
    KIND = 'request'
    API_KEY = 87
    VALID_VERSIONS = (0, 1)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('group_id', 'string', (0, 32767), None, None, None, 'inherit', ''),
        Field('topics', '[]ReadStateSummaryData', (0, 32767), None, None, None, 'inherit', ()),
    )

    class PartitionData(Struct):
        __slots__ = ('partition', 'leader_epoch')
        FIELDS = (
            Field('partition', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('leader_epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, partition: int = 0, leader_epoch: int = 0) -> None:
            self.partition = partition
            self.leader_epoch = leader_epoch

    class ReadStateSummaryData(Struct):
        __slots__ = ('topic_id', 'partitions')
        FIELDS = (
            Field('topic_id', 'uuid', (0, 32767), None, None, None, 'inherit', ZERO_UUID),
            Field('partitions', '[]PartitionData', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, topic_id: bytes = ZERO_UUID, partitions: list[ReadShareGroupStateSummaryRequest.PartitionData] = _UNSET) -> None:
            self.topic_id = topic_id
            self.partitions = [] if partitions is _UNSET else partitions

    def __init__(self, *, group_id: str = '', topics: list[ReadShareGroupStateSummaryRequest.ReadStateSummaryData] = _UNSET) -> None:
        self.group_id = group_id
        self.topics = [] if topics is _UNSET else topics


class ReadShareGroupStateSummaryResponse(Message):
    __slots__ = ('results',)
    NAME = 'ReadShareGroupStateSummaryResponse'
    KIND = 'response'
    API_KEY = 87
    VALID_VERSIONS = (0, 1)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('results', '[]ReadStateSummaryResult', (0, 32767), None, None, None, 'inherit', ()),
    )

    class PartitionResult(Struct):
        __slots__ = ('partition', 'error_code', 'error_message', 'state_epoch', 'leader_epoch', 'start_offset', 'delivery_complete_count')
        FIELDS = (
            Field('partition', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
            Field('error_message', 'string', (0, 32767), (0, 32767), None, None, 'inherit', None),
            Field('state_epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('leader_epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('start_offset', 'int64', (0, 32767), None, None, None, 'inherit', 0),
            Field('delivery_complete_count', 'int32', (1, 32767), None, None, None, 'inherit', -1),
        )

        def __init__(self, *, partition: int = 0, error_code: int = 0, error_message: str | None = None, state_epoch: int = 0, leader_epoch: int = 0, start_offset: int = 0, delivery_complete_count: int = -1) -> None:
            self.partition = partition
            self.error_code = error_code
            self.error_message = error_message
            self.state_epoch = state_epoch
            self.leader_epoch = leader_epoch
            self.start_offset = start_offset
            self.delivery_complete_count = delivery_complete_count

    class ReadStateSummaryResult(Struct):
        __slots__ = ('topic_id', 'partitions')
        FIELDS = (
            Field('topic_id', 'uuid', (0, 32767), None, None, None, 'inherit', ZERO_UUID),
            Field('partitions', '[]PartitionResult', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, topic_id: bytes = ZERO_UUID, partitions: list[ReadShareGroupStateSummaryResponse.PartitionResult] = _UNSET) -> None:
            self.topic_id = topic_id
            self.partitions = [] if partitions is _UNSET else partitions

    def __init__(self, *, results: list[ReadShareGroupStateSummaryResponse.ReadStateSummaryResult] = _UNSET) -> None:
        self.results = [] if results is _UNSET else results


class RegisterBrokerRecord(Message):
    __slots__ = ('broker_id', 'is_migrating_zk_broker', 'incarnation_id', 'broker_epoch', 'end_points', 'features', 'rack', 'fenced', 'in_controlled_shutdown', 'log_dirs', 'cordoned_log_dirs')
    NAME = 'RegisterBrokerRecord'
    KIND = 'metadata'
    API_KEY = 0
    VALID_VERSIONS = (0, 4)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('broker_id', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('is_migrating_zk_broker', 'bool', (2, 32767), None, None, None, 'inherit', False),
        Field('incarnation_id', 'uuid', (0, 32767), None, None, None, 'inherit', ZERO_UUID),
        Field('broker_epoch', 'int64', (0, 32767), None, None, None, 'inherit', 0),
        Field('end_points', '[]BrokerEndpoint', (0, 32767), None, None, None, 'inherit', ()),
        Field('features', '[]BrokerFeature', (0, 32767), None, None, None, 'inherit', ()),
        Field('rack', 'string', (0, 32767), (0, 32767), None, None, 'inherit', ''),
        Field('fenced', 'bool', (0, 32767), None, None, None, 'inherit', True),
        Field('in_controlled_shutdown', 'bool', (1, 32767), None, None, None, 'inherit', False),
        Field('log_dirs', '[]uuid', (3, 32767), None, 0, (3, 32767), 'inherit', ()),
        Field('cordoned_log_dirs', '[]uuid', (4, 32767), (4, 32767), 1, (4, 32767), 'inherit', None),
    )

    class BrokerEndpoint(Struct):
        __slots__ = ('name', 'host', 'port', 'security_protocol')
        FIELDS = (
            Field('name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('host', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('port', 'uint16', (0, 32767), None, None, None, 'inherit', 0),
            Field('security_protocol', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, name: str = '', host: str = '', port: int = 0, security_protocol: int = 0) -> None:
            self.name = name
            self.host = host
            self.port = port
            self.security_protocol = security_protocol

    class BrokerFeature(Struct):
        __slots__ = ('name', 'min_supported_version', 'max_supported_version')
        FIELDS = (
            Field('name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('min_supported_version', 'int16', (0, 32767), None, None, None, 'inherit', 0),
            Field('max_supported_version', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, name: str = '', min_supported_version: int = 0, max_supported_version: int = 0) -> None:
            self.name = name
            self.min_supported_version = min_supported_version
            self.max_supported_version = max_supported_version

    def __init__(self, *, broker_id: int = 0, is_migrating_zk_broker: bool = False, incarnation_id: bytes = ZERO_UUID, broker_epoch: int = 0, end_points: list[RegisterBrokerRecord.BrokerEndpoint] = _UNSET, features: list[RegisterBrokerRecord.BrokerFeature] = _UNSET, rack: str | None = '', fenced: bool = True, in_controlled_shutdown: bool = False, log_dirs: list[bytes] = _UNSET, cordoned_log_dirs: list[bytes] | None = None) -> None:
        self.broker_id = broker_id
        self.is_migrating_zk_broker = is_migrating_zk_broker
        self.incarnation_id = incarnation_id
        self.broker_epoch = broker_epoch
        self.end_points = [] if end_points is _UNSET else end_points
        self.features = [] if features is _UNSET else features
        self.rack = rack
        self.fenced = fenced
        self.in_controlled_shutdown = in_controlled_shutdown
        self.log_dirs = [] if log_dirs is _UNSET else log_dirs
        self.cordoned_log_dirs = cordoned_log_dirs


class RegisterControllerRecord(Message):
    __slots__ = ('controller_id', 'incarnation_id', 'zk_migration_ready', 'end_points', 'features')
    NAME = 'RegisterControllerRecord'
    KIND = 'metadata'
    API_KEY = 27
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('controller_id', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('incarnation_id', 'uuid', (0, 32767), None, None, None, 'inherit', ZERO_UUID),
        Field('zk_migration_ready', 'bool', (0, 32767), None, None, None, 'inherit', False),
        Field('end_points', '[]ControllerEndpoint', (0, 32767), None, None, None, 'inherit', ()),
        Field('features', '[]ControllerFeature', (0, 32767), None, None, None, 'inherit', ()),
    )

    class ControllerEndpoint(Struct):
        __slots__ = ('name', 'host', 'port', 'security_protocol')
        FIELDS = (
            Field('name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('host', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('port', 'uint16', (0, 32767), None, None, None, 'inherit', 0),
            Field('security_protocol', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, name: str = '', host: str = '', port: int = 0, security_protocol: int = 0) -> None:
            self.name = name
            self.host = host
            self.port = port
            self.security_protocol = security_protocol

    class ControllerFeature(Struct):
        __slots__ = ('name', 'min_supported_version', 'max_supported_version')
        FIELDS = (
            Field('name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('min_supported_version', 'int16', (0, 32767), None, None, None, 'inherit', 0),
            Field('max_supported_version', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, name: str = '', min_supported_version: int = 0, max_supported_version: int = 0) -> None:
            self.name = name
            self.min_supported_version = min_supported_version
            self.max_supported_version = max_supported_version

    def __init__(self, *, controller_id: int = 0, incarnation_id: bytes = ZERO_UUID, zk_migration_ready: bool = False, end_points: list[RegisterControllerRecord.ControllerEndpoint] = _UNSET, features: list[RegisterControllerRecord.ControllerFeature] = _UNSET) -> None:
        self.controller_id = controller_id
        self.incarnation_id = incarnation_id
        self.zk_migration_ready = zk_migration_ready
        self.end_points = [] if end_points is _UNSET else end_points
        self.features = [] if features is _UNSET else features


class RemoveAccessControlEntryRecord(Message):
    __slots__ = ('id',)
    NAME = 'RemoveAccessControlEntryRecord'
    KIND = 'metadata'
    API_KEY = 19
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('id', 'uuid', (0, 32767), None, None, None, 'inherit', ZERO_UUID),
    )

    def __init__(self, *, id: bytes = ZERO_UUID) -> None:
        self.id = id


class RemoveDelegationTokenRecord(Message):
    __slots__ = ('token_id',)
    NAME = 'RemoveDelegationTokenRecord'
    KIND = 'metadata'
    API_KEY = 26
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('token_id', 'string', (0, 32767), None, None, None, 'inherit', ''),
    )

    def __init__(self, *, token_id: str = '') -> None:
        self.token_id = token_id


class RemoveRaftVoterRequest(Message):
    __slots__ = ('cluster_id', 'voter_id', 'voter_directory_id')
    NAME = 'RemoveRaftVoterRequest'
    KIND = 'request'
    API_KEY = 81
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('cluster_id', 'string', (0, 32767), (0, 32767), None, None, 'inherit', ''),
        Field('voter_id', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('voter_directory_id', 'uuid', (0, 32767), None, None, None, 'inherit', ZERO_UUID),
    )

    def __init__(self, *, cluster_id: str | None = '', voter_id: int = 0, voter_directory_id: bytes = ZERO_UUID) -> None:
        self.cluster_id = cluster_id
        self.voter_id = voter_id
        self.voter_directory_id = voter_directory_id


class RemoveRaftVoterResponse(Message):
    __slots__ = ('throttle_time_ms', 'error_code', 'error_message')
    NAME = 'RemoveRaftVoterResponse'
    KIND = 'response'
    API_KEY = 81
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('throttle_time_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        Field('error_message', 'string', (0, 32767), (0, 32767), None, None, 'inherit', ''),
    )

    def __init__(self, *, throttle_time_ms: int = 0, error_code: int = 0, error_message: str | None = '') -> None:
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.error_message = error_message


class RemoveTopicRecord(Message):
    __slots__ = ('topic_id',)
    NAME = 'RemoveTopicRecord'
    KIND = 'metadata'
    API_KEY = 9
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('topic_id', 'uuid', (0, 32767), None, None, None, 'inherit', ZERO_UUID),
    )

    def __init__(self, *, topic_id: bytes = ZERO_UUID) -> None:
        self.topic_id = topic_id


class RemoveUserScramCredentialRecord(Message):
    __slots__ = ('name', 'mechanism')
    NAME = 'RemoveUserScramCredentialRecord'
    KIND = 'metadata'
    API_KEY = 22
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('name', 'string', (0, 32767), None, None, None, 'inherit', ''),
        Field('mechanism', 'int8', (0, 32767), None, None, None, 'inherit', 0),
    )

    def __init__(self, *, name: str = '', mechanism: int = 0) -> None:
        self.name = name
        self.mechanism = mechanism


class RenewDelegationTokenRequest(Message):
    __slots__ = ('hmac', 'renew_period_ms')
    NAME = 'RenewDelegationTokenRequest'
    KIND = 'request'
    API_KEY = 39
    VALID_VERSIONS = (0, 2)
    FLEXIBLE_VERSIONS = (2, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('hmac', 'bytes', (0, 32767), None, None, None, 'inherit', b''),
        Field('renew_period_ms', 'int64', (0, 32767), None, None, None, 'inherit', 0),
    )

    def __init__(self, *, hmac: bytes = b'', renew_period_ms: int = 0) -> None:
        self.hmac = hmac
        self.renew_period_ms = renew_period_ms


class RenewDelegationTokenResponse(Message):
    __slots__ = ('error_code', 'expiry_timestamp_ms', 'throttle_time_ms')
    NAME = 'RenewDelegationTokenResponse'
    KIND = 'response'
    API_KEY = 39
    VALID_VERSIONS = (0, 2)
    FLEXIBLE_VERSIONS = (2, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        Field('expiry_timestamp_ms', 'int64', (0, 32767), None, None, None, 'inherit', 0),
        Field('throttle_time_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
    )

    def __init__(self, *, error_code: int = 0, expiry_timestamp_ms: int = 0, throttle_time_ms: int = 0) -> None:
        self.error_code = error_code
        self.expiry_timestamp_ms = expiry_timestamp_ms
        self.throttle_time_ms = throttle_time_ms


class RequestHeader(Message):
    __slots__ = ('request_api_key', 'request_api_version', 'correlation_id', 'client_id')
    NAME = 'RequestHeader'
    KIND = 'header'
    API_KEY = None
    VALID_VERSIONS = (0, 2)
    FLEXIBLE_VERSIONS = (2, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('request_api_key', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        Field('request_api_version', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        Field('correlation_id', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('client_id', 'string', (1, 32767), (1, 32767), None, None, None, ''),
    )

    def __init__(self, *, request_api_key: int = 0, request_api_version: int = 0, correlation_id: int = 0, client_id: str | None = '') -> None:
        self.request_api_key = request_api_key
        self.request_api_version = request_api_version
        self.correlation_id = correlation_id
        self.client_id = client_id


class ResponseHeader(Message):
    __slots__ = ('correlation_id',)
    NAME = 'ResponseHeader'
    KIND = 'header'
    API_KEY = None
    VALID_VERSIONS = (0, 1)
    FLEXIBLE_VERSIONS = (1, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('correlation_id', 'int32', (0, 32767), None, None, None, 'inherit', 0),
    )

    def __init__(self, *, correlation_id: int = 0) -> None:
        self.correlation_id = correlation_id


class SaslAuthenticateRequest(Message):
    __slots__ = ('auth_bytes',)
    NAME = 'SaslAuthenticateRequest'
    KIND = 'request'
    API_KEY = 36
    VALID_VERSIONS = (0, 2)
    FLEXIBLE_VERSIONS = (2, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('auth_bytes', 'bytes', (0, 32767), None, None, None, 'inherit', b''),
    )

    def __init__(self, *, auth_bytes: bytes = b'') -> None:
        self.auth_bytes = auth_bytes


class SaslAuthenticateResponse(Message):
    __slots__ = ('error_code', 'error_message', 'auth_bytes', 'session_lifetime_ms')
    NAME = 'SaslAuthenticateResponse'
    KIND = 'response'
    API_KEY = 36
    VALID_VERSIONS = (0, 2)
    FLEXIBLE_VERSIONS = (2, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        Field('error_message', 'string', (0, 32767), (0, 32767), None, None, 'inherit', ''),
        Field('auth_bytes', 'bytes', (0, 32767), None, None, None, 'inherit', b''),
        Field('session_lifetime_ms', 'int64', (1, 32767), None, None, None, 'inherit', 0),
    )

    def __init__(self, *, error_code: int = 0, error_message: str | None = '', auth_bytes: bytes = b'', session_lifetime_ms: int = 0) -> None:
        self.error_code = error_code
        self.error_message = error_message
        self.auth_bytes = auth_bytes
        self.session_lifetime_ms = session_lifetime_ms


class SaslHandshakeRequest(Message):
    __slots__ = ('mechanism',)
    NAME = 'SaslHandshakeRequest'
    KIND = 'request'
    API_KEY = 17
    VALID_VERSIONS = (0, 1)
    FLEXIBLE_VERSIONS = None
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('mechanism', 'string', (0, 32767), None, None, None, 'inherit', ''),
    )

    def __init__(self, *, mechanism: str = '') -> None:
        self.mechanism = mechanism


class SaslHandshakeResponse(Message):
    __slots__ = ('error_code', 'mechanisms')
    NAME = 'SaslHandshakeResponse'
    KIND = 'response'
    API_KEY = 17
    VALID_VERSIONS = (0, 1)
    FLEXIBLE_VERSIONS = None
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        Field('mechanisms', '[]string', (0, 32767), None, None, None, 'inherit', ()),
    )

    def __init__(self, *, error_code: int = 0, mechanisms: list[str] = _UNSET) -> None:
        self.error_code = error_code
        self.mechanisms = [] if mechanisms is _UNSET else mechanisms


class ShareAcknowledgeRequest(Message):
    __slots__ = ('group_id', 'member_id', 'share_session_epoch', 'is_renew_ack', 'topics')
    NAME = 'ShareAcknowledgeRequest'
    KIND = 'request'
    API_KEY = 79
    VALID_VERSIONS = (1, 2)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('group_id', 'string', (0, 32767), (0, 32767), None, None, 'inherit', None),
        Field('member_id', 'string', (0, 32767), (0, 32767), None, None, 'inherit', ''),
        Field('share_session_epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('is_renew_ack', 'bool', (2, 32767), None, None, None, 'inherit', False),
        Field('topics', '[]AcknowledgeTopic', (0, 32767), None, None, None, 'inherit', ()),
    )

    class AcknowledgePartition(Struct):
        __slots__ = ('partition_index', 'acknowledgement_batches')
        FIELDS = (
            Field('partition_index', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('acknowledgement_batches', '[]AcknowledgementBatch', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, partition_index: int = 0, acknowledgement_batches: list[ShareAcknowledgeRequest.AcknowledgementBatch] = _UNSET) -> None:
            self.partition_index = partition_index
            self.acknowledgement_batches = [] if acknowledgement_batches is _UNSET else acknowledgement_batches

    class AcknowledgeTopic(Struct):
        __slots__ = ('topic_id', 'partitions')
        FIELDS = (
            Field('topic_id', 'uuid', (0, 32767), None, None, None, 'inherit', ZERO_UUID),
            Field('partitions', '[]AcknowledgePartition', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, topic_id: bytes = ZERO_UUID, partitions: list[ShareAcknowledgeRequest.AcknowledgePartition] = _UNSET) -> None:
            self.topic_id = topic_id
            self.partitions = [] if partitions is _UNSET else partitions

    class AcknowledgementBatch(Struct):
        __slots__ = ('first_offset', 'last_offset', 'acknowledge_types')
        FIELDS = (
            Field('first_offset', 'int64', (0, 32767), None, None, None, 'inherit', 0),
            Field('last_offset', 'int64', (0, 32767), None, None, None, 'inherit', 0),
            Field('acknowledge_types', '[]int8', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, first_offset: int = 0, last_offset: int = 0, acknowledge_types: list[int] = _UNSET) -> None:
            self.first_offset = first_offset
            self.last_offset = last_offset
            self.acknowledge_types = [] if acknowledge_types is _UNSET else acknowledge_types

    def __init__(self, *, group_id: str | None = None, member_id: str | None = '', share_session_epoch: int = 0, is_renew_ack: bool = False, topics: list[ShareAcknowledgeRequest.AcknowledgeTopic] = _UNSET) -> None:
        self.group_id = group_id
        self.member_id = member_id
        self.share_session_epoch = share_session_epoch
        self.is_renew_ack = is_renew_ack
        self.topics = [] if topics is _UNSET else topics


class ShareAcknowledgeResponse(Message):
    __slots__ = ('throttle_time_ms', 'error_code', 'error_message', 'acquisition_lock_timeout_ms', 'responses', 'node_endpoints')
    NAME = 'ShareAcknowledgeResponse'
    KIND = 'response'
    API_KEY = 79
    VALID_VERSIONS = (1, 2)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('throttle_time_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        Field('error_message', 'string', (0, 32767), (0, 32767), None, None, 'inherit', None),
        Field('acquisition_lock_timeout_ms', 'int32', (2, 32767), None, None, None, 'inherit', 0),
        Field('responses', '[]ShareAcknowledgeTopicResponse', (0, 32767), None, None, None, 'inherit', ()),
        Field('node_endpoints', '[]NodeEndpoint', (0, 32767), None, None, None, 'inherit', ()),
    )

    class LeaderIdAndEpoch(Struct):
        __slots__ = ('leader_id', 'leader_epoch')
        FIELDS = (
            Field('leader_id', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('leader_epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, leader_id: int = 0, leader_epoch: int = 0) -> None:
            self.leader_id = leader_id
            self.leader_epoch = leader_epoch

    class NodeEndpoint(Struct):
        __slots__ = ('node_id', 'host', 'port', 'rack')
        FIELDS = (
            Field('node_id', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('host', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('port', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('rack', 'string', (0, 32767), (0, 32767), None, None, 'inherit', None),
        )

        def __init__(self, *, node_id: int = 0, host: str = '', port: int = 0, rack: str | None = None) -> None:
            self.node_id = node_id
            self.host = host
            self.port = port
            self.rack = rack

    class PartitionData(Struct):
        __slots__ = ('partition_index', 'error_code', 'error_message', 'current_leader')
        FIELDS = (
            Field('partition_index', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
            Field('error_message', 'string', (0, 32767), (0, 32767), None, None, 'inherit', None),
            Field('current_leader', 'LeaderIdAndEpoch', (0, 32767), None, None, None, 'inherit', 'LeaderIdAndEpoch'),
        )

        def __init__(self, *, partition_index: int = 0, error_code: int = 0, error_message: str | None = None, current_leader: ShareAcknowledgeResponse.LeaderIdAndEpoch = _UNSET) -> None:
            self.partition_index = partition_index
            self.error_code = error_code
            self.error_message = error_message
            self.current_leader = ShareAcknowledgeResponse.LeaderIdAndEpoch() if current_leader is _UNSET else current_leader

    class ShareAcknowledgeTopicResponse(Struct):
        __slots__ = ('topic_id', 'partitions')
        FIELDS = (
            Field('topic_id', 'uuid', (0, 32767), None, None, None, 'inherit', ZERO_UUID),
            Field('partitions', '[]PartitionData', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, topic_id: bytes = ZERO_UUID, partitions: list[ShareAcknowledgeResponse.PartitionData] = _UNSET) -> None:
            self.topic_id = topic_id
            self.partitions = [] if partitions is _UNSET else partitions

    def __init__(self, *, throttle_time_ms: int = 0, error_code: int = 0, error_message: str | None = None, acquisition_lock_timeout_ms: int = 0, responses: list[ShareAcknowledgeResponse.ShareAcknowledgeTopicResponse] = _UNSET, node_endpoints: list[ShareAcknowledgeResponse.NodeEndpoint] = _UNSET) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.error_message = error_message
        self.acquisition_lock_timeout_ms = acquisition_lock_timeout_ms
        self.responses = [] if responses is _UNSET else responses
        self.node_endpoints = [] if node_endpoints is _UNSET else node_endpoints


class ShareFetchRequest(Message):
    __slots__ = ('group_id', 'member_id', 'share_session_epoch', 'max_wait_ms', 'min_bytes', 'max_bytes', 'max_records', 'batch_size', 'share_acquire_mode', 'is_renew_ack', 'topics', 'forgotten_topics_data')
    NAME = 'ShareFetchRequest'
    KIND = 'request'
    API_KEY = 78
    VALID_VERSIONS = (1, 2)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('group_id', 'string', (0, 32767), (0, 32767), None, None, 'inherit', None),
        Field('member_id', 'string', (0, 32767), (0, 32767), None, None, 'inherit', ''),
        Field('share_session_epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('max_wait_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('min_bytes', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('max_bytes', 'int32', (0, 32767), None, None, None, 'inherit', 2147483647),
        Field('max_records', 'int32', (1, 32767), None, None, None, 'inherit', 0),
        Field('batch_size', 'int32', (1, 32767), None, None, None, 'inherit', 0),
        Field('share_acquire_mode', 'int8', (2, 32767), None, None, None, 'inherit', 0),
        Field('is_renew_ack', 'bool', (2, 32767), None, None, None, 'inherit', False),
        Field('topics', '[]FetchTopic', (0, 32767), None, None, None, 'inherit', ()),
        Field('forgotten_topics_data', '[]ForgottenTopic', (0, 32767), None, None, None, 'inherit', ()),
    )

    class AcknowledgementBatch(Struct):
        __slots__ = ('first_offset', 'last_offset', 'acknowledge_types')
        FIELDS = (
            Field('first_offset', 'int64', (0, 32767), None, None, None, 'inherit', 0),
            Field('last_offset', 'int64', (0, 32767), None, None, None, 'inherit', 0),
            Field('acknowledge_types', '[]int8', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, first_offset: int = 0, last_offset: int = 0, acknowledge_types: list[int] = _UNSET) -> None:
            self.first_offset = first_offset
            self.last_offset = last_offset
            self.acknowledge_types = [] if acknowledge_types is _UNSET else acknowledge_types

    class FetchPartition(Struct):
        __slots__ = ('partition_index', 'partition_max_bytes', 'acknowledgement_batches')
        FIELDS = (
            Field('partition_index', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('partition_max_bytes', 'int32', (0, 0), None, None, None, 'inherit', 0),
            Field('acknowledgement_batches', '[]AcknowledgementBatch', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, partition_index: int = 0, partition_max_bytes: int = 0, acknowledgement_batches: list[ShareFetchRequest.AcknowledgementBatch] = _UNSET) -> None:
            self.partition_index = partition_index
            self.partition_max_bytes = partition_max_bytes
            self.acknowledgement_batches = [] if acknowledgement_batches is _UNSET else acknowledgement_batches

    class FetchTopic(Struct):
        __slots__ = ('topic_id', 'partitions')
        FIELDS = (
            Field('topic_id', 'uuid', (0, 32767), None, None, None, 'inherit', ZERO_UUID),
            Field('partitions', '[]FetchPartition', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, topic_id: bytes = ZERO_UUID, partitions: list[ShareFetchRequest.FetchPartition] = _UNSET) -> None:
            self.topic_id = topic_id
            self.partitions = [] if partitions is _UNSET else partitions

    class ForgottenTopic(Struct):
        __slots__ = ('topic_id', 'partitions')
        FIELDS = (
            Field('topic_id', 'uuid', (0, 32767), None, None, None, 'inherit', ZERO_UUID),
            Field('partitions', '[]int32', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, topic_id: bytes = ZERO_UUID, partitions: list[int] = _UNSET) -> None:
            self.topic_id = topic_id
            self.partitions = [] if partitions is _UNSET else partitions

    def __init__(self, *, group_id: str | None = None, member_id: str | None = '', share_session_epoch: int = 0, max_wait_ms: int = 0, min_bytes: int = 0, max_bytes: int = 2147483647, max_records: int = 0, batch_size: int = 0, share_acquire_mode: int = 0, is_renew_ack: bool = False, topics: list[ShareFetchRequest.FetchTopic] = _UNSET, forgotten_topics_data: list[ShareFetchRequest.ForgottenTopic] = _UNSET) -> None:
        self.group_id = group_id
        self.member_id = member_id
        self.share_session_epoch = share_session_epoch
        self.max_wait_ms = max_wait_ms
        self.min_bytes = min_bytes
        self.max_bytes = max_bytes
        self.max_records = max_records
        self.batch_size = batch_size
        self.share_acquire_mode = share_acquire_mode
        self.is_renew_ack = is_renew_ack
        self.topics = [] if topics is _UNSET else topics
        self.forgotten_topics_data = [] if forgotten_topics_data is _UNSET else forgotten_topics_data


class ShareFetchResponse(Message):
    __slots__ = ('throttle_time_ms', 'error_code', 'error_message', 'acquisition_lock_timeout_ms', 'responses', 'node_endpoints')
    NAME = 'ShareFetchResponse'
    KIND = 'response'
    API_KEY = 78
    VALID_VERSIONS = (1, 2)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('throttle_time_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        Field('error_message', 'string', (0, 32767), (0, 32767), None, None, 'inherit', None),
        Field('acquisition_lock_timeout_ms', 'int32', (1, 32767), None, None, None, 'inherit', 0),
        Field('responses', '[]ShareFetchableTopicResponse', (0, 32767), None, None, None, 'inherit', ()),
        Field('node_endpoints', '[]NodeEndpoint', (0, 32767), None, None, None, 'inherit', ()),
    )

    class AcquiredRecords(Struct):
        __slots__ = ('first_offset', 'last_offset', 'delivery_count')
        FIELDS = (
            Field('first_offset', 'int64', (0, 32767), None, None, None, 'inherit', 0),
            Field('last_offset', 'int64', (0, 32767), None, None, None, 'inherit', 0),
            Field('delivery_count', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, first_offset: int = 0, last_offset: int = 0, delivery_count: int = 0) -> None:
            self.first_offset = first_offset
            self.last_offset = last_offset
            self.delivery_count = delivery_count

    class LeaderIdAndEpoch(Struct):
        __slots__ = ('leader_id', 'leader_epoch')
        FIELDS = (
            Field('leader_id', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('leader_epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, leader_id: int = 0, leader_epoch: int = 0) -> None:
            self.leader_id = leader_id
            self.leader_epoch = leader_epoch

    class NodeEndpoint(Struct):
        __slots__ = ('node_id', 'host', 'port', 'rack')
        FIELDS = (
            Field('node_id', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('host', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('port', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('rack', 'string', (0, 32767), (0, 32767), None, None, 'inherit', None),
        )

        def __init__(self, *, node_id: int = 0, host: str = '', port: int = 0, rack: str | None = None) -> None:
            self.node_id = node_id
            self.host = host
            self.port = port
            self.rack = rack

    class PartitionData(Struct):
        __slots__ = ('partition_index', 'error_code', 'error_message', 'acknowledge_error_code', 'acknowledge_error_message', 'current_leader', 'records', 'acquired_records')
        FIELDS = (
            Field('partition_index', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
            Field('error_message', 'string', (0, 32767), (0, 32767), None, None, 'inherit', None),
            Field('acknowledge_error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
            Field('acknowledge_error_message', 'string', (0, 32767), (0, 32767), None, None, 'inherit', None),
            Field('current_leader', 'LeaderIdAndEpoch', (0, 32767), None, None, None, 'inherit', 'LeaderIdAndEpoch'),
            Field('records', 'records', (0, 32767), (0, 0), None, None, 'inherit', None),
            Field('acquired_records', '[]AcquiredRecords', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, partition_index: int = 0, error_code: int = 0, error_message: str | None = None, acknowledge_error_code: int = 0, acknowledge_error_message: str | None = None, current_leader: ShareFetchResponse.LeaderIdAndEpoch = _UNSET, records: Any = None, acquired_records: list[ShareFetchResponse.AcquiredRecords] = _UNSET) -> None:
            self.partition_index = partition_index
            self.error_code = error_code
            self.error_message = error_message
            self.acknowledge_error_code = acknowledge_error_code
            self.acknowledge_error_message = acknowledge_error_message
            self.current_leader = ShareFetchResponse.LeaderIdAndEpoch() if current_leader is _UNSET else current_leader
            self.records = records
            self.acquired_records = [] if acquired_records is _UNSET else acquired_records

    class ShareFetchableTopicResponse(Struct):
        __slots__ = ('topic_id', 'partitions')
        FIELDS = (
            Field('topic_id', 'uuid', (0, 32767), None, None, None, 'inherit', ZERO_UUID),
            Field('partitions', '[]PartitionData', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, topic_id: bytes = ZERO_UUID, partitions: list[ShareFetchResponse.PartitionData] = _UNSET) -> None:
            self.topic_id = topic_id
            self.partitions = [] if partitions is _UNSET else partitions

    def __init__(self, *, throttle_time_ms: int = 0, error_code: int = 0, error_message: str | None = None, acquisition_lock_timeout_ms: int = 0, responses: list[ShareFetchResponse.ShareFetchableTopicResponse] = _UNSET, node_endpoints: list[ShareFetchResponse.NodeEndpoint] = _UNSET) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.error_message = error_message
        self.acquisition_lock_timeout_ms = acquisition_lock_timeout_ms
        self.responses = [] if responses is _UNSET else responses
        self.node_endpoints = [] if node_endpoints is _UNSET else node_endpoints


class ShareGroupCurrentMemberAssignmentKey(Message):
    __slots__ = ('group_id', 'member_id')
    NAME = 'ShareGroupCurrentMemberAssignmentKey'
    KIND = 'data'
    API_KEY = None
    VALID_VERSIONS = (14, 14)
    FLEXIBLE_VERSIONS = None
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('group_id', 'string', (14, 14), None, None, None, 'inherit', ''),
        Field('member_id', 'string', (14, 14), None, None, None, 'inherit', ''),
    )

    def __init__(self, *, group_id: str = '', member_id: str = '') -> None:
        self.group_id = group_id
        self.member_id = member_id


class ShareGroupCurrentMemberAssignmentValue(Message):
    __slots__ = ('member_epoch', 'previous_member_epoch', 'state', 'assigned_partitions')
    NAME = 'ShareGroupCurrentMemberAssignmentValue'
    KIND = 'data'
    API_KEY = None
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('member_epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('previous_member_epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('state', 'int8', (0, 32767), None, None, None, 'inherit', 0),
        Field('assigned_partitions', '[]TopicPartitions', (0, 32767), None, None, None, 'inherit', ()),
    )

    class TopicPartitions(Struct):
        __slots__ = ('topic_id', 'partitions')
        FIELDS = (
            Field('topic_id', 'uuid', (0, 32767), None, None, None, 'inherit', ZERO_UUID),
            Field('partitions', '[]int32', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, topic_id: bytes = ZERO_UUID, partitions: list[int] = _UNSET) -> None:
            self.topic_id = topic_id
            self.partitions = [] if partitions is _UNSET else partitions

    def __init__(self, *, member_epoch: int = 0, previous_member_epoch: int = 0, state: int = 0, assigned_partitions: list[ShareGroupCurrentMemberAssignmentValue.TopicPartitions] = _UNSET) -> None:
        self.member_epoch = member_epoch
        self.previous_member_epoch = previous_member_epoch
        self.state = state
        self.assigned_partitions = [] if assigned_partitions is _UNSET else assigned_partitions


class ShareGroupDescribeRequest(Message):
    __slots__ = ('group_ids', 'include_authorized_operations')
    NAME = 'ShareGroupDescribeRequest'
    KIND = 'request'
    API_KEY = 77
    VALID_VERSIONS = (1, 1)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('group_ids', '[]string', (0, 32767), None, None, None, 'inherit', ()),
        Field('include_authorized_operations', 'bool', (0, 32767), None, None, None, 'inherit', False),
    )

    def __init__(self, *, group_ids: list[str] = _UNSET, include_authorized_operations: bool = False) -> None:
        self.group_ids = [] if group_ids is _UNSET else group_ids
        self.include_authorized_operations = include_authorized_operations


class ShareGroupDescribeResponse(Message):
    __slots__ = ('throttle_time_ms', 'groups')
    NAME = 'ShareGroupDescribeResponse'
    KIND = 'response'
    API_KEY = 77
    VALID_VERSIONS = (1, 1)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('throttle_time_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('groups', '[]DescribedGroup', (0, 32767), None, None, None, 'inherit', ()),
    )

    class Assignment(Struct):
        __slots__ = ('topic_partitions',)
        FIELDS = (
            Field('topic_partitions', '[]TopicPartitions', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, topic_partitions: list[ShareGroupDescribeResponse.TopicPartitions] = _UNSET) -> None:
            self.topic_partitions = [] if topic_partitions is _UNSET else topic_partitions

    class DescribedGroup(Struct):
        __slots__ = ('error_code', 'error_message', 'group_id', 'group_state', 'group_epoch', 'assignment_epoch', 'assignor_name', 'members', 'authorized_operations')
        FIELDS = (
            Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
            Field('error_message', 'string', (0, 32767), (0, 32767), None, None, 'inherit', None),
            Field('group_id', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('group_state', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('group_epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('assignment_epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('assignor_name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('members', '[]Member', (0, 32767), None, None, None, 'inherit', ()),
            Field('authorized_operations', 'int32', (0, 32767), None, None, None, 'inherit', -2147483648),
        )

        def __init__(self, *, error_code: int = 0, error_message: str | None = None, group_id: str = '', group_state: str = '', group_epoch: int = 0, assignment_epoch: int = 0, assignor_name: str = '', members: list[ShareGroupDescribeResponse.Member] = _UNSET, authorized_operations: int = -2147483648) -> None:
            self.error_code = error_code
            self.error_message = error_message
            self.group_id = group_id
            self.group_state = group_state
            self.group_epoch = group_epoch
            self.assignment_epoch = assignment_epoch
            self.assignor_name = assignor_name
            self.members = [] if members is _UNSET else members
            self.authorized_operations = authorized_operations

    class Member(Struct):
        __slots__ = ('member_id', 'rack_id', 'member_epoch', 'client_id', 'client_host', 'subscribed_topic_names', 'assignment')
        FIELDS = (
            Field('member_id', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('rack_id', 'string', (0, 32767), (0, 32767), None, None, 'inherit', None),
            Field('member_epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('client_id', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('client_host', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('subscribed_topic_names', '[]string', (0, 32767), None, None, None, 'inherit', ()),
            Field('assignment', 'Assignment', (0, 32767), None, None, None, 'inherit', 'Assignment'),
        )

        def __init__(self, *, member_id: str = '', rack_id: str | None = None, member_epoch: int = 0, client_id: str = '', client_host: str = '', subscribed_topic_names: list[str] = _UNSET, assignment: ShareGroupDescribeResponse.Assignment = _UNSET) -> None:
            self.member_id = member_id
            self.rack_id = rack_id
            self.member_epoch = member_epoch
            self.client_id = client_id
            self.client_host = client_host
            self.subscribed_topic_names = [] if subscribed_topic_names is _UNSET else subscribed_topic_names
            self.assignment = ShareGroupDescribeResponse.Assignment() if assignment is _UNSET else assignment

    class TopicPartitions(Struct):
        __slots__ = ('topic_id', 'topic_name', 'partitions')
        FIELDS = (
            Field('topic_id', 'uuid', (0, 32767), None, None, None, 'inherit', ZERO_UUID),
            Field('topic_name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('partitions', '[]int32', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, topic_id: bytes = ZERO_UUID, topic_name: str = '', partitions: list[int] = _UNSET) -> None:
            self.topic_id = topic_id
            self.topic_name = topic_name
            self.partitions = [] if partitions is _UNSET else partitions

    def __init__(self, *, throttle_time_ms: int = 0, groups: list[ShareGroupDescribeResponse.DescribedGroup] = _UNSET) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.groups = [] if groups is _UNSET else groups


class ShareGroupHeartbeatRequest(Message):
    __slots__ = ('group_id', 'member_id', 'member_epoch', 'rack_id', 'subscribed_topic_names')
    NAME = 'ShareGroupHeartbeatRequest'
    KIND = 'request'
    API_KEY = 76
    VALID_VERSIONS = (1, 1)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('group_id', 'string', (0, 32767), None, None, None, 'inherit', ''),
        Field('member_id', 'string', (0, 32767), None, None, None, 'inherit', ''),
        Field('member_epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('rack_id', 'string', (0, 32767), (0, 32767), None, None, 'inherit', None),
        Field('subscribed_topic_names', '[]string', (0, 32767), (0, 32767), None, None, 'inherit', None),
    )

    def __init__(self, *, group_id: str = '', member_id: str = '', member_epoch: int = 0, rack_id: str | None = None, subscribed_topic_names: list[str] | None = None) -> None:
        self.group_id = group_id
        self.member_id = member_id
        self.member_epoch = member_epoch
        self.rack_id = rack_id
        self.subscribed_topic_names = subscribed_topic_names


class ShareGroupHeartbeatResponse(Message):
    __slots__ = ('throttle_time_ms', 'error_code', 'error_message', 'member_id', 'member_epoch', 'heartbeat_interval_ms', 'assignment')
    NAME = 'ShareGroupHeartbeatResponse'
    KIND = 'response'
    API_KEY = 76
    VALID_VERSIONS = (1, 1)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('throttle_time_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        Field('error_message', 'string', (0, 32767), (0, 32767), None, None, 'inherit', None),
        Field('member_id', 'string', (0, 32767), (0, 32767), None, None, 'inherit', None),
        Field('member_epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('heartbeat_interval_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('assignment', 'Assignment', (0, 32767), (0, 32767), None, None, 'inherit', None),
    )

    class Assignment(Struct):
        __slots__ = ('topic_partitions',)
        FIELDS = (
            Field('topic_partitions', '[]TopicPartitions', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, topic_partitions: list[ShareGroupHeartbeatResponse.TopicPartitions] = _UNSET) -> None:
            self.topic_partitions = [] if topic_partitions is _UNSET else topic_partitions

    class TopicPartitions(Struct):
        __slots__ = ('topic_id', 'partitions')
        FIELDS = (
            Field('topic_id', 'uuid', (0, 32767), None, None, None, 'inherit', ZERO_UUID),
            Field('partitions', '[]int32', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, topic_id: bytes = ZERO_UUID, partitions: list[int] = _UNSET) -> None:
            self.topic_id = topic_id
            self.partitions = [] if partitions is _UNSET else partitions

    def __init__(self, *, throttle_time_ms: int = 0, error_code: int = 0, error_message: str | None = None, member_id: str | None = None, member_epoch: int = 0, heartbeat_interval_ms: int = 0, assignment: ShareGroupHeartbeatResponse.Assignment | None = None) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.error_message = error_message
        self.member_id = member_id
        self.member_epoch = member_epoch
        self.heartbeat_interval_ms = heartbeat_interval_ms
        self.assignment = assignment


class ShareGroupMemberMetadataKey(Message):
    __slots__ = ('group_id', 'member_id')
    NAME = 'ShareGroupMemberMetadataKey'
    KIND = 'data'
    API_KEY = None
    VALID_VERSIONS = (10, 10)
    FLEXIBLE_VERSIONS = None
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('group_id', 'string', (10, 10), None, None, None, 'inherit', ''),
        Field('member_id', 'string', (10, 10), None, None, None, 'inherit', ''),
    )

    def __init__(self, *, group_id: str = '', member_id: str = '') -> None:
        self.group_id = group_id
        self.member_id = member_id


class ShareGroupMemberMetadataValue(Message):
    __slots__ = ('rack_id', 'client_id', 'client_host', 'subscribed_topic_names')
    NAME = 'ShareGroupMemberMetadataValue'
    KIND = 'data'
    API_KEY = None
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('rack_id', 'string', (0, 32767), (0, 32767), None, None, 'inherit', ''),
        Field('client_id', 'string', (0, 32767), None, None, None, 'inherit', ''),
        Field('client_host', 'string', (0, 32767), None, None, None, 'inherit', ''),
        Field('subscribed_topic_names', '[]string', (0, 32767), None, None, None, 'inherit', ()),
    )

    def __init__(self, *, rack_id: str | None = '', client_id: str = '', client_host: str = '', subscribed_topic_names: list[str] = _UNSET) -> None:
        self.rack_id = rack_id
        self.client_id = client_id
        self.client_host = client_host
        self.subscribed_topic_names = [] if subscribed_topic_names is _UNSET else subscribed_topic_names


class ShareGroupMetadataKey(Message):
    __slots__ = ('group_id',)
    NAME = 'ShareGroupMetadataKey'
    KIND = 'data'
    API_KEY = None
    VALID_VERSIONS = (11, 11)
    FLEXIBLE_VERSIONS = None
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('group_id', 'string', (11, 11), None, None, None, 'inherit', ''),
    )

    def __init__(self, *, group_id: str = '') -> None:
        self.group_id = group_id


class ShareGroupMetadataValue(Message):
    __slots__ = ('epoch', 'metadata_hash')
    NAME = 'ShareGroupMetadataValue'
    KIND = 'data'
    API_KEY = None
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('metadata_hash', 'int64', (0, 32767), None, None, None, 'inherit', 0),
    )

    def __init__(self, *, epoch: int = 0, metadata_hash: int = 0) -> None:
        self.epoch = epoch
        self.metadata_hash = metadata_hash


class ShareGroupPartitionMetadataKey(Message):
    __slots__ = ('group_id',)
    NAME = 'ShareGroupPartitionMetadataKey'
    KIND = 'data'
    API_KEY = None
    VALID_VERSIONS = (9, 9)
    FLEXIBLE_VERSIONS = None
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('group_id', 'string', (9, 9), None, None, None, 'inherit', ''),
    )

    def __init__(self, *, group_id: str = '') -> None:
        self.group_id = group_id


class ShareGroupPartitionMetadataValue(Message):
    __slots__ = ('topics',)
    NAME = 'ShareGroupPartitionMetadataValue'
    KIND = 'data'
    API_KEY = None
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('topics', '[]TopicMetadata', (0, 32767), None, None, None, 'inherit', ()),
    )

    class PartitionMetadata(Struct):
        __slots__ = ('partition', 'racks')
        FIELDS = (
            Field('partition', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('racks', '[]string', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, partition: int = 0, racks: list[str] = _UNSET) -> None:
            self.partition = partition
            self.racks = [] if racks is _UNSET else racks

    class TopicMetadata(Struct):
        __slots__ = ('topic_id', 'topic_name', 'num_partitions', 'partition_metadata')
        FIELDS = (
            Field('topic_id', 'uuid', (0, 32767), None, None, None, 'inherit', ZERO_UUID),
            Field('topic_name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('num_partitions', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('partition_metadata', '[]PartitionMetadata', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, topic_id: bytes = ZERO_UUID, topic_name: str = '', num_partitions: int = 0, partition_metadata: list[ShareGroupPartitionMetadataValue.PartitionMetadata] = _UNSET) -> None:
            self.topic_id = topic_id
            self.topic_name = topic_name
            self.num_partitions = num_partitions
            self.partition_metadata = [] if partition_metadata is _UNSET else partition_metadata

    def __init__(self, *, topics: list[ShareGroupPartitionMetadataValue.TopicMetadata] = _UNSET) -> None:
        self.topics = [] if topics is _UNSET else topics


class ShareGroupStatePartitionMetadataKey(Message):
    __slots__ = ('group_id',)
    NAME = 'ShareGroupStatePartitionMetadataKey'
    KIND = 'data'
    API_KEY = None
    VALID_VERSIONS = (15, 15)
    FLEXIBLE_VERSIONS = None
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('group_id', 'string', (15, 15), None, None, None, 'inherit', ''),
    )

    def __init__(self, *, group_id: str = '') -> None:
        self.group_id = group_id


class ShareGroupStatePartitionMetadataValue(Message):
    __slots__ = ('initializing_topics', 'initialized_topics', 'deleting_topics')
    NAME = 'ShareGroupStatePartitionMetadataValue'
    KIND = 'data'
    API_KEY = None
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('initializing_topics', '[]TopicPartitionsInfo', (0, 32767), None, None, None, 'inherit', ()),
        Field('initialized_topics', '[]TopicPartitionsInfo', (0, 32767), None, None, None, 'inherit', ()),
        Field('deleting_topics', '[]TopicInfo', (0, 32767), None, None, None, 'inherit', ()),
    )

    class TopicInfo(Struct):
        __slots__ = ('topic_id', 'topic_name')
        FIELDS = (
            Field('topic_id', 'uuid', (0, 32767), None, None, None, 'inherit', ZERO_UUID),
            Field('topic_name', 'string', (0, 32767), None, None, None, 'inherit', ''),
        )

        def __init__(self, *, topic_id: bytes = ZERO_UUID, topic_name: str = '') -> None:
            self.topic_id = topic_id
            self.topic_name = topic_name

    class TopicPartitionsInfo(Struct):
        __slots__ = ('topic_id', 'topic_name', 'partitions')
        FIELDS = (
            Field('topic_id', 'uuid', (0, 32767), None, None, None, 'inherit', ZERO_UUID),
            Field('topic_name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('partitions', '[]int32', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, topic_id: bytes = ZERO_UUID, topic_name: str = '', partitions: list[int] = _UNSET) -> None:
            self.topic_id = topic_id
            self.topic_name = topic_name
            self.partitions = [] if partitions is _UNSET else partitions

    def __init__(self, *, initializing_topics: list[ShareGroupStatePartitionMetadataValue.TopicPartitionsInfo] = _UNSET, initialized_topics: list[ShareGroupStatePartitionMetadataValue.TopicPartitionsInfo] = _UNSET, deleting_topics: list[ShareGroupStatePartitionMetadataValue.TopicInfo] = _UNSET) -> None:
        self.initializing_topics = [] if initializing_topics is _UNSET else initializing_topics
        self.initialized_topics = [] if initialized_topics is _UNSET else initialized_topics
        self.deleting_topics = [] if deleting_topics is _UNSET else deleting_topics


class ShareGroupTargetAssignmentMemberKey(Message):
    __slots__ = ('group_id', 'member_id')
    NAME = 'ShareGroupTargetAssignmentMemberKey'
    KIND = 'data'
    API_KEY = None
    VALID_VERSIONS = (13, 13)
    FLEXIBLE_VERSIONS = None
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('group_id', 'string', (13, 13), None, None, None, 'inherit', ''),
        Field('member_id', 'string', (13, 13), None, None, None, 'inherit', ''),
    )

    def __init__(self, *, group_id: str = '', member_id: str = '') -> None:
        self.group_id = group_id
        self.member_id = member_id


class ShareGroupTargetAssignmentMemberValue(Message):
    __slots__ = ('topic_partitions',)
    NAME = 'ShareGroupTargetAssignmentMemberValue'
    KIND = 'data'
    API_KEY = None
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('topic_partitions', '[]TopicPartition', (0, 32767), None, None, None, 'inherit', ()),
    )

    class TopicPartition(Struct):
        __slots__ = ('topic_id', 'partitions')
        FIELDS = (
            Field('topic_id', 'uuid', (0, 32767), None, None, None, 'inherit', ZERO_UUID),
            Field('partitions', '[]int32', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, topic_id: bytes = ZERO_UUID, partitions: list[int] = _UNSET) -> None:
            self.topic_id = topic_id
            self.partitions = [] if partitions is _UNSET else partitions

    def __init__(self, *, topic_partitions: list[ShareGroupTargetAssignmentMemberValue.TopicPartition] = _UNSET) -> None:
        self.topic_partitions = [] if topic_partitions is _UNSET else topic_partitions


class ShareGroupTargetAssignmentMetadataKey(Message):
    __slots__ = ('group_id',)
    NAME = 'ShareGroupTargetAssignmentMetadataKey'
    KIND = 'data'
    API_KEY = None
    VALID_VERSIONS = (12, 12)
    FLEXIBLE_VERSIONS = None
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('group_id', 'string', (12, 12), None, None, None, 'inherit', ''),
    )

    def __init__(self, *, group_id: str = '') -> None:
        self.group_id = group_id


class ShareGroupTargetAssignmentMetadataValue(Message):
    __slots__ = ('assignment_epoch', 'assignment_timestamp')
    NAME = 'ShareGroupTargetAssignmentMetadataValue'
    KIND = 'data'
    API_KEY = None
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('assignment_epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('assignment_timestamp', 'int64', (0, 32767), None, 0, (0, 32767), 'inherit', 0),
    )

    def __init__(self, *, assignment_epoch: int = 0, assignment_timestamp: int = 0) -> None:
        self.assignment_epoch = assignment_epoch
        self.assignment_timestamp = assignment_timestamp


class ShareSnapshotKey(Message):
    __slots__ = ('group_id', 'topic_id', 'partition')
    NAME = 'ShareSnapshotKey'
    KIND = 'data'
    API_KEY = None
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = None
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('group_id', 'string', (0, 0), None, None, None, 'inherit', ''),
        Field('topic_id', 'uuid', (0, 0), None, None, None, 'inherit', ZERO_UUID),
        Field('partition', 'int32', (0, 0), None, None, None, 'inherit', 0),
    )

    def __init__(self, *, group_id: str = '', topic_id: bytes = ZERO_UUID, partition: int = 0) -> None:
        self.group_id = group_id
        self.topic_id = topic_id
        self.partition = partition


class ShareSnapshotValue(Message):
    __slots__ = ('snapshot_epoch', 'state_epoch', 'leader_epoch', 'start_offset', 'delivery_complete_count', 'create_timestamp', 'write_timestamp', 'state_batches')
    NAME = 'ShareSnapshotValue'
    KIND = 'data'
    API_KEY = None
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('snapshot_epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('state_epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('leader_epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('start_offset', 'int64', (0, 32767), None, None, None, 'inherit', 0),
        Field('delivery_complete_count', 'int32', (0, 32767), None, 0, (0, 32767), 'inherit', -1),
        Field('create_timestamp', 'int64', (0, 32767), None, None, None, 'inherit', 0),
        Field('write_timestamp', 'int64', (0, 32767), None, None, None, 'inherit', 0),
        Field('state_batches', '[]StateBatch', (0, 32767), None, None, None, 'inherit', ()),
    )

    class StateBatch(Struct):
        __slots__ = ('first_offset', 'last_offset', 'delivery_state', 'delivery_count')
        FIELDS = (
            Field('first_offset', 'int64', (0, 32767), None, None, None, 'inherit', 0),
            Field('last_offset', 'int64', (0, 32767), None, None, None, 'inherit', 0),
            Field('delivery_state', 'int8', (0, 32767), None, None, None, 'inherit', 0),
            Field('delivery_count', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, first_offset: int = 0, last_offset: int = 0, delivery_state: int = 0, delivery_count: int = 0) -> None:
            self.first_offset = first_offset
            self.last_offset = last_offset
            self.delivery_state = delivery_state
            self.delivery_count = delivery_count

    def __init__(self, *, snapshot_epoch: int = 0, state_epoch: int = 0, leader_epoch: int = 0, start_offset: int = 0, delivery_complete_count: int = -1, create_timestamp: int = 0, write_timestamp: int = 0, state_batches: list[ShareSnapshotValue.StateBatch] = _UNSET) -> None:
        self.snapshot_epoch = snapshot_epoch
        self.state_epoch = state_epoch
        self.leader_epoch = leader_epoch
        self.start_offset = start_offset
        self.delivery_complete_count = delivery_complete_count
        self.create_timestamp = create_timestamp
        self.write_timestamp = write_timestamp
        self.state_batches = [] if state_batches is _UNSET else state_batches


class ShareUpdateKey(Message):
    __slots__ = ('group_id', 'topic_id', 'partition')
    NAME = 'ShareUpdateKey'
    KIND = 'data'
    API_KEY = None
    VALID_VERSIONS = (1, 1)
    FLEXIBLE_VERSIONS = None
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('group_id', 'string', (1, 1), None, None, None, 'inherit', ''),
        Field('topic_id', 'uuid', (1, 1), None, None, None, 'inherit', ZERO_UUID),
        Field('partition', 'int32', (1, 1), None, None, None, 'inherit', 0),
    )

    def __init__(self, *, group_id: str = '', topic_id: bytes = ZERO_UUID, partition: int = 0) -> None:
        self.group_id = group_id
        self.topic_id = topic_id
        self.partition = partition


class ShareUpdateValue(Message):
    __slots__ = ('snapshot_epoch', 'leader_epoch', 'start_offset', 'delivery_complete_count', 'state_batches')
    NAME = 'ShareUpdateValue'
    KIND = 'data'
    API_KEY = None
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('snapshot_epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('leader_epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('start_offset', 'int64', (0, 32767), None, None, None, 'inherit', 0),
        Field('delivery_complete_count', 'int32', (0, 32767), None, 0, (0, 32767), 'inherit', -1),
        Field('state_batches', '[]StateBatch', (0, 32767), None, None, None, 'inherit', ()),
    )

    class StateBatch(Struct):
        __slots__ = ('first_offset', 'last_offset', 'delivery_state', 'delivery_count')
        FIELDS = (
            Field('first_offset', 'int64', (0, 32767), None, None, None, 'inherit', 0),
            Field('last_offset', 'int64', (0, 32767), None, None, None, 'inherit', 0),
            Field('delivery_state', 'int8', (0, 32767), None, None, None, 'inherit', 0),
            Field('delivery_count', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, first_offset: int = 0, last_offset: int = 0, delivery_state: int = 0, delivery_count: int = 0) -> None:
            self.first_offset = first_offset
            self.last_offset = last_offset
            self.delivery_state = delivery_state
            self.delivery_count = delivery_count

    def __init__(self, *, snapshot_epoch: int = 0, leader_epoch: int = 0, start_offset: int = 0, delivery_complete_count: int = -1, state_batches: list[ShareUpdateValue.StateBatch] = _UNSET) -> None:
        self.snapshot_epoch = snapshot_epoch
        self.leader_epoch = leader_epoch
        self.start_offset = start_offset
        self.delivery_complete_count = delivery_complete_count
        self.state_batches = [] if state_batches is _UNSET else state_batches


class SnapshotFooterRecord(Message):
    __slots__ = ('version',)
    NAME = 'SnapshotFooterRecord'
    KIND = 'data'
    API_KEY = None
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('version', 'int16', (0, 32767), None, None, None, 'inherit', 0),
    )

    def __init__(self, *, version: int = 0) -> None:
        self.version = version


class SnapshotHeaderRecord(Message):
    __slots__ = ('version', 'last_contained_log_timestamp')
    NAME = 'SnapshotHeaderRecord'
    KIND = 'data'
    API_KEY = None
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('version', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        Field('last_contained_log_timestamp', 'int64', (0, 32767), None, None, None, 'inherit', 0),
    )

    def __init__(self, *, version: int = 0, last_contained_log_timestamp: int = 0) -> None:
        self.version = version
        self.last_contained_log_timestamp = last_contained_log_timestamp


class StopReplicaRequest(Message):
    __slots__ = ('controller_id', 'is_k_raft_controller', 'controller_epoch', 'broker_epoch', 'delete_partitions', 'ungrouped_partitions', 'topics', 'topic_states')
    NAME = 'StopReplicaRequest'
    KIND = 'request'
    API_KEY = 5
    VALID_VERSIONS = (0, 4)
    FLEXIBLE_VERSIONS = (2, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('controller_id', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('is_k_raft_controller', 'bool', (4, 32767), None, None, None, 'inherit', False),
        Field('controller_epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('broker_epoch', 'int64', (1, 32767), None, None, None, 'inherit', -1),
        Field('delete_partitions', 'bool', (0, 2), None, None, None, 'inherit', False),
        Field('ungrouped_partitions', '[]StopReplicaPartitionV0', (0, 0), None, None, None, 'inherit', ()),
        Field('topics', '[]StopReplicaTopicV1', (1, 2), None, None, None, 'inherit', ()),
        Field('topic_states', '[]StopReplicaTopicState', (3, 32767), None, None, None, 'inherit', ()),
    )

    class StopReplicaPartitionState(Struct):
        __slots__ = ('partition_index', 'leader_epoch', 'delete_partition')
        FIELDS = (
            Field('partition_index', 'int32', (3, 32767), None, None, None, 'inherit', 0),
            Field('leader_epoch', 'int32', (3, 32767), None, None, None, 'inherit', -1),
            Field('delete_partition', 'bool', (3, 32767), None, None, None, 'inherit', False),
        )

        def __init__(self, *, partition_index: int = 0, leader_epoch: int = -1, delete_partition: bool = False) -> None:
            self.partition_index = partition_index
            self.leader_epoch = leader_epoch
            self.delete_partition = delete_partition

    class StopReplicaPartitionV0(Struct):
        __slots__ = ('topic_name', 'partition_index')
        FIELDS = (
            Field('topic_name', 'string', (0, 0), None, None, None, 'inherit', ''),
            Field('partition_index', 'int32', (0, 0), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, topic_name: str = '', partition_index: int = 0) -> None:
            self.topic_name = topic_name
            self.partition_index = partition_index

    class StopReplicaTopicState(Struct):
        __slots__ = ('topic_name', 'partition_states')
        FIELDS = (
            Field('topic_name', 'string', (3, 32767), None, None, None, 'inherit', ''),
            Field('partition_states', '[]StopReplicaPartitionState', (3, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, topic_name: str = '', partition_states: list[StopReplicaRequest.StopReplicaPartitionState] = _UNSET) -> None:
            self.topic_name = topic_name
            self.partition_states = [] if partition_states is _UNSET else partition_states

    class StopReplicaTopicV1(Struct):
        __slots__ = ('name', 'partition_indexes')
        FIELDS = (
            Field('name', 'string', (1, 2), None, None, None, 'inherit', ''),
            Field('partition_indexes', '[]int32', (1, 2), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, name: str = '', partition_indexes: list[int] = _UNSET) -> None:
            self.name = name
            self.partition_indexes = [] if partition_indexes is _UNSET else partition_indexes

    def __init__(self, *, controller_id: int = 0, is_k_raft_controller: bool = False, controller_epoch: int = 0, broker_epoch: int = -1, delete_partitions: bool = False, ungrouped_partitions: list[StopReplicaRequest.StopReplicaPartitionV0] = _UNSET, topics: list[StopReplicaRequest.StopReplicaTopicV1] = _UNSET, topic_states: list[StopReplicaRequest.StopReplicaTopicState] = _UNSET) -> None:
        self.controller_id = controller_id
        self.is_k_raft_controller = is_k_raft_controller
        self.controller_epoch = controller_epoch
        self.broker_epoch = broker_epoch
        self.delete_partitions = delete_partitions
        self.ungrouped_partitions = [] if ungrouped_partitions is _UNSET else ungrouped_partitions
        self.topics = [] if topics is _UNSET else topics
        self.topic_states = [] if topic_states is _UNSET else topic_states


class StopReplicaResponse(Message):
    __slots__ = ('error_code', 'partition_errors')
    NAME = 'StopReplicaResponse'
    KIND = 'response'
    API_KEY = 5
    VALID_VERSIONS = (0, 4)
    FLEXIBLE_VERSIONS = (2, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        Field('partition_errors', '[]StopReplicaPartitionError', (0, 32767), None, None, None, 'inherit', ()),
    )

    class StopReplicaPartitionError(Struct):
        __slots__ = ('topic_name', 'partition_index', 'error_code')
        FIELDS = (
            Field('topic_name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('partition_index', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, topic_name: str = '', partition_index: int = 0, error_code: int = 0) -> None:
            self.topic_name = topic_name
            self.partition_index = partition_index
            self.error_code = error_code

    def __init__(self, *, error_code: int = 0, partition_errors: list[StopReplicaResponse.StopReplicaPartitionError] = _UNSET) -> None:
        self.error_code = error_code
        self.partition_errors = [] if partition_errors is _UNSET else partition_errors


class StreamsGroupCurrentMemberAssignmentKey(Message):
    __slots__ = ('group_id', 'member_id')
    NAME = 'StreamsGroupCurrentMemberAssignmentKey'
    KIND = 'data'
    API_KEY = None
    VALID_VERSIONS = (22, 22)
    FLEXIBLE_VERSIONS = None
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('group_id', 'string', (22, 22), None, None, None, 'inherit', ''),
        Field('member_id', 'string', (22, 22), None, None, None, 'inherit', ''),
    )

    def __init__(self, *, group_id: str = '', member_id: str = '') -> None:
        self.group_id = group_id
        self.member_id = member_id


class StreamsGroupCurrentMemberAssignmentValue(Message):
    __slots__ = ('member_epoch', 'previous_member_epoch', 'state', 'active_tasks', 'standby_tasks', 'warmup_tasks', 'active_tasks_pending_revocation', 'standby_tasks_pending_revocation', 'warmup_tasks_pending_revocation')
    NAME = 'StreamsGroupCurrentMemberAssignmentValue'
    KIND = 'data'
    API_KEY = None
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('member_epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('previous_member_epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('state', 'int8', (0, 32767), None, None, None, 'inherit', 0),
        Field('active_tasks', '[]TaskIds', (0, 32767), None, None, None, 'inherit', ()),
        Field('standby_tasks', '[]TaskIds', (0, 32767), None, None, None, 'inherit', ()),
        Field('warmup_tasks', '[]TaskIds', (0, 32767), None, None, None, 'inherit', ()),
        Field('active_tasks_pending_revocation', '[]TaskIds', (0, 32767), None, None, None, 'inherit', ()),
        Field('standby_tasks_pending_revocation', '[]TaskIds', (0, 32767), None, None, None, 'inherit', ()),
        Field('warmup_tasks_pending_revocation', '[]TaskIds', (0, 32767), None, None, None, 'inherit', ()),
    )

    class TaskIds(Struct):
        __slots__ = ('subtopology_id', 'partitions', 'assignment_epochs')
        FIELDS = (
            Field('subtopology_id', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('partitions', '[]int32', (0, 32767), None, None, None, 'inherit', ()),
            Field('assignment_epochs', '[]int32', (0, 32767), (0, 32767), 0, (0, 32767), 'inherit', None),
        )

        def __init__(self, *, subtopology_id: str = '', partitions: list[int] = _UNSET, assignment_epochs: list[int] | None = None) -> None:
            self.subtopology_id = subtopology_id
            self.partitions = [] if partitions is _UNSET else partitions
            self.assignment_epochs = assignment_epochs

    def __init__(self, *, member_epoch: int = 0, previous_member_epoch: int = 0, state: int = 0, active_tasks: list[StreamsGroupCurrentMemberAssignmentValue.TaskIds] = _UNSET, standby_tasks: list[StreamsGroupCurrentMemberAssignmentValue.TaskIds] = _UNSET, warmup_tasks: list[StreamsGroupCurrentMemberAssignmentValue.TaskIds] = _UNSET, active_tasks_pending_revocation: list[StreamsGroupCurrentMemberAssignmentValue.TaskIds] = _UNSET, standby_tasks_pending_revocation: list[StreamsGroupCurrentMemberAssignmentValue.TaskIds] = _UNSET, warmup_tasks_pending_revocation: list[StreamsGroupCurrentMemberAssignmentValue.TaskIds] = _UNSET) -> None:
        self.member_epoch = member_epoch
        self.previous_member_epoch = previous_member_epoch
        self.state = state
        self.active_tasks = [] if active_tasks is _UNSET else active_tasks
        self.standby_tasks = [] if standby_tasks is _UNSET else standby_tasks
        self.warmup_tasks = [] if warmup_tasks is _UNSET else warmup_tasks
        self.active_tasks_pending_revocation = [] if active_tasks_pending_revocation is _UNSET else active_tasks_pending_revocation
        self.standby_tasks_pending_revocation = [] if standby_tasks_pending_revocation is _UNSET else standby_tasks_pending_revocation
        self.warmup_tasks_pending_revocation = [] if warmup_tasks_pending_revocation is _UNSET else warmup_tasks_pending_revocation


class StreamsGroupDescribeRequest(Message):
    __slots__ = ('group_ids', 'include_authorized_operations', 'include_topology_description')
    NAME = 'StreamsGroupDescribeRequest'
    KIND = 'request'
    API_KEY = 89
    VALID_VERSIONS = (0, 1)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('group_ids', '[]string', (0, 32767), None, None, None, 'inherit', ()),
        Field('include_authorized_operations', 'bool', (0, 32767), None, None, None, 'inherit', False),
        Field('include_topology_description', 'bool', (1, 32767), None, None, None, 'inherit', False),
    )

    def __init__(self, *, group_ids: list[str] = _UNSET, include_authorized_operations: bool = False, include_topology_description: bool = False) -> None:
        self.group_ids = [] if group_ids is _UNSET else group_ids
        self.include_authorized_operations = include_authorized_operations
        self.include_topology_description = include_topology_description


class StreamsGroupDescribeResponse(Message):
    __slots__ = ('throttle_time_ms', 'groups')
    NAME = 'StreamsGroupDescribeResponse'
    KIND = 'response'
    API_KEY = 89
    VALID_VERSIONS = (0, 1)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('throttle_time_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('groups', '[]DescribedGroup', (0, 32767), None, None, None, 'inherit', ()),
    )

    class Assignment(Struct):
        __slots__ = ('active_tasks', 'standby_tasks', 'warmup_tasks')
        FIELDS = (
            Field('active_tasks', '[]TaskIds', (0, 32767), None, None, None, 'inherit', ()),
            Field('standby_tasks', '[]TaskIds', (0, 32767), None, None, None, 'inherit', ()),
            Field('warmup_tasks', '[]TaskIds', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, active_tasks: list[StreamsGroupDescribeResponse.TaskIds] = _UNSET, standby_tasks: list[StreamsGroupDescribeResponse.TaskIds] = _UNSET, warmup_tasks: list[StreamsGroupDescribeResponse.TaskIds] = _UNSET) -> None:
            self.active_tasks = [] if active_tasks is _UNSET else active_tasks
            self.standby_tasks = [] if standby_tasks is _UNSET else standby_tasks
            self.warmup_tasks = [] if warmup_tasks is _UNSET else warmup_tasks

    class DescribedGroup(Struct):
        __slots__ = ('error_code', 'error_message', 'group_id', 'group_state', 'group_epoch', 'assignment_epoch', 'topology', 'members', 'authorized_operations', 'topology_description', 'topology_description_status', 'assignor_name')
        FIELDS = (
            Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
            Field('error_message', 'string', (0, 32767), (0, 32767), None, None, 'inherit', None),
            Field('group_id', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('group_state', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('group_epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('assignment_epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('topology', 'Topology', (0, 32767), (0, 32767), None, None, 'inherit', None),
            Field('members', '[]Member', (0, 32767), None, None, None, 'inherit', ()),
            Field('authorized_operations', 'int32', (0, 32767), None, None, None, 'inherit', -2147483648),
            Field('topology_description', 'TopologyDescription', (1, 32767), (1, 32767), None, None, 'inherit', None),
            Field('topology_description_status', 'int8', (1, 32767), None, None, None, 'inherit', 0),
            Field('assignor_name', 'string', (1, 32767), (1, 32767), None, None, 'inherit', None),
        )

        def __init__(self, *, error_code: int = 0, error_message: str | None = None, group_id: str = '', group_state: str = '', group_epoch: int = 0, assignment_epoch: int = 0, topology: StreamsGroupDescribeResponse.Topology | None = None, members: list[StreamsGroupDescribeResponse.Member] = _UNSET, authorized_operations: int = -2147483648, topology_description: StreamsGroupDescribeResponse.TopologyDescription | None = None, topology_description_status: int = 0, assignor_name: str | None = None) -> None:
            self.error_code = error_code
            self.error_message = error_message
            self.group_id = group_id
            self.group_state = group_state
            self.group_epoch = group_epoch
            self.assignment_epoch = assignment_epoch
            self.topology = topology
            self.members = [] if members is _UNSET else members
            self.authorized_operations = authorized_operations
            self.topology_description = topology_description
            self.topology_description_status = topology_description_status
            self.assignor_name = assignor_name

    class Endpoint(Struct):
        __slots__ = ('host', 'port')
        FIELDS = (
            Field('host', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('port', 'uint16', (0, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, host: str = '', port: int = 0) -> None:
            self.host = host
            self.port = port

    class KeyValue(Struct):
        __slots__ = ('key', 'value')
        FIELDS = (
            Field('key', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('value', 'string', (0, 32767), None, None, None, 'inherit', ''),
        )

        def __init__(self, *, key: str = '', value: str = '') -> None:
            self.key = key
            self.value = value

    class Member(Struct):
        __slots__ = ('member_id', 'member_epoch', 'instance_id', 'rack_id', 'client_id', 'client_host', 'topology_epoch', 'process_id', 'user_endpoint', 'client_tags', 'task_offsets', 'task_end_offsets', 'assignment', 'target_assignment', 'is_classic')
        FIELDS = (
            Field('member_id', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('member_epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('instance_id', 'string', (0, 32767), (0, 32767), None, None, 'inherit', None),
            Field('rack_id', 'string', (0, 32767), (0, 32767), None, None, 'inherit', None),
            Field('client_id', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('client_host', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('topology_epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('process_id', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('user_endpoint', 'Endpoint', (0, 32767), (0, 32767), None, None, 'inherit', None),
            Field('client_tags', '[]KeyValue', (0, 32767), None, None, None, 'inherit', ()),
            Field('task_offsets', '[]TaskOffset', (0, 32767), None, None, None, 'inherit', ()),
            Field('task_end_offsets', '[]TaskOffset', (0, 32767), None, None, None, 'inherit', ()),
            Field('assignment', 'Assignment', (0, 32767), None, None, None, 'inherit', 'Assignment'),
            Field('target_assignment', 'Assignment', (0, 32767), None, None, None, 'inherit', 'Assignment'),
            Field('is_classic', 'bool', (0, 32767), None, None, None, 'inherit', False),
        )

        def __init__(self, *, member_id: str = '', member_epoch: int = 0, instance_id: str | None = None, rack_id: str | None = None, client_id: str = '', client_host: str = '', topology_epoch: int = 0, process_id: str = '', user_endpoint: StreamsGroupDescribeResponse.Endpoint | None = None, client_tags: list[StreamsGroupDescribeResponse.KeyValue] = _UNSET, task_offsets: list[StreamsGroupDescribeResponse.TaskOffset] = _UNSET, task_end_offsets: list[StreamsGroupDescribeResponse.TaskOffset] = _UNSET, assignment: StreamsGroupDescribeResponse.Assignment = _UNSET, target_assignment: StreamsGroupDescribeResponse.Assignment = _UNSET, is_classic: bool = False) -> None:
            self.member_id = member_id
            self.member_epoch = member_epoch
            self.instance_id = instance_id
            self.rack_id = rack_id
            self.client_id = client_id
            self.client_host = client_host
            self.topology_epoch = topology_epoch
            self.process_id = process_id
            self.user_endpoint = user_endpoint
            self.client_tags = [] if client_tags is _UNSET else client_tags
            self.task_offsets = [] if task_offsets is _UNSET else task_offsets
            self.task_end_offsets = [] if task_end_offsets is _UNSET else task_end_offsets
            self.assignment = StreamsGroupDescribeResponse.Assignment() if assignment is _UNSET else assignment
            self.target_assignment = StreamsGroupDescribeResponse.Assignment() if target_assignment is _UNSET else target_assignment
            self.is_classic = is_classic

    class Subtopology(Struct):
        __slots__ = ('subtopology_id', 'source_topics', 'repartition_sink_topics', 'state_changelog_topics', 'repartition_source_topics')
        FIELDS = (
            Field('subtopology_id', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('source_topics', '[]string', (0, 32767), None, None, None, 'inherit', ()),
            Field('repartition_sink_topics', '[]string', (0, 32767), None, None, None, 'inherit', ()),
            Field('state_changelog_topics', '[]TopicInfo', (0, 32767), None, None, None, 'inherit', ()),
            Field('repartition_source_topics', '[]TopicInfo', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, subtopology_id: str = '', source_topics: list[str] = _UNSET, repartition_sink_topics: list[str] = _UNSET, state_changelog_topics: list[StreamsGroupDescribeResponse.TopicInfo] = _UNSET, repartition_source_topics: list[StreamsGroupDescribeResponse.TopicInfo] = _UNSET) -> None:
            self.subtopology_id = subtopology_id
            self.source_topics = [] if source_topics is _UNSET else source_topics
            self.repartition_sink_topics = [] if repartition_sink_topics is _UNSET else repartition_sink_topics
            self.state_changelog_topics = [] if state_changelog_topics is _UNSET else state_changelog_topics
            self.repartition_source_topics = [] if repartition_source_topics is _UNSET else repartition_source_topics

    class TaskIds(Struct):
        __slots__ = ('subtopology_id', 'partitions')
        FIELDS = (
            Field('subtopology_id', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('partitions', '[]int32', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, subtopology_id: str = '', partitions: list[int] = _UNSET) -> None:
            self.subtopology_id = subtopology_id
            self.partitions = [] if partitions is _UNSET else partitions

    class TaskOffset(Struct):
        __slots__ = ('subtopology_id', 'partition', 'offset')
        FIELDS = (
            Field('subtopology_id', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('partition', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('offset', 'int64', (0, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, subtopology_id: str = '', partition: int = 0, offset: int = 0) -> None:
            self.subtopology_id = subtopology_id
            self.partition = partition
            self.offset = offset

    class TopicInfo(Struct):
        __slots__ = ('name', 'partitions', 'replication_factor', 'topic_configs')
        FIELDS = (
            Field('name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('partitions', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('replication_factor', 'int16', (0, 32767), None, None, None, 'inherit', 0),
            Field('topic_configs', '[]KeyValue', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, name: str = '', partitions: int = 0, replication_factor: int = 0, topic_configs: list[StreamsGroupDescribeResponse.KeyValue] = _UNSET) -> None:
            self.name = name
            self.partitions = partitions
            self.replication_factor = replication_factor
            self.topic_configs = [] if topic_configs is _UNSET else topic_configs

    class Topology(Struct):
        __slots__ = ('epoch', 'subtopologies')
        FIELDS = (
            Field('epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('subtopologies', '[]Subtopology', (0, 32767), (0, 32767), None, None, 'inherit', None),
        )

        def __init__(self, *, epoch: int = 0, subtopologies: list[StreamsGroupDescribeResponse.Subtopology] | None = None) -> None:
            self.epoch = epoch
            self.subtopologies = subtopologies

    class TopologyDescription(Struct):
        __slots__ = ('subtopologies', 'global_stores')
        FIELDS = (
            Field('subtopologies', '[]TopologyDescriptionSubtopology', (1, 32767), None, None, None, 'inherit', ()),
            Field('global_stores', '[]TopologyDescriptionGlobalStore', (1, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, subtopologies: list[StreamsGroupDescribeResponse.TopologyDescriptionSubtopology] = _UNSET, global_stores: list[StreamsGroupDescribeResponse.TopologyDescriptionGlobalStore] = _UNSET) -> None:
            self.subtopologies = [] if subtopologies is _UNSET else subtopologies
            self.global_stores = [] if global_stores is _UNSET else global_stores

    class TopologyDescriptionGlobalStore(Struct):
        __slots__ = ('source', 'processor')
        FIELDS = (
            Field('source', 'TopologyDescriptionNode', (1, 32767), None, None, None, 'inherit', 'TopologyDescriptionNode'),
            Field('processor', 'TopologyDescriptionNode', (1, 32767), None, None, None, 'inherit', 'TopologyDescriptionNode'),
        )

        def __init__(self, *, source: StreamsGroupDescribeResponse.TopologyDescriptionNode = _UNSET, processor: StreamsGroupDescribeResponse.TopologyDescriptionNode = _UNSET) -> None:
            self.source = StreamsGroupDescribeResponse.TopologyDescriptionNode() if source is _UNSET else source
            self.processor = StreamsGroupDescribeResponse.TopologyDescriptionNode() if processor is _UNSET else processor

    class TopologyDescriptionNode(Struct):
        __slots__ = ('name', 'node_type', 'source_topics', 'sink_topic', 'stores', 'successors')
        FIELDS = (
            Field('name', 'string', (1, 32767), None, None, None, 'inherit', ''),
            Field('node_type', 'int8', (1, 32767), None, None, None, 'inherit', 0),
            Field('source_topics', '[]string', (1, 32767), None, None, None, 'inherit', ()),
            Field('sink_topic', 'string', (1, 32767), (1, 32767), None, None, 'inherit', None),
            Field('stores', '[]string', (1, 32767), None, None, None, 'inherit', ()),
            Field('successors', '[]string', (1, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, name: str = '', node_type: int = 0, source_topics: list[str] = _UNSET, sink_topic: str | None = None, stores: list[str] = _UNSET, successors: list[str] = _UNSET) -> None:
            self.name = name
            self.node_type = node_type
            self.source_topics = [] if source_topics is _UNSET else source_topics
            self.sink_topic = sink_topic
            self.stores = [] if stores is _UNSET else stores
            self.successors = [] if successors is _UNSET else successors

    class TopologyDescriptionSubtopology(Struct):
        __slots__ = ('subtopology_id', 'nodes')
        FIELDS = (
            Field('subtopology_id', 'string', (1, 32767), None, None, None, 'inherit', ''),
            Field('nodes', '[]TopologyDescriptionNode', (1, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, subtopology_id: str = '', nodes: list[StreamsGroupDescribeResponse.TopologyDescriptionNode] = _UNSET) -> None:
            self.subtopology_id = subtopology_id
            self.nodes = [] if nodes is _UNSET else nodes

    def __init__(self, *, throttle_time_ms: int = 0, groups: list[StreamsGroupDescribeResponse.DescribedGroup] = _UNSET) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.groups = [] if groups is _UNSET else groups


class StreamsGroupHeartbeatRequest(Message):
    __slots__ = ('group_id', 'member_id', 'member_epoch', 'endpoint_information_epoch', 'instance_id', 'rack_id', 'rebalance_timeout_ms', 'topology', 'active_tasks', 'standby_tasks', 'warmup_tasks', 'process_id', 'user_endpoint', 'client_tags', 'task_offsets', 'task_end_offsets', 'shutdown_application')
    NAME = 'StreamsGroupHeartbeatRequest'
    KIND = 'request'
    API_KEY = 88
    VALID_VERSIONS = (0, 1)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('group_id', 'string', (0, 32767), None, None, None, 'inherit', ''),
        Field('member_id', 'string', (0, 32767), None, None, None, 'inherit', ''),
        Field('member_epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('endpoint_information_epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('instance_id', 'string', (0, 32767), (0, 32767), None, None, 'inherit', None),
        Field('rack_id', 'string', (0, 32767), (0, 32767), None, None, 'inherit', None),
        Field('rebalance_timeout_ms', 'int32', (0, 32767), None, None, None, 'inherit', -1),
        Field('topology', 'Topology', (0, 32767), (0, 32767), None, None, 'inherit', None),
        Field('active_tasks', '[]TaskIds', (0, 32767), (0, 32767), None, None, 'inherit', None),
        Field('standby_tasks', '[]TaskIds', (0, 32767), (0, 32767), None, None, 'inherit', None),
        Field('warmup_tasks', '[]TaskIds', (0, 32767), (0, 32767), None, None, 'inherit', None),
        Field('process_id', 'string', (0, 32767), (0, 32767), None, None, 'inherit', None),
        Field('user_endpoint', 'Endpoint', (0, 32767), (0, 32767), None, None, 'inherit', None),
        Field('client_tags', '[]KeyValue', (0, 32767), (0, 32767), None, None, 'inherit', None),
        Field('task_offsets', '[]TaskOffset', (0, 32767), (0, 32767), None, None, 'inherit', None),
        Field('task_end_offsets', '[]TaskOffset', (0, 32767), (0, 32767), None, None, 'inherit', None),
        Field('shutdown_application', 'bool', (0, 32767), None, None, None, 'inherit', False),
    )

    class CopartitionGroup(Struct):
        __slots__ = ('source_topics', 'source_topic_regex', 'repartition_source_topics')
        FIELDS = (
            Field('source_topics', '[]int16', (0, 32767), None, None, None, 'inherit', ()),
            Field('source_topic_regex', '[]int16', (0, 32767), None, None, None, 'inherit', ()),
            Field('repartition_source_topics', '[]int16', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, source_topics: list[int] = _UNSET, source_topic_regex: list[int] = _UNSET, repartition_source_topics: list[int] = _UNSET) -> None:
            self.source_topics = [] if source_topics is _UNSET else source_topics
            self.source_topic_regex = [] if source_topic_regex is _UNSET else source_topic_regex
            self.repartition_source_topics = [] if repartition_source_topics is _UNSET else repartition_source_topics

    class Endpoint(Struct):
        __slots__ = ('host', 'port')
        FIELDS = (
            Field('host', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('port', 'uint16', (0, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, host: str = '', port: int = 0) -> None:
            self.host = host
            self.port = port

    class KeyValue(Struct):
        __slots__ = ('key', 'value')
        FIELDS = (
            Field('key', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('value', 'string', (0, 32767), None, None, None, 'inherit', ''),
        )

        def __init__(self, *, key: str = '', value: str = '') -> None:
            self.key = key
            self.value = value

    class Subtopology(Struct):
        __slots__ = ('subtopology_id', 'source_topics', 'source_topic_regex', 'state_changelog_topics', 'repartition_sink_topics', 'repartition_source_topics', 'copartition_groups')
        FIELDS = (
            Field('subtopology_id', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('source_topics', '[]string', (0, 32767), None, None, None, 'inherit', ()),
            Field('source_topic_regex', '[]string', (0, 32767), None, None, None, 'inherit', ()),
            Field('state_changelog_topics', '[]TopicInfo', (0, 32767), None, None, None, 'inherit', ()),
            Field('repartition_sink_topics', '[]string', (0, 32767), None, None, None, 'inherit', ()),
            Field('repartition_source_topics', '[]TopicInfo', (0, 32767), None, None, None, 'inherit', ()),
            Field('copartition_groups', '[]CopartitionGroup', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, subtopology_id: str = '', source_topics: list[str] = _UNSET, source_topic_regex: list[str] = _UNSET, state_changelog_topics: list[StreamsGroupHeartbeatRequest.TopicInfo] = _UNSET, repartition_sink_topics: list[str] = _UNSET, repartition_source_topics: list[StreamsGroupHeartbeatRequest.TopicInfo] = _UNSET, copartition_groups: list[StreamsGroupHeartbeatRequest.CopartitionGroup] = _UNSET) -> None:
            self.subtopology_id = subtopology_id
            self.source_topics = [] if source_topics is _UNSET else source_topics
            self.source_topic_regex = [] if source_topic_regex is _UNSET else source_topic_regex
            self.state_changelog_topics = [] if state_changelog_topics is _UNSET else state_changelog_topics
            self.repartition_sink_topics = [] if repartition_sink_topics is _UNSET else repartition_sink_topics
            self.repartition_source_topics = [] if repartition_source_topics is _UNSET else repartition_source_topics
            self.copartition_groups = [] if copartition_groups is _UNSET else copartition_groups

    class TaskIds(Struct):
        __slots__ = ('subtopology_id', 'partitions')
        FIELDS = (
            Field('subtopology_id', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('partitions', '[]int32', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, subtopology_id: str = '', partitions: list[int] = _UNSET) -> None:
            self.subtopology_id = subtopology_id
            self.partitions = [] if partitions is _UNSET else partitions

    class TaskOffset(Struct):
        __slots__ = ('subtopology_id', 'partition', 'offset')
        FIELDS = (
            Field('subtopology_id', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('partition', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('offset', 'int64', (0, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, subtopology_id: str = '', partition: int = 0, offset: int = 0) -> None:
            self.subtopology_id = subtopology_id
            self.partition = partition
            self.offset = offset

    class TopicInfo(Struct):
        __slots__ = ('name', 'partitions', 'replication_factor', 'topic_configs')
        FIELDS = (
            Field('name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('partitions', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('replication_factor', 'int16', (0, 32767), None, None, None, 'inherit', 0),
            Field('topic_configs', '[]KeyValue', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, name: str = '', partitions: int = 0, replication_factor: int = 0, topic_configs: list[StreamsGroupHeartbeatRequest.KeyValue] = _UNSET) -> None:
            self.name = name
            self.partitions = partitions
            self.replication_factor = replication_factor
            self.topic_configs = [] if topic_configs is _UNSET else topic_configs

    class Topology(Struct):
        __slots__ = ('epoch', 'subtopologies')
        FIELDS = (
            Field('epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('subtopologies', '[]Subtopology', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, epoch: int = 0, subtopologies: list[StreamsGroupHeartbeatRequest.Subtopology] = _UNSET) -> None:
            self.epoch = epoch
            self.subtopologies = [] if subtopologies is _UNSET else subtopologies

    def __init__(self, *, group_id: str = '', member_id: str = '', member_epoch: int = 0, endpoint_information_epoch: int = 0, instance_id: str | None = None, rack_id: str | None = None, rebalance_timeout_ms: int = -1, topology: StreamsGroupHeartbeatRequest.Topology | None = None, active_tasks: list[StreamsGroupHeartbeatRequest.TaskIds] | None = None, standby_tasks: list[StreamsGroupHeartbeatRequest.TaskIds] | None = None, warmup_tasks: list[StreamsGroupHeartbeatRequest.TaskIds] | None = None, process_id: str | None = None, user_endpoint: StreamsGroupHeartbeatRequest.Endpoint | None = None, client_tags: list[StreamsGroupHeartbeatRequest.KeyValue] | None = None, task_offsets: list[StreamsGroupHeartbeatRequest.TaskOffset] | None = None, task_end_offsets: list[StreamsGroupHeartbeatRequest.TaskOffset] | None = None, shutdown_application: bool = False) -> None:
        self.group_id = group_id
        self.member_id = member_id
        self.member_epoch = member_epoch
        self.endpoint_information_epoch = endpoint_information_epoch
        self.instance_id = instance_id
        self.rack_id = rack_id
        self.rebalance_timeout_ms = rebalance_timeout_ms
        self.topology = topology
        self.active_tasks = active_tasks
        self.standby_tasks = standby_tasks
        self.warmup_tasks = warmup_tasks
        self.process_id = process_id
        self.user_endpoint = user_endpoint
        self.client_tags = client_tags
        self.task_offsets = task_offsets
        self.task_end_offsets = task_end_offsets
        self.shutdown_application = shutdown_application


class StreamsGroupHeartbeatResponse(Message):
    __slots__ = ('throttle_time_ms', 'error_code', 'error_message', 'member_id', 'member_epoch', 'heartbeat_interval_ms', 'acceptable_recovery_lag_legacy', 'task_offset_interval_ms', 'acceptable_recovery_lag', 'status', 'active_tasks', 'standby_tasks', 'warmup_tasks', 'topology_description_required', 'endpoint_information_epoch', 'partitions_by_user_endpoint')
    NAME = 'StreamsGroupHeartbeatResponse'
    KIND = 'response'
    API_KEY = 88
    VALID_VERSIONS = (0, 1)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('throttle_time_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        Field('error_message', 'string', (0, 32767), (0, 32767), None, None, 'inherit', None),
        Field('member_id', 'string', (0, 32767), None, None, None, 'inherit', ''),
        Field('member_epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('heartbeat_interval_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('acceptable_recovery_lag_legacy', 'int32', (0, 0), None, None, None, 'inherit', 0),
        Field('task_offset_interval_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('acceptable_recovery_lag', 'int64', (1, 32767), None, None, None, 'inherit', -1),
        Field('status', '[]Status', (0, 32767), (0, 32767), None, None, 'inherit', ()),
        Field('active_tasks', '[]TaskIds', (0, 32767), (0, 32767), None, None, 'inherit', None),
        Field('standby_tasks', '[]TaskIds', (0, 32767), (0, 32767), None, None, 'inherit', None),
        Field('warmup_tasks', '[]TaskIds', (0, 32767), (0, 32767), None, None, 'inherit', None),
        Field('topology_description_required', 'bool', (1, 32767), None, None, None, 'inherit', False),
        Field('endpoint_information_epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('partitions_by_user_endpoint', '[]EndpointToPartitions', (0, 32767), (0, 32767), None, None, 'inherit', None),
    )

    class Endpoint(Struct):
        __slots__ = ('host', 'port')
        FIELDS = (
            Field('host', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('port', 'uint16', (0, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, host: str = '', port: int = 0) -> None:
            self.host = host
            self.port = port

    class EndpointToPartitions(Struct):
        __slots__ = ('user_endpoint', 'active_partitions', 'standby_partitions')
        FIELDS = (
            Field('user_endpoint', 'Endpoint', (0, 32767), None, None, None, 'inherit', 'Endpoint'),
            Field('active_partitions', '[]TopicPartition', (0, 32767), None, None, None, 'inherit', ()),
            Field('standby_partitions', '[]TopicPartition', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, user_endpoint: StreamsGroupHeartbeatResponse.Endpoint = _UNSET, active_partitions: list[StreamsGroupHeartbeatResponse.TopicPartition] = _UNSET, standby_partitions: list[StreamsGroupHeartbeatResponse.TopicPartition] = _UNSET) -> None:
            self.user_endpoint = StreamsGroupHeartbeatResponse.Endpoint() if user_endpoint is _UNSET else user_endpoint
            self.active_partitions = [] if active_partitions is _UNSET else active_partitions
            self.standby_partitions = [] if standby_partitions is _UNSET else standby_partitions

    class Status(Struct):
        __slots__ = ('status_code', 'status_detail')
        FIELDS = (
            Field('status_code', 'int8', (0, 32767), None, None, None, 'inherit', 0),
            Field('status_detail', 'string', (0, 32767), None, None, None, 'inherit', ''),
        )

        def __init__(self, *, status_code: int = 0, status_detail: str = '') -> None:
            self.status_code = status_code
            self.status_detail = status_detail

    class TaskIds(Struct):
        __slots__ = ('subtopology_id', 'partitions')
        FIELDS = (
            Field('subtopology_id', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('partitions', '[]int32', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, subtopology_id: str = '', partitions: list[int] = _UNSET) -> None:
            self.subtopology_id = subtopology_id
            self.partitions = [] if partitions is _UNSET else partitions

    class TopicPartition(Struct):
        __slots__ = ('topic', 'partitions')
        FIELDS = (
            Field('topic', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('partitions', '[]int32', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, topic: str = '', partitions: list[int] = _UNSET) -> None:
            self.topic = topic
            self.partitions = [] if partitions is _UNSET else partitions

    def __init__(self, *, throttle_time_ms: int = 0, error_code: int = 0, error_message: str | None = None, member_id: str = '', member_epoch: int = 0, heartbeat_interval_ms: int = 0, acceptable_recovery_lag_legacy: int = 0, task_offset_interval_ms: int = 0, acceptable_recovery_lag: int = -1, status: list[StreamsGroupHeartbeatResponse.Status] | None = _UNSET, active_tasks: list[StreamsGroupHeartbeatResponse.TaskIds] | None = None, standby_tasks: list[StreamsGroupHeartbeatResponse.TaskIds] | None = None, warmup_tasks: list[StreamsGroupHeartbeatResponse.TaskIds] | None = None, topology_description_required: bool = False, endpoint_information_epoch: int = 0, partitions_by_user_endpoint: list[StreamsGroupHeartbeatResponse.EndpointToPartitions] | None = None) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.error_message = error_message
        self.member_id = member_id
        self.member_epoch = member_epoch
        self.heartbeat_interval_ms = heartbeat_interval_ms
        self.acceptable_recovery_lag_legacy = acceptable_recovery_lag_legacy
        self.task_offset_interval_ms = task_offset_interval_ms
        self.acceptable_recovery_lag = acceptable_recovery_lag
        self.status = [] if status is _UNSET else status
        self.active_tasks = active_tasks
        self.standby_tasks = standby_tasks
        self.warmup_tasks = warmup_tasks
        self.topology_description_required = topology_description_required
        self.endpoint_information_epoch = endpoint_information_epoch
        self.partitions_by_user_endpoint = partitions_by_user_endpoint


class StreamsGroupMemberMetadataKey(Message):
    __slots__ = ('group_id', 'member_id')
    NAME = 'StreamsGroupMemberMetadataKey'
    KIND = 'data'
    API_KEY = None
    VALID_VERSIONS = (19, 19)
    FLEXIBLE_VERSIONS = None
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('group_id', 'string', (19, 19), None, None, None, 'inherit', ''),
        Field('member_id', 'string', (19, 19), None, None, None, 'inherit', ''),
    )

    def __init__(self, *, group_id: str = '', member_id: str = '') -> None:
        self.group_id = group_id
        self.member_id = member_id


class StreamsGroupMemberMetadataValue(Message):
    __slots__ = ('instance_id', 'rack_id', 'client_id', 'client_host', 'rebalance_timeout_ms', 'topology_epoch', 'process_id', 'user_endpoint', 'client_tags')
    NAME = 'StreamsGroupMemberMetadataValue'
    KIND = 'data'
    API_KEY = None
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('instance_id', 'string', (0, 32767), (0, 32767), None, None, 'inherit', ''),
        Field('rack_id', 'string', (0, 32767), (0, 32767), None, None, 'inherit', ''),
        Field('client_id', 'string', (0, 32767), None, None, None, 'inherit', ''),
        Field('client_host', 'string', (0, 32767), None, None, None, 'inherit', ''),
        Field('rebalance_timeout_ms', 'int32', (0, 32767), None, None, None, 'inherit', -1),
        Field('topology_epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('process_id', 'string', (0, 32767), None, None, None, 'inherit', ''),
        Field('user_endpoint', 'Endpoint', (0, 32767), (0, 32767), None, None, 'inherit', None),
        Field('client_tags', '[]KeyValue', (0, 32767), None, None, None, 'inherit', ()),
    )

    class Endpoint(Struct):
        __slots__ = ('host', 'port')
        FIELDS = (
            Field('host', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('port', 'uint16', (0, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, host: str = '', port: int = 0) -> None:
            self.host = host
            self.port = port

    class KeyValue(Struct):
        __slots__ = ('key', 'value')
        FIELDS = (
            Field('key', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('value', 'string', (0, 32767), None, None, None, 'inherit', ''),
        )

        def __init__(self, *, key: str = '', value: str = '') -> None:
            self.key = key
            self.value = value

    def __init__(self, *, instance_id: str | None = '', rack_id: str | None = '', client_id: str = '', client_host: str = '', rebalance_timeout_ms: int = -1, topology_epoch: int = 0, process_id: str = '', user_endpoint: StreamsGroupMemberMetadataValue.Endpoint | None = None, client_tags: list[StreamsGroupMemberMetadataValue.KeyValue] = _UNSET) -> None:
        self.instance_id = instance_id
        self.rack_id = rack_id
        self.client_id = client_id
        self.client_host = client_host
        self.rebalance_timeout_ms = rebalance_timeout_ms
        self.topology_epoch = topology_epoch
        self.process_id = process_id
        self.user_endpoint = user_endpoint
        self.client_tags = [] if client_tags is _UNSET else client_tags


class StreamsGroupMetadataKey(Message):
    __slots__ = ('group_id',)
    NAME = 'StreamsGroupMetadataKey'
    KIND = 'data'
    API_KEY = None
    VALID_VERSIONS = (17, 17)
    FLEXIBLE_VERSIONS = None
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('group_id', 'string', (17, 17), None, None, None, 'inherit', ''),
    )

    def __init__(self, *, group_id: str = '') -> None:
        self.group_id = group_id


class StreamsGroupMetadataValue(Message):
    __slots__ = ('epoch', 'metadata_hash', 'validated_topology_epoch', 'last_assignment_configs', 'stored_description_topology_epoch', 'failed_description_topology_epoch')
    NAME = 'StreamsGroupMetadataValue'
    KIND = 'data'
    API_KEY = None
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('metadata_hash', 'int64', (0, 32767), None, None, None, 'inherit', 0),
        Field('validated_topology_epoch', 'int32', (0, 32767), None, 0, (0, 32767), 'inherit', -1),
        Field('last_assignment_configs', '[]LastAssignmentConfig', (0, 32767), (0, 32767), 1, (0, 32767), 'inherit', None),
        Field('stored_description_topology_epoch', 'int32', (0, 32767), None, 2, (0, 32767), 'inherit', -1),
        Field('failed_description_topology_epoch', 'int32', (0, 32767), None, 3, (0, 32767), 'inherit', -1),
    )

    class LastAssignmentConfig(Struct):
        __slots__ = ('key', 'value')
        FIELDS = (
            Field('key', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('value', 'string', (0, 32767), None, None, None, 'inherit', ''),
        )

        def __init__(self, *, key: str = '', value: str = '') -> None:
            self.key = key
            self.value = value

    def __init__(self, *, epoch: int = 0, metadata_hash: int = 0, validated_topology_epoch: int = -1, last_assignment_configs: list[StreamsGroupMetadataValue.LastAssignmentConfig] | None = None, stored_description_topology_epoch: int = -1, failed_description_topology_epoch: int = -1) -> None:
        self.epoch = epoch
        self.metadata_hash = metadata_hash
        self.validated_topology_epoch = validated_topology_epoch
        self.last_assignment_configs = last_assignment_configs
        self.stored_description_topology_epoch = stored_description_topology_epoch
        self.failed_description_topology_epoch = failed_description_topology_epoch


class StreamsGroupTargetAssignmentMemberKey(Message):
    __slots__ = ('group_id', 'member_id')
    NAME = 'StreamsGroupTargetAssignmentMemberKey'
    KIND = 'data'
    API_KEY = None
    VALID_VERSIONS = (21, 21)
    FLEXIBLE_VERSIONS = None
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('group_id', 'string', (21, 21), None, None, None, 'inherit', ''),
        Field('member_id', 'string', (21, 21), None, None, None, 'inherit', ''),
    )

    def __init__(self, *, group_id: str = '', member_id: str = '') -> None:
        self.group_id = group_id
        self.member_id = member_id


class StreamsGroupTargetAssignmentMemberValue(Message):
    __slots__ = ('active_tasks', 'standby_tasks', 'warmup_tasks')
    NAME = 'StreamsGroupTargetAssignmentMemberValue'
    KIND = 'data'
    API_KEY = None
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('active_tasks', '[]TaskIds', (0, 32767), None, None, None, 'inherit', ()),
        Field('standby_tasks', '[]TaskIds', (0, 32767), None, None, None, 'inherit', ()),
        Field('warmup_tasks', '[]TaskIds', (0, 32767), None, None, None, 'inherit', ()),
    )

    class TaskIds(Struct):
        __slots__ = ('subtopology_id', 'partitions')
        FIELDS = (
            Field('subtopology_id', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('partitions', '[]int32', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, subtopology_id: str = '', partitions: list[int] = _UNSET) -> None:
            self.subtopology_id = subtopology_id
            self.partitions = [] if partitions is _UNSET else partitions

    def __init__(self, *, active_tasks: list[StreamsGroupTargetAssignmentMemberValue.TaskIds] = _UNSET, standby_tasks: list[StreamsGroupTargetAssignmentMemberValue.TaskIds] = _UNSET, warmup_tasks: list[StreamsGroupTargetAssignmentMemberValue.TaskIds] = _UNSET) -> None:
        self.active_tasks = [] if active_tasks is _UNSET else active_tasks
        self.standby_tasks = [] if standby_tasks is _UNSET else standby_tasks
        self.warmup_tasks = [] if warmup_tasks is _UNSET else warmup_tasks


class StreamsGroupTargetAssignmentMetadataKey(Message):
    __slots__ = ('group_id',)
    NAME = 'StreamsGroupTargetAssignmentMetadataKey'
    KIND = 'data'
    API_KEY = None
    VALID_VERSIONS = (20, 20)
    FLEXIBLE_VERSIONS = None
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('group_id', 'string', (20, 20), None, None, None, 'inherit', ''),
    )

    def __init__(self, *, group_id: str = '') -> None:
        self.group_id = group_id


class StreamsGroupTargetAssignmentMetadataValue(Message):
    __slots__ = ('assignment_epoch', 'assignment_timestamp')
    NAME = 'StreamsGroupTargetAssignmentMetadataValue'
    KIND = 'data'
    API_KEY = None
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('assignment_epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('assignment_timestamp', 'int64', (0, 32767), None, 0, (0, 32767), 'inherit', 0),
    )

    def __init__(self, *, assignment_epoch: int = 0, assignment_timestamp: int = 0) -> None:
        self.assignment_epoch = assignment_epoch
        self.assignment_timestamp = assignment_timestamp


class StreamsGroupTopologyDescriptionUpdateRequest(Message):
    __slots__ = ('group_id', 'member_id', 'topology_epoch', 'topology_description')
    NAME = 'StreamsGroupTopologyDescriptionUpdateRequest'
    KIND = 'request'
    API_KEY = 93
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('group_id', 'string', (0, 32767), None, None, None, 'inherit', ''),
        Field('member_id', 'string', (0, 32767), None, None, None, 'inherit', ''),
        Field('topology_epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('topology_description', 'TopologyDescription', (0, 32767), None, None, None, 'inherit', 'TopologyDescription'),
    )

    class TopologyDescription(Struct):
        __slots__ = ('subtopologies', 'global_stores')
        FIELDS = (
            Field('subtopologies', '[]TopologyDescriptionSubtopology', (0, 32767), None, None, None, 'inherit', ()),
            Field('global_stores', '[]TopologyDescriptionGlobalStore', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, subtopologies: list[StreamsGroupTopologyDescriptionUpdateRequest.TopologyDescriptionSubtopology] = _UNSET, global_stores: list[StreamsGroupTopologyDescriptionUpdateRequest.TopologyDescriptionGlobalStore] = _UNSET) -> None:
            self.subtopologies = [] if subtopologies is _UNSET else subtopologies
            self.global_stores = [] if global_stores is _UNSET else global_stores

    class TopologyDescriptionGlobalStore(Struct):
        __slots__ = ('source', 'processor')
        FIELDS = (
            Field('source', 'TopologyDescriptionNode', (0, 32767), None, None, None, 'inherit', 'TopologyDescriptionNode'),
            Field('processor', 'TopologyDescriptionNode', (0, 32767), None, None, None, 'inherit', 'TopologyDescriptionNode'),
        )

        def __init__(self, *, source: StreamsGroupTopologyDescriptionUpdateRequest.TopologyDescriptionNode = _UNSET, processor: StreamsGroupTopologyDescriptionUpdateRequest.TopologyDescriptionNode = _UNSET) -> None:
            self.source = StreamsGroupTopologyDescriptionUpdateRequest.TopologyDescriptionNode() if source is _UNSET else source
            self.processor = StreamsGroupTopologyDescriptionUpdateRequest.TopologyDescriptionNode() if processor is _UNSET else processor

    class TopologyDescriptionNode(Struct):
        __slots__ = ('name', 'node_type', 'source_topics', 'sink_topic', 'stores', 'successors')
        FIELDS = (
            Field('name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('node_type', 'int8', (0, 32767), None, None, None, 'inherit', 0),
            Field('source_topics', '[]string', (0, 32767), None, None, None, 'inherit', ()),
            Field('sink_topic', 'string', (0, 32767), (0, 32767), None, None, 'inherit', None),
            Field('stores', '[]string', (0, 32767), None, None, None, 'inherit', ()),
            Field('successors', '[]string', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, name: str = '', node_type: int = 0, source_topics: list[str] = _UNSET, sink_topic: str | None = None, stores: list[str] = _UNSET, successors: list[str] = _UNSET) -> None:
            self.name = name
            self.node_type = node_type
            self.source_topics = [] if source_topics is _UNSET else source_topics
            self.sink_topic = sink_topic
            self.stores = [] if stores is _UNSET else stores
            self.successors = [] if successors is _UNSET else successors

    class TopologyDescriptionSubtopology(Struct):
        __slots__ = ('subtopology_id', 'nodes')
        FIELDS = (
            Field('subtopology_id', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('nodes', '[]TopologyDescriptionNode', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, subtopology_id: str = '', nodes: list[StreamsGroupTopologyDescriptionUpdateRequest.TopologyDescriptionNode] = _UNSET) -> None:
            self.subtopology_id = subtopology_id
            self.nodes = [] if nodes is _UNSET else nodes

    def __init__(self, *, group_id: str = '', member_id: str = '', topology_epoch: int = 0, topology_description: StreamsGroupTopologyDescriptionUpdateRequest.TopologyDescription = _UNSET) -> None:
        self.group_id = group_id
        self.member_id = member_id
        self.topology_epoch = topology_epoch
        self.topology_description = StreamsGroupTopologyDescriptionUpdateRequest.TopologyDescription() if topology_description is _UNSET else topology_description


class StreamsGroupTopologyDescriptionUpdateResponse(Message):
    __slots__ = ('throttle_time_ms', 'error_code', 'error_message')
    NAME = 'StreamsGroupTopologyDescriptionUpdateResponse'
    KIND = 'response'
    API_KEY = 93
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('throttle_time_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        Field('error_message', 'string', (0, 32767), (0, 32767), None, None, 'inherit', None),
    )

    def __init__(self, *, throttle_time_ms: int = 0, error_code: int = 0, error_message: str | None = None) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.error_message = error_message


class StreamsGroupTopologyKey(Message):
    __slots__ = ('group_id',)
    NAME = 'StreamsGroupTopologyKey'
    KIND = 'data'
    API_KEY = None
    VALID_VERSIONS = (23, 23)
    FLEXIBLE_VERSIONS = None
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('group_id', 'string', (23, 23), None, None, None, 'inherit', ''),
    )

    def __init__(self, *, group_id: str = '') -> None:
        self.group_id = group_id


class StreamsGroupTopologyValue(Message):
    __slots__ = ('epoch', 'subtopologies')
    NAME = 'StreamsGroupTopologyValue'
    KIND = 'data'
    API_KEY = None
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('subtopologies', '[]Subtopology', (0, 32767), None, None, None, 'inherit', ()),
    )

    class CopartitionGroup(Struct):
        __slots__ = ('source_topics', 'source_topic_regex', 'repartition_source_topics')
        FIELDS = (
            Field('source_topics', '[]int16', (0, 32767), None, None, None, 'inherit', ()),
            Field('source_topic_regex', '[]int16', (0, 32767), None, None, None, 'inherit', ()),
            Field('repartition_source_topics', '[]int16', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, source_topics: list[int] = _UNSET, source_topic_regex: list[int] = _UNSET, repartition_source_topics: list[int] = _UNSET) -> None:
            self.source_topics = [] if source_topics is _UNSET else source_topics
            self.source_topic_regex = [] if source_topic_regex is _UNSET else source_topic_regex
            self.repartition_source_topics = [] if repartition_source_topics is _UNSET else repartition_source_topics

    class Subtopology(Struct):
        __slots__ = ('subtopology_id', 'source_topics', 'source_topic_regex', 'state_changelog_topics', 'repartition_sink_topics', 'repartition_source_topics', 'copartition_groups')
        FIELDS = (
            Field('subtopology_id', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('source_topics', '[]string', (0, 32767), None, None, None, 'inherit', ()),
            Field('source_topic_regex', '[]string', (0, 32767), None, None, None, 'inherit', ()),
            Field('state_changelog_topics', '[]TopicInfo', (0, 32767), None, None, None, 'inherit', ()),
            Field('repartition_sink_topics', '[]string', (0, 32767), None, None, None, 'inherit', ()),
            Field('repartition_source_topics', '[]TopicInfo', (0, 32767), None, None, None, 'inherit', ()),
            Field('copartition_groups', '[]CopartitionGroup', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, subtopology_id: str = '', source_topics: list[str] = _UNSET, source_topic_regex: list[str] = _UNSET, state_changelog_topics: list[StreamsGroupTopologyValue.TopicInfo] = _UNSET, repartition_sink_topics: list[str] = _UNSET, repartition_source_topics: list[StreamsGroupTopologyValue.TopicInfo] = _UNSET, copartition_groups: list[StreamsGroupTopologyValue.CopartitionGroup] = _UNSET) -> None:
            self.subtopology_id = subtopology_id
            self.source_topics = [] if source_topics is _UNSET else source_topics
            self.source_topic_regex = [] if source_topic_regex is _UNSET else source_topic_regex
            self.state_changelog_topics = [] if state_changelog_topics is _UNSET else state_changelog_topics
            self.repartition_sink_topics = [] if repartition_sink_topics is _UNSET else repartition_sink_topics
            self.repartition_source_topics = [] if repartition_source_topics is _UNSET else repartition_source_topics
            self.copartition_groups = [] if copartition_groups is _UNSET else copartition_groups

    class TopicConfig(Struct):
        __slots__ = ('key', 'value')
        FIELDS = (
            Field('key', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('value', 'string', (0, 32767), None, None, None, 'inherit', ''),
        )

        def __init__(self, *, key: str = '', value: str = '') -> None:
            self.key = key
            self.value = value

    class TopicInfo(Struct):
        __slots__ = ('name', 'partitions', 'replication_factor', 'topic_configs')
        FIELDS = (
            Field('name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('partitions', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('replication_factor', 'int16', (0, 32767), None, None, None, 'inherit', 0),
            Field('topic_configs', '[]TopicConfig', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, name: str = '', partitions: int = 0, replication_factor: int = 0, topic_configs: list[StreamsGroupTopologyValue.TopicConfig] = _UNSET) -> None:
            self.name = name
            self.partitions = partitions
            self.replication_factor = replication_factor
            self.topic_configs = [] if topic_configs is _UNSET else topic_configs

    def __init__(self, *, epoch: int = 0, subtopologies: list[StreamsGroupTopologyValue.Subtopology] = _UNSET) -> None:
        self.epoch = epoch
        self.subtopologies = [] if subtopologies is _UNSET else subtopologies


class SyncGroupRequest(Message):
    __slots__ = ('group_id', 'generation_id', 'member_id', 'group_instance_id', 'protocol_type', 'protocol_name', 'assignments')
    NAME = 'SyncGroupRequest'
    KIND = 'request'
    API_KEY = 14
    VALID_VERSIONS = (0, 5)
    FLEXIBLE_VERSIONS = (4, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('group_id', 'string', (0, 32767), None, None, None, 'inherit', ''),
        Field('generation_id', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('member_id', 'string', (0, 32767), None, None, None, 'inherit', ''),
        Field('group_instance_id', 'string', (3, 32767), (3, 32767), None, None, 'inherit', None),
        Field('protocol_type', 'string', (5, 32767), (5, 32767), None, None, 'inherit', None),
        Field('protocol_name', 'string', (5, 32767), (5, 32767), None, None, 'inherit', None),
        Field('assignments', '[]SyncGroupRequestAssignment', (0, 32767), None, None, None, 'inherit', ()),
    )

    class SyncGroupRequestAssignment(Struct):
        __slots__ = ('member_id', 'assignment')
        FIELDS = (
            Field('member_id', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('assignment', 'bytes', (0, 32767), None, None, None, 'inherit', b''),
        )

        def __init__(self, *, member_id: str = '', assignment: bytes = b'') -> None:
            self.member_id = member_id
            self.assignment = assignment

    def __init__(self, *, group_id: str = '', generation_id: int = 0, member_id: str = '', group_instance_id: str | None = None, protocol_type: str | None = None, protocol_name: str | None = None, assignments: list[SyncGroupRequest.SyncGroupRequestAssignment] = _UNSET) -> None:
        self.group_id = group_id
        self.generation_id = generation_id
        self.member_id = member_id
        self.group_instance_id = group_instance_id
        self.protocol_type = protocol_type
        self.protocol_name = protocol_name
        self.assignments = [] if assignments is _UNSET else assignments


class SyncGroupResponse(Message):
    __slots__ = ('throttle_time_ms', 'error_code', 'protocol_type', 'protocol_name', 'assignment')
    NAME = 'SyncGroupResponse'
    KIND = 'response'
    API_KEY = 14
    VALID_VERSIONS = (0, 5)
    FLEXIBLE_VERSIONS = (4, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('throttle_time_ms', 'int32', (1, 32767), None, None, None, 'inherit', 0),
        Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        Field('protocol_type', 'string', (5, 32767), (5, 32767), None, None, 'inherit', None),
        Field('protocol_name', 'string', (5, 32767), (5, 32767), None, None, 'inherit', None),
        Field('assignment', 'bytes', (0, 32767), None, None, None, 'inherit', b''),
    )

    def __init__(self, *, throttle_time_ms: int = 0, error_code: int = 0, protocol_type: str | None = None, protocol_name: str | None = None, assignment: bytes = b'') -> None:
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.protocol_type = protocol_type
        self.protocol_name = protocol_name
        self.assignment = assignment


class TopicRecord(Message):
    __slots__ = ('name', 'topic_id')
    NAME = 'TopicRecord'
    KIND = 'metadata'
    API_KEY = 2
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('name', 'string', (0, 32767), None, None, None, 'inherit', ''),
        Field('topic_id', 'uuid', (0, 32767), None, None, None, 'inherit', ZERO_UUID),
    )

    def __init__(self, *, name: str = '', topic_id: bytes = ZERO_UUID) -> None:
        self.name = name
        self.topic_id = topic_id


class TransactionLogKey(Message):
    __slots__ = ('transactional_id',)
    NAME = 'TransactionLogKey'
    KIND = 'data'
    API_KEY = None
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = None
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('transactional_id', 'string', (0, 0), None, None, None, 'inherit', ''),
    )

    def __init__(self, *, transactional_id: str = '') -> None:
        self.transactional_id = transactional_id


class TransactionLogValue(Message):
    __slots__ = ('producer_id', 'previous_producer_id', 'next_producer_id', 'producer_epoch', 'next_producer_epoch', 'transaction_timeout_ms', 'transaction_status', 'transaction_partitions', 'transaction_last_update_timestamp_ms', 'transaction_start_timestamp_ms', 'client_transaction_version')
    NAME = 'TransactionLogValue'
    KIND = 'data'
    API_KEY = None
    VALID_VERSIONS = (0, 1)
    FLEXIBLE_VERSIONS = (1, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('producer_id', 'int64', (0, 32767), None, None, None, 'inherit', 0),
        Field('previous_producer_id', 'int64', (1, 32767), None, 0, (1, 32767), 'inherit', -1),
        Field('next_producer_id', 'int64', (1, 32767), None, 1, (1, 32767), 'inherit', -1),
        Field('producer_epoch', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        Field('next_producer_epoch', 'int16', (1, 32767), None, 3, (1, 32767), 'inherit', -1),
        Field('transaction_timeout_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('transaction_status', 'int8', (0, 32767), None, None, None, 'inherit', 0),
        Field('transaction_partitions', '[]PartitionsSchema', (0, 32767), (0, 32767), None, None, 'inherit', ()),
        Field('transaction_last_update_timestamp_ms', 'int64', (0, 32767), None, None, None, 'inherit', 0),
        Field('transaction_start_timestamp_ms', 'int64', (0, 32767), None, None, None, 'inherit', 0),
        Field('client_transaction_version', 'int16', (1, 32767), None, 2, (1, 32767), 'inherit', 0),
    )

    class PartitionsSchema(Struct):
        __slots__ = ('topic', 'partition_ids')
        FIELDS = (
            Field('topic', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('partition_ids', '[]int32', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, topic: str = '', partition_ids: list[int] = _UNSET) -> None:
            self.topic = topic
            self.partition_ids = [] if partition_ids is _UNSET else partition_ids

    def __init__(self, *, producer_id: int = 0, previous_producer_id: int = -1, next_producer_id: int = -1, producer_epoch: int = 0, next_producer_epoch: int = -1, transaction_timeout_ms: int = 0, transaction_status: int = 0, transaction_partitions: list[TransactionLogValue.PartitionsSchema] | None = _UNSET, transaction_last_update_timestamp_ms: int = 0, transaction_start_timestamp_ms: int = 0, client_transaction_version: int = 0) -> None:
        self.producer_id = producer_id
        self.previous_producer_id = previous_producer_id
        self.next_producer_id = next_producer_id
        self.producer_epoch = producer_epoch
        self.next_producer_epoch = next_producer_epoch
        self.transaction_timeout_ms = transaction_timeout_ms
        self.transaction_status = transaction_status
        self.transaction_partitions = [] if transaction_partitions is _UNSET else transaction_partitions
        self.transaction_last_update_timestamp_ms = transaction_last_update_timestamp_ms
        self.transaction_start_timestamp_ms = transaction_start_timestamp_ms
        self.client_transaction_version = client_transaction_version


class TxnOffsetCommitRequest(Message):
    __slots__ = ('transactional_id', 'group_id', 'producer_id', 'producer_epoch', 'generation_id', 'member_id', 'group_instance_id', 'topics')
    NAME = 'TxnOffsetCommitRequest'
    KIND = 'request'
    API_KEY = 28
    VALID_VERSIONS = (0, 6)
    FLEXIBLE_VERSIONS = (3, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('transactional_id', 'string', (0, 32767), None, None, None, 'inherit', ''),
        Field('group_id', 'string', (0, 32767), None, None, None, 'inherit', ''),
        Field('producer_id', 'int64', (0, 32767), None, None, None, 'inherit', 0),
        Field('producer_epoch', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        Field('generation_id', 'int32', (3, 32767), None, None, None, 'inherit', -1),
        Field('member_id', 'string', (3, 32767), None, None, None, 'inherit', ''),
        Field('group_instance_id', 'string', (3, 32767), (3, 32767), None, None, 'inherit', None),
        Field('topics', '[]TxnOffsetCommitRequestTopic', (0, 32767), None, None, None, 'inherit', ()),
    )

    class TxnOffsetCommitRequestPartition(Struct):
        __slots__ = ('partition_index', 'committed_offset', 'committed_leader_epoch', 'committed_metadata')
        FIELDS = (
            Field('partition_index', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('committed_offset', 'int64', (0, 32767), None, None, None, 'inherit', 0),
            Field('committed_leader_epoch', 'int32', (2, 32767), None, None, None, 'inherit', -1),
            Field('committed_metadata', 'string', (0, 32767), (0, 32767), None, None, 'inherit', ''),
        )

        def __init__(self, *, partition_index: int = 0, committed_offset: int = 0, committed_leader_epoch: int = -1, committed_metadata: str | None = '') -> None:
            self.partition_index = partition_index
            self.committed_offset = committed_offset
            self.committed_leader_epoch = committed_leader_epoch
            self.committed_metadata = committed_metadata

    class TxnOffsetCommitRequestTopic(Struct):
        __slots__ = ('name', 'topic_id', 'partitions')
        FIELDS = (
            Field('name', 'string', (0, 5), None, None, None, 'inherit', ''),
            Field('topic_id', 'uuid', (6, 32767), None, None, None, 'inherit', ZERO_UUID),
            Field('partitions', '[]TxnOffsetCommitRequestPartition', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, name: str = '', topic_id: bytes = ZERO_UUID, partitions: list[TxnOffsetCommitRequest.TxnOffsetCommitRequestPartition] = _UNSET) -> None:
            self.name = name
            self.topic_id = topic_id
            self.partitions = [] if partitions is _UNSET else partitions

    def __init__(self, *, transactional_id: str = '', group_id: str = '', producer_id: int = 0, producer_epoch: int = 0, generation_id: int = -1, member_id: str = '', group_instance_id: str | None = None, topics: list[TxnOffsetCommitRequest.TxnOffsetCommitRequestTopic] = _UNSET) -> None:
        self.transactional_id = transactional_id
        self.group_id = group_id
        self.producer_id = producer_id
        self.producer_epoch = producer_epoch
        self.generation_id = generation_id
        self.member_id = member_id
        self.group_instance_id = group_instance_id
        self.topics = [] if topics is _UNSET else topics


class TxnOffsetCommitResponse(Message):
    __slots__ = ('throttle_time_ms', 'topics')
    NAME = 'TxnOffsetCommitResponse'
    KIND = 'response'
    API_KEY = 28
    VALID_VERSIONS = (0, 6)
    FLEXIBLE_VERSIONS = (3, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('throttle_time_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('topics', '[]TxnOffsetCommitResponseTopic', (0, 32767), None, None, None, 'inherit', ()),
    )

    class TxnOffsetCommitResponsePartition(Struct):
        __slots__ = ('partition_index', 'error_code')
        FIELDS = (
            Field('partition_index', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, partition_index: int = 0, error_code: int = 0) -> None:
            self.partition_index = partition_index
            self.error_code = error_code

    class TxnOffsetCommitResponseTopic(Struct):
        __slots__ = ('name', 'topic_id', 'partitions')
        FIELDS = (
            Field('name', 'string', (0, 5), None, None, None, 'inherit', ''),
            Field('topic_id', 'uuid', (6, 32767), None, None, None, 'inherit', ZERO_UUID),
            Field('partitions', '[]TxnOffsetCommitResponsePartition', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, name: str = '', topic_id: bytes = ZERO_UUID, partitions: list[TxnOffsetCommitResponse.TxnOffsetCommitResponsePartition] = _UNSET) -> None:
            self.name = name
            self.topic_id = topic_id
            self.partitions = [] if partitions is _UNSET else partitions

    def __init__(self, *, throttle_time_ms: int = 0, topics: list[TxnOffsetCommitResponse.TxnOffsetCommitResponseTopic] = _UNSET) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.topics = [] if topics is _UNSET else topics


class UnfenceBrokerRecord(Message):
    __slots__ = ('id', 'epoch')
    NAME = 'UnfenceBrokerRecord'
    KIND = 'metadata'
    API_KEY = 8
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('id', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('epoch', 'int64', (0, 32767), None, None, None, 'inherit', 0),
    )

    def __init__(self, *, id: int = 0, epoch: int = 0) -> None:
        self.id = id
        self.epoch = epoch


class UnregisterBrokerRecord(Message):
    __slots__ = ('broker_id', 'broker_epoch')
    NAME = 'UnregisterBrokerRecord'
    KIND = 'metadata'
    API_KEY = 1
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('broker_id', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('broker_epoch', 'int64', (0, 32767), None, None, None, 'inherit', 0),
    )

    def __init__(self, *, broker_id: int = 0, broker_epoch: int = 0) -> None:
        self.broker_id = broker_id
        self.broker_epoch = broker_epoch


class UnregisterBrokerRequest(Message):
    __slots__ = ('broker_id',)
    NAME = 'UnregisterBrokerRequest'
    KIND = 'request'
    API_KEY = 64
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('broker_id', 'int32', (0, 32767), None, None, None, 'inherit', 0),
    )

    def __init__(self, *, broker_id: int = 0) -> None:
        self.broker_id = broker_id


class UnregisterBrokerResponse(Message):
    __slots__ = ('throttle_time_ms', 'error_code', 'error_message')
    NAME = 'UnregisterBrokerResponse'
    KIND = 'response'
    API_KEY = 64
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('throttle_time_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        Field('error_message', 'string', (0, 32767), (0, 32767), None, None, 'inherit', ''),
    )

    def __init__(self, *, throttle_time_ms: int = 0, error_code: int = 0, error_message: str | None = '') -> None:
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.error_message = error_message


class UnregisterControllerRecord(Message):
    __slots__ = ('controller_id',)
    NAME = 'UnregisterControllerRecord'
    KIND = 'metadata'
    API_KEY = 29
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('controller_id', 'int32', (0, 32767), None, None, None, 'inherit', 0),
    )

    def __init__(self, *, controller_id: int = 0) -> None:
        self.controller_id = controller_id


class UnregisterControllerRequest(Message):
    __slots__ = ('controller_id',)
    NAME = 'UnregisterControllerRequest'
    KIND = 'request'
    API_KEY = 94
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('controller_id', 'int32', (0, 32767), None, None, None, 'inherit', 0),
    )

    def __init__(self, *, controller_id: int = 0) -> None:
        self.controller_id = controller_id


class UnregisterControllerResponse(Message):
    __slots__ = ('throttle_time_ms', 'error_code', 'error_message')
    NAME = 'UnregisterControllerResponse'
    KIND = 'response'
    API_KEY = 94
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('throttle_time_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        Field('error_message', 'string', (0, 32767), (0, 32767), None, None, 'inherit', ''),
    )

    def __init__(self, *, throttle_time_ms: int = 0, error_code: int = 0, error_message: str | None = '') -> None:
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.error_message = error_message


class UpdateFeaturesRequest(Message):
    __slots__ = ('timeout_ms', 'feature_updates', 'validate_only')
    NAME = 'UpdateFeaturesRequest'
    KIND = 'request'
    API_KEY = 57
    VALID_VERSIONS = (0, 2)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('timeout_ms', 'int32', (0, 32767), None, None, None, 'inherit', 60000),
        Field('feature_updates', '[]FeatureUpdateKey', (0, 32767), None, None, None, 'inherit', ()),
        Field('validate_only', 'bool', (1, 32767), None, None, None, 'inherit', False),
    )

    class FeatureUpdateKey(Struct):
        __slots__ = ('feature', 'max_version_level', 'allow_downgrade', 'upgrade_type')
        FIELDS = (
            Field('feature', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('max_version_level', 'int16', (0, 32767), None, None, None, 'inherit', 0),
            Field('allow_downgrade', 'bool', (0, 0), None, None, None, 'inherit', False),
            Field('upgrade_type', 'int8', (1, 32767), None, None, None, 'inherit', 1),
        )

        def __init__(self, *, feature: str = '', max_version_level: int = 0, allow_downgrade: bool = False, upgrade_type: int = 1) -> None:
            self.feature = feature
            self.max_version_level = max_version_level
            self.allow_downgrade = allow_downgrade
            self.upgrade_type = upgrade_type

    def __init__(self, *, timeout_ms: int = 60000, feature_updates: list[UpdateFeaturesRequest.FeatureUpdateKey] = _UNSET, validate_only: bool = False) -> None:
        self.timeout_ms = timeout_ms
        self.feature_updates = [] if feature_updates is _UNSET else feature_updates
        self.validate_only = validate_only


class UpdateFeaturesResponse(Message):
    __slots__ = ('throttle_time_ms', 'error_code', 'error_message', 'results')
    NAME = 'UpdateFeaturesResponse'
    KIND = 'response'
    API_KEY = 57
    VALID_VERSIONS = (0, 2)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('throttle_time_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        Field('error_message', 'string', (0, 32767), (0, 32767), None, None, 'inherit', ''),
        Field('results', '[]UpdatableFeatureResult', (0, 1), None, None, None, 'inherit', ()),
    )

    class UpdatableFeatureResult(Struct):
        __slots__ = ('feature', 'error_code', 'error_message')
        FIELDS = (
            Field('feature', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
            Field('error_message', 'string', (0, 32767), (0, 32767), None, None, 'inherit', ''),
        )

        def __init__(self, *, feature: str = '', error_code: int = 0, error_message: str | None = '') -> None:
            self.feature = feature
            self.error_code = error_code
            self.error_message = error_message

    def __init__(self, *, throttle_time_ms: int = 0, error_code: int = 0, error_message: str | None = '', results: list[UpdateFeaturesResponse.UpdatableFeatureResult] = _UNSET) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.error_message = error_message
        self.results = [] if results is _UNSET else results


class UpdateMetadataRequest(Message):
    __slots__ = ('controller_id', 'is_k_raft_controller', 'type', 'controller_epoch', 'broker_epoch', 'ungrouped_partition_states', 'topic_states', 'live_brokers')
    NAME = 'UpdateMetadataRequest'
    KIND = 'request'
    API_KEY = 6
    VALID_VERSIONS = (0, 8)
    FLEXIBLE_VERSIONS = (6, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('controller_id', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('is_k_raft_controller', 'bool', (8, 32767), None, None, None, 'inherit', False),
        Field('type', 'int8', (8, 32767), None, 0, (8, 32767), 'inherit', 0),
        Field('controller_epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('broker_epoch', 'int64', (5, 32767), None, None, None, 'inherit', -1),
        Field('ungrouped_partition_states', '[]UpdateMetadataPartitionState', (0, 4), None, None, None, 'inherit', ()),
        Field('topic_states', '[]UpdateMetadataTopicState', (5, 32767), None, None, None, 'inherit', ()),
        Field('live_brokers', '[]UpdateMetadataBroker', (0, 32767), None, None, None, 'inherit', ()),
    )

    class UpdateMetadataBroker(Struct):
        __slots__ = ('id', 'v0_host', 'v0_port', 'endpoints', 'rack')
        FIELDS = (
            Field('id', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('v0_host', 'string', (0, 0), None, None, None, 'inherit', ''),
            Field('v0_port', 'int32', (0, 0), None, None, None, 'inherit', 0),
            Field('endpoints', '[]UpdateMetadataEndpoint', (1, 32767), None, None, None, 'inherit', ()),
            Field('rack', 'string', (2, 32767), (0, 32767), None, None, 'inherit', ''),
        )

        def __init__(self, *, id: int = 0, v0_host: str = '', v0_port: int = 0, endpoints: list[UpdateMetadataRequest.UpdateMetadataEndpoint] = _UNSET, rack: str | None = '') -> None:
            self.id = id
            self.v0_host = v0_host
            self.v0_port = v0_port
            self.endpoints = [] if endpoints is _UNSET else endpoints
            self.rack = rack

    class UpdateMetadataEndpoint(Struct):
        __slots__ = ('port', 'host', 'listener', 'security_protocol')
        FIELDS = (
            Field('port', 'int32', (1, 32767), None, None, None, 'inherit', 0),
            Field('host', 'string', (1, 32767), None, None, None, 'inherit', ''),
            Field('listener', 'string', (3, 32767), None, None, None, 'inherit', ''),
            Field('security_protocol', 'int16', (1, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, port: int = 0, host: str = '', listener: str = '', security_protocol: int = 0) -> None:
            self.port = port
            self.host = host
            self.listener = listener
            self.security_protocol = security_protocol

    class UpdateMetadataPartitionState(Struct):
        __slots__ = ('topic_name', 'partition_index', 'controller_epoch', 'leader', 'leader_epoch', 'isr', 'zk_version', 'replicas', 'offline_replicas')
        FIELDS = (
            Field('topic_name', 'string', (0, 4), None, None, None, 'inherit', ''),
            Field('partition_index', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('controller_epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('leader', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('leader_epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('isr', '[]int32', (0, 32767), None, None, None, 'inherit', ()),
            Field('zk_version', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('replicas', '[]int32', (0, 32767), None, None, None, 'inherit', ()),
            Field('offline_replicas', '[]int32', (4, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, topic_name: str = '', partition_index: int = 0, controller_epoch: int = 0, leader: int = 0, leader_epoch: int = 0, isr: list[int] = _UNSET, zk_version: int = 0, replicas: list[int] = _UNSET, offline_replicas: list[int] = _UNSET) -> None:
            self.topic_name = topic_name
            self.partition_index = partition_index
            self.controller_epoch = controller_epoch
            self.leader = leader
            self.leader_epoch = leader_epoch
            self.isr = [] if isr is _UNSET else isr
            self.zk_version = zk_version
            self.replicas = [] if replicas is _UNSET else replicas
            self.offline_replicas = [] if offline_replicas is _UNSET else offline_replicas

    class UpdateMetadataTopicState(Struct):
        __slots__ = ('topic_name', 'topic_id', 'partition_states')
        FIELDS = (
            Field('topic_name', 'string', (5, 32767), None, None, None, 'inherit', ''),
            Field('topic_id', 'uuid', (7, 32767), None, None, None, 'inherit', ZERO_UUID),
            Field('partition_states', '[]UpdateMetadataPartitionState', (5, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, topic_name: str = '', topic_id: bytes = ZERO_UUID, partition_states: list[UpdateMetadataRequest.UpdateMetadataPartitionState] = _UNSET) -> None:
            self.topic_name = topic_name
            self.topic_id = topic_id
            self.partition_states = [] if partition_states is _UNSET else partition_states

    def __init__(self, *, controller_id: int = 0, is_k_raft_controller: bool = False, type: int = 0, controller_epoch: int = 0, broker_epoch: int = -1, ungrouped_partition_states: list[UpdateMetadataRequest.UpdateMetadataPartitionState] = _UNSET, topic_states: list[UpdateMetadataRequest.UpdateMetadataTopicState] = _UNSET, live_brokers: list[UpdateMetadataRequest.UpdateMetadataBroker] = _UNSET) -> None:
        self.controller_id = controller_id
        self.is_k_raft_controller = is_k_raft_controller
        self.type = type
        self.controller_epoch = controller_epoch
        self.broker_epoch = broker_epoch
        self.ungrouped_partition_states = [] if ungrouped_partition_states is _UNSET else ungrouped_partition_states
        self.topic_states = [] if topic_states is _UNSET else topic_states
        self.live_brokers = [] if live_brokers is _UNSET else live_brokers


class UpdateMetadataResponse(Message):
    __slots__ = ('error_code',)
    NAME = 'UpdateMetadataResponse'
    KIND = 'response'
    API_KEY = 6
    VALID_VERSIONS = (0, 8)
    FLEXIBLE_VERSIONS = (6, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
    )

    def __init__(self, *, error_code: int = 0) -> None:
        self.error_code = error_code


class UpdateRaftVoterRequest(Message):
    __slots__ = ('cluster_id', 'current_leader_epoch', 'voter_id', 'voter_directory_id', 'listeners', 'k_raft_version_feature')
    NAME = 'UpdateRaftVoterRequest'
    KIND = 'request'
    API_KEY = 82
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('cluster_id', 'string', (0, 32767), (0, 32767), None, None, 'inherit', ''),
        Field('current_leader_epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('voter_id', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('voter_directory_id', 'uuid', (0, 32767), None, None, None, 'inherit', ZERO_UUID),
        Field('listeners', '[]Listener', (0, 32767), None, None, None, 'inherit', ()),
        Field('k_raft_version_feature', 'KRaftVersionFeature', (0, 32767), None, None, None, 'inherit', 'KRaftVersionFeature'),
    )

    class KRaftVersionFeature(Struct):
        __slots__ = ('min_supported_version', 'max_supported_version')
        FIELDS = (
            Field('min_supported_version', 'int16', (0, 32767), None, None, None, 'inherit', 0),
            Field('max_supported_version', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, min_supported_version: int = 0, max_supported_version: int = 0) -> None:
            self.min_supported_version = min_supported_version
            self.max_supported_version = max_supported_version

    class Listener(Struct):
        __slots__ = ('name', 'host', 'port')
        FIELDS = (
            Field('name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('host', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('port', 'uint16', (0, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, name: str = '', host: str = '', port: int = 0) -> None:
            self.name = name
            self.host = host
            self.port = port

    def __init__(self, *, cluster_id: str | None = '', current_leader_epoch: int = 0, voter_id: int = 0, voter_directory_id: bytes = ZERO_UUID, listeners: list[UpdateRaftVoterRequest.Listener] = _UNSET, k_raft_version_feature: UpdateRaftVoterRequest.KRaftVersionFeature = _UNSET) -> None:
        self.cluster_id = cluster_id
        self.current_leader_epoch = current_leader_epoch
        self.voter_id = voter_id
        self.voter_directory_id = voter_directory_id
        self.listeners = [] if listeners is _UNSET else listeners
        self.k_raft_version_feature = UpdateRaftVoterRequest.KRaftVersionFeature() if k_raft_version_feature is _UNSET else k_raft_version_feature


class UpdateRaftVoterResponse(Message):
    __slots__ = ('throttle_time_ms', 'error_code', 'current_leader')
    NAME = 'UpdateRaftVoterResponse'
    KIND = 'response'
    API_KEY = 82
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('throttle_time_ms', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        Field('current_leader', 'CurrentLeader', (0, 32767), None, 0, (0, 32767), 'inherit', 'CurrentLeader'),
    )

    class CurrentLeader(Struct):
        __slots__ = ('leader_id', 'leader_epoch', 'host', 'port')
        FIELDS = (
            Field('leader_id', 'int32', (0, 32767), None, None, None, 'inherit', -1),
            Field('leader_epoch', 'int32', (0, 32767), None, None, None, 'inherit', -1),
            Field('host', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('port', 'int32', (0, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, leader_id: int = -1, leader_epoch: int = -1, host: str = '', port: int = 0) -> None:
            self.leader_id = leader_id
            self.leader_epoch = leader_epoch
            self.host = host
            self.port = port

    def __init__(self, *, throttle_time_ms: int = 0, error_code: int = 0, current_leader: UpdateRaftVoterResponse.CurrentLeader = _UNSET) -> None:
        self.throttle_time_ms = throttle_time_ms
        self.error_code = error_code
        self.current_leader = UpdateRaftVoterResponse.CurrentLeader() if current_leader is _UNSET else current_leader


class UserScramCredentialRecord(Message):
    __slots__ = ('name', 'mechanism', 'salt', 'stored_key', 'server_key', 'iterations')
    NAME = 'UserScramCredentialRecord'
    KIND = 'metadata'
    API_KEY = 11
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('name', 'string', (0, 32767), None, None, None, 'inherit', ''),
        Field('mechanism', 'int8', (0, 32767), None, None, None, 'inherit', 0),
        Field('salt', 'bytes', (0, 32767), None, None, None, 'inherit', b''),
        Field('stored_key', 'bytes', (0, 32767), None, None, None, 'inherit', b''),
        Field('server_key', 'bytes', (0, 32767), None, None, None, 'inherit', b''),
        Field('iterations', 'int32', (0, 32767), None, None, None, 'inherit', 0),
    )

    def __init__(self, *, name: str = '', mechanism: int = 0, salt: bytes = b'', stored_key: bytes = b'', server_key: bytes = b'', iterations: int = 0) -> None:
        self.name = name
        self.mechanism = mechanism
        self.salt = salt
        self.stored_key = stored_key
        self.server_key = server_key
        self.iterations = iterations


class VoteRequest(Message):
    __slots__ = ('cluster_id', 'voter_id', 'topics')
    NAME = 'VoteRequest'
    KIND = 'request'
    API_KEY = 52
    VALID_VERSIONS = (0, 2)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('cluster_id', 'string', (0, 32767), (0, 32767), None, None, 'inherit', None),
        Field('voter_id', 'int32', (1, 32767), None, None, None, 'inherit', -1),
        Field('topics', '[]TopicData', (0, 32767), None, None, None, 'inherit', ()),
    )

    class PartitionData(Struct):
        __slots__ = ('partition_index', 'replica_epoch', 'replica_id', 'replica_directory_id', 'voter_directory_id', 'last_offset_epoch', 'last_offset', 'pre_vote')
        FIELDS = (
            Field('partition_index', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('replica_epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('replica_id', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('replica_directory_id', 'uuid', (1, 32767), None, None, None, 'inherit', ZERO_UUID),
            Field('voter_directory_id', 'uuid', (1, 32767), None, None, None, 'inherit', ZERO_UUID),
            Field('last_offset_epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('last_offset', 'int64', (0, 32767), None, None, None, 'inherit', 0),
            Field('pre_vote', 'bool', (2, 32767), None, None, None, 'inherit', False),
        )

        def __init__(self, *, partition_index: int = 0, replica_epoch: int = 0, replica_id: int = 0, replica_directory_id: bytes = ZERO_UUID, voter_directory_id: bytes = ZERO_UUID, last_offset_epoch: int = 0, last_offset: int = 0, pre_vote: bool = False) -> None:
            self.partition_index = partition_index
            self.replica_epoch = replica_epoch
            self.replica_id = replica_id
            self.replica_directory_id = replica_directory_id
            self.voter_directory_id = voter_directory_id
            self.last_offset_epoch = last_offset_epoch
            self.last_offset = last_offset
            self.pre_vote = pre_vote

    class TopicData(Struct):
        __slots__ = ('topic_name', 'partitions')
        FIELDS = (
            Field('topic_name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('partitions', '[]PartitionData', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, topic_name: str = '', partitions: list[VoteRequest.PartitionData] = _UNSET) -> None:
            self.topic_name = topic_name
            self.partitions = [] if partitions is _UNSET else partitions

    def __init__(self, *, cluster_id: str | None = None, voter_id: int = -1, topics: list[VoteRequest.TopicData] = _UNSET) -> None:
        self.cluster_id = cluster_id
        self.voter_id = voter_id
        self.topics = [] if topics is _UNSET else topics


class VoteResponse(Message):
    __slots__ = ('error_code', 'topics', 'node_endpoints')
    NAME = 'VoteResponse'
    KIND = 'response'
    API_KEY = 52
    VALID_VERSIONS = (0, 2)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        Field('topics', '[]TopicData', (0, 32767), None, None, None, 'inherit', ()),
        Field('node_endpoints', '[]NodeEndpoint', (1, 32767), None, 0, (1, 32767), 'inherit', ()),
    )

    class NodeEndpoint(Struct):
        __slots__ = ('node_id', 'host', 'port')
        FIELDS = (
            Field('node_id', 'int32', (1, 32767), None, None, None, 'inherit', 0),
            Field('host', 'string', (1, 32767), None, None, None, 'inherit', ''),
            Field('port', 'uint16', (1, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, node_id: int = 0, host: str = '', port: int = 0) -> None:
            self.node_id = node_id
            self.host = host
            self.port = port

    class PartitionData(Struct):
        __slots__ = ('partition_index', 'error_code', 'leader_id', 'leader_epoch', 'vote_granted')
        FIELDS = (
            Field('partition_index', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
            Field('leader_id', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('leader_epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('vote_granted', 'bool', (0, 32767), None, None, None, 'inherit', False),
        )

        def __init__(self, *, partition_index: int = 0, error_code: int = 0, leader_id: int = 0, leader_epoch: int = 0, vote_granted: bool = False) -> None:
            self.partition_index = partition_index
            self.error_code = error_code
            self.leader_id = leader_id
            self.leader_epoch = leader_epoch
            self.vote_granted = vote_granted

    class TopicData(Struct):
        __slots__ = ('topic_name', 'partitions')
        FIELDS = (
            Field('topic_name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('partitions', '[]PartitionData', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, topic_name: str = '', partitions: list[VoteResponse.PartitionData] = _UNSET) -> None:
            self.topic_name = topic_name
            self.partitions = [] if partitions is _UNSET else partitions

    def __init__(self, *, error_code: int = 0, topics: list[VoteResponse.TopicData] = _UNSET, node_endpoints: list[VoteResponse.NodeEndpoint] = _UNSET) -> None:
        self.error_code = error_code
        self.topics = [] if topics is _UNSET else topics
        self.node_endpoints = [] if node_endpoints is _UNSET else node_endpoints


class VotersRecord(Message):
    __slots__ = ('version', 'voters')
    NAME = 'VotersRecord'
    KIND = 'data'
    API_KEY = None
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('version', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        Field('voters', '[]Voter', (0, 32767), None, None, None, 'inherit', ()),
    )

    class Endpoint(Struct):
        __slots__ = ('name', 'host', 'port')
        FIELDS = (
            Field('name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('host', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('port', 'uint16', (0, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, name: str = '', host: str = '', port: int = 0) -> None:
            self.name = name
            self.host = host
            self.port = port

    class KRaftVersionFeature(Struct):
        __slots__ = ('min_supported_version', 'max_supported_version')
        FIELDS = (
            Field('min_supported_version', 'int16', (0, 32767), None, None, None, 'inherit', 0),
            Field('max_supported_version', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, min_supported_version: int = 0, max_supported_version: int = 0) -> None:
            self.min_supported_version = min_supported_version
            self.max_supported_version = max_supported_version

    class Voter(Struct):
        __slots__ = ('voter_id', 'voter_directory_id', 'endpoints', 'k_raft_version_feature')
        FIELDS = (
            Field('voter_id', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('voter_directory_id', 'uuid', (0, 32767), None, None, None, 'inherit', ZERO_UUID),
            Field('endpoints', '[]Endpoint', (0, 32767), None, None, None, 'inherit', ()),
            Field('k_raft_version_feature', 'KRaftVersionFeature', (0, 32767), None, None, None, 'inherit', 'KRaftVersionFeature'),
        )

        def __init__(self, *, voter_id: int = 0, voter_directory_id: bytes = ZERO_UUID, endpoints: list[VotersRecord.Endpoint] = _UNSET, k_raft_version_feature: VotersRecord.KRaftVersionFeature = _UNSET) -> None:
            self.voter_id = voter_id
            self.voter_directory_id = voter_directory_id
            self.endpoints = [] if endpoints is _UNSET else endpoints
            self.k_raft_version_feature = VotersRecord.KRaftVersionFeature() if k_raft_version_feature is _UNSET else k_raft_version_feature

    def __init__(self, *, version: int = 0, voters: list[VotersRecord.Voter] = _UNSET) -> None:
        self.version = version
        self.voters = [] if voters is _UNSET else voters


class WriteShareGroupStateRequest(Message):
    __slots__ = ('group_id', 'topics')
    NAME = 'WriteShareGroupStateRequest'
    KIND = 'request'
    API_KEY = 85
    VALID_VERSIONS = (0, 1)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('group_id', 'string', (0, 32767), None, None, None, 'inherit', ''),
        Field('topics', '[]WriteStateData', (0, 32767), None, None, None, 'inherit', ()),
    )

    class PartitionData(Struct):
        __slots__ = ('partition', 'state_epoch', 'leader_epoch', 'start_offset', 'delivery_complete_count', 'state_batches')
        FIELDS = (
            Field('partition', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('state_epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('leader_epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('start_offset', 'int64', (0, 32767), None, None, None, 'inherit', 0),
            Field('delivery_complete_count', 'int32', (1, 32767), None, None, None, 'inherit', -1),
            Field('state_batches', '[]StateBatch', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, partition: int = 0, state_epoch: int = 0, leader_epoch: int = 0, start_offset: int = 0, delivery_complete_count: int = -1, state_batches: list[WriteShareGroupStateRequest.StateBatch] = _UNSET) -> None:
            self.partition = partition
            self.state_epoch = state_epoch
            self.leader_epoch = leader_epoch
            self.start_offset = start_offset
            self.delivery_complete_count = delivery_complete_count
            self.state_batches = [] if state_batches is _UNSET else state_batches

    class StateBatch(Struct):
        __slots__ = ('first_offset', 'last_offset', 'delivery_state', 'delivery_count')
        FIELDS = (
            Field('first_offset', 'int64', (0, 32767), None, None, None, 'inherit', 0),
            Field('last_offset', 'int64', (0, 32767), None, None, None, 'inherit', 0),
            Field('delivery_state', 'int8', (0, 32767), None, None, None, 'inherit', 0),
            Field('delivery_count', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, first_offset: int = 0, last_offset: int = 0, delivery_state: int = 0, delivery_count: int = 0) -> None:
            self.first_offset = first_offset
            self.last_offset = last_offset
            self.delivery_state = delivery_state
            self.delivery_count = delivery_count

    class WriteStateData(Struct):
        __slots__ = ('topic_id', 'partitions')
        FIELDS = (
            Field('topic_id', 'uuid', (0, 32767), None, None, None, 'inherit', ZERO_UUID),
            Field('partitions', '[]PartitionData', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, topic_id: bytes = ZERO_UUID, partitions: list[WriteShareGroupStateRequest.PartitionData] = _UNSET) -> None:
            self.topic_id = topic_id
            self.partitions = [] if partitions is _UNSET else partitions

    def __init__(self, *, group_id: str = '', topics: list[WriteShareGroupStateRequest.WriteStateData] = _UNSET) -> None:
        self.group_id = group_id
        self.topics = [] if topics is _UNSET else topics


class WriteShareGroupStateResponse(Message):
    __slots__ = ('results',)
    NAME = 'WriteShareGroupStateResponse'
    KIND = 'response'
    API_KEY = 85
    VALID_VERSIONS = (0, 1)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('results', '[]WriteStateResult', (0, 32767), None, None, None, 'inherit', ()),
    )

    class PartitionResult(Struct):
        __slots__ = ('partition', 'error_code', 'error_message')
        FIELDS = (
            Field('partition', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
            Field('error_message', 'string', (0, 32767), (0, 32767), None, None, 'inherit', None),
        )

        def __init__(self, *, partition: int = 0, error_code: int = 0, error_message: str | None = None) -> None:
            self.partition = partition
            self.error_code = error_code
            self.error_message = error_message

    class WriteStateResult(Struct):
        __slots__ = ('topic_id', 'partitions')
        FIELDS = (
            Field('topic_id', 'uuid', (0, 32767), None, None, None, 'inherit', ZERO_UUID),
            Field('partitions', '[]PartitionResult', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, topic_id: bytes = ZERO_UUID, partitions: list[WriteShareGroupStateResponse.PartitionResult] = _UNSET) -> None:
            self.topic_id = topic_id
            self.partitions = [] if partitions is _UNSET else partitions

    def __init__(self, *, results: list[WriteShareGroupStateResponse.WriteStateResult] = _UNSET) -> None:
        self.results = [] if results is _UNSET else results


class WriteTxnMarkersRequest(Message):
    __slots__ = ('markers',)
    NAME = 'WriteTxnMarkersRequest'
    KIND = 'request'
    API_KEY = 27
    VALID_VERSIONS = (0, 2)
    FLEXIBLE_VERSIONS = (1, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('markers', '[]WritableTxnMarker', (0, 32767), None, None, None, 'inherit', ()),
    )

    class WritableTxnMarker(Struct):
        __slots__ = ('producer_id', 'producer_epoch', 'transaction_result', 'topics', 'coordinator_epoch', 'transaction_version')
        FIELDS = (
            Field('producer_id', 'int64', (0, 32767), None, None, None, 'inherit', 0),
            Field('producer_epoch', 'int16', (0, 32767), None, None, None, 'inherit', 0),
            Field('transaction_result', 'bool', (0, 32767), None, None, None, 'inherit', False),
            Field('topics', '[]WritableTxnMarkerTopic', (0, 32767), None, None, None, 'inherit', ()),
            Field('coordinator_epoch', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('transaction_version', 'int8', (2, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, producer_id: int = 0, producer_epoch: int = 0, transaction_result: bool = False, topics: list[WriteTxnMarkersRequest.WritableTxnMarkerTopic] = _UNSET, coordinator_epoch: int = 0, transaction_version: int = 0) -> None:
            self.producer_id = producer_id
            self.producer_epoch = producer_epoch
            self.transaction_result = transaction_result
            self.topics = [] if topics is _UNSET else topics
            self.coordinator_epoch = coordinator_epoch
            self.transaction_version = transaction_version

    class WritableTxnMarkerTopic(Struct):
        __slots__ = ('name', 'partition_indexes')
        FIELDS = (
            Field('name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('partition_indexes', '[]int32', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, name: str = '', partition_indexes: list[int] = _UNSET) -> None:
            self.name = name
            self.partition_indexes = [] if partition_indexes is _UNSET else partition_indexes

    def __init__(self, *, markers: list[WriteTxnMarkersRequest.WritableTxnMarker] = _UNSET) -> None:
        self.markers = [] if markers is _UNSET else markers


class WriteTxnMarkersResponse(Message):
    __slots__ = ('markers',)
    NAME = 'WriteTxnMarkersResponse'
    KIND = 'response'
    API_KEY = 27
    VALID_VERSIONS = (0, 2)
    FLEXIBLE_VERSIONS = (1, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('markers', '[]WritableTxnMarkerResult', (0, 32767), None, None, None, 'inherit', ()),
    )

    class WritableTxnMarkerPartitionResult(Struct):
        __slots__ = ('partition_index', 'error_code')
        FIELDS = (
            Field('partition_index', 'int32', (0, 32767), None, None, None, 'inherit', 0),
            Field('error_code', 'int16', (0, 32767), None, None, None, 'inherit', 0),
        )

        def __init__(self, *, partition_index: int = 0, error_code: int = 0) -> None:
            self.partition_index = partition_index
            self.error_code = error_code

    class WritableTxnMarkerResult(Struct):
        __slots__ = ('producer_id', 'topics')
        FIELDS = (
            Field('producer_id', 'int64', (0, 32767), None, None, None, 'inherit', 0),
            Field('topics', '[]WritableTxnMarkerTopicResult', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, producer_id: int = 0, topics: list[WriteTxnMarkersResponse.WritableTxnMarkerTopicResult] = _UNSET) -> None:
            self.producer_id = producer_id
            self.topics = [] if topics is _UNSET else topics

    class WritableTxnMarkerTopicResult(Struct):
        __slots__ = ('name', 'partitions')
        FIELDS = (
            Field('name', 'string', (0, 32767), None, None, None, 'inherit', ''),
            Field('partitions', '[]WritableTxnMarkerPartitionResult', (0, 32767), None, None, None, 'inherit', ()),
        )

        def __init__(self, *, name: str = '', partitions: list[WriteTxnMarkersResponse.WritableTxnMarkerPartitionResult] = _UNSET) -> None:
            self.name = name
            self.partitions = [] if partitions is _UNSET else partitions

    def __init__(self, *, markers: list[WriteTxnMarkersResponse.WritableTxnMarkerResult] = _UNSET) -> None:
        self.markers = [] if markers is _UNSET else markers


class ZkMigrationStateRecord(Message):
    __slots__ = ('zk_migration_state',)
    NAME = 'ZkMigrationStateRecord'
    KIND = 'metadata'
    API_KEY = 21
    VALID_VERSIONS = (0, 0)
    FLEXIBLE_VERSIONS = (0, 32767)
    LATEST_VERSION_UNSTABLE = False
    FIELDS = (
        Field('zk_migration_state', 'int8', (0, 32767), None, None, None, 'inherit', 0),
    )

    def __init__(self, *, zk_migration_state: int = 0) -> None:
        self.zk_migration_state = zk_migration_state


MESSAGES: dict[str, type[Message]] = {
    'AbortTransactionRecord': AbortTransactionRecord,
    'AccessControlEntryRecord': AccessControlEntryRecord,
    'AddOffsetsToTxnRequest': AddOffsetsToTxnRequest,
    'AddOffsetsToTxnResponse': AddOffsetsToTxnResponse,
    'AddPartitionsToTxnRequest': AddPartitionsToTxnRequest,
    'AddPartitionsToTxnResponse': AddPartitionsToTxnResponse,
    'AddRaftVoterRequest': AddRaftVoterRequest,
    'AddRaftVoterResponse': AddRaftVoterResponse,
    'AllocateProducerIdsRequest': AllocateProducerIdsRequest,
    'AllocateProducerIdsResponse': AllocateProducerIdsResponse,
    'AlterClientQuotasRequest': AlterClientQuotasRequest,
    'AlterClientQuotasResponse': AlterClientQuotasResponse,
    'AlterConfigsRequest': AlterConfigsRequest,
    'AlterConfigsResponse': AlterConfigsResponse,
    'AlterPartitionReassignmentsRequest': AlterPartitionReassignmentsRequest,
    'AlterPartitionReassignmentsResponse': AlterPartitionReassignmentsResponse,
    'AlterPartitionRequest': AlterPartitionRequest,
    'AlterPartitionResponse': AlterPartitionResponse,
    'AlterReplicaLogDirsRequest': AlterReplicaLogDirsRequest,
    'AlterReplicaLogDirsResponse': AlterReplicaLogDirsResponse,
    'AlterShareGroupOffsetsRequest': AlterShareGroupOffsetsRequest,
    'AlterShareGroupOffsetsResponse': AlterShareGroupOffsetsResponse,
    'AlterUserScramCredentialsRequest': AlterUserScramCredentialsRequest,
    'AlterUserScramCredentialsResponse': AlterUserScramCredentialsResponse,
    'ApiVersionsRequest': ApiVersionsRequest,
    'ApiVersionsResponse': ApiVersionsResponse,
    'AssignReplicasToDirsRequest': AssignReplicasToDirsRequest,
    'AssignReplicasToDirsResponse': AssignReplicasToDirsResponse,
    'BeginQuorumEpochRequest': BeginQuorumEpochRequest,
    'BeginQuorumEpochResponse': BeginQuorumEpochResponse,
    'BeginTransactionRecord': BeginTransactionRecord,
    'BrokerHeartbeatRequest': BrokerHeartbeatRequest,
    'BrokerHeartbeatResponse': BrokerHeartbeatResponse,
    'BrokerRegistrationChangeRecord': BrokerRegistrationChangeRecord,
    'BrokerRegistrationRequest': BrokerRegistrationRequest,
    'BrokerRegistrationResponse': BrokerRegistrationResponse,
    'ClearElrRecord': ClearElrRecord,
    'ClientQuotaRecord': ClientQuotaRecord,
    'ConfigRecord': ConfigRecord,
    'ConsumerGroupCurrentMemberAssignmentKey': ConsumerGroupCurrentMemberAssignmentKey,
    'ConsumerGroupCurrentMemberAssignmentValue': ConsumerGroupCurrentMemberAssignmentValue,
    'ConsumerGroupDescribeRequest': ConsumerGroupDescribeRequest,
    'ConsumerGroupDescribeResponse': ConsumerGroupDescribeResponse,
    'ConsumerGroupHeartbeatRequest': ConsumerGroupHeartbeatRequest,
    'ConsumerGroupHeartbeatResponse': ConsumerGroupHeartbeatResponse,
    'ConsumerGroupMemberMetadataKey': ConsumerGroupMemberMetadataKey,
    'ConsumerGroupMemberMetadataValue': ConsumerGroupMemberMetadataValue,
    'ConsumerGroupMetadataKey': ConsumerGroupMetadataKey,
    'ConsumerGroupMetadataValue': ConsumerGroupMetadataValue,
    'ConsumerGroupPartitionMetadataKey': ConsumerGroupPartitionMetadataKey,
    'ConsumerGroupPartitionMetadataValue': ConsumerGroupPartitionMetadataValue,
    'ConsumerGroupRegularExpressionKey': ConsumerGroupRegularExpressionKey,
    'ConsumerGroupRegularExpressionValue': ConsumerGroupRegularExpressionValue,
    'ConsumerGroupTargetAssignmentMemberKey': ConsumerGroupTargetAssignmentMemberKey,
    'ConsumerGroupTargetAssignmentMemberValue': ConsumerGroupTargetAssignmentMemberValue,
    'ConsumerGroupTargetAssignmentMetadataKey': ConsumerGroupTargetAssignmentMetadataKey,
    'ConsumerGroupTargetAssignmentMetadataValue': ConsumerGroupTargetAssignmentMetadataValue,
    'ConsumerProtocolAssignment': ConsumerProtocolAssignment,
    'ConsumerProtocolSubscription': ConsumerProtocolSubscription,
    'ControlledShutdownRequest': ControlledShutdownRequest,
    'ControlledShutdownResponse': ControlledShutdownResponse,
    'ControllerRegistrationRequest': ControllerRegistrationRequest,
    'ControllerRegistrationResponse': ControllerRegistrationResponse,
    'CreateAclsRequest': CreateAclsRequest,
    'CreateAclsResponse': CreateAclsResponse,
    'CreateDelegationTokenRequest': CreateDelegationTokenRequest,
    'CreateDelegationTokenResponse': CreateDelegationTokenResponse,
    'CreatePartitionsRequest': CreatePartitionsRequest,
    'CreatePartitionsResponse': CreatePartitionsResponse,
    'CreateTopicsRequest': CreateTopicsRequest,
    'CreateTopicsResponse': CreateTopicsResponse,
    'DelegationTokenRecord': DelegationTokenRecord,
    'DeleteAclsRequest': DeleteAclsRequest,
    'DeleteAclsResponse': DeleteAclsResponse,
    'DeleteGroupsRequest': DeleteGroupsRequest,
    'DeleteGroupsResponse': DeleteGroupsResponse,
    'DeleteRecordsRequest': DeleteRecordsRequest,
    'DeleteRecordsResponse': DeleteRecordsResponse,
    'DeleteShareGroupOffsetsRequest': DeleteShareGroupOffsetsRequest,
    'DeleteShareGroupOffsetsResponse': DeleteShareGroupOffsetsResponse,
    'DeleteShareGroupStateRequest': DeleteShareGroupStateRequest,
    'DeleteShareGroupStateResponse': DeleteShareGroupStateResponse,
    'DeleteTopicsRequest': DeleteTopicsRequest,
    'DeleteTopicsResponse': DeleteTopicsResponse,
    'DescribeAclsRequest': DescribeAclsRequest,
    'DescribeAclsResponse': DescribeAclsResponse,
    'DescribeClientQuotasRequest': DescribeClientQuotasRequest,
    'DescribeClientQuotasResponse': DescribeClientQuotasResponse,
    'DescribeClusterRequest': DescribeClusterRequest,
    'DescribeClusterResponse': DescribeClusterResponse,
    'DescribeConfigsRequest': DescribeConfigsRequest,
    'DescribeConfigsResponse': DescribeConfigsResponse,
    'DescribeDelegationTokenRequest': DescribeDelegationTokenRequest,
    'DescribeDelegationTokenResponse': DescribeDelegationTokenResponse,
    'DescribeGroupsRequest': DescribeGroupsRequest,
    'DescribeGroupsResponse': DescribeGroupsResponse,
    'DescribeLogDirsRequest': DescribeLogDirsRequest,
    'DescribeLogDirsResponse': DescribeLogDirsResponse,
    'DescribeProducersRequest': DescribeProducersRequest,
    'DescribeProducersResponse': DescribeProducersResponse,
    'DescribeQuorumRequest': DescribeQuorumRequest,
    'DescribeQuorumResponse': DescribeQuorumResponse,
    'DescribeShareGroupOffsetsRequest': DescribeShareGroupOffsetsRequest,
    'DescribeShareGroupOffsetsResponse': DescribeShareGroupOffsetsResponse,
    'DescribeTopicPartitionsRequest': DescribeTopicPartitionsRequest,
    'DescribeTopicPartitionsResponse': DescribeTopicPartitionsResponse,
    'DescribeTransactionsRequest': DescribeTransactionsRequest,
    'DescribeTransactionsResponse': DescribeTransactionsResponse,
    'DescribeUserScramCredentialsRequest': DescribeUserScramCredentialsRequest,
    'DescribeUserScramCredentialsResponse': DescribeUserScramCredentialsResponse,
    'ElectLeadersRequest': ElectLeadersRequest,
    'ElectLeadersResponse': ElectLeadersResponse,
    'EndQuorumEpochRequest': EndQuorumEpochRequest,
    'EndQuorumEpochResponse': EndQuorumEpochResponse,
    'EndTransactionRecord': EndTransactionRecord,
    'EndTxnRequest': EndTxnRequest,
    'EndTxnResponse': EndTxnResponse,
    'EnvelopeRequest': EnvelopeRequest,
    'EnvelopeResponse': EnvelopeResponse,
    'ExpireDelegationTokenRequest': ExpireDelegationTokenRequest,
    'ExpireDelegationTokenResponse': ExpireDelegationTokenResponse,
    'FeatureLevelRecord': FeatureLevelRecord,
    'FenceBrokerRecord': FenceBrokerRecord,
    'FetchRequest': FetchRequest,
    'FetchResponse': FetchResponse,
    'FetchSnapshotRequest': FetchSnapshotRequest,
    'FetchSnapshotResponse': FetchSnapshotResponse,
    'FindCoordinatorRequest': FindCoordinatorRequest,
    'FindCoordinatorResponse': FindCoordinatorResponse,
    'GetTelemetrySubscriptionsRequest': GetTelemetrySubscriptionsRequest,
    'GetTelemetrySubscriptionsResponse': GetTelemetrySubscriptionsResponse,
    'GroupMetadataKey': GroupMetadataKey,
    'GroupMetadataValue': GroupMetadataValue,
    'HeartbeatRequest': HeartbeatRequest,
    'HeartbeatResponse': HeartbeatResponse,
    'IncrementalAlterConfigsRequest': IncrementalAlterConfigsRequest,
    'IncrementalAlterConfigsResponse': IncrementalAlterConfigsResponse,
    'InitProducerIdRequest': InitProducerIdRequest,
    'InitProducerIdResponse': InitProducerIdResponse,
    'InitializeShareGroupStateRequest': InitializeShareGroupStateRequest,
    'InitializeShareGroupStateResponse': InitializeShareGroupStateResponse,
    'JoinGroupRequest': JoinGroupRequest,
    'JoinGroupResponse': JoinGroupResponse,
    'KRaftVersionRecord': KRaftVersionRecord,
    'LeaderAndIsrRequest': LeaderAndIsrRequest,
    'LeaderAndIsrResponse': LeaderAndIsrResponse,
    'LeaderChangeMessage': LeaderChangeMessage,
    'LeaveGroupRequest': LeaveGroupRequest,
    'LeaveGroupResponse': LeaveGroupResponse,
    'ListClientMetricsResourcesRequest': ListClientMetricsResourcesRequest,
    'ListClientMetricsResourcesResponse': ListClientMetricsResourcesResponse,
    'ListGroupsRequest': ListGroupsRequest,
    'ListGroupsResponse': ListGroupsResponse,
    'ListOffsetsRequest': ListOffsetsRequest,
    'ListOffsetsResponse': ListOffsetsResponse,
    'ListPartitionReassignmentsRequest': ListPartitionReassignmentsRequest,
    'ListPartitionReassignmentsResponse': ListPartitionReassignmentsResponse,
    'ListTransactionsRequest': ListTransactionsRequest,
    'ListTransactionsResponse': ListTransactionsResponse,
    'MetadataRequest': MetadataRequest,
    'MetadataResponse': MetadataResponse,
    'NoOpRecord': NoOpRecord,
    'OffsetCommitKey': OffsetCommitKey,
    'OffsetCommitRequest': OffsetCommitRequest,
    'OffsetCommitResponse': OffsetCommitResponse,
    'OffsetCommitValue': OffsetCommitValue,
    'OffsetDeleteRequest': OffsetDeleteRequest,
    'OffsetDeleteResponse': OffsetDeleteResponse,
    'OffsetFetchRequest': OffsetFetchRequest,
    'OffsetFetchResponse': OffsetFetchResponse,
    'OffsetForLeaderEpochRequest': OffsetForLeaderEpochRequest,
    'OffsetForLeaderEpochResponse': OffsetForLeaderEpochResponse,
    'PartitionChangeRecord': PartitionChangeRecord,
    'PartitionRecord': PartitionRecord,
    'ProduceRequest': ProduceRequest,
    'ProduceResponse': ProduceResponse,
    'ProducerIdsRecord': ProducerIdsRecord,
    'PushTelemetryRequest': PushTelemetryRequest,
    'PushTelemetryResponse': PushTelemetryResponse,
    'ReadShareGroupStateRequest': ReadShareGroupStateRequest,
    'ReadShareGroupStateResponse': ReadShareGroupStateResponse,
    'ReadShareGroupStateSummaryRequest': ReadShareGroupStateSummaryRequest,
    'ReadShareGroupStateSummaryResponse': ReadShareGroupStateSummaryResponse,
    'RegisterBrokerRecord': RegisterBrokerRecord,
    'RegisterControllerRecord': RegisterControllerRecord,
    'RemoveAccessControlEntryRecord': RemoveAccessControlEntryRecord,
    'RemoveDelegationTokenRecord': RemoveDelegationTokenRecord,
    'RemoveRaftVoterRequest': RemoveRaftVoterRequest,
    'RemoveRaftVoterResponse': RemoveRaftVoterResponse,
    'RemoveTopicRecord': RemoveTopicRecord,
    'RemoveUserScramCredentialRecord': RemoveUserScramCredentialRecord,
    'RenewDelegationTokenRequest': RenewDelegationTokenRequest,
    'RenewDelegationTokenResponse': RenewDelegationTokenResponse,
    'RequestHeader': RequestHeader,
    'ResponseHeader': ResponseHeader,
    'SaslAuthenticateRequest': SaslAuthenticateRequest,
    'SaslAuthenticateResponse': SaslAuthenticateResponse,
    'SaslHandshakeRequest': SaslHandshakeRequest,
    'SaslHandshakeResponse': SaslHandshakeResponse,
    'ShareAcknowledgeRequest': ShareAcknowledgeRequest,
    'ShareAcknowledgeResponse': ShareAcknowledgeResponse,
    'ShareFetchRequest': ShareFetchRequest,
    'ShareFetchResponse': ShareFetchResponse,
    'ShareGroupCurrentMemberAssignmentKey': ShareGroupCurrentMemberAssignmentKey,
    'ShareGroupCurrentMemberAssignmentValue': ShareGroupCurrentMemberAssignmentValue,
    'ShareGroupDescribeRequest': ShareGroupDescribeRequest,
    'ShareGroupDescribeResponse': ShareGroupDescribeResponse,
    'ShareGroupHeartbeatRequest': ShareGroupHeartbeatRequest,
    'ShareGroupHeartbeatResponse': ShareGroupHeartbeatResponse,
    'ShareGroupMemberMetadataKey': ShareGroupMemberMetadataKey,
    'ShareGroupMemberMetadataValue': ShareGroupMemberMetadataValue,
    'ShareGroupMetadataKey': ShareGroupMetadataKey,
    'ShareGroupMetadataValue': ShareGroupMetadataValue,
    'ShareGroupPartitionMetadataKey': ShareGroupPartitionMetadataKey,
    'ShareGroupPartitionMetadataValue': ShareGroupPartitionMetadataValue,
    'ShareGroupStatePartitionMetadataKey': ShareGroupStatePartitionMetadataKey,
    'ShareGroupStatePartitionMetadataValue': ShareGroupStatePartitionMetadataValue,
    'ShareGroupTargetAssignmentMemberKey': ShareGroupTargetAssignmentMemberKey,
    'ShareGroupTargetAssignmentMemberValue': ShareGroupTargetAssignmentMemberValue,
    'ShareGroupTargetAssignmentMetadataKey': ShareGroupTargetAssignmentMetadataKey,
    'ShareGroupTargetAssignmentMetadataValue': ShareGroupTargetAssignmentMetadataValue,
    'ShareSnapshotKey': ShareSnapshotKey,
    'ShareSnapshotValue': ShareSnapshotValue,
    'ShareUpdateKey': ShareUpdateKey,
    'ShareUpdateValue': ShareUpdateValue,
    'SnapshotFooterRecord': SnapshotFooterRecord,
    'SnapshotHeaderRecord': SnapshotHeaderRecord,
    'StopReplicaRequest': StopReplicaRequest,
    'StopReplicaResponse': StopReplicaResponse,
    'StreamsGroupCurrentMemberAssignmentKey': StreamsGroupCurrentMemberAssignmentKey,
    'StreamsGroupCurrentMemberAssignmentValue': StreamsGroupCurrentMemberAssignmentValue,
    'StreamsGroupDescribeRequest': StreamsGroupDescribeRequest,
    'StreamsGroupDescribeResponse': StreamsGroupDescribeResponse,
    'StreamsGroupHeartbeatRequest': StreamsGroupHeartbeatRequest,
    'StreamsGroupHeartbeatResponse': StreamsGroupHeartbeatResponse,
    'StreamsGroupMemberMetadataKey': StreamsGroupMemberMetadataKey,
    'StreamsGroupMemberMetadataValue': StreamsGroupMemberMetadataValue,
    'StreamsGroupMetadataKey': StreamsGroupMetadataKey,
    'StreamsGroupMetadataValue': StreamsGroupMetadataValue,
    'StreamsGroupTargetAssignmentMemberKey': StreamsGroupTargetAssignmentMemberKey,
    'StreamsGroupTargetAssignmentMemberValue': StreamsGroupTargetAssignmentMemberValue,
    'StreamsGroupTargetAssignmentMetadataKey': StreamsGroupTargetAssignmentMetadataKey,
    'StreamsGroupTargetAssignmentMetadataValue': StreamsGroupTargetAssignmentMetadataValue,
    'StreamsGroupTopologyDescriptionUpdateRequest': StreamsGroupTopologyDescriptionUpdateRequest,
    'StreamsGroupTopologyDescriptionUpdateResponse': StreamsGroupTopologyDescriptionUpdateResponse,
    'StreamsGroupTopologyKey': StreamsGroupTopologyKey,
    'StreamsGroupTopologyValue': StreamsGroupTopologyValue,
    'SyncGroupRequest': SyncGroupRequest,
    'SyncGroupResponse': SyncGroupResponse,
    'TopicRecord': TopicRecord,
    'TransactionLogKey': TransactionLogKey,
    'TransactionLogValue': TransactionLogValue,
    'TxnOffsetCommitRequest': TxnOffsetCommitRequest,
    'TxnOffsetCommitResponse': TxnOffsetCommitResponse,
    'UnfenceBrokerRecord': UnfenceBrokerRecord,
    'UnregisterBrokerRecord': UnregisterBrokerRecord,
    'UnregisterBrokerRequest': UnregisterBrokerRequest,
    'UnregisterBrokerResponse': UnregisterBrokerResponse,
    'UnregisterControllerRecord': UnregisterControllerRecord,
    'UnregisterControllerRequest': UnregisterControllerRequest,
    'UnregisterControllerResponse': UnregisterControllerResponse,
    'UpdateFeaturesRequest': UpdateFeaturesRequest,
    'UpdateFeaturesResponse': UpdateFeaturesResponse,
    'UpdateMetadataRequest': UpdateMetadataRequest,
    'UpdateMetadataResponse': UpdateMetadataResponse,
    'UpdateRaftVoterRequest': UpdateRaftVoterRequest,
    'UpdateRaftVoterResponse': UpdateRaftVoterResponse,
    'UserScramCredentialRecord': UserScramCredentialRecord,
    'VoteRequest': VoteRequest,
    'VoteResponse': VoteResponse,
    'VotersRecord': VotersRecord,
    'WriteShareGroupStateRequest': WriteShareGroupStateRequest,
    'WriteShareGroupStateResponse': WriteShareGroupStateResponse,
    'WriteTxnMarkersRequest': WriteTxnMarkersRequest,
    'WriteTxnMarkersResponse': WriteTxnMarkersResponse,
    'ZkMigrationStateRecord': ZkMigrationStateRecord,
}

API_KEYS: dict[int, ApiSpec] = {
    0: ApiSpec(0, 'Produce', 0, 13, ProduceRequest, ProduceResponse, 9, False),
    1: ApiSpec(1, 'Fetch', 0, 18, FetchRequest, FetchResponse, 12, False),
    2: ApiSpec(2, 'ListOffsets', 0, 11, ListOffsetsRequest, ListOffsetsResponse, 6, False),
    3: ApiSpec(3, 'Metadata', 0, 13, MetadataRequest, MetadataResponse, 9, False),
    4: ApiSpec(4, 'LeaderAndIsr', 0, 7, LeaderAndIsrRequest, LeaderAndIsrResponse, 4, False),
    5: ApiSpec(5, 'StopReplica', 0, 4, StopReplicaRequest, StopReplicaResponse, 2, False),
    6: ApiSpec(6, 'UpdateMetadata', 0, 8, UpdateMetadataRequest, UpdateMetadataResponse, 6, False),
    7: ApiSpec(7, 'ControlledShutdown', 0, 3, ControlledShutdownRequest, ControlledShutdownResponse, 3, False),
    8: ApiSpec(8, 'OffsetCommit', 0, 10, OffsetCommitRequest, OffsetCommitResponse, 8, False),
    9: ApiSpec(9, 'OffsetFetch', 0, 10, OffsetFetchRequest, OffsetFetchResponse, 6, False),
    10: ApiSpec(10, 'FindCoordinator', 0, 6, FindCoordinatorRequest, FindCoordinatorResponse, 3, False),
    11: ApiSpec(11, 'JoinGroup', 0, 9, JoinGroupRequest, JoinGroupResponse, 6, False),
    12: ApiSpec(12, 'Heartbeat', 0, 4, HeartbeatRequest, HeartbeatResponse, 4, False),
    13: ApiSpec(13, 'LeaveGroup', 0, 5, LeaveGroupRequest, LeaveGroupResponse, 4, False),
    14: ApiSpec(14, 'SyncGroup', 0, 5, SyncGroupRequest, SyncGroupResponse, 4, False),
    15: ApiSpec(15, 'DescribeGroups', 0, 6, DescribeGroupsRequest, DescribeGroupsResponse, 5, False),
    16: ApiSpec(16, 'ListGroups', 0, 5, ListGroupsRequest, ListGroupsResponse, 3, False),
    17: ApiSpec(17, 'SaslHandshake', 0, 1, SaslHandshakeRequest, SaslHandshakeResponse, None, False),
    18: ApiSpec(18, 'ApiVersions', 0, 5, ApiVersionsRequest, ApiVersionsResponse, 3, False),
    19: ApiSpec(19, 'CreateTopics', 0, 7, CreateTopicsRequest, CreateTopicsResponse, 5, False),
    20: ApiSpec(20, 'DeleteTopics', 0, 6, DeleteTopicsRequest, DeleteTopicsResponse, 4, False),
    21: ApiSpec(21, 'DeleteRecords', 0, 2, DeleteRecordsRequest, DeleteRecordsResponse, 2, False),
    22: ApiSpec(22, 'InitProducerId', 0, 5, InitProducerIdRequest, InitProducerIdResponse, 2, False),
    23: ApiSpec(23, 'OffsetForLeaderEpoch', 0, 4, OffsetForLeaderEpochRequest, OffsetForLeaderEpochResponse, 4, False),
    24: ApiSpec(24, 'AddPartitionsToTxn', 0, 5, AddPartitionsToTxnRequest, AddPartitionsToTxnResponse, 3, False),
    25: ApiSpec(25, 'AddOffsetsToTxn', 0, 4, AddOffsetsToTxnRequest, AddOffsetsToTxnResponse, 3, False),
    26: ApiSpec(26, 'EndTxn', 0, 5, EndTxnRequest, EndTxnResponse, 3, False),
    27: ApiSpec(27, 'WriteTxnMarkers', 0, 2, WriteTxnMarkersRequest, WriteTxnMarkersResponse, 1, False),
    28: ApiSpec(28, 'TxnOffsetCommit', 0, 6, TxnOffsetCommitRequest, TxnOffsetCommitResponse, 3, False),
    29: ApiSpec(29, 'DescribeAcls', 0, 3, DescribeAclsRequest, DescribeAclsResponse, 2, False),
    30: ApiSpec(30, 'CreateAcls', 0, 3, CreateAclsRequest, CreateAclsResponse, 2, False),
    31: ApiSpec(31, 'DeleteAcls', 0, 3, DeleteAclsRequest, DeleteAclsResponse, 2, False),
    32: ApiSpec(32, 'DescribeConfigs', 0, 4, DescribeConfigsRequest, DescribeConfigsResponse, 4, False),
    33: ApiSpec(33, 'AlterConfigs', 0, 2, AlterConfigsRequest, AlterConfigsResponse, 2, False),
    34: ApiSpec(34, 'AlterReplicaLogDirs', 0, 2, AlterReplicaLogDirsRequest, AlterReplicaLogDirsResponse, 2, False),
    35: ApiSpec(35, 'DescribeLogDirs', 0, 5, DescribeLogDirsRequest, DescribeLogDirsResponse, 2, False),
    36: ApiSpec(36, 'SaslAuthenticate', 0, 2, SaslAuthenticateRequest, SaslAuthenticateResponse, 2, False),
    37: ApiSpec(37, 'CreatePartitions', 0, 3, CreatePartitionsRequest, CreatePartitionsResponse, 2, False),
    38: ApiSpec(38, 'CreateDelegationToken', 0, 3, CreateDelegationTokenRequest, CreateDelegationTokenResponse, 2, False),
    39: ApiSpec(39, 'RenewDelegationToken', 0, 2, RenewDelegationTokenRequest, RenewDelegationTokenResponse, 2, False),
    40: ApiSpec(40, 'ExpireDelegationToken', 0, 2, ExpireDelegationTokenRequest, ExpireDelegationTokenResponse, 2, False),
    41: ApiSpec(41, 'DescribeDelegationToken', 0, 3, DescribeDelegationTokenRequest, DescribeDelegationTokenResponse, 2, False),
    42: ApiSpec(42, 'DeleteGroups', 0, 3, DeleteGroupsRequest, DeleteGroupsResponse, 2, False),
    43: ApiSpec(43, 'ElectLeaders', 0, 2, ElectLeadersRequest, ElectLeadersResponse, 2, False),
    44: ApiSpec(44, 'IncrementalAlterConfigs', 0, 1, IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse, 1, False),
    45: ApiSpec(45, 'AlterPartitionReassignments', 0, 1, AlterPartitionReassignmentsRequest, AlterPartitionReassignmentsResponse, 0, False),
    46: ApiSpec(46, 'ListPartitionReassignments', 0, 0, ListPartitionReassignmentsRequest, ListPartitionReassignmentsResponse, 0, False),
    47: ApiSpec(47, 'OffsetDelete', 0, 0, OffsetDeleteRequest, OffsetDeleteResponse, None, False),
    48: ApiSpec(48, 'DescribeClientQuotas', 0, 1, DescribeClientQuotasRequest, DescribeClientQuotasResponse, 1, False),
    49: ApiSpec(49, 'AlterClientQuotas', 0, 1, AlterClientQuotasRequest, AlterClientQuotasResponse, 1, False),
    50: ApiSpec(50, 'DescribeUserScramCredentials', 0, 0, DescribeUserScramCredentialsRequest, DescribeUserScramCredentialsResponse, 0, False),
    51: ApiSpec(51, 'AlterUserScramCredentials', 0, 0, AlterUserScramCredentialsRequest, AlterUserScramCredentialsResponse, 0, False),
    52: ApiSpec(52, 'Vote', 0, 2, VoteRequest, VoteResponse, 0, False),
    53: ApiSpec(53, 'BeginQuorumEpoch', 0, 1, BeginQuorumEpochRequest, BeginQuorumEpochResponse, 1, False),
    54: ApiSpec(54, 'EndQuorumEpoch', 0, 1, EndQuorumEpochRequest, EndQuorumEpochResponse, 1, False),
    55: ApiSpec(55, 'DescribeQuorum', 0, 2, DescribeQuorumRequest, DescribeQuorumResponse, 0, False),
    56: ApiSpec(56, 'AlterPartition', 0, 3, AlterPartitionRequest, AlterPartitionResponse, 0, False),
    57: ApiSpec(57, 'UpdateFeatures', 0, 2, UpdateFeaturesRequest, UpdateFeaturesResponse, 0, False),
    58: ApiSpec(58, 'Envelope', 0, 0, EnvelopeRequest, EnvelopeResponse, 0, False),
    59: ApiSpec(59, 'FetchSnapshot', 0, 1, FetchSnapshotRequest, FetchSnapshotResponse, 0, False),
    60: ApiSpec(60, 'DescribeCluster', 0, 2, DescribeClusterRequest, DescribeClusterResponse, 0, False),
    61: ApiSpec(61, 'DescribeProducers', 0, 0, DescribeProducersRequest, DescribeProducersResponse, 0, False),
    62: ApiSpec(62, 'BrokerRegistration', 0, 4, BrokerRegistrationRequest, BrokerRegistrationResponse, 0, False),
    63: ApiSpec(63, 'BrokerHeartbeat', 0, 2, BrokerHeartbeatRequest, BrokerHeartbeatResponse, 0, False),
    64: ApiSpec(64, 'UnregisterBroker', 0, 0, UnregisterBrokerRequest, UnregisterBrokerResponse, 0, False),
    65: ApiSpec(65, 'DescribeTransactions', 0, 0, DescribeTransactionsRequest, DescribeTransactionsResponse, 0, False),
    66: ApiSpec(66, 'ListTransactions', 0, 2, ListTransactionsRequest, ListTransactionsResponse, 0, False),
    67: ApiSpec(67, 'AllocateProducerIds', 0, 0, AllocateProducerIdsRequest, AllocateProducerIdsResponse, 0, False),
    68: ApiSpec(68, 'ConsumerGroupHeartbeat', 0, 1, ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse, 0, False),
    69: ApiSpec(69, 'ConsumerGroupDescribe', 0, 1, ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse, 0, False),
    70: ApiSpec(70, 'ControllerRegistration', 0, 0, ControllerRegistrationRequest, ControllerRegistrationResponse, 0, False),
    71: ApiSpec(71, 'GetTelemetrySubscriptions', 0, 0, GetTelemetrySubscriptionsRequest, GetTelemetrySubscriptionsResponse, 0, False),
    72: ApiSpec(72, 'PushTelemetry', 0, 0, PushTelemetryRequest, PushTelemetryResponse, 0, False),
    73: ApiSpec(73, 'AssignReplicasToDirs', 0, 0, AssignReplicasToDirsRequest, AssignReplicasToDirsResponse, 0, False),
    74: ApiSpec(74, 'ListClientMetricsResources', 0, 0, ListClientMetricsResourcesRequest, ListClientMetricsResourcesResponse, 0, False),
    75: ApiSpec(75, 'DescribeTopicPartitions', 0, 0, DescribeTopicPartitionsRequest, DescribeTopicPartitionsResponse, 0, False),
    76: ApiSpec(76, 'ShareGroupHeartbeat', 1, 1, ShareGroupHeartbeatRequest, ShareGroupHeartbeatResponse, 0, False),
    77: ApiSpec(77, 'ShareGroupDescribe', 1, 1, ShareGroupDescribeRequest, ShareGroupDescribeResponse, 0, False),
    78: ApiSpec(78, 'ShareFetch', 1, 2, ShareFetchRequest, ShareFetchResponse, 0, False),
    79: ApiSpec(79, 'ShareAcknowledge', 1, 2, ShareAcknowledgeRequest, ShareAcknowledgeResponse, 0, False),
    80: ApiSpec(80, 'AddRaftVoter', 0, 1, AddRaftVoterRequest, AddRaftVoterResponse, 0, False),
    81: ApiSpec(81, 'RemoveRaftVoter', 0, 0, RemoveRaftVoterRequest, RemoveRaftVoterResponse, 0, False),
    82: ApiSpec(82, 'UpdateRaftVoter', 0, 0, UpdateRaftVoterRequest, UpdateRaftVoterResponse, 0, False),
    83: ApiSpec(83, 'InitializeShareGroupState', 0, 0, InitializeShareGroupStateRequest, InitializeShareGroupStateResponse, 0, False),
    84: ApiSpec(84, 'ReadShareGroupState', 0, 0, ReadShareGroupStateRequest, ReadShareGroupStateResponse, 0, False),
    85: ApiSpec(85, 'WriteShareGroupState', 0, 1, WriteShareGroupStateRequest, WriteShareGroupStateResponse, 0, False),
    86: ApiSpec(86, 'DeleteShareGroupState', 0, 0, DeleteShareGroupStateRequest, DeleteShareGroupStateResponse, 0, False),
    87: ApiSpec(87, 'ReadShareGroupStateSummary', 0, 1, ReadShareGroupStateSummaryRequest, ReadShareGroupStateSummaryResponse, 0, False),
    88: ApiSpec(88, 'StreamsGroupHeartbeat', 0, 1, StreamsGroupHeartbeatRequest, StreamsGroupHeartbeatResponse, 0, False),
    89: ApiSpec(89, 'StreamsGroupDescribe', 0, 1, StreamsGroupDescribeRequest, StreamsGroupDescribeResponse, 0, False),
    90: ApiSpec(90, 'DescribeShareGroupOffsets', 0, 1, DescribeShareGroupOffsetsRequest, DescribeShareGroupOffsetsResponse, 0, False),
    91: ApiSpec(91, 'AlterShareGroupOffsets', 0, 0, AlterShareGroupOffsetsRequest, AlterShareGroupOffsetsResponse, 0, False),
    92: ApiSpec(92, 'DeleteShareGroupOffsets', 0, 0, DeleteShareGroupOffsetsRequest, DeleteShareGroupOffsetsResponse, 0, False),
    93: ApiSpec(93, 'StreamsGroupTopologyDescriptionUpdate', 0, 0, StreamsGroupTopologyDescriptionUpdateRequest, StreamsGroupTopologyDescriptionUpdateResponse, 0, False),
    94: ApiSpec(94, 'UnregisterController', 0, 0, UnregisterControllerRequest, UnregisterControllerResponse, 0, False),
}


class ApiKey(IntEnum):
    """API keys of the generated APIs, named as Kafka names them, in upper snake case."""

    PRODUCE = 0
    FETCH = 1
    LIST_OFFSETS = 2
    METADATA = 3
    LEADER_AND_ISR = 4
    STOP_REPLICA = 5
    UPDATE_METADATA = 6
    CONTROLLED_SHUTDOWN = 7
    OFFSET_COMMIT = 8
    OFFSET_FETCH = 9
    FIND_COORDINATOR = 10
    JOIN_GROUP = 11
    HEARTBEAT = 12
    LEAVE_GROUP = 13
    SYNC_GROUP = 14
    DESCRIBE_GROUPS = 15
    LIST_GROUPS = 16
    SASL_HANDSHAKE = 17
    API_VERSIONS = 18
    CREATE_TOPICS = 19
    DELETE_TOPICS = 20
    DELETE_RECORDS = 21
    INIT_PRODUCER_ID = 22
    OFFSET_FOR_LEADER_EPOCH = 23
    ADD_PARTITIONS_TO_TXN = 24
    ADD_OFFSETS_TO_TXN = 25
    END_TXN = 26
    WRITE_TXN_MARKERS = 27
    TXN_OFFSET_COMMIT = 28
    DESCRIBE_ACLS = 29
    CREATE_ACLS = 30
    DELETE_ACLS = 31
    DESCRIBE_CONFIGS = 32
    ALTER_CONFIGS = 33
    ALTER_REPLICA_LOG_DIRS = 34
    DESCRIBE_LOG_DIRS = 35
    SASL_AUTHENTICATE = 36
    CREATE_PARTITIONS = 37
    CREATE_DELEGATION_TOKEN = 38
    RENEW_DELEGATION_TOKEN = 39
    EXPIRE_DELEGATION_TOKEN = 40
    DESCRIBE_DELEGATION_TOKEN = 41
    DELETE_GROUPS = 42
    ELECT_LEADERS = 43
    INCREMENTAL_ALTER_CONFIGS = 44
    ALTER_PARTITION_REASSIGNMENTS = 45
    LIST_PARTITION_REASSIGNMENTS = 46
    OFFSET_DELETE = 47
    DESCRIBE_CLIENT_QUOTAS = 48
    ALTER_CLIENT_QUOTAS = 49
    DESCRIBE_USER_SCRAM_CREDENTIALS = 50
    ALTER_USER_SCRAM_CREDENTIALS = 51
    VOTE = 52
    BEGIN_QUORUM_EPOCH = 53
    END_QUORUM_EPOCH = 54
    DESCRIBE_QUORUM = 55
    ALTER_PARTITION = 56
    UPDATE_FEATURES = 57
    ENVELOPE = 58
    FETCH_SNAPSHOT = 59
    DESCRIBE_CLUSTER = 60
    DESCRIBE_PRODUCERS = 61
    BROKER_REGISTRATION = 62
    BROKER_HEARTBEAT = 63
    UNREGISTER_BROKER = 64
    DESCRIBE_TRANSACTIONS = 65
    LIST_TRANSACTIONS = 66
    ALLOCATE_PRODUCER_IDS = 67
    CONSUMER_GROUP_HEARTBEAT = 68
    CONSUMER_GROUP_DESCRIBE = 69
    CONTROLLER_REGISTRATION = 70
    GET_TELEMETRY_SUBSCRIPTIONS = 71
    PUSH_TELEMETRY = 72
    ASSIGN_REPLICAS_TO_DIRS = 73
    LIST_CLIENT_METRICS_RESOURCES = 74
    DESCRIBE_TOPIC_PARTITIONS = 75
    SHARE_GROUP_HEARTBEAT = 76
    SHARE_GROUP_DESCRIBE = 77
    SHARE_FETCH = 78
    SHARE_ACKNOWLEDGE = 79
    ADD_RAFT_VOTER = 80
    REMOVE_RAFT_VOTER = 81
    UPDATE_RAFT_VOTER = 82
    INITIALIZE_SHARE_GROUP_STATE = 83
    READ_SHARE_GROUP_STATE = 84
    WRITE_SHARE_GROUP_STATE = 85
    DELETE_SHARE_GROUP_STATE = 86
    READ_SHARE_GROUP_STATE_SUMMARY = 87
    STREAMS_GROUP_HEARTBEAT = 88
    STREAMS_GROUP_DESCRIBE = 89
    DESCRIBE_SHARE_GROUP_OFFSETS = 90
    ALTER_SHARE_GROUP_OFFSETS = 91
    DELETE_SHARE_GROUP_OFFSETS = 92
    STREAMS_GROUP_TOPOLOGY_DESCRIPTION_UPDATE = 93
    UNREGISTER_CONTROLLER = 94
