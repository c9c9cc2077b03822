"""Protobuf compatibility as Confluent's registry decides it: its ``protobuf.diff`` rules,
over descriptors.

Who may call: ``protobuf_schema.incompatibilities``. The writer's file is Confluent's
``original``, the reader's its ``update``; each side comes with the descriptors of the
files it imports (``Side``), so a field whose type lives in an imported file is compared
through it. The changes found are Confluent's ``Difference`` types; compatible are those of
``COMPATIBLE``. The rules:

- the file's package may not change (PACKAGE_CHANGED); messages are matched by name, scope by
  scope: a message may be added or moved, not removed; enums may be added, removed, and
  gain, lose or rename constants;
- fields are matched by number: added or removed (not ``required`` ones), renamed, moved out
  of a oneof; their kinds (scalar, message, map) may not change; scalars keep their wire group
  (int32/int64/uint32/uint64/bool and enums, sint32/sint64, fixed32/sfixed32,
  fixed64/sfixed64, float, double, string/bytes), so int32 to an enum is accepted; a number
  changing label (``repeated``) is not, a string or bytes may;
- a message-typed field compares the message it names by its name without the package (so an
  imported file's package may be renamed) and, unless both sides take it from the same
  reference subject and version, the message itself, wherever it is defined: a change inside
  an imported file counts (FIELD_NAMED_TYPE_CHANGED when it is not compatible);
- oneofs: fields may join a new oneof one group at a time, not an existing one, and may not
  leave a oneof that survives (ONEOF_FIELD_REMOVED).
A recursive message met again inside itself is not walked twice, as Confluent's context does.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterable, Iterator, Union

if TYPE_CHECKING:
    from google.protobuf.descriptor_pb2 import (DescriptorProto, EnumDescriptorProto, FieldDescriptorProto,
                                                FileDescriptorProto)

# a scope's types: its messages and its enums (a file's top level or a message's nested ones)
Scope = tuple[Iterable["DescriptorProto"], Iterable["EnumDescriptorProto"]]

COMPATIBLE = frozenset({
    "MESSAGE_ADDED", "MESSAGE_MOVED", "ENUM_ADDED", "ENUM_REMOVED", "ENUM_CONST_ADDED", "ENUM_CONST_CHANGED",
    "ENUM_CONST_REMOVED", "FIELD_ADDED", "FIELD_REMOVED", "FIELD_NAME_CHANGED",
    "FIELD_STRING_OR_BYTES_LABEL_CHANGED", "ONEOF_ADDED", "ONEOF_REMOVED", "ONEOF_FIELD_ADDED",
    "ONEOF_FIELD_MOVED_TO_TOP_LEVEL",
})
_SCALAR_KINDS = {
    "TYPE_INT32": "GENERAL_NUMBER", "TYPE_INT64": "GENERAL_NUMBER", "TYPE_UINT32": "GENERAL_NUMBER",
    "TYPE_UINT64": "GENERAL_NUMBER", "TYPE_BOOL": "GENERAL_NUMBER", "TYPE_ENUM": "GENERAL_NUMBER",
    "TYPE_SINT32": "SIGNED_NUMBER", "TYPE_SINT64": "SIGNED_NUMBER",
    "TYPE_STRING": "STRING_OR_BYTES", "TYPE_BYTES": "STRING_OR_BYTES",
    "TYPE_FIXED32": "FIXED32", "TYPE_SFIXED32": "FIXED32", "TYPE_FIXED64": "FIXED64", "TYPE_SFIXED64": "FIXED64",
    "TYPE_FLOAT": "FLOAT", "TYPE_DOUBLE": "DOUBLE",
}
_NUMERIC = {"GENERAL_NUMBER", "SIGNED_NUMBER", "FIXED32", "FIXED64", "FLOAT", "DOUBLE"}


@dataclass(frozen=True)
class Difference:
    """One change of Confluent's Protobuf ``Difference.Type`` at a path ("#/Msg/2")."""
    type: str
    path: str

    def __str__(self) -> str:
        return f"{self.type} {self.path}"


@dataclass
class TypeInfo:
    """A message or enum by full name: its package, descriptor, and the reference (subject,
    version) of the file defining it (None for the schema's own file)."""
    package: str
    descriptor: Union[DescriptorProto, EnumDescriptorProto]
    is_enum: bool
    reference: tuple[str, int] | None


@dataclass
class Side:
    """One schema of the comparison: its file, the files it imports, and the references
    (import path -> (subject, version)) the registry resolved them by."""
    file: FileDescriptorProto
    imports: list[FileDescriptorProto] = field(default_factory=list)
    references: dict[str, tuple[str, int]] = field(default_factory=dict)

    def types(self) -> dict[str, TypeInfo]:
        out: dict[str, TypeInfo] = {}
        for fd in [*self.imports, self.file]:
            ref = None if fd is self.file else self.references.get(fd.name, ("", -1))
            prefix = fd.package
            for name, desc, is_enum in _walk(prefix, fd.message_type, fd.enum_type):
                out[name] = TypeInfo(fd.package, desc, is_enum, ref)
        return out


def _walk(prefix: str, messages: Iterable[DescriptorProto], enums: Iterable[EnumDescriptorProto]
          ) -> Iterator[tuple[str, DescriptorProto | EnumDescriptorProto, bool]]:
    for e in enums:
        yield (f"{prefix}.{e.name}" if prefix else e.name), e, True
    for m in messages:
        name = f"{prefix}.{m.name}" if prefix else m.name
        yield name, m, False
        yield from _walk(name, m.nested_type, m.enum_type)


class Context:
    """Keeps the differences found, the path walked, both sides' types and the messages being
    compared (Confluent's ``enterSchema`` guard against recursion)."""

    def __init__(self, original: dict[str, TypeInfo], update: dict[str, TypeInfo],
                 active: set[int] | None = None) -> None:
        self.original, self.update = original, update
        self.path: list[str] = []
        self.differences: list[Difference] = []
        self.active = active if active is not None else set()
        self.proto2: set[int] = set()   # messages of proto2 files: their singular fields say "optional"

    def sub(self) -> "Context":
        sub = Context(self.original, self.update, self.active)
        sub.proto2 = self.proto2
        return sub

    def add(self, kind: str, *parts: str) -> None:
        self.differences.append(Difference(kind, "#/" + "/".join([*self.path, *parts])))

    def compatible(self) -> bool:
        return all(d.type in COMPATIBLE for d in self.differences)


def _is_map_entry(message: DescriptorProto) -> bool:
    return bool(message.options.map_entry)


def compare_types(ctx: Context, original: Scope, update: Scope) -> None:
    """Messages and enums of one scope (a file's top level or a message's nested types)."""
    o_msgs = [m for m in original[0] if not _is_map_entry(m)]
    u_msgs = [m for m in update[0] if not _is_map_entry(m)]
    o_index = {m.name: i for i, m in enumerate(o_msgs)}
    u_index = {m.name: i for i, m in enumerate(u_msgs)}
    o_by, u_by = {m.name: m for m in o_msgs}, {m.name: m for m in u_msgs}
    for name in sorted(set(o_by) | set(u_by)):
        ctx.path.append(name)
        if name not in u_by:
            ctx.add("MESSAGE_REMOVED")
        elif name not in o_by:
            ctx.add("MESSAGE_ADDED")
        else:
            compare_message(ctx, o_by[name], u_by[name])
            if o_index[name] != u_index[name]:
                ctx.add("MESSAGE_MOVED")
        ctx.path.pop()
    o_enums, u_enums = {e.name: e for e in original[1]}, {e.name: e for e in update[1]}
    for name in sorted(set(o_enums) | set(u_enums)):
        ctx.path.append(name)
        if name not in u_enums:
            ctx.add("ENUM_REMOVED")
        elif name not in o_enums:
            ctx.add("ENUM_ADDED")
        else:
            o_vals = {v.number: v.name for v in o_enums[name].value}
            u_vals = {v.number: v.name for v in u_enums[name].value}
            for number in sorted(set(o_vals) | set(u_vals)):
                if number not in u_vals:
                    ctx.add("ENUM_CONST_REMOVED", str(number))
                elif number not in o_vals:
                    ctx.add("ENUM_CONST_ADDED", str(number))
                elif o_vals[number] != u_vals[number]:
                    ctx.add("ENUM_CONST_CHANGED", str(number))
        ctx.path.pop()


def _fields(message: DescriptorProto) -> tuple[dict[int, FieldDescriptorProto], dict[int, str], dict[str, list[int]]]:
    """Fields by number, the oneof (by name) of those in one, and each oneof's members;
    proto3 ``optional`` fields' synthetic oneofs are not oneofs (as in the .proto text)."""
    by_number = {f.number: f for f in message.field}
    in_oneof: dict[int, str] = {}
    oneofs: dict[str, list[int]] = {}
    for f in message.field:
        if f.HasField("oneof_index") and not f.proto3_optional:
            name = message.oneof_decl[f.oneof_index].name
            in_oneof[f.number] = name
            oneofs.setdefault(name, []).append(f.number)
    return by_number, in_oneof, oneofs


def compare_message(ctx: Context, original: DescriptorProto, update: DescriptorProto) -> None:
    key = id(original)
    if key not in ctx.active:
        ctx.active.add(key)
        try:
            _compare_fields(ctx, original, update)
        finally:
            ctx.active.discard(key)
    compare_types(ctx, (original.nested_type, original.enum_type), (update.nested_type, update.enum_type))


def _compare_fields(ctx: Context, original: DescriptorProto, update: DescriptorProto) -> None:
    o_by, o_oneof, o_groups = _fields(original)
    u_by, u_oneof, u_groups = _fields(update)
    gone = {g for g, members in o_groups.items() if g not in u_groups and not any(n in u_by for n in members)}
    for group, members in u_groups.items():
        origins, moved_in = set(), 0
        for number in members:
            if number in o_oneof:
                origins.add("oneof:" + o_oneof[number])
            elif number in o_by:
                origins.add(f"field:{number}")
                moved_in += 1
        if len(origins) > 1:
            ctx.add("MULTIPLE_FIELDS_MOVED_TO_ONEOF" if moved_in > 1 else "FIELD_MOVED_TO_EXISTING_ONEOF", group)
    for group in sorted(set(o_groups) | set(u_groups)):
        if group not in u_groups:
            ctx.add("ONEOF_REMOVED", group)
        elif group not in o_groups:
            ctx.add("ONEOF_ADDED", group)
    for number in sorted(set(o_by) | set(u_by)):
        of, uf = o_by.get(number), u_by.get(number)
        o_group, u_group = o_oneof.get(number), u_oneof.get(number)
        if uf is None:
            if o_group is not None:
                if o_group not in gone:
                    ctx.add("ONEOF_FIELD_REMOVED", o_group, str(number))
            else:
                ctx.add("REQUIRED_FIELD_REMOVED" if _label(ctx, original, of) == "required" else "FIELD_REMOVED",
                        str(number))
        elif of is None:
            if u_group is not None:
                ctx.add("ONEOF_FIELD_ADDED", u_group, str(number))
            else:
                ctx.add("REQUIRED_FIELD_ADDED" if _label(ctx, update, uf) == "required" else "FIELD_ADDED", str(number))
        else:
            if o_group is not None and u_group is None:
                ctx.add("ONEOF_FIELD_MOVED_TO_TOP_LEVEL", str(number))
            parts = [u_group, str(number)] if u_group is not None else [str(number)]
            ctx.path += parts
            if of.name != uf.name:
                ctx.add("FIELD_NAME_CHANGED")
            _labels_and_types(ctx, _label(ctx, original, of), _label(ctx, update, uf), of, uf)
            del ctx.path[-len(parts):]


def _label(ctx: Context, message: DescriptorProto, f: FieldDescriptorProto) -> str | None:
    """The label as the .proto text writes it: None for a proto3 field without one."""
    from google.protobuf import descriptor_pb2
    if f.label == descriptor_pb2.FieldDescriptorProto.LABEL_REPEATED:
        return "repeated"
    if f.label == descriptor_pb2.FieldDescriptorProto.LABEL_REQUIRED:
        return "required"
    return "optional" if f.proto3_optional or id(message) in ctx.proto2 else None


def _type_of(f: FieldDescriptorProto) -> tuple[str, str]:
    from google.protobuf import descriptor_pb2
    return descriptor_pb2.FieldDescriptorProto.Type.Name(f.type), f.type_name.lstrip(".")


def _kind(types: dict[str, TypeInfo], type_name: str, name: str) -> str:
    if type_name not in ("TYPE_MESSAGE", "TYPE_GROUP"):
        return "SCALAR"
    info = types.get(name)
    if info is not None and not info.is_enum and _is_map_entry(info.descriptor):
        return "MAP"
    return "MESSAGE"


def _labels_and_types(ctx: Context, o_label: str | None, u_label: str | None, of: FieldDescriptorProto,
                      uf: FieldDescriptorProto) -> None:
    (o_type, o_name), (u_type, u_name) = _type_of(of), _type_of(uf)
    o_kind, u_kind = _kind(ctx.original, o_type, o_name), _kind(ctx.update, u_type, u_name)
    if o_kind != u_kind:
        ctx.add("FIELD_KIND_CHANGED")
    elif o_kind == "SCALAR":
        o_scalar, u_scalar = _SCALAR_KINDS[o_type], _SCALAR_KINDS[u_type]
        if o_scalar != u_scalar:
            ctx.add("FIELD_SCALAR_KIND_CHANGED")
        elif o_label is not None and u_label is not None and o_label != u_label:
            ctx.add("FIELD_NUMERIC_LABEL_CHANGED" if o_scalar in _NUMERIC else "FIELD_STRING_OR_BYTES_LABEL_CHANGED")
    elif o_kind == "MESSAGE":
        _message_types(ctx, o_name, u_name)
    else:
        o_entry, u_entry = ctx.original[o_name].descriptor, ctx.update[u_name].descriptor
        for o_part, u_part in zip(o_entry.field, u_entry.field):   # key, then value
            _labels_and_types(ctx, None, None, o_part, u_part)


def _message_types(ctx: Context, o_name: str, u_name: str) -> None:
    o_info, u_info = ctx.original.get(o_name), ctx.update.get(u_name)
    if o_info is None or u_info is None:
        if o_name != u_name:
            ctx.add("FIELD_NAMED_TYPE_CHANGED")
        return
    o_local = o_name[len(o_info.package) + 1:] if o_info.package and o_name.startswith(o_info.package + ".") else o_name
    u_local = u_name[len(u_info.package) + 1:] if u_info.package and u_name.startswith(u_info.package + ".") else u_name
    if o_local != u_local:
        ctx.add("FIELD_NAMED_TYPE_CHANGED")
        return
    if o_info.reference is not None and o_info.reference == u_info.reference and o_info.reference[0]:
        return   # the same version of the same subject: the same message
    sub = ctx.sub()
    sub.path = o_local.split(".")
    compare_message(sub, o_info.descriptor, u_info.descriptor)
    ctx.differences += sub.differences
    if not sub.compatible():
        ctx.add("FIELD_NAMED_TYPE_CHANGED")


def differences(original: Side, update: Side) -> list[Difference]:
    """Every change from ``original`` (the writer) to ``update`` (the reader)."""
    ctx = Context(original.types(), update.types())
    for side in (original, update):
        for fd in [side.file, *side.imports]:
            if fd.syntax in ("", "proto2"):
                ctx.proto2.update(id(desc) for _, desc, _ in _walk("", fd.message_type, []))
    if original.file.package != update.file.package:
        ctx.add("PACKAGE_CHANGED")
    compare_types(ctx, (original.file.message_type, original.file.enum_type),
                  (update.file.message_type, update.file.enum_type))
    return ctx.differences
