"""JSON Schema compatibility: is every document valid under a writer schema valid under a
reader schema?

A sound subset of Confluent's JSON Schema diff: types may only widen (``integer`` to
``number``), a reader may not require a property the writer did not, nor add a property the
writer's open content model may already carry with another type, nor close a content model
the writer left open, nor drop an enum value, nor tighten a length or range bound. Anything
the rules below do not compare is taken as compatible only when both sides are equal.
"""
from __future__ import annotations

from typing import Any

BOUNDS_UPPER = ("maxLength", "maximum", "exclusiveMaximum", "maxItems", "maxProperties")
BOUNDS_LOWER = ("minLength", "minimum", "exclusiveMinimum", "minItems", "minProperties")


def _types(schema: dict) -> set[str] | None:
    t = schema.get("type")
    if t is None:
        return None
    return {t} if isinstance(t, str) else set(t)


def _is_open(schema: Any) -> bool:
    return not (isinstance(schema, dict) and schema.get("additionalProperties") is False)


def incompatibilities(reader: Any, writer: Any, path: str = "#") -> list[str]:
    """Why documents valid under ``writer`` may be invalid under ``reader`` (empty if none)."""
    if reader is True or reader == {}:
        return []
    if writer is False:
        return []
    if reader is False or writer is True:
        return [f"{path}: reader schema accepts less than the writer's"]
    out: list[str] = []
    rt, wt = _types(reader), _types(writer)
    if rt is not None:
        widened = set(rt) | ({"integer"} if "number" in rt else set())
        if wt is None or not wt <= widened:
            out.append(f"{path}: TYPE_CHANGED (writer {sorted(wt) if wt else 'any'}, reader {sorted(rt)})")
            return out
    if "enum" in reader:
        if "enum" not in writer or any(v not in reader["enum"] for v in writer["enum"]):
            out.append(f"{path}: ENUM_ARRAY_CHANGED")
    for key in BOUNDS_UPPER:
        if key in reader and (key not in writer or writer[key] > reader[key]):
            out.append(f"{path}: {key.upper()}_DECREASED" if key in writer else f"{path}: {key.upper()}_ADDED")
    for key in BOUNDS_LOWER:
        if key in reader and (key not in writer or writer[key] < reader[key]):
            out.append(f"{path}: {key.upper()}_INCREASED" if key in writer else f"{path}: {key.upper()}_ADDED")
    r_props, w_props = reader.get("properties", {}), writer.get("properties", {})
    for name in sorted(set(reader.get("required", [])) - set(writer.get("required", []))):
        out.append(f"{path}/required: REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL '{name}'"
                   if name not in w_props else f"{path}/required: REQUIRED_ATTRIBUTE_ADDED '{name}'")
    for name, sub in r_props.items():
        if name in w_props:
            out += incompatibilities(sub, w_props[name], f"{path}/properties/{name}")
        elif _is_open(writer) and writer.get("additionalProperties", True) is not False:
            extra = writer.get("additionalProperties", True)
            out += [m.replace("reader schema", f"property '{name}'") for m in
                    incompatibilities(sub, extra, f"{path}/properties/{name}")] if extra is not True else (
                [] if sub is True or sub == {} else [f"{path}/properties/{name}: PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL"])
    if not _is_open(reader):
        for name in w_props:
            if name not in r_props:
                out.append(f"{path}/properties/{name}: PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL")
        if _is_open(writer):
            out.append(f"{path}/additionalProperties: ADDITIONAL_PROPERTIES_REMOVED")
    if "items" in reader and isinstance(reader["items"], (dict, bool)):
        out += incompatibilities(reader["items"], writer.get("items", True), f"{path}/items")
    return out
