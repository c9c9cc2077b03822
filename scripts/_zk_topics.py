"""The pre-3.0 `kafka-topics.sh --zookeeper` path: topics read and written in ZooKeeper as
Kafka 2.x's TopicCommand did through AdminZkClient, no broker involved.

`ZkTopicAdmin` answers the few kafka-python `KafkaAdminClient` calls `TopicService` makes
(list_topics, describe_topics, describe_configs, describe_cluster, create_topics,
create_partitions, delete_topics, close) from the znodes, so both paths print the same:
- create: `/config/topics/<t>` then `/brokers/topics/<t>` (Kafka's JSON, a new topic id,
  replicas assigned over the brokers registered under `/brokers/ids`); the controller
  notices the new topic and elects the leaders;
- describe: assignment from `/brokers/topics/<t>`, leader and ISR from the partition state
  znodes (leader -1 until the controller wrote one);
- alter --partitions: the added partitions' assignment written into `/brokers/topics/<t>`;
- delete: `/admin/delete_topics/<t>`, which the controller acts on.

Who may call it: the kafka-topics tool, from one thread. It runs KafkaZkClient's coroutines
on a private event loop, so a CLI stays synchronous.
"""
from __future__ import annotations

import asyncio
import logging
from types import SimpleNamespace
from typing import TYPE_CHECKING, Awaitable, TypeVar

from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.topics import INTERNAL_TOPICS, InvalidTopicName, unify_collision_chars, validate_topic_name

from kafpy.replication.metadata_cache import new_topic_id
from kafpy.broker.topic_config import InvalidConfig, validate_topic_configs
from kafpy.replication import zk_data as zd
from kafpy.replication.assignment import (AssignmentError, BrokerMetadata, assign_replicas_to_brokers,
                                    new_partitions_assignment, validate_topic_assignment)
from kafpy.replication.zk_client import MATCH_ANY_VERSION, KafkaZkClient, NodeExistsError
from kafpy.scripts._topic_specs import NewPartitionsSpec, NewTopicSpec, ZooKeeperConnectError

if TYPE_CHECKING:
    from kafka.admin import ConfigResource

ResultT = TypeVar("ResultT")

#: One topic's answer in the shape kafka-python's admin gives (error_code, error_message, ...).
TopicAnswer = dict[str, object]


SESSION_TIMEOUT_MS = 30000
CONNECTION_TIMEOUT_MS = 15000


def _error(code: ErrorCode, message: str) -> TopicAnswer:
    return {"error_code": int(code), "error_message": message}


class ZkTopicAdmin:
    """A KafkaAdminClient stand-in over one ZooKeeper session (see the module docstring)."""

    def __init__(self, connect: str, connection_timeout_ms: int = CONNECTION_TIMEOUT_MS) -> None:
        logging.getLogger("kazoo").setLevel(logging.CRITICAL)  # its retries would flood stderr
        self._loop = asyncio.new_event_loop()
        self.zk = KafkaZkClient(connect, session_timeout_ms=SESSION_TIMEOUT_MS,
                                connection_timeout_ms=connection_timeout_ms)
        try:
            self._run(self.zk.start())
        except Exception as exc:  # kazoo raises its own timeout type
            self._loop.close()
            raise ZooKeeperConnectError(
                "Timed out waiting for connection while in state: CONNECTING") from exc

    def _run(self, coro: Awaitable[ResultT]) -> ResultT:
        return self._loop.run_until_complete(coro)

    def close(self) -> None:
        try:
            self._run(self.zk.close())
        finally:
            self._loop.close()

    # ------------------------------------------------------------------ reads
    def api_versions(self) -> dict[int, tuple[int, int]]:
        """No broker is asked: `TopicService` then describes through `describe_topics`."""
        return {}

    def list_topics(self) -> list[str]:
        return sorted(self._run(self.zk.get_all_topics()))

    def describe_cluster(self) -> dict[str, list[dict[str, object]]]:
        brokers = self._run(self._live_brokers())
        return {"brokers": [{"node_id": b.id, "rack": b.rack} for b in brokers]}

    def describe_topics(self, topics: list[str] | None = None) -> list[TopicAnswer]:
        names = self.list_topics() if topics is None else list(topics)
        return self._run(self._describe(names))

    async def _describe(self, names: list[str]) -> list[TopicAnswer]:
        assignments = await self.zk.get_topic_assignments(names)
        out: list[TopicAnswer] = []
        for name in names:
            assignment = assignments.get(name)
            if assignment is None:
                out.append({"name": name, "error_code": int(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION),
                            "partitions": []})
                continue
            states = await self.zk.get_partition_states((name, p) for p in assignment.partitions)
            partitions = []
            for p, replicas in sorted(assignment.partitions.items()):
                state = states.get((name, p))
                lai = state.leader_and_isr if state is not None else None
                partitions.append({"partition_index": p, "replica_nodes": list(replicas.replicas),
                                   "leader_id": lai.leader if lai else -1,
                                   "isr_nodes": list(lai.isr) if lai else []})
            topic_id = zd.topic_id_from_str(assignment.topic_id) if assignment.topic_id else None
            out.append({"name": name, "error_code": 0, "topic_id": topic_id,
                        "is_internal": name in INTERNAL_TOPICS, "partitions": partitions})
        return out

    def describe_configs(self, resources: list[ConfigResource], config_filter: str | None = None
                         ) -> dict[str, dict[str, dict[str, dict[str, str]]]]:
        """Topic overrides from `/config/topics/<t>`, shaped as the tools' admin answers."""
        topics: dict[str, dict[str, dict[str, str]]] = {}
        for r in resources:
            name = r.name
            configs = self._run(self.zk.get_entity_config(zd.ConfigType.TOPIC, name))
            topics[name] = {k: {"value": v, "config_source": "DYNAMIC_TOPIC_CONFIG"}
                            for k, v in sorted(configs.items())}
        return {"topic": topics}

    # ------------------------------------------------------------------ writes
    def create_topics(self, specs: dict[str, NewTopicSpec], raise_errors: bool = False
                      ) -> dict[str, list[TopicAnswer]]:
        return {"topics": [{"name": name, **self._run(self._create(name, spec))}
                           for name, spec in specs.items()]}

    async def _create(self, name: str, spec: NewTopicSpec) -> TopicAnswer:
        """AdminZkClient.createTopic: validate, assign, write config then assignment."""
        try:
            validate_topic_name(name)
        except InvalidTopicName as e:
            return _error(ErrorCode.INVALID_TOPIC_EXCEPTION, str(e))
        configs = dict(spec.get("configs") or {})
        try:
            validate_topic_configs({**configs})  # a copy typed as the check takes it
        except InvalidConfig as e:
            return _error(ErrorCode.INVALID_CONFIG, str(e))
        existing = await self.zk.get_all_topics()
        if name in existing:
            return _error(ErrorCode.TOPIC_ALREADY_EXISTS, f"Topic '{name}' already exists.")
        norm = unify_collision_chars(name)
        clash = next((t for t in sorted(existing) if unify_collision_chars(t) == norm), None)
        if clash is not None:
            return _error(ErrorCode.INVALID_TOPIC_EXCEPTION,
                          f"Topic '{name}' collides with existing topic: {clash}")
        try:
            replicas = self._assign(spec, await self._live_brokers())
        except AssignmentError as e:
            return _error(e.error_code, str(e))
        await self.zk.set_or_create_entity_config(zd.ConfigType.TOPIC, name, configs)
        try:
            await self.zk.create_topic_assignment(
                name, zd.TopicAssignment.of(zd.topic_id_to_str(new_topic_id()), replicas))
        except NodeExistsError:
            return _error(ErrorCode.TOPIC_ALREADY_EXISTS, f"Topic '{name}' already exists.")
        return {"error_code": 0}

    async def _live_brokers(self) -> list[BrokerMetadata]:
        brokers = await self.zk.get_all_brokers_and_epochs()
        return [BrokerMetadata(b, reg.rack) for b, (reg, _) in sorted(brokers.items())]

    @staticmethod
    def _assign(spec: NewTopicSpec, brokers: list[BrokerMetadata]) -> dict[int, list[int]]:
        manual = spec.get("assignments")
        if manual:
            validate_topic_assignment(manual)
            live = {b.id for b in brokers}
            for p, reps in sorted(manual.items()):
                if not set(reps) <= live:
                    raise AssignmentError(ErrorCode.BROKER_NOT_AVAILABLE,
                                          f"Some brokers specified for partition id {p} are not "
                                          f"available. Specified brokers: "
                                          f"{', '.join(map(str, reps))}, available brokers: "
                                          f"{', '.join(map(str, sorted(live)))}.")
            return {p: list(r) for p, r in manual.items()}
        return assign_replicas_to_brokers(brokers, spec["num_partitions"], spec["replication_factor"])

    def create_partitions(self, specs: dict[str, NewPartitionsSpec | int], raise_errors: bool = False
                          ) -> SimpleNamespace:
        results = [SimpleNamespace(topic_name=name, **self._run(self._add_partitions(name, spec)))
                   for name, spec in specs.items()]
        return SimpleNamespace(results=results)

    async def _add_partitions(self, name: str, spec: NewPartitionsSpec | int) -> TopicAnswer:
        """AdminZkClient.addPartitions: only the new partitions' replicas are written."""
        total = spec["count"] if isinstance(spec, dict) else spec
        current = await self.zk.get_topic_assignment(name)
        if current is None:
            return _error(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, f"The topic '{name}' does not exist.")
        existing = {p: a.replicas for p, a in current.partitions.items()}
        manual = None
        if isinstance(spec, dict) and spec.get("assignments"):
            manual = {len(existing) + i: list(r) for i, r in enumerate(spec["assignments"])}
        try:
            added = new_partitions_assignment(name, existing, await self._live_brokers(), total, manual)
        except AssignmentError as e:
            return _error(e.error_code, str(e))
        new = zd.TopicAssignment(current.topic_id, {
            **current.partitions, **zd.TopicAssignment.of(None, added).partitions})
        await self.zk.set_topic_assignment(name, new, MATCH_ANY_VERSION)
        return {"error_code": 0, "error_message": None}

    def delete_topics(self, topics: list[str], raise_errors: bool = False
                      ) -> dict[str, list[TopicAnswer]]:
        return {"topics": [{"name": t, **self._run(self._mark_for_deletion(t))} for t in topics]}

    async def _mark_for_deletion(self, name: str) -> TopicAnswer:
        if name in INTERNAL_TOPICS:
            return _error(ErrorCode.INVALID_REQUEST, f"Topic {name} is a kafka internal topic and "
                          "is not allowed to be marked for deletion.")
        if await self.zk.get_topic_assignment(name) is None:
            return _error(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, f"Topic {name} does not exist.")
        try:
            await self.zk.create_delete_topic_path(name)
        except NodeExistsError:
            pass  # already asked; the controller is on it
        return {"error_code": 0}
