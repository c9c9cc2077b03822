"""The type of a decoded JSON document, for every floor that reads or writes JSON (the
registry's schemas, the REST Proxy's bodies, dynamic configs, metrics' labels).

It lives in the lowest floor only so that every floor may import it; it holds no code.
A value read with `json.loads` is a `JsonValue`; narrow it with `isinstance` (or
`as_object`/`as_array`, which say what was expected when the shape is wrong) before use.
"""
from __future__ import annotations

from typing import TypeAlias, Union


JsonValue: TypeAlias = Union[None, bool, int, float, str, list["JsonValue"], dict[str, "JsonValue"]]
JsonObject: TypeAlias = dict[str, JsonValue]
JsonArray: TypeAlias = list[JsonValue]


def as_object(value: JsonValue, what: str = "value") -> JsonObject:
    """`value` as a JSON object, or ValueError naming `what` was expected to be one."""
    if not isinstance(value, dict):
        raise ValueError(f"{what} must be a JSON object, not {type(value).__name__}")
    return value


def as_array(value: JsonValue, what: str = "value") -> JsonArray:
    """`value` as a JSON array, or ValueError naming `what` was expected to be one."""
    if not isinstance(value, list):
        raise ValueError(f"{what} must be a JSON array, not {type(value).__name__}")
    return value
