"""The registry's state: a pure function of the ``_schemas`` records read so far, in order.

Who may call: ``kafka_store`` applies each record read (``apply``); ``service`` reads. Nothing
else changes it, so every instance that has read the same offsets holds the same state, and
a write is visible only once read back from the log (never half-applied).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field

from kafpy.registry import records
from kafpy.registry.records import SchemaValue

DEFAULT_COMPATIBILITY = "BACKWARD"
DEFAULT_MODE = "READWRITE"


@dataclass
class RegistryState:
    """Versions by subject, schemas by id, compatibility levels and modes (None: global)."""
    subjects: dict[str, dict[int, SchemaValue]] = field(default_factory=dict)
    schemas_by_id: dict[int, SchemaValue] = field(default_factory=dict)
    ids_by_schema: dict[tuple[str, str, str], int] = field(default_factory=dict)
    configs: dict[str | None, str] = field(default_factory=dict)
    config_docs: dict[str | None, dict] = field(default_factory=dict)   # the whole CONFIG values
    modes: dict[str | None, str] = field(default_factory=dict)
    max_id: int = 0
    offset: int = -1   # the last offset applied

    def apply(self, offset: int, key_raw: bytes | None, value_raw: bytes | None) -> None:
        self.offset = max(self.offset, offset)
        key = records.parse_key(key_raw) if key_raw is not None else None
        if key is None:
            return
        kind, subject = key["keytype"], key.get("subject")
        value = records.parse_value(value_raw)
        if kind == records.SCHEMA and isinstance(subject, str) and isinstance(key.get("version"), int):
            versions = self.subjects.setdefault(subject, {})
            if value is None:
                versions.pop(key["version"], None)
                if not versions:
                    del self.subjects[subject]
                return
            try:
                sv = SchemaValue.from_json(value)
            except (KeyError, TypeError, ValueError):
                return
            versions[sv.version] = sv
            self.schemas_by_id.setdefault(sv.id, sv)
            self.ids_by_schema.setdefault(_identity(sv.schema_type, sv.schema, sv.references or [],
                                                    sv.metadata, sv.rule_set), sv.id)
            self.max_id = max(self.max_id, sv.id)
        elif kind == records.CONFIG:
            if value is None:
                self.config_docs.pop(subject, None)
            else:
                self.config_docs[subject] = value
            if value is None or "compatibilityLevel" not in value:
                self.configs.pop(subject, None)
            else:
                self.configs[subject] = value["compatibilityLevel"]
        elif kind == records.MODE:
            if value is None or "mode" not in value:
                self.modes.pop(subject, None)
            else:
                self.modes[subject] = value["mode"]
        elif kind == records.DELETE_SUBJECT and isinstance(subject, str) and value is not None:
            upto = int(value.get("version", 0))
            for version, sv in self.subjects.get(subject, {}).items():
                if version <= upto:
                    sv.deleted = True

    # ---------------------------------------------------------------- reads
    def versions(self, subject: str, include_deleted: bool = False) -> list[SchemaValue]:
        return [sv for _, sv in sorted(self.subjects.get(subject, {}).items())
                if include_deleted or not sv.deleted]

    def subject_names(self, include_deleted: bool = False) -> list[str]:
        return sorted(s for s in self.subjects if self.versions(s, include_deleted))

    def compatibility(self, subject: str | None) -> str:
        if subject is not None and subject in self.configs:
            return self.configs[subject]
        return self.configs.get(None, DEFAULT_COMPATIBILITY)

    def mode(self, subject: str | None) -> str:
        if subject is not None and subject in self.modes:
            return self.modes[subject]
        return self.modes.get(None, DEFAULT_MODE)

    def referrers(self, subject: str, version: int, include_deleted: bool = False) -> set[int]:
        """Ids of the schemas whose references name ``subject`` ``version``; without
        ``include_deleted`` only those still registered under a live version (Confluent's
        ``getReferencedBy``)."""
        return {sv.id for sv in self._referring(subject, version, include_deleted)}

    def referrer_subjects(self, subject: str, version: int, include_deleted: bool = False) -> set[str]:
        """The subjects holding a version that references ``subject`` ``version``."""
        return {sv.subject for sv in self._referring(subject, version, include_deleted)}

    def _referring(self, subject: str, version: int, include_deleted: bool) -> list[SchemaValue]:
        return [sv for versions in self.subjects.values() for sv in versions.values()
                if (include_deleted or not sv.deleted)
                and any(r.get("subject") == subject and r.get("version") == version for r in sv.references or [])]

    def config_in_scope(self, subject: str | None) -> dict:
        """The config a registration under ``subject`` follows: the subject's, else the global one."""
        if subject is not None and subject in self.config_docs:
            return self.config_docs[subject]
        return self.config_docs.get(None, {})

    def find_id(self, schema_type: str, canonical: str, references: list[dict], metadata: dict | None = None,
                rule_set: dict | None = None) -> int | None:
        """The id already given to this schema (same type, text, references, metadata and
        rule set), if any."""
        return self.ids_by_schema.get(_identity(schema_type, canonical, references, metadata, rule_set))


def _identity(schema_type: str, canonical: str, references: list[dict], metadata: dict | None = None,
              rule_set: dict | None = None) -> tuple[str, str, str]:
    extra = "" if metadata is None and rule_set is None else json.dumps([metadata, rule_set], sort_keys=True)
    return schema_type, canonical, json.dumps(references, sort_keys=True) + extra
