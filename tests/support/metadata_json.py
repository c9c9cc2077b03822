"""Apache Kafka's JSON form of metadata records, as ``kafka-dump-log
--cluster-metadata-decoder`` prints them, turned into kafpy's generated record messages.

Each record line of the dump ends in ``payload: {"type": "TOPIC_RECORD", "version": 0,
"data": {...}}`` (control records print as ``LeaderChange: {...}``, ``KRaftVersion: ...``
and are left out); the batch lines before them carry the base offset and the leader epoch.
``data`` uses the spec's field names in lower camel case, Uuids in Kafka's base64url form,
``bytes`` in standard base64, and leaves out tagged or nullable fields that are not set."""

from __future__ import annotations

import base64
import json
import re
from dataclasses import dataclass, field

from kafpy.metadata.image.uuids import uuid_bytes
from kafpy.protocol.messages import MESSAGES, Field, Message, Struct

_BATCH = re.compile(r"^baseOffset: (\d+) lastOffset: (\d+) .*?partitionLeaderEpoch: (\d+) "
                    r"isTransactional: \w+ isControl: (\w+) .*?CreateTime: (-?\d+)")
_RECORD = re.compile(r"^\| offset: (\d+) .*? payload: (\{.*\})\s*$")


@dataclass
class DumpedBatch:
    """One batch of the dump: where it starts, its epoch and append time, its records (empty
    for a control batch), each with its offset."""

    base_offset: int
    epoch: int
    append_time_ms: int
    is_control: bool
    records: list[tuple[int, Message]] = field(default_factory=list)


def record_class(type_name: str) -> type[Message]:
    """``TOPIC_RECORD`` -> ``TopicRecord`` (a metadata record class)."""
    name = "".join(part.capitalize() for part in type_name.split("_"))
    cls = MESSAGES.get(name)
    if cls is None or cls.KIND != "metadata":
        raise ValueError(f"no metadata record type {type_name}")
    return cls


def _key(f: Field) -> str:
    return f.name.rstrip("_").replace("_", "")


def _value(owner: type[Struct], f: Field, raw: object) -> object:
    if raw is None:
        return None
    t = f.type
    if t.startswith("[]"):
        assert isinstance(raw, list)
        return [_scalar(owner, t[2:], item) for item in raw]
    return _scalar(owner, t, raw)


def _scalar(owner: type[Struct], t: str, raw: object) -> object:
    if t == "uuid":
        assert isinstance(raw, str)
        return uuid_bytes(raw)
    if t == "bytes":
        assert isinstance(raw, str)
        return base64.b64decode(raw)
    if t == "float64":
        assert isinstance(raw, (int, float))
        return float(raw)
    if t[:1].isupper():  # a struct, an attribute of the message class
        assert isinstance(raw, dict)
        return struct_from_json(getattr(owner, t), raw)
    return raw


def struct_from_json(cls: type[Struct], data: dict[str, object]) -> Struct:
    """A message or struct of ``cls`` from Kafka's JSON form of it."""
    by_key = {k.lower(): v for k, v in data.items()}
    kwargs: dict[str, object] = {}
    for f in cls.FIELDS:
        key = _key(f)
        if key in by_key:
            kwargs[f.name] = _value(cls, f, by_key.pop(key))
    if by_key:
        raise ValueError(f"{cls.__name__}: fields {sorted(by_key)} not in the spec")
    return cls(**kwargs)


def record_from_json(payload: dict[str, object]) -> Message:
    """One ``{"type", "version", "data"}`` payload as its record message."""
    cls = record_class(str(payload["type"]))
    data = payload["data"]
    assert isinstance(data, dict)
    record = struct_from_json(cls, data)
    assert isinstance(record, Message)
    return record


def parse_dump(text: str) -> list[DumpedBatch]:
    """The batches of a ``kafka-dump-log --cluster-metadata-decoder`` output."""
    batches: list[DumpedBatch] = []
    for line in text.splitlines():
        m = _BATCH.match(line)
        if m:
            batches.append(DumpedBatch(int(m[1]), int(m[3]), int(m[5]), m[4] == "true"))
            continue
        m = _RECORD.match(line)
        if m:
            if not batches:
                raise ValueError(f"record before any batch: {line}")
            batches[-1].records.append((int(m[1]), record_from_json(json.loads(m[2]))))
    return batches
