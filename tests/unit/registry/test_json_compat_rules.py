"""Confluent's JSON Schema diff rules, one row per ``Difference.Type`` (or group of them),
each with both verdicts: ``backward`` is whether a reader with the new schema reads data
written with the old one (Confluent's original -> update), ``forward`` the other way. Every
row is checked under BACKWARD, FORWARD, FULL and their TRANSITIVE forms through the
registry's service, as a registration is."""
import json

import pytest

from kafpy.registry.json_compat import differences, incompatibilities
from kafpy.registry.service import SchemaRegistry
from tests.unit.registry.test_service import MemoryLog, run

S, I, N = {"type": "string"}, {"type": "integer"}, {"type": "number"}


def obj(props, required=(), closed=False, **extra):
    out = {"type": "object", "properties": props, **extra}
    if required:
        out["required"] = list(required)
    if closed:
        out["additionalProperties"] = False
    return out


def arr(**kw):
    return {"type": "array", **kw}


D2020 = "https://json-schema.org/draft/2020-12/schema"

# (rule, old, new, backward compatible, forward compatible)
RULES = [
    ("TYPE_CHANGED", S, I, False, False),
    ("TYPE_EXTENDED / TYPE_NARROWED", I, N, True, False),
    ("ID/TITLE/DESCRIPTION/DEFAULT_CHANGED", S, {**S, "title": "t", "description": "d", "default": "x",
                                                 "$id": "urn:x"}, True, True),
    ("MAX_LENGTH_INCREASED / DECREASED", {**S, "maxLength": 10}, {**S, "maxLength": 20}, True, False),
    ("MAX_LENGTH_ADDED / REMOVED", S, {**S, "maxLength": 5}, False, True),
    ("MIN_LENGTH_DECREASED / INCREASED", {**S, "minLength": 5}, {**S, "minLength": 2}, True, False),
    ("MIN_LENGTH_ADDED / REMOVED", S, {**S, "minLength": 1}, False, True),
    ("PATTERN_ADDED / REMOVED", S, {**S, "pattern": "a*"}, False, True),
    ("PATTERN_CHANGED", {**S, "pattern": "a*"}, {**S, "pattern": "a+"}, False, False),
    ("MAXIMUM_INCREASED / DECREASED", {**N, "maximum": 10}, {**N, "maximum": 20}, True, False),
    ("MAXIMUM_ADDED / REMOVED", N, {**N, "maximum": 20}, False, True),
    ("MINIMUM_DECREASED / INCREASED", {**N, "minimum": 5}, {**N, "minimum": 0}, True, False),
    ("MINIMUM_ADDED / REMOVED", N, {**N, "minimum": 0}, False, True),
    ("EXCLUSIVE_MAXIMUM_INCREASED / DECREASED", {**N, "exclusiveMaximum": 10}, {**N, "exclusiveMaximum": 20},
     True, False),
    ("EXCLUSIVE_MINIMUM_DECREASED / INCREASED", {**N, "exclusiveMinimum": 5}, {**N, "exclusiveMinimum": 0},
     True, False),
    ("EXCLUSIVE_MINIMUM_ADDED / REMOVED", N, {**N, "exclusiveMinimum": 0}, False, True),
    ("MULTIPLE_OF_REDUCED / EXPANDED", {**N, "multipleOf": 4}, {**N, "multipleOf": 2}, True, False),
    ("MULTIPLE_OF_CHANGED", {**N, "multipleOf": 3}, {**N, "multipleOf": 5}, False, False),
    ("MULTIPLE_OF_ADDED / REMOVED", N, {**N, "multipleOf": 2}, False, True),
    ("REQUIRED_ATTRIBUTE_ADDED / REMOVED", obj({"a": S}), obj({"a": S}, ["a"]), False, True),
    ("REQUIRED_ATTRIBUTE_WITH_DEFAULT_ADDED", obj({"a": S}), obj({"a": {**S, "default": ""}}, ["a"]), True, True),
    ("MAX_PROPERTIES_INCREASED / DECREASED", obj({}, maxProperties=5), obj({}, maxProperties=10), True, False),
    ("MIN_PROPERTIES_DECREASED / INCREASED", obj({}, minProperties=2), obj({}, minProperties=1), True, False),
    ("MAX_PROPERTIES_ADDED / REMOVED", obj({}), obj({}, maxProperties=10), False, True),
    ("ADDITIONAL_PROPERTIES_ADDED / REMOVED", obj({"a": S}, closed=True), obj({"a": S}), True, False),
    ("ADDITIONAL_PROPERTIES schema widened", obj({}, additionalProperties=I), obj({}, additionalProperties=N),
     True, False),
    ("ADDITIONAL_PROPERTIES_NARROWED / EXTENDED", obj({}), obj({}, additionalProperties=S), False, True),
    ("DEPENDENCY_ARRAY_EXTENDED / NARROWED", obj({}, dependencies={"a": ["b"]}),
     obj({}, dependencies={"a": ["b", "c"]}), False, True),
    ("DEPENDENCY_ARRAY_CHANGED", obj({}, dependencies={"a": ["b"]}), obj({}, dependencies={"a": ["c"]}),
     False, False),
    ("DEPENDENCY_ARRAY_ADDED / REMOVED", obj({}), obj({}, dependencies={"a": ["b"]}), False, True),
    ("DEPENDENCY_SCHEMA_ADDED / REMOVED", obj({}), obj({}, dependencies={"a": obj({"b": S})}), False, True),
    ("OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL / PROPERTY_REMOVED_FROM_OPEN_CONTENT_MODEL",
     obj({"a": S}), obj({"a": S, "b": S}), False, True),
    ("REQUIRED_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL", obj({"a": S}), obj({"a": S, "b": S}, ["b"]), False, True),
    ("REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_OPEN_CONTENT_MODEL", obj({"a": S}),
     obj({"a": S, "b": {**S, "default": ""}}, ["b"]), False, True),
    ("PROPERTY_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL", obj({"a": S}), obj({"a": S, "b": {}}), True, True),
    ("OPTIONAL_PROPERTY_ADDED_TO_UNOPEN / PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL",
     obj({"a": S}, closed=True), obj({"a": S, "b": S}, closed=True), True, False),
    ("REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL", obj({"a": S}, closed=True),
     obj({"a": S, "b": S}, ["b"], closed=True), False, False),
    ("REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_UNOPEN_CONTENT_MODEL", obj({"a": S}, closed=True),
     obj({"a": S, "b": {**S, "default": ""}}, ["b"], closed=True), True, False),
    ("PROPERTY_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL", obj({"a": S, "b": False}, closed=True),
     obj({"a": S}, closed=True), True, True),
    ("PROPERTY_ADDED/REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL", obj({"a": S}, additionalProperties=S),
     obj({"a": S, "b": S}, additionalProperties=S), True, True),
    ("PROPERTY_ADDED/REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL", obj({"a": S}, additionalProperties=S),
     obj({"a": S, "b": I}, additionalProperties=S), False, False),
    ("patternProperties cover a property", obj({}, patternProperties={"^x": S}),
     obj({"x1": {**S, "maxLength": 3}}, patternProperties={"^x": S}), False, True),
    ("UNEVALUATED_PROPERTIES_ADDED / REMOVED", obj({"a": S}, unevaluatedProperties=False), obj({"a": S}),
     True, False),
    ("UNEVALUATED_PROPERTIES_NARROWED / EXTENDED", obj({"a": S}), obj({"a": S}, unevaluatedProperties=S),
     False, True),
    ("items widened", arr(items=I), arr(items=N), True, False),
    ("SCHEMA_ADDED / SCHEMA_REMOVED", arr(), arr(items=S), False, True),
    ("MAX_ITEMS_INCREASED / DECREASED", arr(maxItems=5), arr(maxItems=10), True, False),
    ("MIN_ITEMS_DECREASED / INCREASED", arr(minItems=2), arr(minItems=1), True, False),
    ("MIN_ITEMS_ADDED / REMOVED", arr(), arr(minItems=1), False, True),
    ("UNIQUE_ITEMS_REMOVED / ADDED", arr(uniqueItems=True), arr(), True, False),
    ("MAX_CONTAINS_INCREASED / DECREASED", arr(contains=S, maxContains=2), arr(contains=S, maxContains=3),
     True, False),
    ("MIN_CONTAINS_DECREASED / INCREASED", arr(contains=S, minContains=2), arr(contains=S, minContains=1),
     True, False),
    ("ITEM_REMOVED_FROM_OPEN / ITEM_ADDED_TO_OPEN_CONTENT_MODEL", arr(items=[S, I]), arr(items=[S]), True, False),
    ("ITEM_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL", arr(items=[S]), arr(items=[S, {}]), True, True),
    ("tuple item narrowed", arr(items=[N]), arr(items=[I]), False, True),
    ("ITEM_ADDED_TO_CLOSED / ITEM_REMOVED_FROM_CLOSED_CONTENT_MODEL", arr(items=[S], additionalItems=False),
     arr(items=[S, I], additionalItems=False), True, False),
    ("ITEM_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL", arr(items=[S, False], additionalItems=False),
     arr(items=[S], additionalItems=False), True, True),
    ("ITEM_ADDED/REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL", arr(items=[S], additionalItems=S),
     arr(items=[S, S], additionalItems=S), True, True),
    ("ITEM_ADDED/REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL", arr(items=[S], additionalItems=S),
     arr(items=[S, I], additionalItems=S), False, False),
    ("ADDITIONAL_ITEMS_ADDED / REMOVED", arr(items=[S], additionalItems=False), arr(items=[S]), True, False),
    ("ADDITIONAL_ITEMS_NARROWED / EXTENDED", arr(items=[S]), arr(items=[S], additionalItems=S), False, True),
    ("UNEVALUATED_ITEMS_ADDED / REMOVED", arr(items=[S], unevaluatedItems=False), arr(items=[S]), True, False),
    ("prefixItems narrowed (2020-12)", {"$schema": D2020, **arr(prefixItems=[N])},
     {"$schema": D2020, **arr(prefixItems=[I])}, False, True),
    ("prefixItems closed by items: false (2020-12)", {"$schema": D2020, **arr(prefixItems=[S], items=False)},
     {"$schema": D2020, **arr(prefixItems=[S])}, True, False),
    ("ENUM_ARRAY_EXTENDED / NARROWED", {"enum": ["a", "b"]}, {"enum": ["a", "b", "c"]}, True, False),
    ("ENUM_ARRAY_CHANGED", {"enum": ["a", "b"]}, {"enum": ["a", "c"]}, False, False),
    ("const changed (ENUM_ARRAY_CHANGED)", {"const": 1}, {"const": 2}, False, False),
    ("NOT_TYPE_NARROWED / EXTENDED", {"not": S}, {"not": {**S, "maxLength": 3}}, True, False),
    ("SUM_TYPE_NARROWED / EXTENDED: anyOf loses a branch", {"anyOf": [S, I]}, {"anyOf": [S]}, False, True),
    ("COMBINED_TYPE_SUBSCHEMAS_CHANGED: oneOf [number] to [integer]", {"oneOf": [N]}, {"oneOf": [I]}, False, True),
    ("singleton oneOf and its branch", {"oneOf": [S]}, S, True, True),
    ("SUM_TYPE_EXTENDED: a nullable reader", S, {"anyOf": [S, {"type": "null"}]}, True, False),
    ("type list as anyOf", {"type": ["string", "null"]}, S, False, True),
    ("oneOf-nullable property narrowed", obj({"a": {"oneOf": [N, {"type": "null"}]}}),
     obj({"a": {"oneOf": [I, {"type": "null"}]}}), False, True),
    ("COMBINED_TYPE_EXTENDED / CHANGED: allOf to anyOf", {"allOf": [obj({"a": S}), obj({"b": S})]},
     {"anyOf": [obj({"a": S}), obj({"b": S})]}, True, False),
    ("COMBINED_TYPE_CHANGED: oneOf to allOf", {"oneOf": [S, I]}, {"allOf": [S, I]}, False, False),
    ("PRODUCT_TYPE_EXTENDED / NARROWED", {"allOf": [obj({"a": S})]}, {"allOf": [obj({"a": S}), obj({"b": S})]},
     False, True),
    ("$ref and inline are one schema", obj({"a": {"$ref": "#/definitions/A"}}, definitions={"A": S}),
     obj({"a": S}), True, True),
    ("a change inside a $ref target", obj({"a": {"$ref": "#/definitions/A"}}, definitions={"A": N}),
     obj({"a": {"$ref": "#/definitions/A"}}, definitions={"A": I}), False, True),
    ("a change inside a $defs target (2020-12)",
     {"$schema": D2020, **obj({"a": {"$ref": "#/$defs/A"}}), "$defs": {"A": {**S, "maxLength": 9}}},
     {"$schema": D2020, **obj({"a": {"$ref": "#/$defs/A"}}), "$defs": {"A": {**S, "maxLength": 5}}}, False, True),
    ("a recursive schema compared with itself", obj({"children": arr(items={"$ref": "#"})}),
     obj({"children": arr(items={"$ref": "#"})}), True, True),
    ("not {} over a closed object", obj({"a": S}, closed=True), {"not": {}}, False, False),
    ("false writer, empty reader", False, S, True, False),
    ("empty reader", S, {}, True, False),
    ("Connect's bytes types may change representation", {**N, "connect.type": "bytes"},
     {**S, "connect.type": "bytes"}, True, True),
]
IDS = [r[0] for r in RULES]


def compatible(reader, writer):
    return not incompatibilities(reader, writer)


@pytest.mark.parametrize("rule,old,new,backward,forward", RULES, ids=IDS)
def test_rule_verdicts(rule, old, new, backward, forward):
    assert compatible(new, old) is backward, differences(new, old)
    assert compatible(old, new) is forward, differences(old, new)


def js(schema):
    return {"schemaType": "JSON", "schema": json.dumps(schema)}


def registers(levels_and_schemas):
    """Registers each (level, schema) in turn on one subject; True if the last is accepted."""
    log = MemoryLog()
    sr = SchemaRegistry(log.state, log.write)
    from kafpy.registry.errors import RestError
    for level, schema in levels_and_schemas[:-1]:
        run(sr.set_compatibility("s", level))
        run(sr.register("s", js(schema)))
    level, schema = levels_and_schemas[-1]
    run(sr.set_compatibility("s", level))
    try:
        run(sr.register("s", js(schema)))
        return True
    except RestError as e:
        assert e.code == 409, e.message
        return False


def retitled(schema):
    return {**schema, "title": "between"} if isinstance(schema, dict) else schema


@pytest.mark.parametrize("rule,old,new,backward,forward", RULES, ids=IDS)
def test_rule_under_every_level(rule, old, new, backward, forward):
    for level, expected in (("BACKWARD", backward), ("FORWARD", forward), ("FULL", backward and forward)):
        assert registers([("NONE", old), (level, new)]) is expected, level
        # transitive: a version in between, compatible with the new one either way, is not
        # enough; the first version decides too
        between = retitled(new)
        if between == new or not isinstance(new, dict):
            continue
        assert registers([("NONE", old), ("NONE", between), (level, new)]) is True, level
        assert registers([("NONE", old), ("NONE", between), (level + "_TRANSITIVE", new)]) is expected, level


def test_references_between_subjects_are_compared(tmp_path):
    log = MemoryLog()
    sr = SchemaRegistry(log.state, log.write)
    run(sr.register("addr", js(obj({"zip": N}))))
    run(sr.set_compatibility("addr", "NONE"))
    run(sr.register("addr", js(obj({"zip": I}))))
    user = obj({"home": {"$ref": "address.json"}})
    refs = lambda v: [{"name": "address.json", "subject": "addr", "version": v}]   # noqa: E731
    run(sr.register("user", {**js(user), "references": refs(1)}))
    messages = sr.check_compatibility("user", "latest", {**js(user), "references": refs(2)})
    assert messages and "TYPE_NARROWED" in messages[0] and "#/properties/home" in messages[0]
    assert sr.check_compatibility("user", "latest", {**js(obj({"home": obj({"zip": N})}))}) == []
