"""A generic table-walking codec, kept as the baseline ``kafpy.protocol.codec`` is measured against.

Who may call it: ``bench/protocol_codec.py`` and the tests (as a second, independently
written decoder/encoder of the same tables). The broker uses ``kafpy.protocol.codec``.

Per (class, version) it precomputes a plan: one (field name, reader, writer, argument)
step per field, so the walk itself does no version checks. This is as fast as a generic
interpreter gets without generating code; the compiled codec still wins (see the bench).
"""

from __future__ import annotations

import struct
from typing import Any

from kafpy.protocol import messages
from kafpy.protocol.errors import InvalidRequest
from kafpy.protocol.message_compiler import FIXED
from kafpy.protocol.message_compiler import in_range as _in
from kafpy.protocol.varint import read_unsigned_varint as _uvarint
from kafpy.protocol.varint import unsigned_varint as _uv_bytes

Buffer = bytes | bytearray | memoryview

_FIXED = {t: struct.Struct(">" + code) for t, (code, _size) in FIXED.items()}
_I16 = struct.Struct(">h")
_I32 = struct.Struct(">i")


class _Plan:
    __slots__ = ("cls", "steps", "tagged", "absent", "flex")

    def __init__(self, cls: type[messages.Struct], steps: list, tagged: dict, absent: list, flex: bool) -> None:
        self.cls, self.steps, self.tagged, self.absent, self.flex = cls, steps, tagged, absent, flex


class Interpreter:
    """``decode(cls, version, buf) -> obj`` and ``encode(obj, version) -> bytes``."""

    def __init__(self) -> None:
        self._plans: dict[tuple[type[messages.Struct], int], _Plan] = {}

    # -- plans
    def plan(self, cls: type[messages.Struct], version: int, flex: bool | None = None) -> _Plan:
        key = (cls, version)
        p = self._plans.get(key)
        if p is None:
            if flex is None:
                flex = _in(getattr(cls, "FLEXIBLE_VERSIONS"), version)  # a message (a struct comes with flex)
            owner = getattr(messages, cls.__qualname__.split(".")[0])
            steps: list[tuple[str, str, bool, bool, type[messages.Message], messages.Field]] = []
            tagged: dict[int | None, tuple[str, str, bool, bool, type[messages.Message], messages.Field]] = {}
            absent: list[tuple[str, object]] = []
            template = cls()
            for f in cls.FIELDS:
                compact = flex if f.flexible == "inherit" else _in(f.flexible, version)
                step = (f.name, f.type, compact, _in(f.nullable, version), owner, f)
                if _in(f.tagged, version):
                    tagged[f.tag] = step
                    absent.append((f.name, getattr(template, f.name)))
                elif _in(f.versions, version):
                    steps.append(step)
                else:
                    absent.append((f.name, getattr(template, f.name)))
            p = _Plan(cls, steps, tagged, absent, flex)
            self._plans[key] = p
        return p

    # -- decoding
    def decode(self, cls: type[messages.Struct], version: int, buf: Buffer) -> messages.Struct:
        mv = buf if type(buf) is memoryview else memoryview(buf)
        obj, _pos = self._struct(self.plan(cls, version), version, buf, mv, 0, len(buf))
        return obj

    def _struct(self, p: _Plan, version: int, buf: Buffer, mv: memoryview, pos: int, end: int) -> tuple[messages.Struct, int]:
        obj = object.__new__(p.cls)
        for name, default in p.absent:
            if type(default) is list:
                default = []
            elif isinstance(default, messages.Struct):
                default = type(default)()
            setattr(obj, name, default)
        for step in p.steps:
            value, pos = self._value(step, step[1], version, p.flex, buf, mv, pos, end)
            setattr(obj, step[0], value)
        if p.flex:
            n, pos = _uvarint(buf, pos)
            if n > end - pos:
                raise InvalidRequest("tagged field count past the end")
            for _ in range(n):
                tag, pos = _uvarint(buf, pos)
                size, pos = _uvarint(buf, pos)
                if pos + size > end:
                    raise InvalidRequest("tagged field past the end")
                step = p.tagged.get(tag)
                if step is not None:
                    value, _ = self._value(step, step[1], version, p.flex, buf, mv, pos, pos + size)
                    setattr(obj, step[0], value)
                pos += size
        return obj, pos

    def _len(self, buf: Buffer, pos: int, compact: bool, wide: bool) -> tuple[int, int]:
        if compact:
            n, pos = _uvarint(buf, pos)
            return n - 1, pos
        if wide:
            return _I32.unpack_from(buf, pos)[0], pos + 4
        return _I16.unpack_from(buf, pos)[0], pos + 2

    def _value(self, step: tuple, t: str, version: int, flex: bool, buf: Buffer, mv: memoryview,
               pos: int, end: int) -> tuple[object, int]:
        _name, _ftype, compact, nullable, owner, _f = step
        s = _FIXED.get(t)
        if s is not None:
            return s.unpack_from(buf, pos)[0], pos + s.size
        if t == "uuid":
            if pos + 16 > end:
                raise InvalidRequest("uuid past the end")
            return bytes(buf[pos:pos + 16]), pos + 16
        if t in ("string", "bytes", "records"):
            n, pos = self._len(buf, pos, compact, t != "string")
            if n < 0:
                if not nullable or n != -1:
                    raise InvalidRequest("null or negative length")
                return None, pos
            if pos + n > end:
                raise InvalidRequest("length past the end")
            if t == "string":
                return str(buf[pos:pos + n], "utf-8"), pos + n
            if t == "bytes":
                return bytes(buf[pos:pos + n]), pos + n
            return mv[pos:pos + n], pos + n
        if t.startswith("[]"):
            n, pos = self._len(buf, pos, compact, True)
            if n < 0:
                if not nullable or n != -1:
                    raise InvalidRequest("null or negative count")
                return None, pos
            if n > end - pos:
                raise InvalidRequest("array count past the end")
            elem = t[2:]
            out: list[object] = []
            estep = (None, elem, compact, False, owner, None)
            for _ in range(n):
                v, pos = self._value(estep, elem, version, flex, buf, mv, pos, end)
                out.append(v)
            return out, pos
        sub = self.plan(getattr(owner, t), version, flex)
        if nullable:
            marker = buf[pos]
            pos += 1
            if marker > 127:
                return None, pos
        return self._struct(sub, version, buf, mv, pos, end)

    # -- encoding
    def encode(self, obj: messages.Struct, version: int) -> bytes:
        out: list = []
        self._encode_struct(self.plan(type(obj), version), version, obj, out)
        return b"".join(out)

    def _encode_struct(self, p: _Plan, version: int, obj: messages.Struct, out: list) -> None:
        for step in p.steps:
            self._write(step, step[1], version, p.flex, getattr(obj, step[0]), out)
        if p.flex:
            fields: list[bytes] = []
            template = p.cls()
            for tag in sorted(p.tagged):
                step = p.tagged[tag]
                value = getattr(obj, step[0])
                if value == getattr(template, step[0]):
                    continue
                sub: list = []
                self._write(step, step[1], version, p.flex, value, sub)
                data = b"".join(sub)
                fields.append(_uv_bytes(tag) + _uv_bytes(len(data)) + data)
            out.append(_uv_bytes(len(fields)))
            out.extend(fields)

    def _write(self, step: tuple, t: str, version: int, flex: bool, value: Any, out: list) -> None:
        _name, _ftype, compact, nullable, owner, _f = step
        s = _FIXED.get(t)
        if s is not None:
            out.append(s.pack(value))
            return
        if t == "uuid":
            out.append(value)
            return
        wide = t != "string"
        if value is None:
            if not nullable:
                raise ValueError(f"{step[0]} is not nullable at version {version}")
            if t.startswith("[]") or t in ("string", "bytes", "records"):
                out.append(b"\x00" if compact else (b"\xff\xff\xff\xff" if wide else b"\xff\xff"))
            else:
                out.append(b"\xff")  # a null struct
            return
        if t.startswith("[]"):
            out.append(_uv_bytes(len(value) + 1) if compact else _I32.pack(len(value)))
            elem = t[2:]
            estep = (None, elem, compact, False, owner, None)
            for e in value:
                self._write(estep, elem, version, flex, e, out)
            return
        if t in ("string", "bytes", "records"):
            data = value.encode("utf-8") if t == "string" else value
            n = data.nbytes if type(data) is memoryview else len(data)
            out.append(_uv_bytes(n + 1) if compact else (_I32 if wide else _I16).pack(n))
            out.append(data)
            return
        if nullable:
            out.append(b"\x01")
        self._encode_struct(self.plan(getattr(owner, t), version, flex), version, value, out)


INTERPRETER = Interpreter()
