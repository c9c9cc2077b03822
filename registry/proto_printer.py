"""``.proto`` text of a ``FileDescriptorProto``: what Confluent's registry stores and answers
for a Protobuf schema however it was registered (text, or confluent-kafka's base64 descriptor).

Who may call: ``protobuf_schema`` (the canonical text of a registration). The text is made
from the descriptor alone, so a schema sent as text and the same schema sent as a descriptor
print alike and get one id. Types are named fully qualified (``.pkg.Msg``) so that no scope
can resolve them otherwise; ``json_name`` is written only when it is not protoc's default;
map entries print as ``map<K, V>`` and proto3 ``optional`` fields' synthetic oneofs are not
printed (protoc makes both again). Groups are not supported (protoc has deprecated them).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, Literal, Sequence, cast

if TYPE_CHECKING:
    from google.protobuf.descriptor import FieldDescriptor
    from google.protobuf.descriptor_pb2 import (DescriptorProto, EnumDescriptorProto, FieldDescriptorProto,
                                                FileDescriptorProto, ServiceDescriptorProto)
    from google.protobuf.descriptor_pool import DescriptorPool
    from google.protobuf.message import Message

_SCALARS = {
    "TYPE_DOUBLE": "double", "TYPE_FLOAT": "float", "TYPE_INT64": "int64", "TYPE_UINT64": "uint64",
    "TYPE_INT32": "int32", "TYPE_FIXED64": "fixed64", "TYPE_FIXED32": "fixed32", "TYPE_BOOL": "bool",
    "TYPE_STRING": "string", "TYPE_BYTES": "bytes", "TYPE_UINT32": "uint32", "TYPE_SFIXED32": "sfixed32",
    "TYPE_SFIXED64": "sfixed64", "TYPE_SINT32": "sint32", "TYPE_SINT64": "sint64",
}
_MAX_FIELD_NUMBER = 536870911
_INDENT = "  "


def default_json_name(name: str) -> str:
    """protoc's json_name for a field ``name``: underscores dropped, the next letter upper-cased."""
    out, upper = [], False
    for c in name:
        if c == "_":
            upper = True
        else:
            out.append(c.upper() if upper else c)
            upper = False
    return "".join(out)


def _quote(text: str) -> str:
    return _quote_bytes(text.encode("utf-8"))


def _quote_bytes(raw: bytes) -> str:
    out = []
    for b in raw:
        c = chr(b)
        if c in "\\\"'":
            out.append("\\" + c)
        elif c == "\n":
            out.append("\\n")
        elif 32 <= b < 127:
            out.append(c)
        else:
            out.append(f"\\{b:03o}")
    return '"' + "".join(out) + '"'


def _option_value(fd: FieldDescriptor, value: object) -> str:
    """A scalar option's value as .proto text."""
    if fd.type == fd.TYPE_ENUM:
        return fd.enum_type.values_by_number[value].name
    if fd.type == fd.TYPE_BOOL:
        return "true" if value else "false"
    if fd.type == fd.TYPE_STRING:
        return _quote(cast(str, value))
    if fd.type == fd.TYPE_BYTES:
        return _quote_bytes(cast(bytes, value))
    return repr(value) if isinstance(value, float) else str(value)


def _is_repeated(fd: FieldDescriptor) -> bool:
    """Whether an option field is repeated (``label`` is gone from newer protobuf runtimes)."""
    repeated = getattr(fd, "is_repeated", None)
    return bool(repeated) if repeated is not None else fd.label == fd.LABEL_REPEATED


def _options(options: Message, skip: tuple[str, ...] = ()) -> list[tuple[str, str]]:
    """(name, value) of the scalar options set in an ``*Options`` message, extensions as ``(full.name)``."""
    out = []
    for fd, value in options.ListFields():
        if fd.name in skip or _is_repeated(fd):
            continue
        name = f"(.{fd.full_name})" if fd.is_extension else fd.name
        if fd.type == fd.TYPE_MESSAGE:   # e.g. editions' ``features``: one option per field set
            out += [(f"{name}.{sub}", text) for sub, text in _options(value)]
            continue
        text = _option_value(fd, value)
        if text is not None:
            out.append((name, text))
    return out


class _Printer:
    def __init__(self, fd: FileDescriptorProto, imports: Sequence[FileDescriptorProto]) -> None:
        from google.protobuf import descriptor_pb2
        self.descriptor_pb2 = descriptor_pb2
        self.fd = fd
        self.imports = imports
        self._pool: DescriptorPool | Literal[False] | None = None   # False: the imports are unknown
        self.proto3 = fd.syntax == "proto3"
        self.editions = fd.syntax == "editions"   # labels only for repeated; presence is a feature
        self.lines: list[str] = []

    def read(self, options: Message) -> Message:
        """``options`` with custom options readable: a descriptor's options hold them as unknown
        fields, which a pool knowing the file and its imports (where they are declared) reads."""
        if not options.ByteSize():
            return options
        if self._pool is None:
            from google.protobuf import descriptor_pool
            pool = self._pool = descriptor_pool.DescriptorPool()
            try:
                for f in [*self.imports, self.fd]:
                    pool.AddSerializedFile(f.SerializeToString())
            except (TypeError, ValueError, KeyError):
                self._pool = False   # imports unknown: custom options stay unread
        if self._pool is False:
            return options
        from google.protobuf import message_factory
        try:
            cls = message_factory.GetMessageClass(self._pool.FindMessageTypeByName(options.DESCRIPTOR.full_name))
        except KeyError:   # descriptor.proto not imported: no custom option can be set
            return options
        return cls.FromString(options.SerializeToString())

    def emit(self, depth: int, text: str) -> None:
        self.lines.append(_INDENT * depth + text if text else "")

    def file(self) -> str:
        fd = self.fd
        if self.editions:
            edition = self.descriptor_pb2.Edition.Name(fd.edition).removeprefix("EDITION_")
            self.emit(0, f'edition = "{edition}";')
        else:
            self.emit(0, f'syntax = "{fd.syntax or "proto2"}";')
        if fd.package:
            self.emit(0, f"package {fd.package};")
        if fd.dependency:
            self.emit(0, "")
            public, weak = set(fd.public_dependency), set(fd.weak_dependency)
            for i, dep in enumerate(fd.dependency):
                kind = "public " if i in public else "weak " if i in weak else ""
                self.emit(0, f"import {kind}{_quote(dep)};")
        opts = _options(self.read(fd.options))
        if opts:
            self.emit(0, "")
            for name, value in opts:
                self.emit(0, f"option {name} = {value};")
        for enum in fd.enum_type:
            self.emit(0, "")
            self.enum(0, enum)
        for msg in fd.message_type:
            self.emit(0, "")
            self.message(0, msg)
        self.extensions(0, fd.extension)
        for service in fd.service:
            self.emit(0, "")
            self.service(service)
        return "\n".join(self.lines) + "\n"

    def enum(self, depth: int, enum: EnumDescriptorProto) -> None:
        self.emit(depth, f"enum {enum.name} {{")
        for name, value in _options(self.read(enum.options)):
            self.emit(depth + 1, f"option {name} = {value};")
        for v in enum.value:
            self.emit(depth + 1, f"{v.name} = {v.number}{self.bracketed(_options(self.read(v.options)))};")
        self.reserved(depth + 1, enum.reserved_range, enum.reserved_name, inclusive_end=True)
        self.emit(depth, "}")

    def message(self, depth: int, msg: DescriptorProto) -> None:
        self.emit(depth, f"message {msg.name} {{")
        inner = depth + 1
        for name, value in _options(self.read(msg.options), skip=("map_entry",)):
            self.emit(inner, f"option {name} = {value};")
        maps = {f".{self.scope(msg)}.{n.name}": n for n in msg.nested_type if n.options.map_entry}
        printed_oneofs: set[int] = set()
        real_oneofs = {f.oneof_index for f in msg.field if f.HasField("oneof_index") and not f.proto3_optional}
        for f in msg.field:
            if f.HasField("oneof_index") and f.oneof_index in real_oneofs:
                if f.oneof_index in printed_oneofs:
                    continue
                printed_oneofs.add(f.oneof_index)
                self.oneof(inner, msg, f.oneof_index, maps)
            else:
                self.emit(inner, self.field(f, maps))
        for nested in msg.nested_type:
            if not nested.options.map_entry:
                self.message(inner, nested)
        for enum in msg.enum_type:
            self.enum(inner, enum)
        for r in msg.extension_range:
            end = "max" if r.end - 1 >= _MAX_FIELD_NUMBER else str(r.end - 1)
            self.emit(inner, f"extensions {r.start} to {end};")
        self.extensions(inner, msg.extension)
        self.reserved(inner, msg.reserved_range, msg.reserved_name, inclusive_end=False)
        self.emit(depth, "}")

    def scope(self, msg: DescriptorProto) -> str:
        """The full name of ``msg`` (searched, as descriptors do not link parents)."""
        def walk(prefix: str, msgs: Iterable[DescriptorProto]) -> str | None:
            for m in msgs:
                name = f"{prefix}.{m.name}" if prefix else m.name
                if m is msg:
                    return name
                found = walk(name, m.nested_type)
                if found:
                    return found
            return None
        return walk(self.fd.package, self.fd.message_type) or msg.name

    def oneof(self, depth: int, msg: DescriptorProto, index: int, maps: dict[str, DescriptorProto]) -> None:
        decl = msg.oneof_decl[index]
        self.emit(depth, f"oneof {decl.name} {{")
        for name, value in _options(self.read(decl.options)):
            self.emit(depth + 1, f"option {name} = {value};")
        for f in msg.field:
            if f.HasField("oneof_index") and f.oneof_index == index:
                self.emit(depth + 1, self.field(f, maps, in_oneof=True))
        self.emit(depth, "}")

    def type_name(self, f: FieldDescriptorProto) -> str:
        kind = self.descriptor_pb2.FieldDescriptorProto.Type.Name(f.type)
        if kind in ("TYPE_MESSAGE", "TYPE_ENUM"):
            return f.type_name
        if kind == "TYPE_GROUP":
            raise ValueError(f"group field {f.name} is not supported")
        return _SCALARS[kind]

    def field(self, f: FieldDescriptorProto, maps: dict[str, DescriptorProto], in_oneof: bool = False) -> str:
        label = self.descriptor_pb2.FieldDescriptorProto.Label.Name(f.label)
        entry = maps.get(f.type_name) if label == "LABEL_REPEATED" else None
        if entry is not None:
            key, value = sorted(entry.field, key=lambda x: x.number)
            head = f"map<{self.type_name(key)}, {self.type_name(value)}>"
        else:
            prefix = ""
            if label == "LABEL_REPEATED":
                prefix = "repeated "
            elif self.editions:
                prefix = ""
            elif label == "LABEL_REQUIRED":
                prefix = "required "
            elif not in_oneof and (f.proto3_optional or not self.proto3):
                prefix = "optional "
            head = prefix + self.type_name(f)
        opts: list[tuple[str, str]] = []
        if f.HasField("default_value"):
            kind = self.descriptor_pb2.FieldDescriptorProto.Type.Name(f.type)
            if kind == "TYPE_STRING":
                opts.append(("default", _quote(f.default_value)))
            elif kind == "TYPE_BYTES":
                opts.append(("default", f'"{f.default_value}"'))
            else:
                opts.append(("default", f.default_value))
        if f.HasField("json_name") and f.json_name != default_json_name(f.name):
            opts.append(("json_name", _quote(f.json_name)))
        opts += _options(self.read(f.options))
        return f"{head} {f.name} = {f.number}{self.bracketed(opts)};"

    @staticmethod
    def bracketed(opts: list[tuple[str, str]]) -> str:
        return " [" + ", ".join(f"{n} = {v}" for n, v in opts) + "]" if opts else ""

    def extensions(self, depth: int, fields: Iterable[FieldDescriptorProto]) -> None:
        by_extendee: dict[str, list[FieldDescriptorProto]] = {}
        for f in fields:
            by_extendee.setdefault(f.extendee, []).append(f)
        for extendee, group in by_extendee.items():
            if depth == 0:
                self.emit(0, "")
            self.emit(depth, f"extend {extendee} {{")
            for f in group:
                self.emit(depth + 1, self.field(f, {}))
            self.emit(depth, "}")

    def reserved(self, depth: int, ranges: Iterable[DescriptorProto.ReservedRange | EnumDescriptorProto.EnumReservedRange],
                 names: Iterable[str], inclusive_end: bool) -> None:
        parts = []
        for r in ranges:
            last = r.end if inclusive_end else r.end - 1
            parts.append(str(r.start) if last == r.start else
                         f"{r.start} to {'max' if last >= _MAX_FIELD_NUMBER else last}")
        if parts:
            self.emit(depth, f"reserved {', '.join(parts)};")
        if names:
            self.emit(depth, f"reserved {', '.join(_quote(n) for n in names)};")

    def service(self, service: ServiceDescriptorProto) -> None:
        self.emit(0, f"service {service.name} {{")
        for name, value in _options(self.read(service.options)):
            self.emit(1, f"option {name} = {value};")
        for m in service.method:
            ins = "stream " if m.client_streaming else ""
            outs = "stream " if m.server_streaming else ""
            opts = _options(self.read(m.options))
            body = " {\n" + "".join(f"{_INDENT * 2}option {n} = {v};\n" for n, v in opts) + f"{_INDENT}}}" \
                if opts else ";"
            self.emit(1, f"rpc {m.name}({ins}{m.input_type}) returns ({outs}{m.output_type}){body}")
        self.emit(0, "}")


def to_proto_text(fd: FileDescriptorProto, imports: Sequence[FileDescriptorProto] = ()) -> str:
    """The ``.proto`` source of ``fd`` (a ``FileDescriptorProto``); ``imports`` are the
    descriptors of the files it imports, directly or not, dependencies first (needed only to
    print custom options). ValueError for groups."""
    return _Printer(fd, imports).file()
