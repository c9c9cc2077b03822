"""Avro's schema-resolution rules as Confluent's registry applies them (Avro's
``SchemaCompatibility``), one row per rule with both verdicts (``backward``: the new schema
reads data written with the old one; ``forward`` the other way), checked under BACKWARD,
FORWARD, FULL and their TRANSITIVE forms through the registry's service."""
import json

import pytest

from kafpy.registry.errors import RestError
from kafpy.registry.service import SchemaRegistry
from tests.unit.registry.test_service import MemoryLog, run


def rec(*fields, name="R", namespace="ex", **extra):
    return {"type": "record", "name": name, "namespace": namespace, "fields": list(fields), **extra}


def f(name, type_, **extra):
    return {"name": name, "type": type_, **extra}


A = f("a", "string")
E = lambda *symbols, **kw: {"type": "enum", "name": "E", "symbols": list(symbols), **kw}   # noqa: E731

# (rule, old, new, backward compatible, forward compatible)
RULES = [
    ("field added with a default / removed", rec(A), rec(A, f("b", "int", default=0)), True, True),
    ("field added without a default", rec(A), rec(A, f("b", "int")), False, True),
    ("int promoted to long (not back)", rec(f("n", "int")), rec(f("n", "long")), True, False),
    ("int promoted to double", rec(f("n", "int")), rec(f("n", "double")), True, False),
    ("float promoted to double", rec(f("n", "float")), rec(f("n", "double")), True, False),
    ("string and bytes read each other", rec(f("s", "string")), rec(f("s", "bytes")), True, True),
    ("a type changed across kinds", rec(f("n", "int")), rec(f("n", "string")), False, False),
    ("enum symbol added (the reader knows more)", rec(f("e", E("X", "Y"))), rec(f("e", E("X", "Y", "Z"))),
     True, False),
    ("enum with a default reads unknown symbols", rec(f("e", E("X", "Y", default="X"))),
     rec(f("e", E("X", default="X"))), True, True),
    ("union branch added", rec(f("u", ["null", "string"], default=None)),
     rec(f("u", ["null", "string", "int"], default=None)), True, False),
    ("a field made nullable", rec(f("s", "string")), rec(f("s", ["null", "string"], default=None)), True, False),
    ("record renamed", rec(A), rec(A, name="Other"), False, False),
    ("record renamed with an alias to the old name", rec(A), rec(A, name="Other", aliases=["ex.R"]), True, False),
    ("field renamed with an alias", rec(A), rec(f("full", "string", aliases=["a"])), True, False),
    ("namespace changed (Avro compares unqualified names)", rec(A, namespace="a.b"), rec(A, namespace="c.d"),
     True, True),
    ("inner record's namespace changed inside a union",
     rec(f("home", ["null", rec(A, name="Addr", namespace="a")], default=None)),
     rec(f("home", ["null", rec(A, name="Addr", namespace="b")], default=None)), True, True),
    ("fixed size changed", rec(f("x", {"type": "fixed", "name": "F", "size": 4})),
     rec(f("x", {"type": "fixed", "name": "F", "size": 8})), False, False),
    ("array items promoted", rec(f("xs", {"type": "array", "items": "int"})),
     rec(f("xs", {"type": "array", "items": "long"})), True, False),
    ("map values changed across kinds", rec(f("m", {"type": "map", "values": "int"})),
     rec(f("m", {"type": "map", "values": "string"})), False, False),
]
IDS = [r[0] for r in RULES]


def registers(steps):
    log = MemoryLog()
    sr = SchemaRegistry(log.state, log.write)
    for level, schema in steps[:-1]:
        run(sr.set_compatibility("s", level))
        run(sr.register("s", {"schema": json.dumps(schema)}))
    level, schema = steps[-1]
    run(sr.set_compatibility("s", level))
    try:
        run(sr.register("s", {"schema": json.dumps(schema)}))
        return True
    except RestError as e:
        assert e.code == 409, e.message
        return False


@pytest.mark.parametrize("rule,old,new,backward,forward", RULES, ids=IDS)
def test_rule_under_every_level(rule, old, new, backward, forward):
    for level, expected in (("BACKWARD", backward), ("FORWARD", forward), ("FULL", backward and forward)):
        assert registers([("NONE", old), (level, new)]) is expected, level
        # an in-between version readable both ways with the new one does not decide alone
        # under a transitive level: the first version does too
        between = {**new, "fields": new["fields"] + [f("between", "int", default=0)]}
        assert registers([("NONE", old), ("NONE", between), (level, new)]) is True, level
        assert registers([("NONE", old), ("NONE", between), (level + "_TRANSITIVE", new)]) is expected, level
