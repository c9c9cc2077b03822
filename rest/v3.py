"""Confluent REST Proxy's v3 API: clusters, brokers, topics (list, get, create, delete),
partitions, topic configs, consumer groups and their lag, records produce.

Answers are ``application/json`` in v3's resource shapes (``kind``, ``metadata.self``,
``related`` links); errors ``{"error_code": <HTTP status>, "message"}``. Who may call:
``app`` mounts ``V3Resource.routes()``.
"""
from __future__ import annotations

import asyncio
import base64
import binascii
import json
from typing import TYPE_CHECKING

from aiohttp import web

from kafpy.registry.errors import RestError
from kafpy.rest import errors
from kafpy.rest.cluster import ClusterClients
from kafpy.rest.v2 import Handler, handle, read_json
from kafpy.web.access import allowed, may

if TYPE_CHECKING:
    from aiokafka import AIOKafkaConsumer

JSON_TYPES = {"application/json", ""}


def _http(status: int, message: str) -> RestError:
    return RestError(status, message)


class V3Resource:
    """The v3 handlers; ``start`` opens the group-less consumer used for log end offsets."""

    def __init__(self, cluster: ClusterClients, max_request_bytes: int = 1 << 20) -> None:
        self.cluster = cluster
        self.max_request_bytes = max_request_bytes
        self._offsets: AIOKafkaConsumer | None = None

    async def start(self) -> None:
        from aiokafka import AIOKafkaConsumer
        self._offsets = AIOKafkaConsumer(bootstrap_servers=self.cluster.bootstrap, group_id=None,
                                         enable_auto_commit=False, **self.cluster.client_config)
        await self._offsets.start()
        self.cluster.stop_hooks.append(self._offsets.stop)

    def routes(self) -> list[tuple[str, str, Handler]]:
        c = "/v3/clusters/{cluster_id}"
        h = lambda fn: handle(fn, errors.V3_JSON)   # noqa: E731
        return [
            ("GET", "/v3/clusters", h(self.list_clusters)),
            ("GET", c, h(self.get_cluster)),
            ("GET", c + "/brokers", h(self.list_brokers)),
            ("GET", c + "/brokers/{broker_id}", h(self.get_broker)),
            ("GET", c + "/topics", h(self.list_topics)),
            ("POST", c + "/topics", h(self.create_topic)),
            ("GET", c + "/topics/{topic}", h(self.get_topic)),
            ("DELETE", c + "/topics/{topic}", h(self.delete_topic)),
            ("GET", c + "/topics/{topic}/partitions", h(self.list_partitions)),
            ("GET", c + "/topics/{topic}/partitions/{partition}", h(self.get_partition)),
            ("GET", c + "/topics/{topic}/configs", h(self.list_topic_configs)),
            ("POST", c + "/topics/{topic}/records", h(self.produce)),
            ("GET", c + "/consumer-groups", h(self.list_groups)),
            ("GET", c + "/consumer-groups/{group}", h(self.get_group)),
            ("GET", c + "/consumer-groups/{group}/lags", h(self.list_lags)),
            ("GET", c + "/consumer-groups/{group}/lag-summary", h(self.lag_summary)),
        ]

    # ---------------------------------------------------------------- helpers
    @staticmethod
    def _base(request: web.Request) -> str:
        return f"{request.scheme}://{request.host}/v3"

    async def _cluster(self, request: web.Request) -> tuple[str, dict]:
        md = await self.cluster.metadata([])
        cluster_id = md.get("cluster_id") or ""
        wanted = request.match_info.get("cluster_id")
        if wanted is not None and wanted != cluster_id:
            raise _http(404, f"Cluster {wanted} cannot be found.")
        return cluster_id, md

    def _list(self, kind: str, url: str, data: list) -> dict:
        return {"kind": f"{kind}List", "metadata": {"self": url, "next": None}, "data": data}

    def _meta(self, url: str, crn: str) -> dict:
        return {"self": url, "resource_name": crn}

    def _cluster_json(self, base: str, cluster_id: str, md: dict) -> dict:
        u = f"{base}/clusters/{cluster_id}"
        return {"kind": "KafkaCluster", "metadata": self._meta(u, f"crn:///kafka={cluster_id}"),
                "cluster_id": cluster_id,
                "controller": {"related": f"{u}/brokers/{md.get('controller_id', -1)}"},
                "acls": {"related": f"{u}/acls"}, "brokers": {"related": f"{u}/brokers"},
                "broker_configs": {"related": f"{u}/broker-configs"},
                "consumer_groups": {"related": f"{u}/consumer-groups"}, "topics": {"related": f"{u}/topics"},
                "partition_reassignments": {"related": f"{u}/topics/-/partitions/-/reassignment"}}

    def _broker_json(self, base: str, cluster_id: str, b: dict) -> dict:
        u = f"{base}/clusters/{cluster_id}/brokers/{b['node_id']}"
        return {"kind": "KafkaBroker", "metadata": self._meta(u, f"crn:///kafka={cluster_id}/broker={b['node_id']}"),
                "cluster_id": cluster_id, "broker_id": b["node_id"], "host": b["host"], "port": b["port"],
                "rack": b.get("rack"), "configs": {"related": f"{u}/configs"},
                "partition_replicas": {"related": f"{u}/partition-replicas"}}

    def _topic_json(self, base: str, cluster_id: str, t: dict) -> dict:
        u = f"{base}/clusters/{cluster_id}/topics/{t['topic']}"
        parts = t["partitions"]
        return {"kind": "KafkaTopic", "metadata": self._meta(u, f"crn:///kafka={cluster_id}/topic={t['topic']}"),
                "cluster_id": cluster_id, "topic_name": t["topic"], "is_internal": bool(t.get("is_internal")),
                "replication_factor": len(parts[0]["replicas"]) if parts else 0, "partitions_count": len(parts),
                "partitions": {"related": f"{u}/partitions"}, "configs": {"related": f"{u}/configs"},
                "partition_reassignments": {"related": f"{u}/partitions/-/reassignment"}}

    def _partition_json(self, base: str, cluster_id: str, topic: str, p: dict) -> dict:
        u = f"{base}/clusters/{cluster_id}/topics/{topic}/partitions/{p['partition']}"
        return {"kind": "KafkaPartition",
                "metadata": self._meta(u, f"crn:///kafka={cluster_id}/topic={topic}/partition={p['partition']}"),
                "cluster_id": cluster_id, "topic_name": topic, "partition_id": p["partition"],
                "leader": {"related": f"{u}/replicas/{p['leader']}"}, "replicas": {"related": f"{u}/replicas"},
                "reassignment": {"related": f"{u}/reassignment"}}

    async def _topic(self, topic: str) -> dict:
        md = await self.cluster.metadata([topic])
        (t,) = md["topics"] or [{"error_code": 3}]
        if t["error_code"] != 0:
            raise _http(404, "This server does not host this topic-partition.")
        return t

    # ---------------------------------------------------------------- clusters and brokers
    async def list_clusters(self, request: web.Request) -> dict:
        cluster_id, md = await self._cluster(request)
        return self._list("KafkaCluster", f"{self._base(request)}/clusters",
                          [self._cluster_json(self._base(request), cluster_id, md)])

    async def get_cluster(self, request: web.Request) -> dict:
        cluster_id, md = await self._cluster(request)
        return self._cluster_json(self._base(request), cluster_id, md)

    async def list_brokers(self, request: web.Request) -> dict:
        cluster_id, md = await self._cluster(request)
        base = self._base(request)
        return self._list("KafkaBroker", f"{base}/clusters/{cluster_id}/brokers",
                          [self._broker_json(base, cluster_id, b) for b in sorted(md["brokers"], key=lambda b: b["node_id"])])

    async def get_broker(self, request: web.Request) -> dict:
        cluster_id, md = await self._cluster(request)
        for b in md["brokers"]:
            if str(b["node_id"]) == request.match_info["broker_id"]:
                return self._broker_json(self._base(request), cluster_id, b)
        raise _http(404, f"Broker {request.match_info['broker_id']} cannot be found.")

    # ---------------------------------------------------------------- topics
    async def list_topics(self, request: web.Request) -> dict:
        cluster_id, _ = await self._cluster(request)
        md = await self.cluster.metadata(None)
        base = self._base(request)
        visible = allowed(request, "TOPIC", "DESCRIBE", sorted(md["topics"], key=lambda t: t["topic"]),
                          lambda t: t["topic"])   # as Kafka's Metadata lists them
        return self._list("KafkaTopic", f"{base}/clusters/{cluster_id}/topics",
                          [self._topic_json(base, cluster_id, t) for t in visible if t["error_code"] == 0])

    async def get_topic(self, request: web.Request) -> dict:
        cluster_id, _ = await self._cluster(request)
        return self._topic_json(self._base(request), cluster_id, await self._topic(request.match_info["topic"]))

    async def create_topic(self, request: web.Request) -> web.Response:
        from aiokafka.admin import NewTopic
        cluster_id, _ = await self._cluster(request)
        body = await read_json(request, JSON_TYPES, self.max_request_bytes)
        name = body.get("topic_name")
        if not isinstance(name, str) or not name:
            raise _http(400, "topic_name is required")
        configs = {c["name"]: c["value"] for c in body.get("configs") or []}
        resp = await self.cluster.admin.create_topics([NewTopic(name, int(body.get("partitions_count", 1)),
                                                                int(body.get("replication_factor", 1)),
                                                                topic_configs=configs)])
        for err in resp.to_object()["topic_errors"]:
            if err["error_code"] == 36:
                raise _http(400, f"Topic '{name}' already exists.")
            if err["error_code"] != 0:
                raise _http(400, err.get("error_message") or f"Error {err['error_code']} creating topic {name}")
        t = await self._wait_topic(name)
        return web.Response(status=201, content_type=errors.V3_JSON,
                            body=json.dumps(self._topic_json(self._base(request), cluster_id, t)).encode())

    async def _wait_topic(self, name: str) -> dict:
        for _ in range(50):
            try:
                return await self._topic(name)
            except RestError:
                await asyncio.sleep(0.1)
        return await self._topic(name)

    async def delete_topic(self, request: web.Request) -> None:
        await self._cluster(request)
        await self._topic(request.match_info["topic"])
        await self.cluster.admin.delete_topics([request.match_info["topic"]])
        return None

    async def list_partitions(self, request: web.Request) -> dict:
        cluster_id, _ = await self._cluster(request)
        topic = request.match_info["topic"]
        t = await self._topic(topic)
        base = self._base(request)
        return self._list("KafkaPartition", f"{base}/clusters/{cluster_id}/topics/{topic}/partitions",
                          [self._partition_json(base, cluster_id, topic, p)
                           for p in sorted(t["partitions"], key=lambda p: p["partition"])])

    async def get_partition(self, request: web.Request) -> dict:
        cluster_id, _ = await self._cluster(request)
        topic = request.match_info["topic"]
        for p in (await self._topic(topic))["partitions"]:
            if str(p["partition"]) == request.match_info["partition"]:
                return self._partition_json(self._base(request), cluster_id, topic, p)
        raise _http(404, "This server does not host this topic-partition.")

    async def list_topic_configs(self, request: web.Request) -> dict:
        from aiokafka.admin.config_resource import ConfigResource, ConfigResourceType
        cluster_id, _ = await self._cluster(request)
        topic = request.match_info["topic"]
        await self._topic(topic)
        (resp,) = await self.cluster.admin.describe_configs([ConfigResource(ConfigResourceType.TOPIC, topic)])
        (res,) = resp.to_object()["resources"]
        base = f"{self._base(request)}/clusters/{cluster_id}/topics/{topic}/configs"
        data = []
        for c in sorted(res["config_entries"], key=lambda c: c["config_names"]):
            name = c["config_names"]
            source = {1: "DYNAMIC_TOPIC_CONFIG", 4: "DYNAMIC_BROKER_CONFIG", 5: "STATIC_BROKER_CONFIG"}.get(
                c.get("config_source", 5), "DEFAULT_CONFIG")
            data.append({"kind": "KafkaTopicConfig",
                         "metadata": self._meta(f"{base}/{name}", f"crn:///kafka={cluster_id}/topic={topic}/config={name}"),
                         "cluster_id": cluster_id, "topic_name": topic, "name": name, "value": c["config_value"],
                         "is_default": bool(c.get("is_default", source == "DEFAULT_CONFIG")),
                         "is_read_only": bool(c["read_only"]), "is_sensitive": bool(c["is_sensitive"]),
                         "source": source, "synonyms": []})
        return self._list("KafkaTopicConfig", base, data)

    async def produce(self, request: web.Request) -> dict:
        cluster_id, _ = await self._cluster(request)
        topic = request.match_info["topic"]
        body = await read_json(request, JSON_TYPES, self.max_request_bytes)
        if not isinstance(body, dict):
            raise _http(400, "Request body must be an object")
        parts = await self.cluster.partitions(topic)
        partition = body.get("partition_id")
        if partition is not None and not any(p["partition"] == partition for p in parts):
            raise _http(404, "This server does not host this topic-partition.")
        key, key_type = self._data(body.get("key"))
        value, value_type = self._data(body.get("value"))
        headers = [(h["name"], base64.b64decode(h["value"]) if h.get("value") else b"") for h in body.get("headers") or []]
        fut = await self.cluster.producer.send(topic, key=key, value=value, partition=partition, headers=headers or None)
        meta = await fut
        out: dict[str, object] = {"error_code": 200, "cluster_id": cluster_id, "topic_name": topic,
                               "partition_id": meta.partition, "offset": meta.offset,
                               "timestamp": _iso(meta.timestamp)}
        if key is not None:
            out["key"] = {"type": key_type, "size": len(key)}
        if value is not None:
            out["value"] = {"type": value_type, "size": len(value)}
        return out

    @staticmethod
    def _data(part: object) -> tuple[bytes | None, str]:
        if part is None:
            return None, ""
        if not isinstance(part, dict):
            raise _http(400, "key and value must be objects with type and data")
        kind = (part.get("type") or "JSON").upper()
        data = part.get("data")
        if data is None:
            return None, kind
        if kind == "BINARY":
            try:
                return base64.b64decode(data, validate=True), kind
            except (binascii.Error, ValueError, TypeError):
                raise _http(400, "BINARY data must be base64") from None
        if kind == "STRING":
            return str(data).encode(), kind
        if kind == "JSON":
            return json.dumps(data, separators=(",", ":")).encode(), kind
        raise _http(400, f"Unsupported data type {kind} (schema-based types go through v2's embedded formats)")

    # ---------------------------------------------------------------- consumer groups
    async def _describe_group(self, group: str) -> dict:
        (resp,) = await self.cluster.admin.describe_consumer_groups([group])
        (g,) = resp.to_object()["groups"]
        if g["error_code"] != 0 or g["state"] == "Dead":
            raise _http(404, f"Consumer group {group} cannot be found.")
        return g

    def _group_json(self, base: str, cluster_id: str, g: dict) -> dict:
        u = f"{base}/clusters/{cluster_id}/consumer-groups/{g['group']}"
        return {"kind": "KafkaConsumerGroup", "metadata": self._meta(u, f"crn:///kafka={cluster_id}/consumer-group={g['group']}"),
                "cluster_id": cluster_id, "consumer_group_id": g["group"], "is_simple": g["protocol_type"] == "",
                "partition_assignor": g["protocol"], "state": g["state"].upper().replace("PREPARINGREBALANCE", "PREPARING_REBALANCE")
                .replace("COMPLETINGREBALANCE", "COMPLETING_REBALANCE"),
                "coordinator": {"related": f"{base}/clusters/{cluster_id}/brokers/-1"},
                "consumers": {"related": f"{u}/consumers"}, "lag_summary": {"related": f"{u}/lag-summary"}}

    async def list_groups(self, request: web.Request) -> dict:
        cluster_id, _ = await self._cluster(request)
        base = self._base(request)
        groups = allowed(request, "GROUP", "DESCRIBE", sorted(g[0] for g in await self.cluster.admin.list_consumer_groups()),
                         lambda g: g)   # as Kafka's ListGroups lists them
        data = []
        for name in groups:
            try:
                data.append(self._group_json(base, cluster_id, await self._describe_group(name)))
            except RestError:
                continue
        return self._list("KafkaConsumerGroup", f"{base}/clusters/{cluster_id}/consumer-groups", data)

    async def get_group(self, request: web.Request) -> dict:
        cluster_id, _ = await self._cluster(request)
        return self._group_json(self._base(request), cluster_id, await self._describe_group(request.match_info["group"]))

    async def _lags(self, group: str) -> list[dict]:
        committed = await self.cluster.admin.list_consumer_group_offsets(group)
        if not committed:
            await self._describe_group(group)
            return []
        assert self._offsets is not None, "start() opened the offsets reader"
        ends = await self._offsets.end_offsets(list(committed))
        return [{"topic_name": tp.topic, "partition_id": tp.partition, "current_offset": om.offset,
                 "log_end_offset": ends[tp], "lag": max(0, ends[tp] - om.offset)}
                for tp, om in sorted(committed.items())]

    async def list_lags(self, request: web.Request) -> dict:
        cluster_id, _ = await self._cluster(request)
        group = request.match_info["group"]
        base = f"{self._base(request)}/clusters/{cluster_id}/consumer-groups/{group}/lags"
        data = [{"kind": "KafkaConsumerLag",
                 "metadata": self._meta(f"{base}/{lag['topic_name']}/partitions/{lag['partition_id']}",
                                        f"crn:///kafka={cluster_id}/consumer-group={group}/lag={lag['topic_name']}"
                                        f"/partition={lag['partition_id']}"),
                 "cluster_id": cluster_id, "consumer_group_id": group, **lag,
                 "consumer_id": "", "instance_id": None, "client_id": ""} for lag in await self._lags(group)
                if may(request, "TOPIC", lag["topic_name"], "DESCRIBE")]   # OffsetFetch leaves the others out
        return self._list("KafkaConsumerLag", base, data)

    async def lag_summary(self, request: web.Request) -> dict:
        cluster_id, _ = await self._cluster(request)
        group = request.match_info["group"]
        lags = allowed(request, "TOPIC", "DESCRIBE", await self._lags(group), lambda lag: lag["topic_name"])
        top = max(lags, key=lambda lag: lag["lag"], default=None)
        u = f"{self._base(request)}/clusters/{cluster_id}/consumer-groups/{group}/lag-summary"
        return {"kind": "KafkaConsumerGroupLagSummary", "metadata": self._meta(u, f"crn:///kafka={cluster_id}/consumer-group={group}/lag-summary"),
                "cluster_id": cluster_id, "consumer_group_id": group,
                "max_lag": top["lag"] if top else 0, "total_lag": sum(lag["lag"] for lag in lags),
                "max_lag_topic_name": top["topic_name"] if top else None,
                "max_lag_partition_id": top["partition_id"] if top else None}


def _iso(ms: int) -> str:
    from datetime import datetime, timezone
    return datetime.fromtimestamp(ms / 1000, tz=timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
