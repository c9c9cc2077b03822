"""The ``_schemas`` topic's records, in the JSON Confluent's KafkaStore writes, so that
Confluent's registry started on the same cluster reads our state and we read its.

Keys (their property order matters: compaction keeps one value per *byte-identical* key):
  {"keytype":"SCHEMA","subject":"s","version":1,"magic":1}
  {"keytype":"CONFIG","subject":null,"magic":0}            (subject null: the global level)
  {"keytype":"MODE","subject":null,"magic":0}
  {"keytype":"DELETE_SUBJECT","subject":"s","magic":0}
  {"keytype":"NOOP","magic":0}                             (a marker read back to reach the end)
Values:
  SCHEMA: {"subject","version","id","schemaType" (absent for AVRO),"references" (if any),
           "metadata","ruleSet" (if any),"schema","deleted"}; a null value (tombstone) is a hard delete
  CONFIG: {"compatibilityLevel": "BACKWARD", "defaultMetadata", "overrideMetadata",
           "defaultRuleSet", "overrideRuleSet", "normalize" (those set)}; null removes the subject's config
  MODE:   {"mode": "READWRITE"}; null removes the subject's mode
  DELETE_SUBJECT: {"subject": "s", "version": <latest version deleted>}
"""
from __future__ import annotations

import json
from dataclasses import dataclass

SCHEMA, CONFIG, MODE, DELETE_SUBJECT, NOOP = "SCHEMA", "CONFIG", "MODE", "DELETE_SUBJECT", "NOOP"
SCHEMAS_TOPIC = "_schemas"


def _dumps(obj: object) -> bytes:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def schema_key(subject: str, version: int) -> bytes:
    return _dumps({"keytype": SCHEMA, "subject": subject, "version": version, "magic": 1})


def config_key(subject: str | None) -> bytes:
    return _dumps({"keytype": CONFIG, "subject": subject, "magic": 0})


def mode_key(subject: str | None) -> bytes:
    return _dumps({"keytype": MODE, "subject": subject, "magic": 0})


def delete_subject_key(subject: str) -> bytes:
    return _dumps({"keytype": DELETE_SUBJECT, "subject": subject, "magic": 0})


def noop_key() -> bytes:
    return _dumps({"keytype": NOOP, "magic": 0})


@dataclass
class SchemaValue:
    """One version of one subject, as stored."""
    subject: str
    version: int
    id: int
    schema: str
    schema_type: str = "AVRO"
    references: list[dict] | None = None
    deleted: bool = False
    metadata: dict | None = None
    rule_set: dict | None = None

    def to_bytes(self) -> bytes:
        out: dict[str, object] = {"subject": self.subject, "version": self.version, "id": self.id}
        if self.schema_type != "AVRO":
            out["schemaType"] = self.schema_type
        if self.references:
            out["references"] = self.references
        if self.metadata is not None:
            out["metadata"] = self.metadata
        if self.rule_set is not None:
            out["ruleSet"] = self.rule_set
        out["schema"] = self.schema
        out["deleted"] = self.deleted
        return _dumps(out)

    @classmethod
    def from_json(cls, v: dict) -> "SchemaValue":
        return cls(subject=v["subject"], version=int(v["version"]), id=int(v["id"]), schema=v["schema"],
                   schema_type=v.get("schemaType") or "AVRO", references=v.get("references") or None,
                   deleted=bool(v.get("deleted", False)),
                   metadata=v.get("metadata") if isinstance(v.get("metadata"), dict) else None,
                   rule_set=v.get("ruleSet") if isinstance(v.get("ruleSet"), dict) else None)


def config_value(level: str | dict) -> bytes:
    """A CONFIG value: the level alone, or the whole config (level, metadata and rule set
    defaults and overrides, normalize...) in Confluent's ``ConfigValue`` JSON."""
    return _dumps({"compatibilityLevel": level} if isinstance(level, str) else level)


def mode_value(mode: str) -> bytes:
    return _dumps({"mode": mode})


def delete_subject_value(subject: str, version: int) -> bytes:
    return _dumps({"subject": subject, "version": version})


def parse_key(raw: bytes) -> dict | None:
    """The key's JSON, or None for a record this registry cannot read (skipped, as Confluent's
    reader skips keys it does not know)."""
    try:
        key = json.loads(raw)
    except (ValueError, TypeError):
        return None
    return key if isinstance(key, dict) and isinstance(key.get("keytype"), str) else None


def parse_value(raw: bytes | None) -> dict | None:
    if raw is None:
        return None
    try:
        value = json.loads(raw)
    except (ValueError, TypeError):
        return None
    return value if isinstance(value, dict) else None
