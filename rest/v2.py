"""Confluent REST Proxy's v2 API: produce with the embedded formats, topics and partitions
read, consumer instances (subscribe, assign, seek, records, commit, delete).

Who may call: ``app`` mounts ``V2Resource.routes()``. Requests take the v2 content types
(``application/vnd.kafka.{binary,json,avro,jsonschema}.v2+json`` for produce and records,
``application/vnd.kafka.v2+json`` or ``application/json`` elsewhere); answers are
``application/vnd.kafka.v2+json`` (records: the consumer's format type).

Rights: the proxy's clients reach the cluster as the broker's own principal, so what the
broker would check on a consumer's own requests is checked here, as the caller
(``kafpy.web.access``), where the route alone cannot say it (``kafpy.broker.http_acls`` has the
route's part): records need READ on every topic the instance reads; a ``topic_pattern``
matches only the topics the caller may DESCRIBE (Kafka's regex subscriptions) and is
resolved again before each fetch; a commit needs READ on each topic, an offsets read
DESCRIBE (Kafka's OffsetCommit and OffsetFetch); ``GET /topics`` lists only the topics the
caller may DESCRIBE (Metadata), ``GET /topics/{t}`` shows configs only with DESCRIBE_CONFIGS.
Refusals are 403 with 40301 and the topics named, as the proxy answers a client's
TopicAuthorizationException.
"""
from __future__ import annotations

import asyncio
import json
import logging
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Iterable

from aiohttp import web

from kafpy.registry.errors import RestError
from kafpy.rest import errors
from kafpy.rest.cluster import ClusterClients
from kafpy.rest.consumers import ConsumerInstance, ConsumerManager
from kafpy.rest.formats import Encoder, decode
from kafpy.rest.registry_client import CALLER_AUTHORIZATION, RegistryClient
from kafpy.rest.topic_pattern import InvalidPattern, topic_matcher
from kafpy.web.access import BODY_KEY, allowed, may, principal_of
from kafpy.web.server import long_poll

if TYPE_CHECKING:
    from aiokafka import TopicPartition

log = logging.getLogger("kafka.rest.v2")
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
PLAIN_TYPES = {errors.V2_JSON, "application/json", "application/vnd.kafka+json", "application/octet-stream", ""}
MAX_RECORDS_BYTES = 64 * 1024 * 1024


def handle(fn: Callable[[web.Request], Awaitable[object]], content_type: str = errors.V2_JSON) -> Handler:
    async def handler(request: web.Request) -> web.StreamResponse:
        try:
            result = await fn(request)
        except RestError as e:
            return errors.error_reply(e, content_type)
        except web.HTTPException:
            raise
        except Exception as e:   # Kafka client errors: Confluent's 50002
            log.exception("Error handling %s %s", request.method, request.path)
            return errors.error_reply(RestError(errors.KAFKA_ERROR, f"Kafka error: {e}"), content_type)
        if isinstance(result, web.StreamResponse):
            return result
        return errors.reply(result, content_type=content_type) if result is not None else web.Response(status=204)
    return handler


async def read_json(request: web.Request, allowed: set[str], max_bytes: int, required: bool = True) -> Any:   # callers check the shapes they use; a wrong one is the handler's 50002
    ctype = request.headers.get("Content-Type", "").split(";")[0].strip().lower()
    if ctype not in allowed:
        raise RestError(errors.UNSUPPORTED_MEDIA_TYPE, "HTTP 415 Unsupported Media Type")
    raw = request.get(BODY_KEY)   # read already when the HTTP stack's ACL check needed it
    if raw is None:
        raw = await request.content.read(max_bytes + 1)
    if len(raw) > max_bytes:
        raise RestError(errors.PAYLOAD_TOO_LARGE, "Request entity too large")
    if not raw:
        if required:
            raise RestError(errors.UNPROCESSABLE, "Request body is missing")
        return {}
    try:
        return json.loads(raw)
    except ValueError as e:
        raise RestError(errors.BAD_REQUEST, f"Unexpected character: {e}") from None


def partitions_of(body: dict, key: str = "partitions") -> list[tuple[str, int]]:
    items = body.get(key)
    if not isinstance(items, list) or not all(
            isinstance(p, dict) and isinstance(p.get("topic"), str) and isinstance(p.get("partition"), int) for p in items):
        raise RestError(errors.UNPROCESSABLE, f"{key} must be a list of {{topic, partition}}")
    return [(p["topic"], p["partition"]) for p in items]


class V2Resource:
    """The v2 handlers over the cluster clients, the consumer instances and the registry."""

    def __init__(self, cluster: ClusterClients, consumers: ConsumerManager, registry: RegistryClient | None,
                 max_request_bytes: int = 1 << 20) -> None:
        self.cluster = cluster
        self.consumers = consumers
        self.registry = registry
        self.max_request_bytes = max_request_bytes

    def routes(self) -> list[tuple[str, str, Handler]]:
        inst = "/consumers/{group}/instances/{instance}"
        return [
            ("GET", "/topics", handle(self.list_topics)),
            ("GET", "/topics/{topic}", handle(self.get_topic)),
            ("POST", "/topics/{topic}", handle(self.produce)),
            ("GET", "/topics/{topic}/partitions", handle(self.list_partitions)),
            ("GET", "/topics/{topic}/partitions/{partition}", handle(self.get_partition)),
            ("POST", "/topics/{topic}/partitions/{partition}", handle(self.produce)),
            ("GET", "/brokers", handle(self.list_brokers)),
            ("POST", "/consumers/{group}", handle(self.create_consumer)),
            ("DELETE", inst, handle(self.delete_consumer)),
            ("POST", inst + "/subscription", handle(self.subscribe)),
            ("GET", inst + "/subscription", handle(self.get_subscription)),
            ("DELETE", inst + "/subscription", handle(self.unsubscribe)),
            ("POST", inst + "/assignments", handle(self.assign)),
            ("GET", inst + "/assignments", handle(self.get_assignments)),
            ("POST", inst + "/positions", handle(self.seek)),
            ("POST", inst + "/positions/beginning", handle(self.seek_to_beginning)),
            ("POST", inst + "/positions/end", handle(self.seek_to_end)),
            ("GET", inst + "/records", long_poll(self.records)),
            ("POST", inst + "/offsets", handle(self.commit)),
            ("GET", inst + "/offsets", handle(self.committed)),
        ]

    # ---------------------------------------------------------------- topics and produce
    async def list_topics(self, request: web.Request) -> list[str]:
        md = await self.cluster.metadata(None)
        names = sorted(t["topic"] for t in md["topics"] if t["error_code"] == 0)
        return allowed(request, "TOPIC", "DESCRIBE", names, lambda t: t)

    async def list_brokers(self, request: web.Request) -> dict[str, list[int]]:
        md = await self.cluster.metadata([])
        return {"brokers": sorted(b["node_id"] for b in md["brokers"])}

    async def get_topic(self, request: web.Request) -> dict:
        topic = request.match_info["topic"]
        parts = await self.cluster.partitions(topic)
        configs = await self._topic_configs(topic) if may(request, "TOPIC", topic, "DESCRIBE_CONFIGS") else {}
        return {"name": topic, "configs": configs,
                "partitions": [self._partition_json(p) for p in parts]}

    async def _topic_configs(self, topic: str) -> dict:
        from aiokafka.admin.config_resource import ConfigResource, ConfigResourceType
        (resp,) = await self.cluster.admin.describe_configs([ConfigResource(ConfigResourceType.TOPIC, topic)])
        (res,) = resp.to_object()["resources"]
        return {c["config_names"]: c["config_value"] for c in res["config_entries"] if not c.get("is_default", False)}

    @staticmethod
    def _partition_json(p: dict) -> dict:
        return {"partition": p["partition"], "leader": p["leader"],
                "replicas": [{"broker": r, "leader": r == p["leader"], "in_sync": r in p["isr"]} for r in p["replicas"]]}

    async def list_partitions(self, request: web.Request) -> list[dict]:
        return [self._partition_json(p) for p in await self.cluster.partitions(request.match_info["topic"])]

    async def get_partition(self, request: web.Request) -> dict:
        topic, partition = request.match_info["topic"], self._int(request.match_info["partition"])
        for p in await self.cluster.partitions(topic):
            if p["partition"] == partition:
                return self._partition_json(p)
        raise RestError(errors.PARTITION_NOT_FOUND, "Partition not found.")

    @staticmethod
    def _int(raw: str) -> int:
        try:
            return int(raw)
        except ValueError:
            raise RestError(errors.BAD_REQUEST, f"Not a number: {raw}") from None

    async def produce(self, request: web.Request) -> dict:
        ctype = request.headers.get("Content-Type", "").split(";")[0].strip().lower()
        fmt = errors.EMBEDDED.get(ctype)
        if fmt is None:
            raise RestError(errors.UNSUPPORTED_MEDIA_TYPE, "HTTP 415 Unsupported Media Type")
        body = await read_json(request, {ctype}, self.max_request_bytes)
        records = body.get("records") if isinstance(body, dict) else None
        if not isinstance(records, list) or not all(isinstance(r, dict) for r in records):
            raise RestError(errors.UNPROCESSABLE, "records must be a list of objects")
        topic = request.match_info["topic"]
        fixed = request.match_info.get("partition")
        parts = await self.cluster.partitions(topic, auto_create=True)
        if fixed is not None:
            await self.cluster.check_partition(topic, self._int(fixed))
        CALLER_AUTHORIZATION.set(request.headers.get("Authorization"))
        encoder = Encoder(fmt, self.registry)
        key_id = await encoder.schema_id(topic, "key", body)
        value_id = await encoder.schema_id(topic, "value", body)
        encoded = []   # every record encoded before any is sent: a bad one sends none
        for r in records:
            partition = self._int(fixed) if fixed is not None else r.get("partition")
            if partition is not None and not any(p["partition"] == partition for p in parts):
                raise RestError(errors.PARTITION_NOT_FOUND, "Partition not found.")
            encoded.append((await encoder.encode(r.get("key"), key_id, "key"),
                            await encoder.encode(r.get("value"), value_id, "value"), partition))
        futures = [await self.cluster.producer.send(topic, value=v, key=k, partition=p) for k, v, p in encoded]
        offsets = []
        for result in await asyncio.gather(*futures, return_exceptions=True):
            if isinstance(result, BaseException):
                offsets.append({"partition": None, "offset": None, "error_code": errors.KAFKA_ERROR, "error": str(result)})
            else:
                offsets.append({"partition": result.partition, "offset": result.offset,
                                "error_code": None, "error": None})
        return {"key_schema_id": key_id, "value_schema_id": value_id, "offsets": offsets}

    # ---------------------------------------------------------------- consumers
    async def create_consumer(self, request: web.Request) -> dict[str, str]:
        body = await read_json(request, PLAIN_TYPES, self.max_request_bytes, required=False)
        if not isinstance(body, dict):
            raise RestError(errors.UNPROCESSABLE, "Request body must be an object")
        group = request.match_info["group"]
        instance = await self.consumers.create(group, body, principal_of(request))
        base = f"{request.scheme}://{request.host}/consumers/{group}/instances/{instance.name}"
        return {"instance_id": instance.name, "base_uri": base}

    def _instance(self, request: web.Request) -> ConsumerInstance:
        return self.consumers.get(request.match_info["group"], request.match_info["instance"], principal_of(request))

    async def delete_consumer(self, request: web.Request) -> None:
        await self.consumers.delete(request.match_info["group"], request.match_info["instance"],
                                    principal_of(request))
        return None

    @staticmethod
    def _require(request: web.Request, operation: str, topics: Iterable[str]) -> None:
        """403 (40301) naming the topics the caller may not ``operation``."""
        refused = sorted({t for t in topics if not may(request, "TOPIC", t, operation)})
        if refused:
            raise RestError(errors.FORBIDDEN, f"Not authorized to access topics: [{', '.join(refused)}]")

    async def _pattern_topics(self, request: web.Request, matches: Callable[[str], bool]) -> list[str]:
        """The non-internal topics whose names match and the caller may DESCRIBE (Kafka's
        regex subscriptions leave the others out)."""
        md = await self.cluster.metadata(None)
        names = sorted(t["topic"] for t in md["topics"]
                       if t["error_code"] == 0 and not t.get("is_internal") and matches(t["topic"]))
        return allowed(request, "TOPIC", "DESCRIBE", names, lambda t: t)

    async def _follow_pattern(self, request: web.Request, instance: ConsumerInstance) -> None:
        """Re-resolves a pattern subscription with the caller's rights of now."""
        if instance.pattern is None:
            return
        topics = await self._pattern_topics(request, instance.pattern)
        if set(topics) != set(instance.consumer.subscription()):
            if topics:
                instance.consumer.subscribe(topics=topics)
            else:
                instance.consumer.unsubscribe()

    async def subscribe(self, request: web.Request) -> None:
        instance = self._instance(request)
        body = await read_json(request, PLAIN_TYPES, self.max_request_bytes)
        topics, pattern = body.get("topics"), body.get("topic_pattern")
        if (topics is None) == (pattern is None):
            raise RestError(errors.UNPROCESSABLE, "Subscription must give either topics or topic_pattern")
        if instance.consumer.assignment() and not instance.consumer.subscription():
            raise RestError(errors.ILLEGAL_STATE, "Subscription to topics, partitions and pattern are mutually exclusive.")
        if pattern is not None:
            if not isinstance(pattern, str):
                raise RestError(errors.UNPROCESSABLE, "topic_pattern must be a string")
            try:
                matches = topic_matcher(pattern)
            except InvalidPattern as e:
                raise RestError(errors.UNPROCESSABLE, str(e)) from None
            instance.consumer.unsubscribe()
            instance.pattern = matches
            await self._follow_pattern(request, instance)
        else:
            if not isinstance(topics, list) or not all(isinstance(t, str) for t in topics):
                raise RestError(errors.UNPROCESSABLE, "topics must be a list of names")
            instance.pattern = None
            instance.consumer.subscribe(topics=topics)
        return None

    async def get_subscription(self, request: web.Request) -> dict[str, list[str]]:
        return {"topics": sorted(self._instance(request).consumer.subscription())}

    async def unsubscribe(self, request: web.Request) -> None:
        instance = self._instance(request)
        instance.pattern = None
        instance.consumer.unsubscribe()
        return None

    async def assign(self, request: web.Request) -> None:
        from aiokafka import TopicPartition
        instance = self._instance(request)
        tps = partitions_of(await read_json(request, PLAIN_TYPES, self.max_request_bytes))
        if instance.consumer.subscription() or instance.pattern is not None:
            raise RestError(errors.ILLEGAL_STATE, "Subscription to topics, partitions and pattern are mutually exclusive.")
        instance.consumer.assign([TopicPartition(t, p) for t, p in tps])
        return None

    async def get_assignments(self, request: web.Request) -> dict:
        return {"partitions": [{"topic": tp.topic, "partition": tp.partition}
                               for tp in sorted(self._instance(request).consumer.assignment())]}

    async def seek(self, request: web.Request) -> None:
        from aiokafka import TopicPartition
        instance = self._instance(request)
        body = await read_json(request, PLAIN_TYPES, self.max_request_bytes)
        for o in body.get("offsets") or []:
            tp = TopicPartition(o["topic"], o["partition"])
            self._check_assigned(instance, tp)
            instance.consumer.seek(tp, int(o["offset"]))
        return None

    @staticmethod
    def _check_assigned(instance: ConsumerInstance, tp: TopicPartition) -> None:
        if tp not in instance.consumer.assignment():
            raise RestError(errors.ILLEGAL_STATE, f"No current assignment for partition {tp.topic}-{tp.partition}")

    async def seek_to_beginning(self, request: web.Request) -> None:
        return await self._seek_to(request, "seek_to_beginning")

    async def seek_to_end(self, request: web.Request) -> None:
        return await self._seek_to(request, "seek_to_end")

    async def _seek_to(self, request: web.Request, how: str) -> None:
        from aiokafka import TopicPartition
        instance = self._instance(request)
        tps = [TopicPartition(t, p) for t, p in partitions_of(await read_json(request, PLAIN_TYPES, self.max_request_bytes))]
        for tp in tps:
            self._check_assigned(instance, tp)
        await getattr(instance.consumer, how)(*tps)
        return None

    async def records(self, request: web.Request) -> web.StreamResponse:
        try:
            instance = self._instance(request)
        except RestError as e:
            return errors.error_reply(e)
        accept = request.headers.get("Accept", "").split(",")[0].split(";")[0].strip().lower()
        want = errors.EMBEDDED.get(accept)
        content_type = accept if want is not None else errors.V2_JSON
        if want is not None and want != instance.fmt:
            return errors.error_reply(RestError(errors.CONSUMER_FORMAT_MISMATCH,
                                           "The requested embedded data format does not match the deserializer "
                                           "for this consumer instance"), content_type)
        return await handle(lambda r: self._records(r, instance),
                            {v: k for k, v in errors.EMBEDDED.items()}[instance.fmt])(request)

    async def _records(self, request: web.Request, instance: ConsumerInstance) -> list[dict[str, object]]:
        CALLER_AUTHORIZATION.set(request.headers.get("Authorization"))
        timeout_ms = min(self._int(request.query.get("timeout", "1000")), 30000)
        max_bytes = min(self._int(request.query.get("max_bytes", str(MAX_RECORDS_BYTES))), MAX_RECORDS_BYTES)
        async with instance.lock:
            await self._follow_pattern(request, instance)
            if not instance.consumer.assignment() and not instance.consumer.subscription():
                if instance.pattern is not None:
                    return []   # no topic the caller may see matches yet
                raise RestError(errors.ILLEGAL_STATE, "Consumer is not subscribed to any topics or assigned any partitions")
            self._require(request, "READ", set(instance.consumer.subscription())
                          | {tp.topic for tp in instance.consumer.assignment()})
            batches = await instance.consumer.getmany(timeout_ms=max(timeout_ms, 0), max_records=1000)
            out: list[dict[str, object]] = []
            size = 0
            for tp, msgs in sorted(batches.items()):
                for i, m in enumerate(msgs):
                    size += len(m.key or b"") + len(m.value or b"")
                    if out and size > max_bytes:   # leave the rest to the next request
                        instance.consumer.seek(tp, m.offset)
                        break
                    out.append({"topic": m.topic,
                                "key": await decode(instance.fmt, m.key, self.registry),
                                "value": await decode(instance.fmt, m.value, self.registry),
                                "partition": m.partition, "offset": m.offset})
            return out

    async def commit(self, request: web.Request) -> web.Response:
        from aiokafka import TopicPartition
        from aiokafka.structs import OffsetAndMetadata
        instance = self._instance(request)
        body = await read_json(request, PLAIN_TYPES, self.max_request_bytes, required=False)
        offsets = body.get("offsets") if isinstance(body, dict) else None
        if offsets is not None and (not isinstance(offsets, list) or not all(
                isinstance(o, dict) and isinstance(o.get("topic"), str) for o in offsets)):
            raise RestError(errors.UNPROCESSABLE, "offsets must be a list of {topic, partition, offset}")
        async with instance.lock:
            self._require(request, "READ", {o["topic"] for o in offsets} if offsets
                          else {tp.topic for tp in instance.consumer.assignment()})
            if offsets:
                await instance.consumer.commit({TopicPartition(o["topic"], o["partition"]):
                                                OffsetAndMetadata(int(o["offset"]), o.get("metadata") or "")
                                                for o in offsets})
            else:
                await instance.consumer.commit()
        return web.Response(status=200)

    async def committed(self, request: web.Request) -> dict:
        from aiokafka import TopicPartition
        instance = self._instance(request)
        body = await read_json(request, PLAIN_TYPES, self.max_request_bytes)
        tps = partitions_of(body)
        self._require(request, "DESCRIBE", {t for t, _ in tps})
        out = []
        for t, p in tps:
            offset = await instance.consumer.committed(TopicPartition(t, p))
            out.append({"topic": t, "partition": p, "offset": offset if offset is not None else -1, "metadata": ""})
        return {"offsets": out}
