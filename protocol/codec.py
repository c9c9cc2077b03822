"""Encode and decode Kafka requests and responses (sans-IO).

Who may call it: the broker (``decode_request``, ``encode_response``,
``encode_response_chunks``), tests and tools (``encode_request``, ``decode_response``),
the coordinators (``encode_data``/``decode_data`` for ``__consumer_offsets`` and
``__transaction_state`` keys and values).

The per-(class, version) functions come from ``kafpy.protocol.message_compiler`` (generated
source, built once; why, measured, is written there). This module picks them by API key
and version, adds the headers and size prefix, and caches the pairs it uses.

Records fields decode to ``memoryview`` slices of the frame (no copy). On encode, a
``records`` value that is not ``None``/bytes-like is a *record slice* (an object with an
int ``size``, e.g. ``storage``'s ``FileRecordsSlice``): ``encode_response_chunks``
places it, uncopied, in the output list for the broker to ``sendfile()``.

Every malformed input raises a ``ProtocolError`` subclass: ``TruncatedFrame`` when the
bytes end early, ``InvalidRequest`` for bad lengths, UTF-8 or tagged fields. No length
read from the wire is used to allocate before the bytes it announces are present.
"""

from __future__ import annotations

import struct
from typing import Any, Callable, TypeVar

from kafpy.protocol import messages
from kafpy.protocol.errors import (
    ErrorCode,
    InvalidRequest,
    ProtocolError,
    TruncatedFrame,
    UnknownApiKey,
    UnsupportedVersion,
)
from kafpy.protocol.message_compiler import COMPILER as _COMPILER
from kafpy.protocol.message_compiler import is_flexible as _is_flexible
from kafpy.protocol.messages import API_KEYS, ApiKey, Message, RequestHeader, ResponseHeader, Struct

Buffer = bytes | bytearray | memoryview
MessageT = TypeVar("MessageT", bound=Message)

__all__ = [
    "decode_request",
    "encode_response",
    "encode_response_chunks",
    "encode_request",
    "decode_response",
    "encode_data",
    "decode_data",
    "request_header_version",
    "response_header_version",
    "unsupported_api_versions_response",
    "decoder_for",
    "encoder_for",
    "precompile",
    "SPECS",
    "request_class",
    "response_class",
    "ApiVersionsRequestV5",
]

_I32 = struct.Struct(">i")

# What the codec serves: the generated API table (ApiVersions v5, KIP-1242, is in the
# schema). The names below stay for callers written when the codec carried v5 itself.
SPECS: dict[int, messages.ApiSpec] = API_KEYS
ApiVersionsRequestV5 = messages.ApiVersionsRequest
ApiVersionsResponseV5 = messages.ApiVersionsResponse


def request_class(api_key: int, api_version: int) -> type:
    """The class a request of that API and version decodes to."""
    return SPECS[api_key].request_class


def response_class(api_key: int, api_version: int) -> type:
    """The class that encodes a response of that API and version."""
    return SPECS[api_key].response_class


def decoder_for(cls: type[Message], version: int) -> Callable:
    """The compiled ``(buf, mv, pos, end) -> (obj, pos)`` decoder of a top-level message."""
    return _COMPILER.decoder(cls, version, _is_flexible(cls, version))


def encoder_for(cls: type[Message], version: int) -> Callable:
    """The compiled ``(obj, out: list, slices: list) -> None`` encoder of a top-level message.

    It appends the encoding to ``out`` as bytes-like parts; a record slice is appended
    as itself and its index in ``out`` is appended to ``slices``.
    """
    return _COMPILER.encoder(cls, version, _is_flexible(cls, version))


def precompile(api_keys: list[int] | None = None) -> int:
    """Build the request decoders and response encoders of ``api_keys`` (default: all) now.

    The broker may call it at startup so no first request pays the compile time.
    Returns how many functions were built or found.
    """
    n = 0
    for key in sorted(SPECS) if api_keys is None else api_keys:
        spec = SPECS[key]
        for v in range(spec.min_version, spec.max_version + 1):
            decoder_for(request_class(key, v), v)
            encoder_for(response_class(key, v), v)
            n += 2
    for hv in (0, 1, 2):
        _COMPILER.decoder(RequestHeader, hv, hv >= 2)
        n += 1
    return n


def _decode(cls: type[Message], version: int, buf: Buffer, pos: int) -> tuple[Message, int]:
    fn = _COMPILER.decoders.get((cls, version))
    if fn is None:
        fn = decoder_for(cls, version)
    mv = buf if type(buf) is memoryview else memoryview(buf)
    return _run_decoder(fn, buf, mv, pos)


# what a compiled decoder raises on bad bytes besides ProtocolError (none of them is one)
_DECODE_ERRORS = (struct.error, IndexError, ValueError, OverflowError, MemoryError)


def _decode_error(exc: Exception) -> ProtocolError:
    """The ``ProtocolError`` for an exception a decoder raised on bad bytes."""
    if isinstance(exc, (struct.error, IndexError)):
        return TruncatedFrame(f"message ends early: {exc}")
    if isinstance(exc, UnicodeDecodeError):
        return InvalidRequest(f"invalid UTF-8: {exc}")
    return InvalidRequest(str(exc))


def _run_decoder(fn: Callable, buf: Buffer, mv: memoryview, pos: int) -> tuple[Any, int]:
    try:
        return fn(buf, mv, pos, len(buf))
    except _DECODE_ERRORS as exc:
        raise _decode_error(exc) from None


def _as_buffer(frame: Buffer) -> bytes | memoryview:
    if type(frame) is bytes:
        return frame
    return _as_view(frame)


def _as_view(frame: Buffer) -> memoryview:
    """``frame`` as a one-dimensional byte view."""
    mv = frame if type(frame) is memoryview else memoryview(frame)
    if mv.format != "B" or mv.ndim != 1:
        mv = mv.cast("B")
    return mv


def _encode(cls: type[Message], version: int, obj: Struct, out: list, sl: list) -> None:
    fn = _COMPILER.encoders.get((cls, version))
    if fn is None:
        fn = encoder_for(cls, version)
    fn(obj, out, sl)


# ---------------------------------------------------------------- headers


def request_header_version(api_key: int, api_version: int) -> int:
    """Kafka's request header version: 2 for flexible versions, else 1 (0 for ControlledShutdown v0)."""
    spec = SPECS.get(api_key)
    if spec is None:
        return 1
    if spec.flexible_min is not None and api_version >= spec.flexible_min:
        return 2
    if api_key == ApiKey.CONTROLLED_SHUTDOWN and api_version == 0:
        return 0
    return 1


def response_header_version(api_key: int, api_version: int) -> int:
    """1 for flexible versions, else 0; ApiVersions responses always use v0."""
    if api_key == ApiKey.API_VERSIONS:
        return 0
    spec = SPECS.get(api_key)
    if spec is not None and spec.flexible_min is not None and api_version >= spec.flexible_min:
        return 1
    return 0


# ---------------------------------------------------------------- public API


_REQUEST_DECODERS: dict[tuple[int, int], tuple[Callable, Callable]] = {}
_HH = struct.Struct(">hh")


def _request_decoders_slow(buf: Buffer, mv: memoryview, api_key: int, api_version: int) -> tuple[Callable, Callable]:
    """Validate (api key, version) and build its (header, body) decoders; errors carry the header."""
    spec = SPECS.get(api_key)
    hv = request_header_version(api_key, api_version)
    hdr_dec = _COMPILER.decoder(RequestHeader, hv, hv >= 2)
    if spec is None or not spec.min_version <= api_version <= spec.max_version:
        header, _pos = _run_decoder(hdr_dec, buf, mv, 0)
        if spec is None:
            raise UnknownApiKey(api_key, header)
        raise UnsupportedVersion(api_key, api_version, header)
    entry = (hdr_dec, decoder_for(request_class(api_key, api_version), api_version))
    _REQUEST_DECODERS[(api_key, api_version)] = entry
    return entry


def decode_request(frame: bytes | bytearray | memoryview) -> tuple[RequestHeader, Message]:
    """Decode one request frame (without its size prefix) into (header, body)."""
    buf: bytes | memoryview
    if type(frame) is bytes:
        buf = frame
        mv = memoryview(frame)
    else:
        buf = mv = _as_view(frame)
    end = len(buf)
    if end < 8:
        raise TruncatedFrame("request shorter than its header")
    api_key, api_version = _HH.unpack_from(buf, 0)
    entry = _REQUEST_DECODERS.get((api_key, api_version))
    if entry is None:
        entry = _request_decoders_slow(buf, mv, api_key, api_version)
    try:
        header, pos = entry[0](buf, mv, 0, end)
        body, _pos = entry[1](buf, mv, pos, end)
    except _DECODE_ERRORS as exc:
        raise _decode_error(exc) from None
    return header, body


def _checked_spec(api_key: int, api_version: int) -> messages.ApiSpec:
    """The API's spec; ``UnknownApiKey`` / ``UnsupportedVersion`` when the codec does not serve it."""
    spec = SPECS.get(api_key)
    if spec is None:
        raise UnknownApiKey(api_key)
    if not spec.min_version <= api_version <= spec.max_version:
        raise UnsupportedVersion(api_key, api_version)
    return spec


_RESPONSE_DECODERS: dict[tuple[int, int], tuple[Callable, Callable]] = {}


def decode_response(api_key: int, api_version: int, frame: bytes | bytearray | memoryview) -> tuple[int, Message]:
    """Decode one response frame (without its size prefix) into (correlation id, body).

    Records fields are slices of ``frame`` (a replica fetcher can append them as they are).
    """
    entry = _RESPONSE_DECODERS.get((api_key, api_version))
    if entry is None:
        _checked_spec(api_key, api_version)
        hv = response_header_version(api_key, api_version)
        entry = (_COMPILER.decoder(ResponseHeader, hv, hv >= 1),
                 decoder_for(response_class(api_key, api_version), api_version))
        _RESPONSE_DECODERS[(api_key, api_version)] = entry
    buf: bytes | memoryview
    if type(frame) is bytes:
        buf = frame
        mv = memoryview(frame)
    else:
        buf = mv = _as_view(frame)
    header, pos = _run_decoder(entry[0], buf, mv, 0)
    body, _pos = _run_decoder(entry[1], buf, mv, pos)
    return header.correlation_id, body


_RESPONSE_ENCODERS: dict[tuple[int, int], tuple[Callable, bool]] = {}
_II = struct.Struct(">ii")
# below this size the frame is one bytes item (one write); above, the header stays separate
_COPY_LIMIT = 65536


def _response_encoder(api_key: int, api_version: int) -> tuple[Callable, bool]:
    """(body encoder, header is v1) for a response, validated once and cached."""
    entry = _RESPONSE_ENCODERS.get((api_key, api_version))
    if entry is None:
        _checked_spec(api_key, api_version)
        entry = (
            encoder_for(response_class(api_key, api_version), api_version),
            response_header_version(api_key, api_version) == 1,
        )
        _RESPONSE_ENCODERS[(api_key, api_version)] = entry
    return entry


def _slice_bytes(part: Any) -> bytes:  # a records slice: FileRecordsSlice or a buffer with .size
    read = getattr(part, "read_bytes", None)
    if read is not None:
        data = read()
    else:
        data = bytes(part)
    if len(data) != part.size:
        raise ValueError(f"record slice read {len(data)} bytes, expected {part.size}")
    return data


def _response_header(correlation_id: int, body_size: int, v1: bool) -> bytes:
    if v1:
        return _II.pack(body_size + 5, correlation_id) + b"\0"
    return _II.pack(body_size + 4, correlation_id)


def encode_response(api_key: int, api_version: int, correlation_id: int, body: Message) -> bytes:
    """The whole response frame: 4-byte size, response header, body."""
    enc, v1 = _response_encoder(api_key, api_version)
    out: list = []
    sl: list = []
    enc(body, out, sl)
    for i in sl:
        out[i] = _slice_bytes(out[i])
    out.insert(0, _response_header(correlation_id, sum(map(len, out)), v1))
    return b"".join(out)


def encode_response_chunks(api_key: int, api_version: int, correlation_id: int, body: Message) -> list:
    """The response frame as ``bytes`` items and record slices (sent without copying).

    Without slices a frame up to 64 KiB is one item; a larger one is the header and
    the body as two items, so the body is not copied a second time.
    """
    enc, v1 = _response_encoder(api_key, api_version)
    out: list = []
    sl: list = []
    enc(body, out, sl)
    if not sl:
        data = b"".join(out)
        header = _response_header(correlation_id, len(data), v1)
        if len(data) <= _COPY_LIMIT:
            return [header + data]
        return [header, data]
    chunks: list = []
    total = 0
    start = 0
    for i in sl:
        if i > start:
            b = b"".join(out[start:i])
            total += len(b)
            chunks.append(b)
        piece = out[i]
        total += piece.size
        chunks.append(piece)
        start = i + 1
    if start < len(out):
        b = b"".join(out[start:])
        total += len(b)
        chunks.append(b)
    header = _response_header(correlation_id, total, v1)
    if type(chunks[0]) is bytes:
        chunks[0] = header + chunks[0]
    else:
        chunks.insert(0, header)
    return chunks


def encode_request(header: RequestHeader, body: Message) -> bytes:
    """The whole request frame: 4-byte size, request header (version from the API), body."""
    api_key, api_version = header.request_api_key, header.request_api_version
    _checked_spec(api_key, api_version)
    hv = request_header_version(api_key, api_version)
    out: list = []
    sl: list = []
    _COMPILER.encoder(RequestHeader, hv, hv >= 2)(header, out, sl)
    _encode(request_class(api_key, api_version), api_version, body, out, sl)
    for i in sl:
        out[i] = _slice_bytes(out[i])
    out.insert(0, _I32.pack(sum(map(len, out))))
    return b"".join(out)


def encode_data(obj: Message, version: int) -> bytes:
    """Encode a ``data`` message (e.g. ``OffsetCommitValue``) at ``version``, no version prefix."""
    cls = type(obj)
    lo, hi = cls.VALID_VERSIONS
    if not lo <= version <= hi:
        raise UnsupportedVersion(-1, version)
    out: list = []
    sl: list = []
    _encode(cls, version, obj, out, sl)
    for i in sl:
        out[i] = _slice_bytes(out[i])
    return b"".join(out)


def decode_data(cls: type[MessageT], version: int, data: bytes | bytearray | memoryview) -> MessageT:
    """Decode a ``data`` message body (no version prefix) of ``cls`` at ``version``."""
    lo, hi = cls.VALID_VERSIONS
    if not lo <= version <= hi:
        raise UnsupportedVersion(-1, version)
    obj, _pos = _decode(cls, version, _as_buffer(data), 0)
    assert isinstance(obj, cls)  # the decoder of ``cls`` builds a ``cls``
    return obj


def unsupported_api_versions_response(correlation_id: int, supported: list[tuple[int, int, int]]) -> bytes:
    """Kafka's answer to an ApiVersions request at a version it does not know.

    A whole frame (size prefix, v0 response header, v0 body) with error
    UNSUPPORTED_VERSION and the broker's ``(api_key, min_version, max_version)`` ranges,
    which clients read to pick the version they retry with.
    """
    resp = messages.ApiVersionsResponse(
        error_code=int(ErrorCode.UNSUPPORTED_VERSION),
        api_keys=[
            messages.ApiVersionsResponse.ApiVersion(api_key=k, min_version=lo, max_version=hi)
            for k, lo, hi in supported
        ],
    )
    return encode_response(ApiKey.API_VERSIONS, 0, correlation_id, resp)

