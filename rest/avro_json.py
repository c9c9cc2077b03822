"""Avro's JSON encoding, as Confluent's REST Proxy reads an ``avro`` record's key or value and
writes a consumed one (Avro's ``JsonDecoder`` / ``JsonEncoder``): a union's non-null value
is an object with one member named by its branch (``{"string": "x"}``, a named type by its
full name ``{"com.acme.Point": {...}}``), null is ``null``; bytes and fixed are strings whose
code points 0-255 are the bytes; an enum is its symbol; logical types are their underlying
type's encoding (a timestamp-millis is a number).

Who may call it: ``kafpy.rest.formats``. ``to_datum`` turns the JSON into what fastavro's
writer takes (a union's branch as fastavro's ``(name, value)`` tuple, so the branch is the
one the JSON names, never a guess); ``read_json`` decodes Avro binary straight to the JSON
encoding, walking the writer's schema, because the union branch a value came from is known
only from the binary.
"""
from __future__ import annotations

import struct
from typing import TYPE_CHECKING, Iterator

from kafpy.protocol.json_value import JsonValue

if TYPE_CHECKING:
    from fastavro.types import DictSchema, NamedSchemas, Schema as AvroSchema

NAMED = ("record", "error", "enum", "fixed")


class AvroJsonError(ValueError):
    """The JSON does not follow the schema (the proxy answers 42203)."""


def _props(schema: AvroSchema) -> DictSchema:
    """A complex type's properties: fastavro parses every record, enum, fixed, array and map
    into an object, so a type named so is one (TypeError otherwise, as indexing it was)."""
    if not isinstance(schema, dict):
        raise TypeError(f"an Avro {schema!r} is not a complex type")
    return schema


def _type_name(schema: AvroSchema) -> str:
    """A union branch's name in the JSON encoding."""
    if isinstance(schema, str):
        return schema
    t = _props(schema)["type"]
    if t in NAMED:
        return _props(schema)["name"]   # fastavro's parsed schemas keep the full name
    return t if isinstance(t, str) else _type_name(t)


def _resolve(schema: AvroSchema, named: NamedSchemas) -> AvroSchema:
    while isinstance(schema, str) and schema in named:
        schema = named[schema]
    if isinstance(schema, dict) and not isinstance(schema["type"], str):
        return _resolve(schema["type"], named)
    if isinstance(schema, dict) and schema["type"] in named:
        return _resolve(schema["type"], named)
    return schema


def _base(schema: AvroSchema) -> str:
    return schema if isinstance(schema, str) else _props(schema)["type"]


def to_datum(schema: AvroSchema, value: JsonValue, named: NamedSchemas, path: str = "$") -> object:
    """The fastavro datum of ``value`` in Avro's JSON encoding of ``schema`` (parsed by
    ``fastavro.parse_schema`` with ``named_schemas=named``)."""
    schema = _resolve(schema, named)
    if isinstance(schema, list):
        if value is None:
            if "null" not in schema:
                raise AvroJsonError(f"{path}: null is not one of the union's types")
            return None
        if not isinstance(value, dict) or len(value) != 1:
            raise AvroJsonError(f"{path}: a union's value must be null or an object naming its branch, "
                                f'such as {{"{_type_name(schema[-1])}": ...}}')
        (branch, inner), = value.items()
        for candidate in schema:
            name = _type_name(candidate)
            if name == branch:   # Avro's JsonDecoder: a named type by its full name only
                return (name, to_datum(candidate, inner, named, f"{path}.{branch}"))
        raise AvroJsonError(f"{path}: {branch!r} is not one of the union's types")
    t = _base(schema)
    if t in ("bytes", "fixed"):
        if not isinstance(value, str):
            raise AvroJsonError(f"{path}: {t} must be a string of code points 0-255")
        try:
            return value.encode("latin-1")
        except UnicodeEncodeError:
            raise AvroJsonError(f"{path}: {t} must be a string of code points 0-255") from None
    if t in ("record", "error"):
        if not isinstance(value, dict):
            raise AvroJsonError(f"{path}: a record must be an object")
        return {f["name"]: to_datum(f["type"], value[f["name"]], named, f"{path}.{f['name']}")
                for f in _props(schema)["fields"] if f["name"] in value}
    if t == "array":
        if not isinstance(value, list):
            raise AvroJsonError(f"{path}: an array must be a JSON array")
        return [to_datum(_props(schema)["items"], v, named, f"{path}[{i}]") for i, v in enumerate(value)]
    if t == "map":
        if not isinstance(value, dict):
            raise AvroJsonError(f"{path}: a map must be an object")
        return {k: to_datum(_props(schema)["values"], v, named, f"{path}.{k}") for k, v in value.items()}
    return value   # primitives and enums: fastavro's writer checks them


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    def take(self, n: int) -> bytes:
        if n < 0 or self.pos + n > len(self.data):
            raise AvroJsonError("Avro data ends early")
        out = self.data[self.pos:self.pos + n]
        self.pos += n
        return out

    def long(self) -> int:
        shift = result = 0
        while True:
            b = self.take(1)[0]
            result |= (b & 0x7F) << shift
            if not b & 0x80:
                return (result >> 1) ^ -(result & 1)
            shift += 7
            if shift > 70:
                raise AvroJsonError("Invalid Avro varint")

    def blocks(self) -> Iterator[None]:
        while True:
            count = self.long()
            if count == 0:
                return
            if count < 0:
                count = -count
                self.long()   # the block's size in bytes
            for _ in range(count):
                yield


def read_json(schema: AvroSchema, data: bytes, named: NamedSchemas) -> JsonValue:
    """Avro binary ``data`` written with ``schema`` -> its Avro JSON encoding."""
    reader = _Reader(data)
    return _read(_resolve(schema, named), reader, named)


def _read(schema: AvroSchema, r: _Reader, named: NamedSchemas) -> JsonValue:
    schema = _resolve(schema, named)
    if isinstance(schema, list):
        index = r.long()
        if not 0 <= index < len(schema):
            raise AvroJsonError(f"Union index {index} out of range")
        branch = schema[index]
        if _type_name(branch) == "null":
            return None
        return {_type_name(branch): _read(branch, r, named)}
    t = _base(schema)
    if t == "null":
        return None
    if t == "boolean":
        return r.take(1) != b"\0"
    if t in ("int", "long"):
        return r.long()
    if t == "float":
        return struct.unpack("<f", r.take(4))[0]
    if t == "double":
        return struct.unpack("<d", r.take(8))[0]
    if t == "bytes":
        return r.take(r.long()).decode("latin-1")
    if t == "string":
        return r.take(r.long()).decode("utf-8")
    if t == "fixed":
        return r.take(_props(schema)["size"]).decode("latin-1")
    if t == "enum":
        return _props(schema)["symbols"][r.long()]
    if t in ("record", "error"):
        return {f["name"]: _read(f["type"], r, named) for f in _props(schema)["fields"]}
    if t == "array":
        return [_read(_props(schema)["items"], r, named) for _ in r.blocks()]
    if t == "map":
        out = {}
        for _ in r.blocks():
            key = r.take(r.long()).decode("utf-8")
            out[key] = _read(_props(schema)["values"], r, named)
        return out
    raise AvroJsonError(f"Unknown Avro type {t!r}")
