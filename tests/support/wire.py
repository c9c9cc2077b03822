"""Minimal hand-encoded Kafka requests for readiness probes.

Independent of the project's `protocol` package on purpose: the fixtures that start a broker
must be able to tell "the broker answers" without trusting the code under test. Only
ApiVersions v0 and Metadata v0 (request header v1, non-flexible) are encoded here.
"""
from __future__ import annotations

import socket
import struct

API_VERSIONS = 18
METADATA = 3
CLIENT_ID = b"kafpy-probe"


def encode_request(api_key: int, api_version: int, correlation_id: int, body: bytes = b"",
                   client_id: bytes = CLIENT_ID) -> bytes:
    """A whole request frame (size prefix included) with a v1 request header."""
    header = struct.pack(">hhih", api_key, api_version, correlation_id, len(client_id)) + client_id
    payload = header + body
    return struct.pack(">i", len(payload)) + payload


def _recv_exact(sock: socket.socket, n: int) -> bytes:
    buf = bytearray()
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise ConnectionError(f"connection closed after {len(buf)} of {n} bytes")
        buf += chunk
    return bytes(buf)


def read_frame(sock: socket.socket) -> bytes:
    """One response frame without its size prefix."""
    (size,) = struct.unpack(">i", _recv_exact(sock, 4))
    if size < 4 or size > 64 * 1024 * 1024:
        raise ValueError(f"implausible frame size {size}")
    return _recv_exact(sock, size)


def roundtrip(host: str, port: int, frame: bytes, timeout: float = 2.0) -> bytes:
    """Send one request frame on a new connection and return the response frame."""
    with socket.create_connection((host, port), timeout=timeout) as sock:
        sock.settimeout(timeout)
        sock.sendall(frame)
        return read_frame(sock)


def api_versions(host: str, port: int, timeout: float = 2.0) -> dict[int, tuple[int, int]]:
    """ApiVersions v0: {api_key: (min, max)}. Raises OSError/ValueError/ConnectionError."""
    resp = roundtrip(host, port, encode_request(API_VERSIONS, 0, 7), timeout)
    corr, error_code, count = struct.unpack_from(">ihi", resp, 0)
    if corr != 7:
        raise ValueError(f"correlation id {corr}, expected 7")
    if error_code != 0:
        raise ValueError(f"ApiVersions error code {error_code}")
    out: dict[int, tuple[int, int]] = {}
    pos = 10
    for _ in range(count):
        key, lo, hi = struct.unpack_from(">hhh", resp, pos)
        pos += 6
        out[key] = (lo, hi)
    return out


def metadata_brokers(host: str, port: int, timeout: float = 2.0) -> list[tuple[int, str, int]]:
    """Metadata v0 for no topics: the [(node_id, host, port)] the broker lists."""
    body = struct.pack(">i", 0)  # v0: an empty topic array means all topics
    resp = roundtrip(host, port, encode_request(METADATA, 0, 8, body), timeout)
    corr, count = struct.unpack_from(">ii", resp, 0)
    if corr != 8:
        raise ValueError(f"correlation id {corr}, expected 8")
    pos = 8
    brokers = []
    for _ in range(count):
        node_id, hlen = struct.unpack_from(">ih", resp, pos)
        pos += 6
        bhost = resp[pos:pos + hlen].decode()
        pos += hlen
        (bport,) = struct.unpack_from(">i", resp, pos)
        pos += 4
        brokers.append((node_id, bhost, bport))
    return brokers
