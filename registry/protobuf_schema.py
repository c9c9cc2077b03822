"""Protobuf schemas: ``.proto`` text (or a base64 ``FileDescriptorProto``, as confluent-kafka's
serializer sends) compiled by protoc (grpcio-tools' in-process compiler, so no binary to
install) into descriptors, and Confluent's Protobuf compatibility rules checked on them.

Either form is stored as the ``.proto`` text ``proto_printer`` writes from the descriptor, as
Confluent's registry stores it, so both forms of one schema are one schema (one id); the
descriptor is given back base64-encoded only when asked (``?format=serialized``).

Why protoc and not a Python parser: a schema is valid when protoc accepts it (imports,
options, proto2/proto3 rules); a re-implemented parser would accept and refuse otherwise.

References are files: a reference's ``name`` is the import path the schema uses.
"""
from __future__ import annotations

import base64
import binascii
import os
import tempfile
from typing import Any

# Wire-compatible scalar groups (Confluent's FIELD_SCALAR_KIND_CHANGED spares these).
_GROUPS = [{"TYPE_INT32", "TYPE_UINT32", "TYPE_INT64", "TYPE_UINT64", "TYPE_BOOL"},
           {"TYPE_SINT32", "TYPE_SINT64"}, {"TYPE_FIXED32", "TYPE_SFIXED32"},
           {"TYPE_FIXED64", "TYPE_SFIXED64"}, {"TYPE_STRING", "TYPE_BYTES"}]
MAIN_FILE = "schema.proto"


class ProtobufError(ValueError):
    pass


def _descriptor_from_base64(text: str) -> Any | None:
    from google.protobuf import descriptor_pb2
    from google.protobuf.message import DecodeError
    stripped = text.strip()
    if not stripped or any(c.isspace() for c in stripped) or "{" in stripped:
        return None
    try:
        raw = base64.b64decode(stripped, validate=True)
        fd = descriptor_pb2.FileDescriptorProto()
        fd.ParseFromString(raw)
    except (binascii.Error, ValueError, DecodeError):
        return None
    return fd if fd.message_type or fd.enum_type else None


def compile_proto(text: str, dependencies: dict[str, str]) -> Any:
    """The FileDescriptorProto of ``text``; ``dependencies`` maps import paths to .proto text."""
    fd = _descriptor_from_base64(text)
    return fd if fd is not None else _protoc(text, dependencies)[-1]


def compile_with_imports(text: str, dependencies: dict[str, str]) -> tuple[Any, list[Any]]:
    """(the FileDescriptorProto of ``text``, those of every file it imports, directly or not,
    dependencies first): what a descriptor pool needs to read custom options."""
    fd = _descriptor_from_base64(text)
    if fd is None:
        files = _protoc(text, dependencies)
        return files[-1], files[:-1]
    if not fd.dependency:
        return fd, []
    # public imports: protoc warns of unused plain ones, on the process's stderr
    stub = 'syntax = "proto3";\n' + "".join(f'import public "{dep}";\n' for dep in fd.dependency)
    return fd, _protoc(stub, dependencies)[:-1]


def _protoc(text: str, dependencies: dict[str, str]) -> list[Any]:
    """protoc's descriptors of ``text`` and of the files it imports (``text``'s last)."""
    import importlib.resources

    from google.protobuf import descriptor_pb2
    from grpc_tools import protoc
    well_known = str(importlib.resources.files("grpc_tools") / "_proto")
    with tempfile.TemporaryDirectory(prefix="kafpy-proto-") as tmp:
        for path, body in {**dependencies, MAIN_FILE: text}.items():
            full = os.path.normpath(os.path.join(tmp, path))
            if not full.startswith(tmp + os.sep):
                raise ProtobufError(f"reference name {path!r} leaves the schema's directory")
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "w", encoding="utf-8") as f:
                f.write(body)
        out = os.path.join(tmp, "out.pb")
        code = protoc.main(["protoc", f"-I{tmp}", f"-I{well_known}", "--include_imports",
                            f"--descriptor_set_out={out}", MAIN_FILE])
        if code != 0 or not os.path.exists(out):
            raise ProtobufError("protoc refused the schema")
        fds = descriptor_pb2.FileDescriptorSet()
        with open(out, "rb") as f:
            fds.ParseFromString(f.read())
    return list(fds.file)


def canonicalize(text: str, dependencies: dict[str, str]) -> tuple[str, Any]:
    """(the ``.proto`` text stored for ``text``, its FileDescriptorProto). A descriptor sent
    base64-encoded is printed and the print compiled, so protoc checks it as it checks text."""
    from kafpy.registry.proto_printer import to_proto_text
    sent_descriptor = _descriptor_from_base64(text) is not None
    fd, imports = compile_with_imports(text, dependencies)
    try:
        printed = to_proto_text(fd, imports)
    except ValueError as e:
        raise ProtobufError(str(e)) from None
    return printed, (compile_proto(printed, dependencies) if sent_descriptor else fd)


def serialized(fd: Any) -> str:
    """``fd`` base64-encoded, the ``format=serialized`` answer confluent-kafka's deserializer asks for."""
    return base64.standard_b64encode(fd.SerializeToString()).decode("ascii")


def _messages(fd: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}

    def walk(prefix: str, msgs: Any) -> None:
        for m in msgs:
            name = f"{prefix}.{m.name}"
            out[name] = m
            walk(name, m.nested_type)
    walk(f".{fd.package}" if fd.package else "", fd.message_type)
    return out


def incompatibilities(reader: Any, writer: Any) -> list[str]:
    """Why data written with ``writer`` cannot be read with ``reader`` (both
    FileDescriptorProtos), by Confluent's Protobuf rules."""
    from google.protobuf import descriptor_pb2 as d
    type_name = d.FieldDescriptorProto.Type.Name
    label_name = d.FieldDescriptorProto.Label.Name
    out: list[str] = []
    if reader.package != writer.package:
        out.append(f"PACKAGE_CHANGED: {writer.package} -> {reader.package}")
    r_msgs, w_msgs = _messages(reader), _messages(writer)
    for name, wm in w_msgs.items():
        rm = r_msgs.get(name)
        if rm is None:
            out.append(f"MESSAGE_REMOVED: {name}")
            continue
        r_fields = {f.number: f for f in rm.field}
        w_fields = {f.number: f for f in wm.field}
        for number, rf in r_fields.items():
            wf = w_fields.get(number)
            if wf is None:
                if label_name(rf.label) == "LABEL_REQUIRED":
                    out.append(f"REQUIRED_FIELD_ADDED: {name}.{rf.name}")
                continue
            if (label_name(rf.label) == "LABEL_REPEATED") != (label_name(wf.label) == "LABEL_REPEATED"):
                out.append(f"FIELD_KIND_CHANGED: {name}.{rf.name}")
                continue
            rt, wt = type_name(rf.type), type_name(wf.type)
            if rt in ("TYPE_MESSAGE", "TYPE_ENUM") or wt in ("TYPE_MESSAGE", "TYPE_ENUM"):
                if rt != wt:
                    out.append(f"FIELD_KIND_CHANGED: {name}.{rf.name}")
                elif rf.type_name != wf.type_name:
                    out.append(f"FIELD_NAMED_TYPE_CHANGED: {name}.{rf.name}")
            elif rt != wt and not any(rt in g and wt in g for g in _GROUPS):
                out.append(f"FIELD_SCALAR_KIND_CHANGED: {name}.{rf.name} ({wt} -> {rt})")
            if rf.HasField("oneof_index") != wf.HasField("oneof_index") and rf.HasField("oneof_index"):
                out.append(f"FIELD_MOVED_TO_EXISTING_ONEOF: {name}.{rf.name}")
        for number, wf in w_fields.items():
            if number not in r_fields and label_name(wf.label) == "LABEL_REQUIRED":
                out.append(f"REQUIRED_FIELD_REMOVED: {name}.{wf.name}")
    return out
