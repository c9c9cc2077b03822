"""Avro's JSON encoding both ways, against fastavro's binary encoding."""
from __future__ import annotations

import io

import fastavro
import pytest

from kafpy.rest.avro_json import AvroJsonError, read_json, to_datum

SCHEMA = {"type": "record", "name": "R", "namespace": "a.b", "fields": [
    {"name": "s", "type": ["null", "string"]},
    {"name": "p", "type": ["null", {"type": "record", "name": "P", "fields": [{"name": "x", "type": "int"}]}]},
    {"name": "b", "type": "bytes"},
    {"name": "e", "type": {"type": "enum", "name": "E", "symbols": ["A", "B"]}},
    {"name": "m", "type": {"type": "map", "values": ["null", "long"]}},
    {"name": "a", "type": {"type": "array", "items": "a.b.P"}},
    {"name": "t", "type": {"type": "long", "logicalType": "timestamp-millis"}},
    {"name": "f", "type": {"type": "fixed", "name": "F", "size": 2}},
    {"name": "d", "type": ["null", "double", "boolean"]}]}
VALUE = {"s": {"string": "x"}, "p": {"a.b.P": {"x": 3}}, "b": "\u00ff\u0001", "e": "B",
         "m": {"k": {"long": 5}, "n": None}, "a": [{"x": 1}, {"x": -70000}], "t": 1700000000000,
         "f": "\u0000\u0080", "d": {"boolean": True}}


def _parsed():
    named: dict = {}
    return fastavro.parse_schema(SCHEMA, named_schemas=named), named


def test_round_trip_keeps_the_branch_the_json_names():
    schema, named = _parsed()
    out = io.BytesIO()
    fastavro.schemaless_writer(out, schema, to_datum(schema, VALUE, named))
    assert read_json(schema, out.getvalue(), named) == VALUE
    # the same bytes as fastavro gives the plain datum: the encoding is Avro's, only the JSON differs
    plain = dict(VALUE, s="x", p={"x": 3}, b=b"\xff\x01", m={"k": 5, "n": None}, f=b"\x00\x80", d=True)
    expected = io.BytesIO()
    fastavro.schemaless_writer(expected, schema, plain)
    assert expected.getvalue() == out.getvalue()


@pytest.mark.parametrize("field, bad", [
    ("s", "x"), ("s", {"int": 1}), ("s", {"string": "x", "null": None}), ("p", {"P": {"x": 1}}),
    ("b", "\u0100"), ("b", 5), ("a", {"x": 1}), ("m", [1])])
def test_json_that_does_not_follow_the_schema_is_refused(field, bad):
    schema, named = _parsed()
    with pytest.raises(AvroJsonError):
        to_datum(schema, {**VALUE, field: bad}, named)


def test_truncated_or_corrupt_binary_is_an_error():
    schema, named = _parsed()
    with pytest.raises(AvroJsonError):
        read_json(schema, b"\x02", named)
    with pytest.raises(AvroJsonError):
        read_json(schema, b"\x08", named)   # union index 4 of 2
