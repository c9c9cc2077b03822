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
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from google.protobuf.descriptor_pb2 import FileDescriptorProto

MAIN_FILE = "schema.proto"
IMPORTED_CACHE_SIZE = 1000
# descriptors of the files protoc compiled as imports, by (path, text; None for a well-known
# file): the compatibility check compares messages defined in them without compiling again
_imported: dict[tuple[str, str | None], FileDescriptorProto] = {}


class ProtobufError(ValueError):
    pass


def _descriptor_from_base64(text: str) -> FileDescriptorProto | None:
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


def compile_proto(text: str, dependencies: dict[str, str]) -> FileDescriptorProto:
    """The FileDescriptorProto of ``text``; ``dependencies`` maps import paths to .proto text."""
    fd = _descriptor_from_base64(text)
    return fd if fd is not None else _protoc(text, dependencies)[-1]


def compile_with_imports(text: str, dependencies: dict[str, str]
                         ) -> tuple[FileDescriptorProto, list[FileDescriptorProto]]:
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


def _protoc(text: str, dependencies: dict[str, str]) -> list[FileDescriptorProto]:
    """protoc's descriptors of ``text`` and of the files it imports (``text``'s last)."""
    import importlib.resources

    from google.protobuf import descriptor_pb2
    from grpc_tools import protoc
    well_known = str(importlib.resources.files("grpc_tools") / "_proto")
    includes = [f"-I{well_known}"] + [f"-I{root}" for root in _extra_well_known_roots()]
    with tempfile.TemporaryDirectory(prefix="kafpy-proto-") as tmp:
        for path, body in {**dependencies, MAIN_FILE: text}.items():
            full = os.path.normpath(os.path.join(tmp, path))
            if not full.startswith(tmp + os.sep):
                raise ProtobufError(f"reference name {path!r} leaves the schema's directory")
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "w", encoding="utf-8") as f:
                f.write(body)
        out = os.path.join(tmp, "out.pb")
        code = protoc.main(["protoc", f"-I{tmp}", *includes, "--include_imports",
                            f"--descriptor_set_out={out}", MAIN_FILE])
        if code != 0 or not os.path.exists(out):
            raise ProtobufError("protoc refused the schema")
        fds = descriptor_pb2.FileDescriptorSet()
        with open(out, "rb") as f:
            fds.ParseFromString(f.read())
    for fd in list(fds.file)[:-1]:
        if len(_imported) >= IMPORTED_CACHE_SIZE:
            _imported.pop(next(iter(_imported)))
        _imported[(fd.name, dependencies.get(fd.name))] = fd
    return list(fds.file)


def _extra_well_known_roots() -> list[str]:
    """Directories holding the other well-known files confluent-kafka does not register as
    references (``google/type/*.proto`` of googleapis-common-protos), as Confluent's registry
    knows them."""
    roots: list[str] = []
    try:
        import google.type.date_pb2 as date
    except ImportError:
        return roots
    root = os.path.dirname(os.path.dirname(os.path.dirname(date.__file__)))
    if os.path.exists(os.path.join(root, "google", "type", "date.proto")):
        roots.append(root)
    return roots


def imported_files(fd: FileDescriptorProto, files: dict[str, str]) -> list[FileDescriptorProto]:
    """The descriptors of every file ``fd`` imports, directly or not (``files``: import path ->
    text, the schema's references); compiled once more only when not already known."""
    out: dict[str, FileDescriptorProto] = {}
    pending = list(fd.dependency)
    while pending:
        name = pending.pop()
        if name in out:
            continue
        found = _imported.get((name, files.get(name)))
        if found is None:
            stub = 'syntax = "proto3";\n' + "".join(f'import public "{dep}";\n' for dep in fd.dependency)
            _protoc(stub, files)
            found = _imported.get((name, files.get(name)))
            if found is None:
                continue
        out[name] = found
        pending += list(found.dependency)
    return list(out.values())


def canonicalize(text: str, dependencies: dict[str, str]) -> tuple[str, FileDescriptorProto]:
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


def serialized(fd: FileDescriptorProto) -> str:
    """``fd`` base64-encoded, the ``format=serialized`` answer confluent-kafka's deserializer asks for."""
    return base64.standard_b64encode(fd.SerializeToString()).decode("ascii")


def incompatibilities(reader: FileDescriptorProto, writer: FileDescriptorProto, reader_files: dict[str, str] | None = None,
                      writer_files: dict[str, str] | None = None, reader_refs: list[dict] | None = None,
                      writer_refs: list[dict] | None = None) -> list[str]:
    """Why data written with ``writer`` cannot be read with ``reader`` (both
    FileDescriptorProtos, with the files they import and their references), by Confluent's
    Protobuf diff (``protobuf_diff``)."""
    from kafpy.registry.protobuf_diff import COMPATIBLE, Side, differences

    def side(fd: FileDescriptorProto, files: dict[str, str] | None, refs: list[dict] | None) -> Side:
        return Side(fd, imported_files(fd, files or {}),
                    {r["name"]: (r["subject"], r["version"]) for r in refs or []})
    found = differences(side(writer, writer_files, writer_refs), side(reader, reader_files, reader_refs))
    return [str(d) for d in found if d.type not in COMPATIBLE]
