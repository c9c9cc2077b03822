"""sasl.server.max.receive.size in the socket server: until a SASL connection has
authenticated, a frame announced above the limit closes it before any of its bytes are
held (Kafka's SaslServerAuthenticator); once authenticated, socket.request.max.bytes
applies. Same stand-ins as test_server.py (a socketpair, no network)."""
from __future__ import annotations

import logging
import struct

from kafpy.broker.security.session import AUTHENTICATED, ListenerSecurity
from kafpy.broker.server import KafkaConnection
from kafpy.protocol.messages import ApiVersionsRequest
from tests.unit.broker.test_server import Harness, Transport, request

LIMIT = 2000


class SaslHarness(Harness):
    """The harness's connection on a SASL_PLAINTEXT listener with a small receive limit."""

    def __init__(self) -> None:
        super().__init__()
        self.conn.connection_lost(None)   # replace the PLAINTEXT connection the harness made
        self.stand_in.connections.clear()
        self.stand_in.security = {"SASL_PLAINTEXT": ListenerSecurity(
            "SASL_PLAINTEXT", "SASL_PLAINTEXT", mechanisms=["PLAIN"], plain_users={"u": "p"},
            max_receive_size=LIMIT)}
        self.conn = KafkaConnection(self.stand_in, "SASL_PLAINTEXT")  # type: ignore[arg-type]
        self.transport = Transport(self.ours)
        self.conn.connection_made(self.transport)  # type: ignore[arg-type]


def versions(name_len: int) -> bytes:
    return request(1, "c", body=ApiVersionsRequest(client_software_name="x" * name_len,
                                                   client_software_version="1"))


def test_a_frame_above_the_limit_before_authentication_closes_the_connection(caplog):
    h = SaslHarness()
    try:
        with caplog.at_level(logging.INFO, logger="kafka.network"):
            h.feed(struct.pack(">i", 100 << 20) + b"\0" * 100)
        assert h.transport.aborted
        assert h.conn.reader.buffered <= 104       # nothing sized by the 100 MB announced
        assert "Failing SASL authentication due to invalid receive size" in caplog.text
        assert "sasl.server.max.receive.size" in caplog.text
    finally:
        h.close()


def test_a_frame_within_the_limit_before_authentication_is_served():
    h = SaslHarness()
    try:
        frame = versions(LIMIT - 200)
        assert len(frame) - 4 <= LIMIT
        h.feed(frame)
        assert not h.transport.aborted
        [(corr, _)] = h.responses(1)
        assert corr == 1
    finally:
        h.close()


def test_a_request_just_above_the_limit_before_authentication_is_not_served():
    h = SaslHarness()
    try:
        frame = versions(LIMIT)
        assert len(frame) - 4 > LIMIT
        h.feed(frame)
        assert h.transport.aborted and h.stand_in.calls == []
    finally:
        h.close()


def test_once_authenticated_socket_request_max_bytes_applies():
    h = SaslHarness()
    try:
        h.conn.session.state = AUTHENTICATED     # as SaslAuthenticate leaves it
        h.feed(versions(50 * LIMIT))
        assert not h.transport.aborted
        [(corr, _)] = h.responses(1)
        assert corr == 1
    finally:
        h.close()
