"""The v2 embedded formats: how a record's JSON ``key``/``value`` becomes bytes on produce
and back on consume.

- binary: base64 text <-> the bytes;
- json: any JSON <-> its UTF-8 text;
- avro / jsonschema: Confluent's wire format, a zero magic byte, the schema id (4 bytes, big
  endian), then the Avro binary encoding / the JSON text; the schema is registered under
  ``<topic>-key`` / ``<topic>-value`` (TopicNameStrategy) or named by id. Avro values are
  in Avro's JSON encoding both ways (``kafpy.rest.avro_json``: ``{"string": "x"}`` for a
  union), as Confluent's proxy reads and writes them.
"""
from __future__ import annotations

import base64
import binascii
import io
import json
import struct
from typing import TYPE_CHECKING

from kafpy.protocol.json_value import JsonValue
from kafpy.registry.errors import RestError
from kafpy.rest import errors
from kafpy.rest.avro_json import read_json, to_datum
from kafpy.rest.registry_client import RegistryClient

if TYPE_CHECKING:
    from fastavro.types import NamedSchemas, Schema as AvroSchema

SCHEMA_TYPES = {"avro": "AVRO", "jsonschema": "JSON"}


class Encoder:
    """Encodes one request's keys or values (``field`` is "key" or "value")."""

    def __init__(self, fmt: str, registry: RegistryClient | None) -> None:
        self.fmt = fmt
        self.registry = registry
        self._parsed: dict[int, tuple[AvroSchema, NamedSchemas]] = {}

    async def schema_id(self, topic: str, field: str, body: dict) -> int | None:
        """The schema id a schema-based request names or registers; None for binary/json."""
        if self.fmt not in SCHEMA_TYPES:
            return None
        if self.registry is None:
            raise RestError(errors.KAFKA_ERROR, "No Schema Registry is configured for the REST Proxy")
        sid, text = body.get(f"{field}_schema_id"), body.get(f"{field}_schema")
        if sid is not None:
            await self.registry.schema(int(sid))
            return int(sid)
        if text is None:
            return None
        return await self.registry.register(f"{topic}-{field}", SCHEMA_TYPES[self.fmt], text)

    async def encode(self, value: JsonValue, schema_id: int | None, field: str) -> bytes | None:
        if value is None:
            return None
        if self.fmt == "binary":
            if not isinstance(value, str):
                raise RestError(errors.JSON_CONVERSION, f"Binary {field} must be a base64 string")
            try:
                return base64.b64decode(value, validate=True)
            except (binascii.Error, ValueError):
                raise RestError(errors.JSON_CONVERSION, f"Binary {field} is not valid base64") from None
        if self.fmt == "json":
            return json.dumps(value, separators=(",", ":")).encode()
        if schema_id is None:
            raise RestError(errors.KEY_SCHEMA_MISSING if field == "key" else errors.VALUE_SCHEMA_MISSING,
                            f"Request includes {field}s but no {field} schema")
        header = b"\0" + struct.pack(">I", schema_id)
        schema_type, text = await self.registry.schema(schema_id)   # type: ignore[union-attr]
        if self.fmt == "avro":
            import fastavro
            parsed = self._parsed.get(schema_id)
            if parsed is None:
                parsed = self._parsed[schema_id] = _parse_avro(text)
            out = io.BytesIO()
            try:
                fastavro.schemaless_writer(out, parsed[0], to_datum(parsed[0], value, parsed[1]))
            except (ValueError, TypeError, KeyError, AttributeError) as e:
                raise RestError(errors.JSON_CONVERSION, f"Conversion of JSON to Avro failed: {e}") from None
            return header + out.getvalue()
        import jsonschema
        try:
            jsonschema.validate(value, json.loads(text))
        except jsonschema.ValidationError as e:
            raise RestError(errors.JSON_CONVERSION, f"Conversion of JSON to Object failed: {e.message}") from None
        return header + json.dumps(value, separators=(",", ":")).encode()


async def decode(fmt: str, raw: bytes | None, registry: RegistryClient | None) -> JsonValue:
    """A consumed key or value as the consumer's format shows it."""
    if raw is None:
        return None
    if fmt == "binary":
        return base64.b64encode(raw).decode()
    if fmt == "json":
        try:
            return json.loads(raw)
        except ValueError:
            raise RestError(errors.KAFKA_ERROR, "Cannot deserialize a record as JSON") from None
    if len(raw) < 5 or raw[0] != 0 or registry is None:
        raise RestError(errors.KAFKA_ERROR, "Record is not in the Schema Registry's wire format")
    (schema_id,) = struct.unpack(">I", raw[1:5])
    schema_type, text = await registry.schema(schema_id)
    if fmt == "avro":
        schema, named = _parse_avro(text)
        try:
            return read_json(schema, raw[5:], named)
        except ValueError as e:
            raise RestError(errors.KAFKA_ERROR, f"Cannot deserialize a record as Avro: {e}") from None
    return json.loads(raw[5:])


def _parse_avro(text: str) -> tuple[AvroSchema, NamedSchemas]:
    """fastavro's parsed schema and its named types (full name -> schema)."""
    import fastavro
    named: NamedSchemas = {}
    return fastavro.parse_schema(json.loads(text), named_schemas=named), named
