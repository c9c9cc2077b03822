"""A blocking raw Kafka connection for tests that must control every byte: requests are
encoded with the project's codec (or written by hand), responses decoded the same way."""
from __future__ import annotations

import socket
import struct
from typing import Any

from protocol import codec
from protocol.messages import RequestHeader


class RawConnection:
    def __init__(self, host: str, port: int, timeout: float = 10.0) -> None:
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.sock.settimeout(timeout)
        self.correlation = 0

    def close(self) -> None:
        self.sock.close()

    def __enter__(self) -> "RawConnection":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def send_frame(self, payload: bytes) -> None:
        """A request without its size prefix; the prefix is added here."""
        self.sock.sendall(struct.pack(">i", len(payload)) + payload)

    def send_raw(self, data: bytes) -> None:
        self.sock.sendall(data)

    def frame(self, api_key: int, version: int, body: Any) -> bytes:
        """The encoded request frame (with size prefix) for the next correlation id."""
        self.correlation += 1
        header = RequestHeader(request_api_key=api_key, request_api_version=version,
                               correlation_id=self.correlation, client_id="kafpy-test")
        return codec.encode_request(header, body)

    def request(self, api_key: int, version: int, body: Any) -> Any:
        self.sock.sendall(self.frame(api_key, version, body))
        corr, resp = codec.decode_response(api_key, version, self.read_frame())
        assert corr == self.correlation
        return resp

    def _recv_exact(self, n: int) -> bytes:
        buf = bytearray()
        while len(buf) < n:
            chunk = self.sock.recv(n - len(buf))
            if not chunk:
                raise ConnectionError(f"closed after {len(buf)} of {n} bytes")
            buf += chunk
        return bytes(buf)

    def read_frame(self) -> bytes:
        (size,) = struct.unpack(">i", self._recv_exact(4))
        return self._recv_exact(size)

    def closed_by_peer(self) -> bool:
        """True when the broker closes the connection (EOF or reset) before the timeout,
        False when it sends something instead."""
        try:
            data = self.sock.recv(65536)
        except (ConnectionResetError, BrokenPipeError):
            return True
        except socket.timeout:
            return False
        return data == b""
