"""JSON Schema documents read into the typed schemas Confluent's JSON Schema diff compares.

Who may call: ``json_compat``. Confluent's registry loads a JSON schema with the everit
library before diffing it, and its verdicts follow from everit's model rather than from
the raw keywords, so this module reads a document the way everit's loader does:

- ``true`` is a ``true`` schema (an empty one), ``false`` a ``false`` schema, ``{}`` empty;
- ``$ref`` is a reference, followed when compared (``#/definitions/x``, ``#/$defs/x``, a
  reference's name as the registry's ``references`` give it, with an optional fragment);
- ``type`` names one schema per type (``integer`` is a number that requires an integer);
  a list of types is an ``anyOf`` of them; without ``type`` the keywords present decide
  (``properties`` makes an object, ``minLength`` a string, ...);
- ``enum``, ``const``, ``not``, ``allOf``/``anyOf``/``oneOf`` are schemas of their own, and
  when one document yields several, they are combined by a (synthetic) ``allOf``.

Schemas are built lazily (``Loader.load``) and kept per JSON object, so a recursive
document is a finite graph and a pair of schemas can be recognised when met again.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from kafpy.protocol.json_value import JsonArray, JsonObject, JsonValue

OBJECT_KEYS = ("properties", "required", "additionalProperties", "patternProperties", "minProperties",
               "maxProperties", "dependencies", "dependentRequired", "dependentSchemas", "propertyNames",
               "unevaluatedProperties")
ARRAY_KEYS = ("items", "additionalItems", "prefixItems", "minItems", "maxItems", "uniqueItems", "contains",
              "minContains", "maxContains", "unevaluatedItems")
NUMBER_KEYS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")
STRING_KEYS = ("minLength", "maxLength", "pattern", "format")
COMBINATIONS = ("allOf", "anyOf", "oneOf")


@dataclass(eq=False)
class Schema:
    """One typed schema; ``kind`` is everit's class (string, number, boolean, null, object,
    array, enum, const, not, combined, reference, empty, true, false) and ``attrs`` the
    keywords that kind compares. Identity (``eq=False``) is what the diff's memo keys on."""
    kind: str
    attrs: dict[str, Any] = field(default_factory=dict)
    title: JsonValue = None
    description: JsonValue = None
    id: JsonValue = None
    default: str | None = None   # canonical JSON text
    has_default: bool = False
    connect_type: JsonValue = None   # Kafka Connect's "connect.type" annotation

    def get(self, key: str, default: Any = None) -> Any:
        return self.attrs.get(key, default)


def canonical(value: object) -> str:
    """``value`` (JSON, or a schema's fingerprint of JSON values) as one text per meaning."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


class Loader:
    """Reads the documents of one comparison: ``named`` maps a reference's name to its
    document (the registry's ``references``), so ``$ref: "address.json"`` finds it."""

    def __init__(self, named: dict[str, JsonValue] | None = None) -> None:
        self.named = named or {}
        self._built: dict[tuple[int, int], Schema] = {}
        self._keep: list[tuple[JsonValue, JsonValue]] = []   # the objects keyed by id() stay alive

    def load(self, node: JsonValue, doc: JsonValue) -> Schema:
        key = (id(node), id(doc))
        built = self._built.get(key)
        if built is None:
            self._keep.append((node, doc))
            built = self._built[key] = self._build(node, doc)
        return built

    # ---------------------------------------------------------------- references
    @staticmethod
    def resolve(ref: Schema) -> Schema:
        """The schema a reference names (references to references followed), read by the
        loader of the reference's own side: two versions may name one reference differently."""
        seen = 0
        while ref.kind == "reference":
            loader: Loader = ref.attrs["loader"]
            target, doc = loader._target(ref.attrs["ref"], ref.attrs["doc"])
            ref = loader.load(target, doc)
            seen += 1
            if seen > 100:
                raise ValueError(f"$ref loop at {ref.attrs.get('ref')}")
        return ref

    def _target(self, ref: str, doc: JsonValue) -> tuple[JsonValue, JsonValue]:
        base, _, fragment = ref.partition("#")
        if base:
            doc = self._document(base)
        node = doc
        for part in [p for p in fragment.split("/") if p]:
            part = part.replace("~1", "/").replace("~0", "~")
            if isinstance(node, dict) and part in node:
                node = node[part]
            elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
                node = node[int(part)]
            else:
                raise ValueError(f"Unresolved $ref '{ref}'")
        return node, doc

    def _document(self, base: str) -> JsonValue:
        if base in self.named:
            return self.named[base]
        for name, document in self.named.items():   # by $id, or a name ending as the URI does
            if isinstance(document, dict) and document.get("$id") == base:
                return document
            if base.endswith("/" + name) or name.endswith("/" + base):
                return document
        raise ValueError(f"Unresolved $ref '{base}'")

    # ---------------------------------------------------------------- building
    def _build(self, node: JsonValue, doc: JsonValue) -> Schema:
        if node is True:
            return Schema("true")
        if node is False:
            return Schema("false")
        if not isinstance(node, dict):
            return Schema("empty")
        if isinstance(node.get("$ref"), str):
            return self._common(Schema("reference", {"ref": node["$ref"], "doc": doc, "loader": self}), node)
        parts: list[Schema] = []
        if "type" in node:
            types = node["type"] if isinstance(node["type"], list) else [node["type"]]
            typed = [self._typed(t, node, doc) for t in types]
            parts.append(typed[0] if len(typed) == 1
                         else Schema("combined", {"criterion": "anyOf", "subschemas": typed}))
        else:
            for kind, keys in (("object", OBJECT_KEYS), ("array", ARRAY_KEYS), ("number", NUMBER_KEYS),
                               ("string", STRING_KEYS)):
                if any(k in node for k in keys):
                    parts.append(self._typed(kind, node, doc))
        if "enum" in node and isinstance(node["enum"], list):
            parts.append(Schema("enum", {"values": sorted({canonical(v) for v in node["enum"]})}))
        if "const" in node:
            parts.append(Schema("const", {"value": canonical(node["const"])}))
        if "not" in node:
            parts.append(Schema("not", {"schema": self.load(node["not"], doc)}))
        for criterion in COMBINATIONS:
            subschemas = node.get(criterion)
            if isinstance(subschemas, list):
                parts.append(Schema("combined", {"criterion": criterion,
                                                 "subschemas": [self.load(s, doc) for s in subschemas]}))
        if not parts:
            schema = Schema("empty")
        elif len(parts) == 1:
            schema = parts[0]
        else:
            schema = Schema("combined", {"criterion": "allOf", "subschemas": parts, "synthetic": True})
        return self._common(schema, node)

    @staticmethod
    def _common(schema: Schema, node: JsonObject) -> Schema:
        schema.title, schema.description = node.get("title"), node.get("description")
        schema.id = node.get("$id", node.get("id"))
        schema.connect_type = node.get("connect.type")
        if "default" in node:
            schema.default, schema.has_default = canonical(node["default"]), True
        return schema

    def _typed(self, kind: JsonValue, node: JsonObject, doc: JsonValue) -> Schema:
        if kind == "integer":
            return Schema("number", {**_numbers(node), "integer": True})
        if kind == "number":
            return Schema("number", {**_numbers(node), "integer": False})
        if kind == "string":
            return Schema("string", {k: node.get(k) for k in ("minLength", "maxLength", "pattern")})
        if kind == "object":
            return Schema("object", self._object(node, doc))
        if kind == "array":
            return Schema("array", self._array(node, doc))
        if kind in ("boolean", "null"):
            return Schema(kind)
        return Schema("empty")

    def _object(self, node: JsonObject, doc: JsonValue) -> dict[str, object]:
        load = lambda s: self.load(s, doc)   # noqa: E731
        found, required = node.get("properties"), node.get("required")
        props = found if isinstance(found, dict) else {}
        additional = node.get("additionalProperties", True)
        deps = {**_mapping(node.get("dependencies")), **_mapping(node.get("dependentRequired")),
                **_mapping(node.get("dependentSchemas"))}
        found = node.get("patternProperties")
        patterns = found if isinstance(found, dict) else {}
        return {
            "properties": {name: load(s) for name, s in props.items()},
            "required": set(required) if isinstance(required, list) else set(),
            "permits_additional": additional is not False,
            "additional": load(additional) if isinstance(additional, dict) else None,
            "pattern_properties": [(p, load(s)) for p, s in patterns.items()],
            "min_properties": node.get("minProperties"), "max_properties": node.get("maxProperties"),
            "property_dependencies": {k: set(v) for k, v in deps.items() if isinstance(v, list)},
            "schema_dependencies": {k: load(v) for k, v in deps.items() if isinstance(v, (dict, bool))},
            "unevaluated": load(node["unevaluatedProperties"]) if "unevaluatedProperties" in node else None,
        }

    def _array(self, node: JsonObject, doc: JsonValue) -> dict[str, object]:
        """Draft 7's ``items`` list with ``additionalItems``, or 2020-12's ``prefixItems``
        with ``items`` as the schema of the items after them."""
        load = lambda s: self.load(s, doc)   # noqa: E731
        tuple_items: JsonArray | None = None
        items, extra, prefix = node.get("items"), node.get("additionalItems", True), node.get("prefixItems")
        if isinstance(prefix, list):
            tuple_items, extra, items = prefix, node.get("items", True), None
        elif isinstance(items, list):
            tuple_items, items = items, None
        return {
            "all_items": load(items) if isinstance(items, (dict, bool)) else None,
            "item_schemas": [load(s) for s in tuple_items] if tuple_items is not None else None,
            "permits_additional": extra is not False,
            "additional": load(extra) if isinstance(extra, dict) else None,
            "min_items": node.get("minItems"), "max_items": node.get("maxItems"),
            "unique": node.get("uniqueItems") is True,
            "min_contains": node.get("minContains"), "max_contains": node.get("maxContains"),
            "unevaluated": load(node["unevaluatedItems"]) if "unevaluatedItems" in node else None,
        }


def _mapping(value: JsonValue) -> JsonObject:
    """An object keyword's value, ``{}`` when absent (or any false value); TypeError for
    another JSON value, as unpacking it would raise."""
    if not value:
        return {}
    if not isinstance(value, dict):
        raise TypeError(f"'{type(value).__name__}' object is not a mapping")
    return value


def _numbers(node: JsonObject) -> dict[str, int | float | None]:
    def limit(key: str) -> int | float | None:
        value = node.get(key)
        return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None
    out = {k: limit(k) for k in ("minimum", "maximum", "multipleOf")}
    out["exclusiveMinimum"], out["exclusiveMaximum"] = limit("exclusiveMinimum"), limit("exclusiveMaximum")
    if node.get("exclusiveMinimum") is True:   # draft 4: a flag on minimum
        out["exclusiveMinimum"], out["minimum"] = out["minimum"], None
    if node.get("exclusiveMaximum") is True:
        out["exclusiveMaximum"], out["maximum"] = out["maximum"], None
    return out
