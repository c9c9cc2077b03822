"""One provider per schema type: parse a registration's text into a ``ParsedSchema`` (or
raise 42201), give the canonical text stored in ``_schemas`` and compared for identity, and
check one schema as reader against another as writer.

AVRO is parsed by fastavro (the full Avro specification, names, defaults' presence) and
checked by ``avro_compat``; JSON by jsonschema (the draft the schema names, draft 7 when it
names none) and ``json_compat``; PROTOBUF by protoc (grpcio-tools, in process) and
``protobuf_schema``.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

from kafpy.protocol.json_value import JsonObject, JsonValue
from kafpy.registry import avro_compat, json_compat

if TYPE_CHECKING:
    from google.protobuf.descriptor_pb2 import FileDescriptorProto
from kafpy.registry.errors import invalid_schema

AVRO, JSON, PROTOBUF = "AVRO", "JSON", "PROTOBUF"
SUPPORTED_TYPES = (JSON, PROTOBUF, AVRO)


@dataclass
class ParsedSchema:
    """A schema parsed with its references resolved; ``canonical`` is the text stored."""
    schema_type: str
    canonical: str
    parsed: JsonValue | FileDescriptorProto   # Avro: fastavro's parsed schema; JSON: the document
    references: list[dict] = field(default_factory=list)
    # Avro: types the references define; Protobuf: files (import path -> text); JSON: documents
    named: dict[str, Any] = field(default_factory=dict)   # by type: see above

    def incompatibilities(self, writer: "ParsedSchema") -> list[str]:
        """Why this schema, as reader, cannot read what ``writer`` wrote."""
        if self.schema_type != writer.schema_type:
            return [f"Incompatible schema type: {writer.schema_type} -> {self.schema_type}"]
        if self.schema_type == AVRO:
            names = {**writer.named, **self.named}
            return avro_compat.reader_writer_incompatibilities(self.parsed, writer.parsed, names)
        if self.schema_type == PROTOBUF:
            from kafpy.registry import protobuf_schema
            return protobuf_schema.incompatibilities(self.parsed, writer.parsed, self.named, writer.named,
                                                     self.references, writer.references)
        return json_compat.incompatibilities(self.parsed, writer.parsed, self.named, writer.named)


def _loads(text: str) -> Any:   # the shape is checked by each schema type's parser
    try:
        return json.loads(text)
    except (ValueError, TypeError) as e:
        raise invalid_schema(f"not valid JSON: {e}") from None


def _compact(obj: JsonValue) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def parse_avro(text: str, references: list[dict], resolve: Callable[[dict], "ParsedSchema"]) -> ParsedSchema:
    import fastavro
    from fastavro.schema import SchemaParseException, UnknownType
    obj = _loads(text)
    named: dict[str, dict] = {}
    for ref in references:
        dep = resolve(ref)
        named.update(dep.named)
        named.update(avro_compat.named_types(dep.parsed))
    _check_avro_shape(obj)
    try:
        known = {k: v for k, v in named.items()}
        parsed = fastavro.parse_schema(obj, named_schemas=known, _write_hint=False)
    except (SchemaParseException, UnknownType, ValueError, TypeError, KeyError, AttributeError) as e:
        raise invalid_schema(str(e) or type(e).__name__) from None
    return ParsedSchema(AVRO, _compact(avro_ordered(obj)), parsed, list(references), named)


_AVRO_ORDER = {
    "record": ("type", "name", "namespace", "doc", "fields"),
    "error": ("type", "name", "namespace", "doc", "fields"),
    "enum": ("type", "name", "namespace", "doc", "symbols", "default"),
    "fixed": ("type", "name", "namespace", "doc", "size"),
    "array": ("type", "items"),
    "map": ("type", "values"),
}
_FIELD_ORDER = ("name", "type", "doc", "default", "order")


def avro_ordered(obj: JsonValue) -> JsonValue:
    """``obj`` with properties in the order Avro's ``Schema.toString`` writes them (a bare
    primitive name for ``{"type": "int"}``, aliases last), so that two texts of one schema
    differing only in property order or wrapping are one schema, as in Confluent's."""
    if isinstance(obj, list):
        return [avro_ordered(x) for x in obj]
    if not isinstance(obj, dict):
        return obj
    kind = obj.get("type")
    if isinstance(kind, (dict, list)) and len(obj) == 1:
        return avro_ordered(kind)
    if isinstance(kind, str) and kind in avro_compat.PRIMITIVES and len(obj) == 1:
        return kind
    order = _AVRO_ORDER.get(kind, ("type",)) if isinstance(kind, str) else ("type",)
    out: JsonObject = {}
    for key in order + tuple(k for k in obj if k not in order and k != "aliases") + ("aliases",):
        if key not in obj:
            continue
        value = obj[key]
        if key == "fields" and isinstance(value, list):
            value = [_ordered_field(f) for f in value]
        elif key in ("items", "values") or (key == "type" and not isinstance(value, str)):
            value = avro_ordered(value)
        out[key] = value
    return out


def _ordered_field(field: JsonValue) -> JsonValue:
    if not isinstance(field, dict):
        return field
    out = {k: field[k] for k in _FIELD_ORDER if k in field}
    out.update({k: v for k, v in field.items() if k not in _FIELD_ORDER and k != "aliases"})
    if "aliases" in field:
        out["aliases"] = field["aliases"]
    if "type" in out:
        out["type"] = avro_ordered(out["type"])
    return out


_AVRO_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def _check_avro_name(name: JsonValue, dotted: bool) -> None:
    """Avro's ``Schema.Parser`` (names validated): every part of a name or namespace starts
    with a letter or ``_`` and holds only letters, digits and ``_``."""
    if not isinstance(name, str):
        raise invalid_schema(f"Name is not a string: {_compact(name)[:200]}")
    parts = name.split(".") if dotted else [name]
    for part in parts:
        if not _AVRO_NAME.match(part):
            raise invalid_schema(f"Illegal character in: {name}" if part else f"Empty name in: {name}")


def _check_avro_shape(obj: Any) -> None:   # checks the shape fastavro's parser then relies on
    """What Avro's Java parser requires and fastavro lets pass: a record's ``fields`` list,
    each field's name and type, field names unique within their record, valid names and
    namespaces, enum symbols valid and unique."""
    if isinstance(obj, list):
        for branch in obj:
            _check_avro_shape(branch)
    elif isinstance(obj, dict):
        kind = obj.get("type")
        if kind in ("record", "error", "enum", "fixed"):
            _check_avro_name(obj.get("name"), dotted=True)
            if obj.get("namespace"):
                _check_avro_name(obj["namespace"], dotted=True)
        if kind == "enum" and isinstance(obj.get("symbols"), list):
            for symbol in obj["symbols"]:
                _check_avro_name(symbol, dotted=False)
            if len(set(obj["symbols"])) != len(obj["symbols"]):
                raise invalid_schema(f"Duplicate enum symbol in {obj.get('name')}: {obj['symbols']}")
        if kind in ("record", "error"):
            fields = obj.get("fields")
            if not isinstance(fields, list):
                raise invalid_schema(f"Record has no fields: {_compact(obj)[:200]}")
            seen: set[str] = set()
            for f in fields:
                if not isinstance(f, dict) or "name" not in f or "type" not in f:
                    raise invalid_schema(f"Invalid field in record {obj.get('name')}: {_compact(f)[:200]}")
                _check_avro_name(f["name"], dotted=False)
                if f["name"] in seen:
                    raise invalid_schema(f"Duplicate field {f['name']} in record {obj.get('name')}")
                seen.add(f["name"])
                _check_avro_shape(f["type"])
        elif kind == "array":
            _check_avro_shape(obj.get("items"))
        elif kind == "map":
            _check_avro_shape(obj.get("values"))
        elif isinstance(kind, (dict, list)):
            _check_avro_shape(kind)


def parse_json_schema(text: str, references: list[dict], resolve: Callable[[dict], "ParsedSchema"]) -> ParsedSchema:
    import jsonschema
    from jsonschema.validators import validator_for
    obj = _loads(text)
    if not isinstance(obj, (dict, bool)):
        raise invalid_schema("a JSON schema must be an object or a boolean")
    cls = validator_for(obj, default=jsonschema.Draft7Validator) if isinstance(obj, dict) else jsonschema.Draft7Validator
    try:
        cls.check_schema(obj)
    except jsonschema.SchemaError as e:
        raise invalid_schema(e.message) from None
    named: dict[str, Any] = {}
    for ref in references:
        dep = resolve(ref)
        named.update(dep.named)
        named[ref["name"]] = dep.parsed
    return ParsedSchema(JSON, _compact(obj), obj, list(references), named)


def parse_protobuf(text: str, references: list[dict], resolve: Callable[[dict], "ParsedSchema"]) -> ParsedSchema:
    """``named`` keeps the files the schema imports (import path -> text), its references'
    own imports included, for protoc."""
    from kafpy.registry.protobuf_compiler import COMPILER
    from kafpy.registry.protobuf_schema import ProtobufError
    files = protobuf_imports(references, resolve)
    try:
        canonical, descriptor = COMPILER.compiled(text, files)
    except ProtobufError as e:
        raise invalid_schema(str(e)) from None
    return ParsedSchema(PROTOBUF, canonical, descriptor, list(references), files)


def protobuf_imports(references: list[dict], resolve: Callable[[dict], "ParsedSchema"]) -> dict[str, str]:
    """The files a Protobuf schema with ``references`` imports (import path -> text), its
    references' own imports included, for protoc."""
    files: dict[str, str] = {}
    for ref in references:
        dep = resolve(ref)
        files.update(dep.named)
        files[ref["name"]] = dep.canonical
    return files


def parse(schema_type: str, text: object, references: list[dict],
          resolve: Callable[[dict], ParsedSchema]) -> ParsedSchema:
    """``resolve`` returns the ParsedSchema a reference ({name, subject, version}) names."""
    if not isinstance(text, str):
        raise invalid_schema("schema must be a string")
    if schema_type == AVRO:
        return parse_avro(text, references, resolve)
    if schema_type == JSON:
        return parse_json_schema(text, references, resolve)
    if schema_type == PROTOBUF:
        return parse_protobuf(text, references, resolve)
    raise invalid_schema(f"unknown schema type {schema_type!r}")
