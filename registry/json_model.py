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
from typing import Any, Union

JsonValue = Union[dict, list, str, int, float, bool, None]

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
    title: Any = None
    description: Any = None
    id: Any = None
    default: Any = None
    has_default: bool = False
    connect_type: Any = None   # Kafka Connect's "connect.type" annotation

    def get(self, key: str, default: Any = None) -> Any:
        return self.attrs.get(key, default)


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


class Loader:
    """Reads the documents of one comparison: ``named`` maps a reference's name to its
    document (the registry's ``references``), so ``$ref: "address.json"`` finds it."""

    def __init__(self, named: dict[str, Any] | None = None) -> None:
        self.named = named or {}
        self._built: dict[tuple[int, int], Schema] = {}
        self._keep: list[Any] = []   # the objects keyed by id() stay alive

    def load(self, node: Any, doc: Any) -> Schema:
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

    def _target(self, ref: str, doc: Any) -> tuple[Any, Any]:
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

    def _document(self, base: str) -> Any:
        if base in self.named:
            return self.named[base]
        for name, document in self.named.items():   # by $id, or a name ending as the URI does
            if isinstance(document, dict) and document.get("$id") == base:
                return document
            if base.endswith("/" + name) or name.endswith("/" + base):
                return document
        raise ValueError(f"Unresolved $ref '{base}'")

    # ---------------------------------------------------------------- building
    def _build(self, node: Any, doc: Any) -> Schema:
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
            if isinstance(node.get(criterion), list):
                parts.append(Schema("combined", {"criterion": criterion,
                                                 "subschemas": [self.load(s, doc) for s in node[criterion]]}))
        if not parts:
            schema = Schema("empty")
        elif len(parts) == 1:
            schema = parts[0]
        else:
            schema = Schema("combined", {"criterion": "allOf", "subschemas": parts, "synthetic": True})
        return self._common(schema, node)

    @staticmethod
    def _common(schema: Schema, node: dict) -> Schema:
        schema.title, schema.description = node.get("title"), node.get("description")
        schema.id = node.get("$id", node.get("id"))
        schema.connect_type = node.get("connect.type")
        if "default" in node:
            schema.default, schema.has_default = canonical(node["default"]), True
        return schema

    def _typed(self, kind: str, node: dict, doc: Any) -> Schema:
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

    def _object(self, node: dict, doc: Any) -> dict[str, Any]:
        load = lambda s: self.load(s, doc)   # noqa: E731
        props = node["properties"] if isinstance(node.get("properties"), dict) else {}
        additional = node.get("additionalProperties", True)
        deps = {**(node.get("dependencies") or {}), **(node.get("dependentRequired") or {}),
                **(node.get("dependentSchemas") or {})}
        patterns = node["patternProperties"] if isinstance(node.get("patternProperties"), dict) else {}
        return {
            "properties": {name: load(s) for name, s in props.items()},
            "required": set(node.get("required") or []) if isinstance(node.get("required"), list) else set(),
            "permits_additional": additional is not False,
            "additional": load(additional) if isinstance(additional, dict) else None,
            "pattern_properties": [(p, load(s)) for p, s in patterns.items()],
            "min_properties": node.get("minProperties"), "max_properties": node.get("maxProperties"),
            "property_dependencies": {k: set(v) for k, v in deps.items() if isinstance(v, list)},
            "schema_dependencies": {k: load(v) for k, v in deps.items() if isinstance(v, (dict, bool))},
            "unevaluated": load(node["unevaluatedProperties"]) if "unevaluatedProperties" in node else None,
        }

    def _array(self, node: dict, doc: Any) -> dict[str, Any]:
        """Draft 7's ``items`` list with ``additionalItems``, or 2020-12's ``prefixItems``
        with ``items`` as the schema of the items after them."""
        load = lambda s: self.load(s, doc)   # noqa: E731
        items, tuple_items, extra = node.get("items"), None, node.get("additionalItems", True)
        if isinstance(node.get("prefixItems"), list):
            tuple_items, extra, items = node["prefixItems"], node.get("items", True), None
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


def _numbers(node: dict) -> dict[str, Any]:
    def limit(key: str) -> Any:
        value = node.get(key)
        return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None
    out = {k: limit(k) for k in ("minimum", "maximum", "multipleOf")}
    out["exclusiveMinimum"], out["exclusiveMaximum"] = limit("exclusiveMinimum"), limit("exclusiveMaximum")
    if node.get("exclusiveMinimum") is True:   # draft 4: a flag on minimum
        out["exclusiveMinimum"], out["minimum"] = out["minimum"], None
    if node.get("exclusiveMaximum") is True:
        out["exclusiveMaximum"], out["maximum"] = out["maximum"], None
    return out
