"""The principal an Envelope carries (Kafka's ``DefaultKafkaPrincipalBuilder`` serde, KIP-590):
``DefaultPrincipalData`` prefixed by its version (int16), version 0 flexible: the type and the
name as compact strings, ``TokenAuthenticated`` as a boolean, then the (empty) tagged fields.

Who calls it: the KRaft broker's forwarding (serialize) and the controller's Envelope handling
(deserialize). Pure.
"""
from __future__ import annotations

import struct

from kafpy.broker.security.principal import KafkaPrincipal

VERSION = 0


class PrincipalSerdeError(ValueError):
    """The envelope's principal bytes are not a DefaultPrincipalData."""


def _uvarint(n: int) -> bytes:
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def _read_uvarint(data: bytes, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        if pos >= len(data) or shift > 28:
            raise PrincipalSerdeError("truncated varint")
        b = data[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        if not b & 0x80:
            return value, pos
        shift += 7


def _compact_string(text: str) -> bytes:
    raw = text.encode()
    return _uvarint(len(raw) + 1) + raw


def _read_compact_string(data: bytes, pos: int) -> tuple[str, int]:
    n, pos = _read_uvarint(data, pos)
    if n == 0:
        raise PrincipalSerdeError("a null string")
    end = pos + n - 1
    if end > len(data):
        raise PrincipalSerdeError("truncated string")
    return data[pos:end].decode(), end


def serialize(principal: KafkaPrincipal, token_authenticated: bool = False) -> bytes:
    return (struct.pack(">h", VERSION) + _compact_string(principal.principal_type) + _compact_string(principal.name)
            + bytes((1 if token_authenticated else 0,)) + _uvarint(0))


def deserialize(data: bytes) -> KafkaPrincipal:
    """The principal of ``data`` (its tagged fields skipped); ``PrincipalSerdeError`` when it
    is not one."""
    if len(data) < 2:
        raise PrincipalSerdeError("no version")
    (version,) = struct.unpack_from(">h", data, 0)
    if version != VERSION:
        raise PrincipalSerdeError(f"unsupported DefaultPrincipalData version {version}")
    try:
        principal_type, pos = _read_compact_string(data, 2)
        name, pos = _read_compact_string(data, pos)
    except UnicodeDecodeError as e:
        raise PrincipalSerdeError(str(e)) from None
    if pos >= len(data):
        raise PrincipalSerdeError("no TokenAuthenticated")
    return KafkaPrincipal(principal_type, name)
