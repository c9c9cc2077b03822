"""Generate ``protocol/messages.py`` from Kafka's JSON message specs.

Run ``python -m kafpy.protocol.generate`` to rewrite the checked-in module and
``python -m kafpy.protocol.generate --check`` to exit 1 when it is stale (CI does this
through ``tests/unit/protocol/test_generate.py``).

Input: the repository's own schema, ``protocol/schema/<Name>.json`` (one file per
message, built from Kafka's JSON specs by ``python -m kafpy.protocol.import_specs DIR``): every
request/response the broker serves, the request/response headers, the consumer protocol
subscription/assignment data and the records of ``__consumer_offsets`` and
``__transaction_state``.

The output carries names, types, versions, nullable versions, defaults, tags, tagged
versions and flexible versions. It is a pure function of the schema files, so it is
byte-for-byte deterministic. The classes it builds on (``Field``, ``ApiSpec``,
``Struct``, ``Message``) are hand-written in ``kafpy.protocol.message_base``.
"""

from __future__ import annotations

import argparse
import json
import keyword
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
SCHEMA_DIR = PACKAGE / "schema"
OUTPUT = PACKAGE / "messages.py"

MAX_VERSION = 0x7FFF
PRIMITIVES = {
    "bool", "int8", "int16", "uint16", "int32", "uint32", "int64", "float64",
    "string", "bytes", "records", "uuid",
}


def parse_versions(text: object) -> tuple[int, int] | None:
    """``"3+"`` -> (3, MAX), ``"1-4"`` -> (1, 4), ``"2"`` -> (2, 2), ``"none"`` -> None."""
    if text is None:
        return None
    s = str(text).strip()
    if s in ("", "none"):
        return None
    if s.endswith("+"):
        return (int(s[:-1]), MAX_VERSION)
    if "-" in s:
        lo, hi = s.split("-", 1)
        return (int(lo), int(hi))
    return (int(s), int(s))


def snake_case(name: str) -> str:
    s = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", name)
    s = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", s)
    s = s.lower()
    if keyword.iskeyword(s):
        s += "_"
    return s


@dataclass
class FieldDef:
    name: str
    spec_name: str
    type: str
    versions: tuple[int, int] | None
    nullable: tuple[int, int] | None
    default: str  # Python expression
    mutable: bool  # default must be built per instance
    tag: int | None
    tagged: tuple[int, int] | None
    flexible: tuple[int, int] | None | str  # "inherit" or an override


@dataclass
class StructDef:
    name: str
    fields: list[FieldDef] = field(default_factory=list)


@dataclass
class MessageDef:
    name: str
    kind: str
    api_key: int | None
    valid: tuple[int, int]
    flexible: tuple[int, int] | None
    unstable: bool
    fields: list[FieldDef]
    structs: dict[str, StructDef]


def _element_type(t: str) -> str:
    return t[2:] if t.startswith("[]") else t


def _default_expr(f: dict, ftype: str, nullable: bool, msg_name: str) -> tuple[str, bool]:
    raw = f.get("default")
    is_null = raw is None and "default" in f or (isinstance(raw, str) and raw == "null")
    if ftype.startswith("[]"):
        if is_null:
            return "None", False
        return "[]", True
    if ftype in ("int8", "int16", "uint16", "int32", "uint32", "int64"):
        if raw is None or raw == "":
            return "0", False
        return str(int(str(raw), 0)), False
    if ftype == "float64":
        return repr(float(raw)) if raw not in (None, "") else "0.0", False
    if ftype == "bool":
        if raw is None or raw == "":
            return "False", False
        return ("True" if str(raw).lower() == "true" else "False"), False
    if ftype == "string":
        if is_null:
            return "None", False
        return repr("" if raw is None else str(raw)), False
    if ftype == "uuid":
        return "ZERO_UUID", False
    if ftype == "bytes":
        return ("None" if is_null else "b''"), False
    if ftype == "records":
        return "None", False
    # struct
    if is_null:
        return "None", False
    return f"{msg_name}.{ftype}()", True


def _collect_fields(
    fields: list[dict], msg_name: str, structs: dict[str, StructDef], common: dict[str, dict]
) -> list[FieldDef]:
    out: list[FieldDef] = []
    for f in fields:
        ftype = f["type"]
        elem = _element_type(ftype)
        tagged = parse_versions(f.get("taggedVersions"))
        versions = parse_versions(f.get("versions"))
        if versions is None and "versions" not in f:
            versions = tagged
        nullable = parse_versions(f.get("nullableVersions"))
        if elem not in PRIMITIVES:
            if "fields" in f:
                if elem not in structs:
                    structs[elem] = StructDef(elem)
                    structs[elem].fields = _collect_fields(f["fields"], msg_name, structs, common)
            elif elem in common:
                if elem not in structs:
                    structs[elem] = StructDef(elem)
                    structs[elem].fields = _collect_fields(
                        common[elem]["fields"], msg_name, structs, common
                    )
            elif elem not in structs:
                raise ValueError(f"{msg_name}: unknown struct type {elem}")
        default, mutable = _default_expr(f, ftype, nullable is not None, msg_name)
        flex: object = "inherit"
        if "flexibleVersions" in f:
            flex = parse_versions(f["flexibleVersions"])
        tag = f.get("tag")
        out.append(
            FieldDef(
                name=snake_case(f["name"]),
                spec_name=f["name"],
                type=ftype,
                versions=versions,
                nullable=nullable,
                default=default,
                mutable=mutable,
                tag=None if tag is None else int(tag),
                tagged=tagged,
                flexible=flex,  # type: ignore[arg-type]
            )
        )
    return out


def build_message(spec: dict) -> MessageDef:
    name = spec["name"]
    common = {s["name"]: s for s in spec.get("commonStructs", [])}
    structs: dict[str, StructDef] = {}
    fields = _collect_fields(spec.get("fields", []), name, structs, common)
    for cname, c in common.items():  # common structs not reached through a field
        if cname not in structs:
            structs[cname] = StructDef(cname)
            structs[cname].fields = _collect_fields(c["fields"], name, structs, common)
    valid = parse_versions(spec["validVersions"])
    assert valid is not None
    return MessageDef(
        name=name,
        kind=spec["type"],
        api_key=spec.get("apiKey"),
        valid=valid,
        flexible=parse_versions(spec.get("flexibleVersions")),
        unstable=bool(spec.get("latestVersionUnstable", False)),
        fields=fields,
        structs=structs,
    )


def load_schemas(schema_dir: Path = SCHEMA_DIR) -> list[dict]:
    """The schema files of ``schema_dir``, sorted by message name."""
    specs = [json.loads(p.read_text(encoding="utf-8")) for p in schema_dir.glob("*.json")]
    if not specs:
        raise FileNotFoundError(f"no schema files in {schema_dir}")
    return sorted(specs, key=lambda spec: spec["name"])


PREAMBLE = '''\
"""Kafka protocol messages, generated from ``protocol/schema/`` by ``python -m kafpy.protocol.generate``.
Do not edit.

One class per message; nested structs are attributes of their message class, named by
the spec's struct type. ``FIELDS`` of each class lists its fields as ``Field`` entries
in spec order (``kafpy.protocol.codec`` compiles encoders/decoders from them). Version ranges
are ``(low, high)`` tuples, ``None`` for "none"; ``0x7fff`` means "and later".
"""
# fmt: off
# flake8: noqa

from __future__ import annotations

from enum import IntEnum
from typing import Any

from kafpy.protocol.message_base import UNSET as _UNSET
from kafpy.protocol.message_base import ZERO_UUID, ApiSpec, Field, Message, Struct
'''


_PY_TYPES = {
    "bool": "bool", "int8": "int", "int16": "int", "uint16": "int", "int32": "int", "uint32": "int",
    "int64": "int", "float64": "float", "string": "str", "bytes": "bytes", "uuid": "bytes",
    "records": "Any",
}


def _annotation(f: FieldDef, msg_name: str) -> str:
    """The Python type of a field (``| None`` when nullable at some version)."""
    elem = _element_type(f.type)
    py = _PY_TYPES.get(elem, f"{msg_name}.{elem}")
    if f.type.startswith("[]"):
        py = f"list[{py}]"
    if py != "Any" and (f.nullable is not None or f.default == "None"):
        py += " | None"
    return py


def _field_default(f: FieldDef) -> str:
    if f.type.startswith("[]"):
        return "None" if f.default == "None" else "()"
    if f.mutable:
        return repr(f.type)
    return f.default


def _render_struct(
    lines: list[str], cls_name: str, fields: list[FieldDef], indent: str, base: str,
    extra: list[str], nested: list[StructDef], msg_name: str,
) -> None:
    lines.append(f"{indent}class {cls_name}({base}):")
    inner = indent + "    "
    slots = ", ".join(repr(f.name) for f in fields)
    lines.append(f"{inner}__slots__ = ({slots}{',' if len(fields) == 1 else ''})")
    for e in extra:
        lines.append(inner + e)
    lines.append(f"{inner}FIELDS = (")
    for f in fields:
        lines.append(
            f"{inner}    Field({f.name!r}, {f.type!r}, {f.versions!r}, {f.nullable!r}, "
            f"{f.tag!r}, {f.tagged!r}, {f.flexible!r}, {_field_default(f)}),"
        )
    lines.append(f"{inner})")
    lines.append("")
    for s in nested:
        _render_struct(lines, s.name, s.fields, inner, "Struct", [], [], msg_name)
    params = []
    body = []
    for f in fields:
        if f.mutable:
            params.append(f"{f.name}: {_annotation(f, msg_name)} = _UNSET")
            body.append(f"self.{f.name} = {f.default} if {f.name} is _UNSET else {f.name}")
        else:
            params.append(f"{f.name}: {_annotation(f, msg_name)} = {f.default}")
            body.append(f"self.{f.name} = {f.name}")
    if params:
        lines.append(f"{inner}def __init__(self, *, {', '.join(params)}) -> None:")
        for b in body:
            lines.append(f"{inner}    {b}")
    else:
        lines.append(f"{inner}def __init__(self) -> None:")
        lines.append(f"{inner}    pass")
    lines.append("")


def render(specs: list[dict]) -> str:
    lines = [PREAMBLE, ""]
    messages = [build_message(s) for s in specs]
    for m in messages:
        extra = [
            f"NAME = {m.name!r}",
            f"KIND = {m.kind!r}",
            f"API_KEY = {m.api_key!r}",
            f"VALID_VERSIONS = {m.valid!r}",
            f"FLEXIBLE_VERSIONS = {m.flexible!r}",
            f"LATEST_VERSION_UNSTABLE = {m.unstable!r}",
        ]
        nested = [m.structs[k] for k in sorted(m.structs)]
        lines.append("")
        _render_struct(lines, m.name, m.fields, "", "Message", extra, nested, m.name)
    lines.append("")
    lines.append("MESSAGES: dict[str, type[Message]] = {")
    for m in messages:
        lines.append(f"    {m.name!r}: {m.name},")
    lines.append("}")
    lines.append("")
    lines.append("API_KEYS: dict[int, ApiSpec] = {")
    reqs = sorted((m for m in messages if m.kind == "request"), key=lambda m: m.api_key or 0)
    by_key = {m.api_key: m for m in messages if m.kind == "response"}
    for m in reqs:
        resp = by_key[m.api_key]
        flex_min = m.flexible[0] if m.flexible else None
        lines.append(
            f"    {m.api_key}: ApiSpec({m.api_key}, {m.name[:-len('Request')]!r}, "
            f"{m.valid[0]}, {m.valid[1]}, {m.name}, {resp.name}, {flex_min!r}, {m.unstable!r}),"
        )
    lines.append("}")
    lines.append("")
    lines.append("")
    lines.append("class ApiKey(IntEnum):")
    lines.append('    """API keys of the generated APIs, named as Kafka names them, in upper snake case."""')
    lines.append("")
    for m in reqs:
        lines.append(f"    {snake_case(m.name[:-len('Request')]).upper()} = {m.api_key}")
    lines.append("")
    return "\n".join(lines)


def generate(schema_dir: Path = SCHEMA_DIR) -> str:
    return render(load_schemas(schema_dir))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m kafpy.protocol.generate", description=__doc__)
    ap.add_argument("--check", action="store_true", help="exit 1 when the output is stale")
    ap.add_argument("--schema-dir", type=Path, default=SCHEMA_DIR)
    ap.add_argument("--output", type=Path, default=OUTPUT)
    args = ap.parse_args(argv)
    text = generate(args.schema_dir)
    if args.check:
        current = args.output.read_text(encoding="utf-8") if args.output.exists() else ""
        if current != text:
            print(f"{args.output} is stale; run python -m kafpy.protocol.generate", file=sys.stderr)
            return 1
        return 0
    args.output.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
