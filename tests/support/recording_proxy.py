"""A TCP proxy in front of a Kafka broker that records request/response frames to files.

For each (api, version, client, variant), it writes the first request frame that gets an
answer (without its 4-byte size prefix) to `<out_dir>/<api>_v<N>_<client>[_<variant>].bin`
and that answer to `<same>.resp.bin` (a request never answered, as Produce with acks=0, is
kept alone). `client` is the label current when the connection was
accepted (set `proxy.client` before running each client). The only variant today is the
compression codec of Produce requests (`produce_v9_java_lz4.bin`).

With `cap_versions` (default: the API versions this project implements,
`kafpy.protocol.codec.SPECS`),
the proxy rewrites the broker's ApiVersions responses so clients negotiate versions within
that range and drops APIs outside it: the recorded requests are then those the clients
send to our broker. Pass `cap_versions=None` to record untouched traffic.

Thread per direction per connection, blocking sockets: simple and plenty for captures;
not a load-testing tool. Used by tests/data/frames/capture.py.
"""
from __future__ import annotations

import socket
import struct
import sys
import threading
from pathlib import Path
from typing import Mapping

from kafpy.protocol.api_keys import ApiKey
from kafpy.protocol.codec import SPECS
from kafpy.protocol.varint import read_unsigned_varint as _uvarint
from kafpy.protocol.varint import unsigned_varint as _put_uvarint

from .ports import LOOPBACK

API_VERSIONS = 18
UNSUPPORTED_VERSION = 35
PRODUCE = 0
CODECS = {0: "none", 1: "gzip", 2: "snappy", 3: "lz4", 4: "zstd"}


def load_request_specs() -> dict[int, dict]:
    """{api_key: {"name": snake_case, "max": int, "min": int, "flexible_min": int|None}}
    for every API the project implements."""
    return {
        key: {"name": ApiKey(key).name.lower(), "min": spec.min_version,
              "max": spec.max_version, "flexible_min": spec.flexible_min}
        for key, spec in SPECS.items()
    }


# ------------------------------------------------------------------ tiny wire helpers
def _skip_tagged(buf: bytes, pos: int) -> int:
    count, pos = _uvarint(buf, pos)
    for _ in range(count):
        _tag, pos = _uvarint(buf, pos)
        size, pos = _uvarint(buf, pos)
        pos += size
    return pos


def request_header(frame: bytes, flexible: bool) -> tuple[int, int, int, int]:
    """(api_key, api_version, correlation_id, body offset) of a request frame."""
    api_key, version, corr, client_len = struct.unpack_from(">hhih", frame, 0)
    pos = 10 + max(client_len, 0)
    if flexible:
        pos = _skip_tagged(frame, pos)
    return api_key, version, corr, pos


def produce_codec(frame: bytes, version: int, pos: int, flexible: bool) -> str | None:
    """The compression codec of the first record batch in a Produce request body."""
    try:
        if version >= 3:  # transactional_id
            if flexible:
                n, pos = _uvarint(frame, pos)
                pos += max(n - 1, 0)
            else:
                (n,) = struct.unpack_from(">h", frame, pos)
                pos += 2 + max(n, 0)
        pos += 6  # acks, timeout
        if flexible:
            _n_topics, pos = _uvarint(frame, pos)
            if version >= 13:  # a topic id (16 bytes) in place of the name (KIP-516)
                pos += 16
            else:
                n, pos = _uvarint(frame, pos)
                pos += n - 1
            _n_parts, pos = _uvarint(frame, pos)
            pos += 4
            size, pos = _uvarint(frame, pos)
            size -= 1
        else:
            pos += 4
            (n,) = struct.unpack_from(">h", frame, pos)
            pos += 2 + n
            pos += 4 + 4
            (size,) = struct.unpack_from(">i", frame, pos)
            pos += 4
        if size <= 0:
            return None
        magic = frame[pos + 16]
        attributes = (struct.unpack_from(">h", frame, pos + 21)[0] if magic >= 2
                      else frame[pos + 17])
        return CODECS.get(attributes & 0x07, f"codec{attributes & 0x07}")
    except (IndexError, ValueError, struct.error):
        return None


def cap_api_versions_response(frame: bytes, version: int,
                              caps: Mapping[int, tuple[int, int]]) -> bytes:
    """Rewrite an ApiVersions response frame (no size prefix) so every API's range lies
    within `caps` ({key: (min, max)}); APIs absent from `caps` or with no overlap go."""
    (corr, error_code) = struct.unpack_from(">ih", frame, 0)
    pos = 6
    if error_code == UNSUPPORTED_VERSION:
        version = 0  # the broker answers a version it does not know with a v0 body
    flexible = version >= 3
    entries = []
    if flexible:
        n, pos = _uvarint(frame, pos)
        n -= 1
    else:
        (n,) = struct.unpack_from(">i", frame, pos)
        pos += 4
    for _ in range(max(n, 0)):
        key, lo, hi = struct.unpack_from(">hhh", frame, pos)
        pos += 6
        tag_start = pos
        if flexible:
            pos = _skip_tagged(frame, pos)
        entries.append((key, lo, hi, frame[tag_start:pos]))
    rest = frame[pos:]  # throttle time and (v3+) tagged fields, kept as they are
    kept = []
    for key, lo, hi, tags in entries:
        if key not in caps:
            continue
        clo, chi = caps[key]
        lo, hi = max(lo, clo), min(hi, chi)
        if lo <= hi:
            kept.append((key, lo, hi, tags))
    out = bytearray(struct.pack(">ih", corr, error_code))
    out += _put_uvarint(len(kept) + 1) if flexible else struct.pack(">i", len(kept))
    for key, lo, hi, tags in kept:
        out += struct.pack(">hhh", key, lo, hi) + tags
    out += rest
    return bytes(out)


def _recv_exact(sock: socket.socket, n: int) -> bytes | None:
    buf = bytearray()
    while len(buf) < n:
        try:
            chunk = sock.recv(n - len(buf))
        except OSError:
            return None
        if not chunk:
            return None
        buf += chunk
    return bytes(buf)


def _read_frame(sock: socket.socket) -> bytes | None:
    head = _recv_exact(sock, 4)
    if head is None:
        return None
    (size,) = struct.unpack(">i", head)
    return _recv_exact(sock, size)


class RecordingProxy:
    """Listens on 127.0.0.1:`port`, forwards to `upstream_host:upstream_port`, records."""

    def __init__(self, upstream_port: int, out_dir: str | Path, *, port: int | None = None,
                 upstream_host: str = LOOPBACK, client: str = "unknown",
                 cap_versions: Mapping[int, tuple[int, int]] | None | str = "spec"):
        self.upstream = (upstream_host, upstream_port)
        self.out_dir = Path(out_dir)
        self.client = client
        self.specs = load_request_specs()
        if cap_versions == "spec":
            cap_versions = {k: (v["min"], v["max"]) for k, v in self.specs.items()}
        assert not isinstance(cap_versions, str), f"cap_versions={cap_versions!r}: a mapping, None or \"spec\""
        self.cap_versions = cap_versions
        self._listener = socket.create_server((LOOPBACK, port or 0))
        self.port = self._listener.getsockname()[1]
        self._lock = threading.Lock()
        self._seen: set[str] = set()      # stems whose request was written
        self._answered: set[str] = set()  # stems whose request/response pair was written
        self.recorded: list[str] = []   # file stems, in recording order
        self.counts: dict[tuple[str, int, str], int] = {}  # (api, version, client) -> requests
        self._conns: list[socket.socket] = []
        self.errors: list[str] = []  # requests it forwarded but could not record
        self._threads: list[threading.Thread] = []
        self._stopping = threading.Event()
        self._accept_thread = threading.Thread(target=self._accept_loop, daemon=True,
                                               name="proxy-accept")

    @property
    def bootstrap(self) -> str:
        return f"{LOOPBACK}:{self.port}"

    def start(self) -> "RecordingProxy":
        self.out_dir.mkdir(parents=True, exist_ok=True)
        self._accept_thread.start()
        return self

    def stop(self) -> None:
        """Close the listener and every proxied connection; join the threads."""
        self._stopping.set()
        try:
            self._listener.close()
        except OSError:
            pass
        with self._lock:
            conns = list(self._conns)
        for s in conns:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()
        self._accept_thread.join(timeout=5)
        for t in self._threads:
            t.join(timeout=5)

    def __enter__(self) -> "RecordingProxy":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def api_name(self, api_key: int) -> str:
        spec = self.specs.get(api_key)
        return spec["name"] if spec else f"api{api_key}"

    # ------------------------------------------------------------------ plumbing
    def _accept_loop(self) -> None:
        while not self._stopping.is_set():
            try:
                client_sock, _ = self._listener.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(self.upstream, timeout=10)
                upstream.settimeout(None)
            except OSError:
                client_sock.close()
                continue
            for s in (client_sock, upstream):
                s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            pending: dict[int, tuple[int, int, str | None, bytes]] = {}
            label = self.client
            with self._lock:
                self._conns += [client_sock, upstream]
            for target, args in ((self._client_to_upstream, (client_sock, upstream, pending, label)),
                                 (self._upstream_to_client, (upstream, client_sock, pending))):
                t = threading.Thread(target=target, args=args, daemon=True)
                t.start()
                self._threads.append(t)

    def _client_to_upstream(self, src: socket.socket, dst: socket.socket,
                            pending: dict, label: str) -> None:
        try:
            while True:
                frame = _read_frame(src)
                if frame is None:
                    return
                try:
                    self._on_request(frame, label, pending)
                except Exception as e:  # noqa: BLE001 - a recording bug must not cut the client off
                    self.errors.append(f"request {frame[:4].hex()}: {e!r}")
                    print(f"recording proxy: {self.errors[-1]}", file=sys.stderr)
                dst.sendall(struct.pack(">i", len(frame)) + frame)
        except OSError:
            return
        finally:
            _close_both(src, dst)

    def _upstream_to_client(self, src: socket.socket, dst: socket.socket,
                            pending: dict) -> None:
        try:
            while True:
                frame = _read_frame(src)
                if frame is None:
                    return
                (corr,) = struct.unpack_from(">i", frame, 0)
                with self._lock:
                    api_key, version, stem, request = pending.pop(corr, (None, None, None, None))
                if api_key == API_VERSIONS and self.cap_versions is not None:
                    frame = cap_api_versions_response(frame, version, self.cap_versions)
                if stem is not None:
                    with self._lock:
                        first_answer = stem not in self._answered
                        self._answered.add(stem)
                    if first_answer:  # the pair on disk always belongs together
                        (self.out_dir / f"{stem}.bin").write_bytes(request)
                        (self.out_dir / f"{stem}.resp.bin").write_bytes(frame)
                dst.sendall(struct.pack(">i", len(frame)) + frame)
        except OSError:
            return
        finally:
            _close_both(src, dst)

    def _on_request(self, frame: bytes, label: str, pending: dict) -> str | None:
        (api_key, version) = struct.unpack_from(">hh", frame, 0)
        spec = self.specs.get(api_key)
        flex_min = spec["flexible_min"] if spec else None
        flexible = flex_min is not None and version >= flex_min
        _, _, corr, body_pos = request_header(frame, flexible)
        variant = None
        if api_key == PRODUCE:
            variant = produce_codec(frame, version, body_pos, flexible)
        name = self.api_name(api_key)
        stem = f"{name}_v{version}_{label}" + (f"_{variant}" if variant else "")
        with self._lock:
            key3 = (name, version, label)
            self.counts[key3] = self.counts.get(key3, 0) + 1
            first = stem not in self._seen
            if first:
                self._seen.add(stem)
                self.recorded.append(stem)
            # until one request of this stem is answered, each is a candidate: a request
            # whose connection closes unanswered must not leave a lone .bin behind
            candidate = stem not in self._answered
            pending[corr] = (api_key, version, stem if candidate else None, frame)
        if first:  # written at once for requests that get no answer (acks=0)
            (self.out_dir / f"{stem}.bin").write_bytes(frame)
        return stem if first else None


def _close_both(a: socket.socket, b: socket.socket) -> None:
    for s in (a, b):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
