"""The Schema Registry's operations, each checked in full before its records are written.

Who may call: ``rest`` (one per request). ``SchemaRegistry`` keeps the ``RegistryState`` the
store feeds and a ``write`` function: ``write(records)`` appends the records to ``_schemas``
in one batch and returns once they have been read back into the state, so a caller that
gets an answer can read what it wrote, and a check is never made against stale state
(writes are serialized by one lock, as Confluent's primary serializes them).
"""
from __future__ import annotations

import asyncio
import json
from typing import Awaitable, Callable

from kafpy.registry import contracts, records
from kafpy.registry.errors import (RegistryErrorCode, RestError, invalid_version, reference_exists,
                                   schema_not_found, subject_not_found, version_not_found)
from kafpy.registry.records import SchemaValue
from kafpy.registry.schema_types import AVRO, JSON, PROTOBUF, ParsedSchema, parse
from kafpy.registry.state import RegistryState

COMPATIBILITY_LEVELS = ("NONE", "BACKWARD", "BACKWARD_TRANSITIVE", "FORWARD", "FORWARD_TRANSITIVE",
                        "FULL", "FULL_TRANSITIVE")
MODES = ("READWRITE", "READONLY", "IMPORT")
MAX_VERSION = 2**31 - 1
PARSED_CACHE_SIZE = 1000
Record = tuple[bytes, bytes | None]
Writer = Callable[[list[Record]], Awaitable[None]]


def parse_version(raw: str | int) -> int | str:
    """A version path segment: 1..2^31-1, "latest" or -1 (latest); else 42202."""
    if raw in ("latest", "-1", -1):
        return "latest"
    try:
        v = int(raw)
    except (TypeError, ValueError):
        raise invalid_version(raw) from None
    if not 1 <= v <= MAX_VERSION:
        raise invalid_version(raw)
    return v


class SchemaRegistry:
    """Register, look up, delete, configure; see the module docstring for who calls it."""

    def __init__(self, state: RegistryState, write: Writer, is_primary: Callable[[], bool] = lambda: True) -> None:
        self.state = state
        self._append = write
        self.is_primary = is_primary
        self._write_lock = asyncio.Lock()
        self._parsed: dict[tuple[str, str], ParsedSchema] = {}

    async def write(self, batch: list[Record]) -> None:
        """Appends ``batch``; refused (50004) unless this instance is the primary, so that two
        instances never hand out ids at once."""
        if not self.is_primary():
            raise RestError(RegistryErrorCode.UNKNOWN_LEADER, "This instance is not the primary")
        await self._append(batch)

    # ---------------------------------------------------------------- schemas
    def parse_request_references(self, body: dict) -> list[dict]:
        """``body``'s references as {name, subject, version}; 42201 when malformed."""
        references = body.get("references") or []
        if not isinstance(references, list) or not all(
                isinstance(r, dict) and isinstance(r.get("name"), str) and isinstance(r.get("subject"), str)
                and isinstance(r.get("version"), int) for r in references):
            raise RestError(RegistryErrorCode.INVALID_SCHEMA,
                            "Invalid schema: references must be a list of {name, subject, version}")
        return [{"name": r["name"], "subject": r["subject"], "version": self._reference_version(r)}
                for r in references]

    def parse_request(self, body: dict) -> ParsedSchema:
        schema_type = body.get("schemaType") or AVRO
        return self._parse(schema_type, body.get("schema"), self.parse_request_references(body))

    async def prepare(self, body: dict) -> None:
        """Compiles a big Protobuf schema of ``body`` off the event loop (see
        ``protobuf_compiler``), so that parsing it next answers at once; anything wrong
        with the body is left for that parse to report."""
        if (body.get("schemaType") or AVRO) != PROTOBUF or not isinstance(body.get("schema"), str):
            return
        from kafpy.registry.protobuf_compiler import COMPILER
        from kafpy.registry.schema_types import protobuf_imports
        try:
            references = self.parse_request_references(body)
            files = protobuf_imports(references, self._resolve_reference)
        except (RestError, ValueError):
            return
        await COMPILER.prepare(body["schema"], files)

    def _reference_version(self, ref: dict) -> int:
        """A reference's version; -1 names the subject's latest live version and is stored as
        that number, as Confluent's ``AbstractSchemaProvider.resolveReferences`` does."""
        version: int = ref["version"]
        if version != -1:
            return version
        live = self.state.versions(ref["subject"])
        if not live:
            raise RestError(RegistryErrorCode.INVALID_SCHEMA,
                            f"Invalid schema: No schema reference found for subject \"{ref['subject']}\" "
                            "and version -1")
        return live[-1].version

    def normalized(self, schema: ParsedSchema) -> ParsedSchema:
        """``schema`` in the canonical form ``?normalize=true`` asks for: JSON Schema with
        its keys sorted at every level, references sorted and without duplicates (Confluent's
        ``JsonSchema.normalize``); Avro and Protobuf texts are already stored canonical."""
        refs = sorted({json.dumps(r, sort_keys=True) for r in schema.references})
        references = [json.loads(r) for r in refs]
        if schema.schema_type != JSON:
            return ParsedSchema(schema.schema_type, schema.canonical, schema.parsed, references, schema.named)
        canonical = json.dumps(schema.parsed, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return ParsedSchema(JSON, canonical, schema.parsed, references, schema.named)

    def _parse(self, schema_type: str, text: object, references: list[dict]) -> ParsedSchema:
        """Parses, remembering schemas without references (their meaning cannot change; a
        reference's target can, after a hard delete and a new registration)."""
        if references or not isinstance(text, str):
            return parse(schema_type, text, references, self._resolve_reference)
        key = (schema_type, text)
        parsed = self._parsed.get(key)
        if parsed is None:
            parsed = parse(schema_type, text, references, self._resolve_reference)
            if len(self._parsed) >= PARSED_CACHE_SIZE:
                self._parsed.pop(next(iter(self._parsed)))
            self._parsed[key] = parsed
        return parsed

    def _resolve_reference(self, ref: dict) -> ParsedSchema:
        sv = self.state.subjects.get(ref["subject"], {}).get(ref["version"])
        if sv is None:
            raise RestError(RegistryErrorCode.INVALID_SCHEMA,
                            f"Invalid schema: reference {ref['name']} to {ref['subject']} version "
                            f"{ref['version']} not found")
        return self.parsed(sv)

    def parsed(self, sv: SchemaValue) -> ParsedSchema:
        return self._parse(sv.schema_type, sv.schema, sv.references or [])

    def schema_text(self, sv: SchemaValue, fmt: str | None) -> str:
        """The schema as answered: the stored text, or for ``format=serialized`` a Protobuf
        schema's base64 FileDescriptorProto (other formats and types get the stored text, as
        in Confluent's)."""
        if fmt == "serialized" and sv.schema_type == PROTOBUF:
            from kafpy.registry import protobuf_schema
            return protobuf_schema.serialized(self.parsed(sv).parsed)
        return sv.schema

    async def register(self, subject: str, body: dict, normalize: bool = False) -> int:
        _check_subject(subject)
        async with self._write_lock:
            mode = self.state.mode(subject)
            if mode == "READONLY":
                raise RestError(RegistryErrorCode.OPERATION_NOT_PERMITTED,
                                f"Subject {subject} is in read-only mode")
            schema = self.parse_request(body)
            config = self.state.config_in_scope(subject)
            normalize = normalize or config.get("normalize") is True
            if normalize:
                schema = self.normalized(schema)
            wanted_id = body.get("id")
            wanted_version = body.get("version")
            if (wanted_id is not None or wanted_version is not None) and mode != "IMPORT":
                raise RestError(RegistryErrorCode.OPERATION_NOT_PERMITTED,
                                f"Subject {subject} is not in import mode")
            live = self.state.versions(subject)
            all_versions = self.state.subjects.get(subject, {})
            version = (max(all_versions) if all_versions else 0) + 1
            previous = live[-1] if live else None
            metadata, rule_set = contracts.effective(
                config, contracts.checked(body.get("metadata"), "metadata"),
                contracts.checked(body.get("ruleSet"), "ruleSet"),
                previous.metadata if previous else None, previous.rule_set if previous else None, version)
            for sv in live:
                if self._same(sv, schema, normalize) and (sv.metadata, sv.rule_set) == (metadata, rule_set):
                    return sv.id
            if mode != "IMPORT":
                messages = self.incompatibilities(schema, contracts.same_group(config, metadata, live),
                                                  self.state.compatibility(subject))
                if messages:
                    raise RestError(RegistryErrorCode.INCOMPATIBLE_SCHEMA,
                                    "Schema being registered is incompatible with an earlier schema for "
                                    f"subject \"{subject}\", details: {messages}")
            existing_id = self._existing_id(schema, metadata, rule_set)
            if wanted_id is not None:
                if not isinstance(wanted_id, int) or wanted_id < 1:
                    raise RestError(RegistryErrorCode.INVALID_SCHEMA, "Invalid schema: id must be positive")
                other = self.state.schemas_by_id.get(wanted_id)
                if other is not None and (other.schema, other.schema_type) != (schema.canonical, schema.schema_type):
                    raise RestError(RegistryErrorCode.ID_DOES_NOT_MATCH,
                                    f"Schema already registered with id {wanted_id} instead of input id")
                schema_id = wanted_id
            else:
                schema_id = existing_id if existing_id is not None else self.state.max_id + 1
            if wanted_version is not None:
                parsed_version = parse_version(wanted_version) if not isinstance(wanted_version, int) else wanted_version
                if isinstance(parsed_version, str):   # "latest" names no version to store under
                    raise invalid_version(wanted_version)
                version = parsed_version
                if version in all_versions:
                    raise RestError(RegistryErrorCode.INVALID_VERSION, f"Version {version} already exists")
            value = SchemaValue(subject, version, schema_id, schema.canonical, schema.schema_type,
                                schema.references or None, metadata=metadata, rule_set=rule_set)
            await self.write([(records.schema_key(subject, version), value.to_bytes())])
            return schema_id

    def _same(self, sv: SchemaValue, schema: ParsedSchema, normalize: bool = False) -> bool:
        """Whether ``sv`` stores ``schema``; a Protobuf schema an earlier kafpy stored as a base64
        descriptor is compared by its printed text. With ``normalize`` both sides are compared
        in their normalized forms (``?normalize=true``)."""
        if sv.schema_type != schema.schema_type:
            return False
        if normalize:
            stored = self.normalized(self.parsed(sv))
            return (stored.canonical, stored.references) == (schema.canonical, schema.references)
        if (sv.references or []) != schema.references:
            return False
        if sv.schema == schema.canonical:
            return True
        return sv.schema_type == PROTOBUF and _is_serialized(sv.schema) and self.parsed(sv).canonical == schema.canonical

    def _existing_id(self, schema: ParsedSchema, metadata: dict | None = None,
                     rule_set: dict | None = None) -> int | None:
        """The id this schema, with this metadata and rule set, already has under any subject
        (see ``_same`` for old Protobuf records)."""
        found = self.state.find_id(schema.schema_type, schema.canonical, schema.references, metadata, rule_set)
        if found is None and schema.schema_type == PROTOBUF and metadata is None and rule_set is None:
            found = next((sv.id for sv in list(self.state.schemas_by_id.values())
                          if _is_serialized(sv.schema) and self._same(sv, schema)), None)
        return found

    def incompatibilities(self, schema: ParsedSchema, live: list[SchemaValue], level: str) -> list[str]:
        """Why ``schema`` may not follow ``live`` (oldest first) under ``level``."""
        if level == "NONE" or not live:
            return []
        previous = live if level.endswith("_TRANSITIVE") else live[-1:]
        messages: list[str] = []
        for sv in reversed(previous):
            old = self.parsed(sv)
            if level.startswith(("BACKWARD", "FULL")):
                messages += schema.incompatibilities(old)
            if level.startswith(("FORWARD", "FULL")):
                messages += old.incompatibilities(schema)
        return messages

    def lookup(self, subject: str, body: dict, deleted: bool = False, normalize: bool = False) -> SchemaValue:
        if not self.state.versions(subject, include_deleted=True):
            raise subject_not_found(subject)
        schema = self.parse_request(body)
        if normalize:
            schema = self.normalized(schema)
        metadata = contracts.checked(body.get("metadata"), "metadata")
        rule_set = contracts.checked(body.get("ruleSet"), "ruleSet")
        for sv in reversed(self.state.versions(subject, include_deleted=deleted)):
            if not self._same(sv, schema, normalize):
                continue
            # a lookup naming metadata or rules matches only a version stored with them
            if (metadata is None and rule_set is None) or (sv.metadata, sv.rule_set) == (metadata, rule_set):
                return sv
        raise schema_not_found()

    def latest_with_metadata(self, subject: str, wanted: dict[str, str], deleted: bool = False) -> SchemaValue:
        """``GET /subjects/{s}/metadata``: the latest version whose metadata properties hold
        every wanted key and value (40401 without the subject, 40403 without such a version)."""
        versions = self.state.versions(subject, include_deleted=deleted)
        if not versions:
            raise subject_not_found(subject)
        for sv in reversed(versions):
            if sv.metadata is not None and contracts.has_properties(sv.metadata, wanted):
                return sv
        raise schema_not_found()

    def schema_by_id(self, schema_id: int) -> SchemaValue:
        sv = self.state.schemas_by_id.get(schema_id)
        if sv is None:
            raise schema_not_found(f"Schema {schema_id} not found")
        return sv

    def version(self, subject: str, raw_version: str, deleted: bool = False) -> SchemaValue:
        version = parse_version(raw_version)
        if not self.state.versions(subject, include_deleted=True):
            raise subject_not_found(subject)
        versions = self.state.versions(subject, include_deleted=deleted)
        if version == "latest":
            if not versions:
                raise subject_not_found(subject)
            return versions[-1]
        for sv in versions:
            if sv.version == version:
                return sv
        raise version_not_found(subject, version)

    def check_compatibility(self, subject: str, raw_version: str | None, body: dict) -> list[str]:
        """As Confluent's ``CompatibilityResource``: against "latest" of a subject without live
        versions there is nothing to be incompatible with; a numbered version that is missing
        (subject included) is 40402."""
        version = parse_version(raw_version) if raw_version is not None else None
        schema = self.parse_request(body)
        level = self.state.compatibility(subject)
        live = self.state.versions(subject)
        if version is None:
            config = self.state.config_in_scope(subject)
            previous = live[-1] if live else None
            metadata, _ = contracts.effective(
                config, contracts.checked(body.get("metadata"), "metadata"), None,
                previous.metadata if previous else None, None, (previous.version + 1) if previous else 1)
            return self.incompatibilities(schema, contracts.same_group(config, metadata, live), level)
        if version == "latest":
            targets = live[-1:]
        else:
            targets = [sv for sv in live if sv.version == version]
            if not targets:
                raise version_not_found(subject, version)
        return self.incompatibilities(schema, targets, level.replace("_TRANSITIVE", ""))

    # ---------------------------------------------------------------- deletes
    async def delete_subject(self, subject: str, permanent: bool) -> list[int]:
        async with self._write_lock:
            self._check_writable(subject)
            every = self.state.versions(subject, include_deleted=True)
            if not every:
                raise subject_not_found(subject)
            live = [sv for sv in every if not sv.deleted]
            for sv in every if permanent else live:
                if self.state.referrer_subjects(subject, sv.version, include_deleted=permanent) - {subject}:
                    raise reference_exists(subject, sv.version)
            if permanent:
                if live:
                    raise RestError(RegistryErrorCode.SUBJECT_NOT_SOFT_DELETED,
                                    f"Subject '{subject}' was not deleted first before being permanently deleted")
                batch: list[Record] = [(records.schema_key(subject, sv.version), None) for sv in every]
                await self.write(batch)
                return [sv.version for sv in every]
            if not live:
                raise RestError(RegistryErrorCode.SUBJECT_SOFT_DELETED,
                                f"Subject '{subject}' was soft deleted.Set permanent=true to delete permanently")
            batch = [(records.delete_subject_key(subject), records.delete_subject_value(subject, live[-1].version))]
            if subject in self.state.config_docs:
                batch.append((records.config_key(subject), None))
            if subject in self.state.modes:
                batch.append((records.mode_key(subject), None))
            await self.write(batch)
            return [sv.version for sv in live]

    async def delete_version(self, subject: str, raw_version: str, permanent: bool) -> int:
        async with self._write_lock:
            self._check_writable(subject)
            sv = self.version(subject, raw_version, deleted=True)
            if sv.deleted and not permanent:
                raise RestError(RegistryErrorCode.SCHEMAVERSION_SOFT_DELETED,
                                f"Subject '{subject}' Version {sv.version} was soft deleted.Set permanent=true "
                                "to delete permanently")
            if self.state.referrers(subject, sv.version, include_deleted=permanent):
                raise reference_exists(subject, sv.version)
            if permanent:
                if not sv.deleted:
                    raise RestError(RegistryErrorCode.SCHEMAVERSION_NOT_SOFT_DELETED,
                                    f"Subject '{subject}' Version {sv.version} was not deleted first before "
                                    "being permanently deleted")
                await self.write([(records.schema_key(subject, sv.version), None)])
                return sv.version
            gone = SchemaValue(sv.subject, sv.version, sv.id, sv.schema, sv.schema_type, sv.references, True)
            await self.write([(records.schema_key(subject, sv.version), gone.to_bytes())])
            return sv.version

    def _check_writable(self, subject: str | None) -> None:
        if self.state.mode(subject) == "READONLY":
            raise RestError(RegistryErrorCode.OPERATION_NOT_PERMITTED, f"Subject {subject} is in read-only mode")

    # ---------------------------------------------------------------- config and mode
    async def set_compatibility(self, subject: str | None, level: object, request: dict | None = None) -> dict:
        """``PUT /config``: the level and the data-contract fields the request names replace
        the stored ones (Confluent's ``ConfigValue.update``); answers the request's fields."""
        request = request or {}
        if level is not None and (not isinstance(level, str) or level not in COMPATIBILITY_LEVELS) or (level is None and not any(
                k in request for k in contracts.CONFIG_FIELDS)):
            raise RestError(RegistryErrorCode.INVALID_COMPATIBILITY_LEVEL,
                            "Invalid compatibility level. Valid values are none, backward, forward, full, "
                            "backward_transitive, forward_transitive, and full_transitive")
        for key in ("defaultMetadata", "overrideMetadata", "defaultRuleSet", "overrideRuleSet"):
            contracts.checked(request.get(key), key)
        async with self._write_lock:
            doc = contracts.updated_config(self.state.config_docs.get(subject), request, level)
            value = doc if set(doc) != {"compatibilityLevel"} else doc["compatibilityLevel"]
            await self.write([(records.config_key(subject), records.config_value(value))])
        answer = {k: request[k] for k in contracts.CONFIG_FIELDS if request.get(k) is not None}
        return {"compatibility": level, **answer} if level is not None else answer

    async def delete_compatibility(self, subject: str) -> str:
        async with self._write_lock:
            if subject not in self.state.config_docs:
                raise subject_not_found(subject)
            level = self.state.compatibility(subject)
            await self.write([(records.config_key(subject), None)])
            return level

    async def set_mode(self, subject: str | None, mode: object, force: bool = False) -> str:
        if not isinstance(mode, str) or mode not in MODES:
            raise RestError(RegistryErrorCode.INVALID_MODE,
                            "Invalid mode. Valid values are READWRITE, READONLY, IMPORT")
        async with self._write_lock:
            if mode == "IMPORT" and not force:
                scope = self.state.versions(subject) if subject is not None else self.state.subject_names()
                if scope:
                    raise RestError(RegistryErrorCode.OPERATION_NOT_PERMITTED,
                                    "Cannot import since found existing subjects")
            await self.write([(records.mode_key(subject), records.mode_value(mode))])
        return mode

    async def delete_mode(self, subject: str) -> str:
        async with self._write_lock:
            if subject not in self.state.modes:
                raise subject_not_found(subject)
            mode = self.state.modes[subject]
            await self.write([(records.mode_key(subject), None)])
            return mode


def _is_serialized(text: str) -> bool:
    """A base64 descriptor rather than .proto text (which always has spaces or braces)."""
    return bool(text) and not any(c.isspace() or c in "{;" for c in text)


def _check_subject(subject: str) -> None:
    if not subject or any(ord(c) < 32 for c in subject) or len(subject) > 10000:
        raise RestError(RegistryErrorCode.INVALID_SUBJECT, f"Invalid subject {subject!r}")
