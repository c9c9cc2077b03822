"""Avro's schema-resolution rules, on the cases of Avro's specification and Confluent's
documentation (adding a field with a default keeps BACKWARD, without one breaks it...)."""
import json

import fastavro
import pytest

from kafpy.registry.avro_compat import reader_writer_incompatibilities


def p(obj):
    return fastavro.parse_schema(json.loads(json.dumps(obj)), _write_hint=False)


def rec(*fields, name="User"):
    return {"type": "record", "name": name, "namespace": "example.avro", "fields": list(fields)}


NAME = {"name": "name", "type": "string"}
AGE_DEFAULT = {"name": "age", "type": "int", "default": 0}
AGE = {"name": "age", "type": "int"}


def compat(reader, writer):
    return reader_writer_incompatibilities(p(reader), p(writer))


def test_added_field_with_default_can_read_old_data():
    assert compat(rec(NAME, AGE_DEFAULT), rec(NAME)) == []


def test_added_field_without_default_cannot_read_old_data():
    msgs = compat(rec(NAME, AGE), rec(NAME))
    assert len(msgs) == 1 and "age" in msgs[0]


def test_removed_field_is_ignored_by_reader():
    assert compat(rec(NAME), rec(NAME, AGE)) == []


@pytest.mark.parametrize("writer,reader", [("int", "long"), ("int", "double"), ("long", "float"),
                                           ("float", "double"), ("string", "bytes"), ("bytes", "string")])
def test_promotions(writer, reader):
    assert compat(reader, writer) == []


@pytest.mark.parametrize("writer,reader", [("long", "int"), ("double", "float"), ("string", "int"),
                                           ("boolean", "int")])
def test_no_demotions(writer, reader):
    assert compat(reader, writer) != []


def test_unions():
    assert compat(["null", "string"], "string") == []
    assert compat("string", ["null", "string"]) != []     # writer may send null
    assert compat(["null", "string", "int"], ["null", "string"]) == []
    assert compat(["null", "long"], ["null", "int"]) == []


def test_enum_symbols():
    e = lambda *s, **kw: {"type": "enum", "name": "Suit", "symbols": list(s), **kw}
    assert compat(e("A", "B", "C"), e("A", "B")) == []
    assert compat(e("A", "B"), e("A", "B", "C")) != []
    assert compat(e("A", "B", default="A"), e("A", "B", "C")) == []


def test_named_types_match_by_name_or_alias():
    assert compat(rec(NAME, name="Other"), rec(NAME)) != []
    aliased = dict(rec(NAME, name="Other"), aliases=["User"])
    assert compat(aliased, rec(NAME)) == []


def test_fixed_size():
    f = lambda n: {"type": "fixed", "name": "F", "size": n}
    assert compat(f(4), f(4)) == []
    assert compat(f(8), f(4)) != []


def test_arrays_and_maps_check_their_elements():
    assert compat({"type": "array", "items": "long"}, {"type": "array", "items": "int"}) == []
    assert compat({"type": "map", "values": "int"}, {"type": "map", "values": "long"}) != []


def test_field_alias_reads_renamed_field():
    assert compat(rec({"name": "full", "type": "string", "aliases": ["name"]}), rec(NAME)) == []


def test_recursive_schemas_terminate():
    node = {"type": "record", "name": "Node", "fields": [
        {"name": "value", "type": "int"}, {"name": "next", "type": ["null", "Node"]}]}
    node_long = {"type": "record", "name": "Node", "fields": [
        {"name": "value", "type": "long"}, {"name": "next", "type": ["null", "Node"]}]}
    assert compat(node_long, node) == []
    assert compat(node, node_long) != []


def test_a_namespace_change_is_accepted_as_avros_checker_does():
    inner = lambda ns: {"type": "record", "name": "Addr", "namespace": ns, "fields": [NAME]}
    outer = lambda ns: rec({"name": "home", "type": ["null", inner(ns)], "default": None})
    assert compat(outer("b.c"), outer("a.b")) == []          # inside a union
    assert compat(inner("b.c"), inner("a.b")) == []          # and at the top
    assert compat(rec(NAME, name="Other"), rec(NAME)) != []  # the name itself still counts


def test_invalid_names_and_duplicate_fields_are_refused():
    import json

    from kafpy.registry.errors import RestError
    from kafpy.registry.schema_types import parse_avro

    def refused(schema):
        try:
            parse_avro(json.dumps(schema), [], lambda r: None)
        except RestError as e:
            return e.code == 42201
        return False
    ok = {"type": "record", "name": "R", "namespace": "a.b_c", "fields": [NAME]}
    assert not refused(ok)
    assert refused({**ok, "namespace": "foo-bar-baz"})
    assert refused({**ok, "name": "1R"})
    assert refused({**ok, "fields": [NAME, NAME]})
    assert refused({**ok, "fields": [{"name": "a-b", "type": "int"}]})
    assert refused({"type": "enum", "name": "E", "symbols": ["A", "A"]})
    assert refused({"type": "enum", "name": "E", "symbols": ["A", "B-C"]})
    assert refused({**ok, "fields": [{"name": "x", "type": {"type": "fixed", "name": "f.1", "size": 2}}]})
