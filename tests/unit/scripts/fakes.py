"""Stand-ins for kafka-python's admin client, producer and consumer: same method names,
answers taken from plain dicts, every call recorded. No sockets."""
from __future__ import annotations

import uuid
from collections import namedtuple
from typing import Any

from kafka import TopicPartition
from kafka.structs import OffsetAndMetadata


class FakeAdmin:
    def __init__(self, topics: dict[str, int] | None = None, *, internal=(), configs=None,
                 groups=None, committed=None, end_offsets=None, start_offsets=None,
                 brokers=((0, "127.0.0.1", 9092),), api_keys=(0, 1, 2, 3)):
        self.topics = dict(topics or {})
        self.internal = set(internal)
        self.ids = {t: uuid.UUID(int=i + 1) for i, t in enumerate(sorted(self.topics))}
        self.configs = configs or {}
        self.groups = groups or {}
        self.committed = committed or {}
        self.end_offsets = end_offsets or {}
        self.start_offsets = start_offsets or {}
        self.brokers = list(brokers)
        self.api_keys = list(api_keys)
        self.calls: list[tuple[str, Any]] = []
        self.closed = False

    # topics
    def list_topics(self):
        return list(self.topics)

    def api_versions(self):
        return {k: (0, 10) for k in self.api_keys}

    def describe_topics(self, topics=None):
        names = topics if topics is not None else list(self.topics)
        out = []
        for t in names:
            if t not in self.topics:
                out.append({"name": t, "error_code": 3, "partitions": []})
                continue
            out.append({"name": t, "error_code": 0, "topic_id": self.ids[t],
                        "is_internal": t in self.internal,
                        "partitions": [{"partition_index": p, "leader_id": 0,
                                        "replica_nodes": [0], "isr_nodes": [0],
                                        "error_code": 0}
                                       for p in reversed(range(self.topics[t]))]})
        return out

    def describe_cluster(self):
        return {"brokers": [{"broker_id": b, "host": h, "port": p} for b, h, p in self.brokers],
                "controller_id": 0, "cluster_id": "c"}

    def describe_configs(self, resources, include_synonyms=False, config_filter="modified"):
        self.calls.append(("describe_configs", [r.name for r in resources]))
        return {"topic": {r.name: self.configs.get(r.name, {}) for r in resources}}

    def create_topics(self, spec, raise_errors=True, **kw):
        self.calls.append(("create_topics", spec))
        results = []
        for name in spec:
            if name in self.topics:
                results.append({"name": name, "error_code": 36,
                                "error_message": f"Topic '{name}' already exists."})
            else:
                self.topics[name] = spec[name].get("num_partitions", 1)
                results.append({"name": name, "error_code": 0, "error_message": None})
        return {"topics": results}

    def create_partitions(self, spec, raise_errors=True, **kw):
        self.calls.append(("create_partitions", spec))
        Result = namedtuple("Result", "name error_code error_message")
        out = []
        for name, total in spec.items():
            total = total["count"] if isinstance(total, dict) else total
            if total <= self.topics[name]:
                out.append(Result(name, 37, f"Topic already has {self.topics[name]} partition(s)."))
            else:
                self.topics[name] = total
                out.append(Result(name, 0, None))
        return namedtuple("Resp", "results")(out)

    def delete_topics(self, topics, raise_errors=True, **kw):
        self.calls.append(("delete_topics", list(topics)))
        for t in topics:
            self.topics.pop(t, None)
        return {"topics": [{"name": t, "error_code": 0} for t in topics]}

    # groups
    def list_groups(self):
        return [{"group_id": g, "protocol_type": "consumer", "group_state": d["group_state"]}
                for g, d in self.groups.items()]

    def describe_groups(self, group_ids):
        return {g: self.groups.get(g, {"group_id": g, "group_state": "Dead", "members": [],
                                       "protocol_data": "", "protocol_type": ""})
                for g in group_ids}

    def list_group_offsets(self, specs):
        return {g: {TopicPartition(t, p): OffsetAndMetadata(o, "", None)
                    for (t, p), o in self.committed.get(g, {}).items()} for g in specs}

    def list_partition_offsets(self, specs):
        OT = namedtuple("OT", "offset timestamp leader_epoch")
        out = {}
        for tp, spec in specs.items():
            table = self.start_offsets if int(spec) == -2 else self.end_offsets
            out[tp] = OT(table.get((tp.topic, tp.partition), 0), -1, None)
        return out

    def alter_group_offsets(self, group, offsets):
        self.calls.append(("alter_group_offsets", group,
                           {(tp.topic, tp.partition): o.offset for tp, o in offsets.items()}))
        return {}

    def delete_groups(self, group_ids):
        self.calls.append(("delete_groups", list(group_ids)))
        return {g: ("OK" if self.groups.get(g, {}).get("group_state") != "Stable"
                    else "NonEmptyGroupError") for g in group_ids}

    def close(self):
        self.closed = True


class FakeFuture:
    def __init__(self):
        self.errbacks = []

    def get(self, timeout=None):
        return None

    def add_errback(self, fn, *args):
        self.errbacks.append((fn, args))
        return self


class FakeProducer:
    def __init__(self, props):
        self.props = props
        self.sent: list[tuple] = []
        self.flushed = self.closed = False

    def send(self, topic, value=None, key=None, headers=None):
        self.sent.append((topic, key, value, headers))
        return FakeFuture()

    def flush(self):
        self.flushed = True

    def close(self):
        self.closed = True


Rec = namedtuple("Rec", "topic partition offset timestamp timestamp_type key value headers")


class FakeConsumer:
    """poll() hands out the queued batches one per call, then empty dicts."""

    def __init__(self, batches):
        self.batches = list(batches)
        self.polls = 0
        self.sought: dict = {}
        self.closed = False

    def poll(self, timeout_ms=0):
        self.polls += 1
        if self.batches:
            return self.batches.pop(0)
        return {}

    def subscribe(self, topics=None, pattern=None):
        self.subscribed = (topics, pattern)

    def assign(self, tps):
        self.assigned = list(tps)

    def seek_to_beginning(self, *tps):
        self.sought_to = ("beginning", tps)

    def seek_to_end(self, *tps):
        self.sought_to = ("end", tps)

    def seek(self, tp, offset):
        self.sought[(tp.topic, tp.partition)] = offset

    def close(self):
        self.closed = True
