"""The admin writer of a KRaft broker (``BrokerServices.controller``): what the broker itself
asks of the controller, as Kafka's ``AutoTopicCreationManager`` and ``RPCProducerIdManager``
do: auto-created topics (Metadata, the coordinators' internal topics) through CreateTopics, and
producer id blocks through AllocateProducerIds. A topic change is answered once the broker's
own metadata cache, fed from the metadata log, shows it with a leader for every partition.

Admin requests from clients do not come here: ``kraft_forwarding`` sends them to the
controller as they are. The config methods of ``AdminController`` (used only by those
forwarded handlers) send AlterConfigs like them.

Who calls it: request handlers, the group, transaction and share coordinators. Nothing on disk.
"""
from __future__ import annotations

import asyncio
import logging
from typing import Callable

from kafpy.protocol.api_keys import ApiKey
from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.message_base import Message
from kafpy.protocol.messages import (AllocateProducerIdsRequest, AllocateProducerIdsResponse, AlterConfigsRequest,
                                     AlterConfigsResponse, CreatePartitionsRequest, CreatePartitionsResponse,
                                     CreateTopicsRequest, CreateTopicsResponse, DeleteTopicsRequest,
                                     DeleteTopicsResponse)
from kafpy.protocol.topics import GROUP_METADATA_TOPIC_NAME, SHARE_GROUP_STATE_TOPIC_NAME, TRANSACTION_STATE_TOPIC_NAME

from kafpy.broker.config import KafkaConfig
from kafpy.broker.kraft_controller_channel import ControllerChannel, ControllerUnavailable
from kafpy.broker.quotas.entity_configs import EntityConfigs
from kafpy.replication.internal_topics import (offsets_topic_configs, share_group_state_topic_configs,
                                               transaction_state_topic_configs)
from kafpy.replication.metadata_cache import MetadataCache, TopicError, TopicInfo

log = logging.getLogger("kafka.server.DefaultAutoTopicCreationManager")

POLL_S = 0.05
TOPIC_RESOURCE, BROKER_RESOURCE = 2, 4


class KRaftAdminController:
    """Keeps its controller channel, the metadata cache it waits on, the producer id block
    in hand and the topics being auto-created."""

    def __init__(self, config: KafkaConfig, cache: MetadataCache, channel: ControllerChannel,
                 broker_epoch: Callable[[], int], clock: Callable[[], float], wait_ms: int = 30000) -> None:
        self.config = config
        self.cache = cache
        self.channel = channel
        self.broker_epoch = broker_epoch
        self.clock = clock
        self.wait_ms = wait_ms
        self.entity_configs = EntityConfigs()
        self._pid_next = 0
        self._pid_end = 0
        self._pid_lock = asyncio.Lock()
        self._creating: dict[str, asyncio.Task[TopicInfo]] = {}

    async def _send(self, api_key: ApiKey, request: Message) -> object:
        try:
            response: object = await self.channel.send(api_key, request)
            return response
        except ControllerUnavailable as e:
            raise TopicError(ErrorCode.NOT_CONTROLLER, f"No controller answered: {e}") from None

    async def _wait_for_leaders(self, name: str, count: int | None = None) -> TopicInfo:
        deadline = self.clock() + self.wait_ms / 1000
        while True:
            info = self.cache.topic(name)
            if info is not None and (count is None or len(info.partitions) >= count) and all(
                    p.leader >= 0 for p in info.partitions.values()):
                return info
            if self.clock() >= deadline:
                raise TopicError(ErrorCode.REQUEST_TIMED_OUT, f"Timed out waiting for leaders of topic {name}.")
            await asyncio.sleep(POLL_S)

    # -- topics ------------------------------------------------------------------------------
    async def create_topic(self, name: str, partitions: int, replication_factor: int, configs: dict[str, str],
                           assignments: dict[int, list[int]] | None = None,
                           validate_only: bool = False) -> TopicInfo:
        topic = CreateTopicsRequest.CreatableTopic(
            name=name, num_partitions=-1 if assignments else partitions,
            replication_factor=-1 if assignments else replication_factor,
            assignments=[CreateTopicsRequest.CreatableReplicaAssignment(partition_index=p, broker_ids=list(b))
                         for p, b in sorted((assignments or {}).items())],
            configs=[CreateTopicsRequest.CreatableTopicConfig(name=k, value=v) for k, v in sorted(configs.items())])
        response = await self._send(ApiKey.CREATE_TOPICS, CreateTopicsRequest(
            topics=[topic], timeout_ms=self.wait_ms, validate_only=validate_only))
        assert isinstance(response, CreateTopicsResponse)
        result = response.topics[0]
        if result.error_code != ErrorCode.NONE:
            raise TopicError(ErrorCode.of_known(result.error_code), result.error_message or "")
        if validate_only:
            return TopicInfo(name, result.topic_id, {}, dict(configs))
        return await self._wait_for_leaders(name, result.num_partitions if result.num_partitions > 0 else None)

    async def auto_create_topic(self, name: str, partitions: int, replication_factor: int,
                                configs: dict[str, str]) -> TopicInfo:
        """From any broker; a topic that exists already (or is being made) is waited for."""
        task = self._creating.get(name)
        if task is None:
            task = asyncio.get_running_loop().create_task(self._auto_create(name, partitions, replication_factor,
                                                                            configs))
            self._creating[name] = task
            task.add_done_callback(lambda _: self._creating.pop(name, None))
        return await asyncio.shield(task)

    async def _auto_create(self, name: str, partitions: int, replication_factor: int,
                           configs: dict[str, str]) -> TopicInfo:
        try:
            return await self.create_topic(name, partitions, replication_factor, configs)
        except TopicError as e:
            if e.error_code != ErrorCode.TOPIC_ALREADY_EXISTS:
                raise
        return await self._wait_for_leaders(name)

    async def delete_topic(self, name: str) -> TopicInfo:
        info = self.cache.topic(name)
        if info is None:
            raise TopicError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "This server does not host this topic-partition.")
        response = await self._send(ApiKey.DELETE_TOPICS, DeleteTopicsRequest(
            topics=[DeleteTopicsRequest.DeleteTopicState(name=name)], topic_names=[name], timeout_ms=self.wait_ms))
        assert isinstance(response, DeleteTopicsResponse)
        result = response.responses[0]
        if result.error_code != ErrorCode.NONE:
            raise TopicError(ErrorCode.of_known(result.error_code), result.error_message or "")
        return info

    async def create_partitions(self, name: str, total: int, validate_only: bool = False) -> TopicInfo:
        response = await self._send(ApiKey.CREATE_PARTITIONS, CreatePartitionsRequest(
            topics=[CreatePartitionsRequest.CreatePartitionsTopic(name=name, count=total, assignments=None)],
            timeout_ms=self.wait_ms, validate_only=validate_only))
        assert isinstance(response, CreatePartitionsResponse)
        result = response.results[0]
        if result.error_code != ErrorCode.NONE:
            raise TopicError(ErrorCode.of_known(result.error_code), result.error_message or "")
        info = self.cache.topic(name)
        if validate_only and info is not None:
            return info
        return await self._wait_for_leaders(name, total)

    # -- configs -----------------------------------------------------------------------------
    async def _alter_configs(self, resource_type: int, resource_name: str, configs: dict[str, str]) -> None:
        response = await self._send(ApiKey.ALTER_CONFIGS, AlterConfigsRequest(resources=[
            AlterConfigsRequest.AlterConfigsResource(
                resource_type=resource_type, resource_name=resource_name,
                configs=[AlterConfigsRequest.AlterableConfig(name=k, value=v) for k, v in sorted(configs.items())])]))
        assert isinstance(response, AlterConfigsResponse)
        result = response.responses[0]
        if result.error_code != ErrorCode.NONE:
            raise TopicError(ErrorCode.of_known(result.error_code), result.error_message or "")

    async def alter_topic_config(self, name: str, configs: dict[str, str]) -> None:
        await self._alter_configs(TOPIC_RESOURCE, name, configs)

    async def alter_broker_configs(self, configs: dict[str, str], entity_name: str | None = None) -> None:
        await self._alter_configs(BROKER_RESOURCE, entity_name if entity_name is not None else
                                  str(self.config.broker_id), configs)

    async def fetch_entity_configs(self, entity_type: str, entity_name: str) -> dict[str, str]:
        """What this broker's metadata image holds (quota changes go to the controller)."""
        return dict(self.entity_configs.get(entity_type, entity_name))

    async def alter_entity_configs(self, entity_type: str, entity_name: str, configs: dict[str, str]) -> None:
        """User and client quotas live in the metadata log: AlterClientQuotas is forwarded to
        the controller as the client sent it, never rewritten here."""
        raise TopicError(ErrorCode.INVALID_REQUEST, "A KRaft broker forwards AlterClientQuotas to the controller")

    # -- producer ids --------------------------------------------------------------------------
    async def next_producer_id(self) -> int:
        """From blocks the controller hands out (AllocateProducerIds), so no two brokers and no
        restart ever hand out the same id."""
        async with self._pid_lock:
            while self._pid_next >= self._pid_end:
                response = await self._send(ApiKey.ALLOCATE_PRODUCER_IDS, AllocateProducerIdsRequest(
                    broker_id=self.config.broker_id, broker_epoch=self.broker_epoch()))
                assert isinstance(response, AllocateProducerIdsResponse)
                if response.error_code != ErrorCode.NONE:
                    raise TopicError(ErrorCode.of_known(response.error_code),
                                     "The controller did not allocate producer ids")
                self._pid_next = response.producer_id_start
                self._pid_end = response.producer_id_start + response.producer_id_len
            pid = self._pid_next
            self._pid_next += 1
            return pid

    # -- internal topics -------------------------------------------------------------------------
    async def _ensure(self, name: str, partitions: int, replication_factor: int, configs: dict[str, str]) -> None:
        info = self.cache.topic(name)
        if info is not None and info.partitions and all(p.leader >= 0 for p in info.partitions.values()):
            return
        await self.auto_create_topic(name, partitions, replication_factor, configs)

    async def ensure_offsets_topic(self) -> None:
        cfg = self.config
        await self._ensure(GROUP_METADATA_TOPIC_NAME, cfg["offsets.topic.num.partitions"],
                           cfg["offsets.topic.replication.factor"], offsets_topic_configs(cfg))

    async def ensure_transaction_state_topic(self) -> None:
        cfg = self.config
        await self._ensure(TRANSACTION_STATE_TOPIC_NAME, cfg["transaction.state.log.num.partitions"],
                           cfg["transaction.state.log.replication.factor"], transaction_state_topic_configs(cfg))

    async def ensure_share_group_state_topic(self) -> None:
        cfg = self.config
        await self._ensure(SHARE_GROUP_STATE_TOPIC_NAME, cfg["share.coordinator.state.topic.num.partitions"],
                           cfg["share.coordinator.state.topic.replication.factor"],
                           share_group_state_topic_configs(cfg))
