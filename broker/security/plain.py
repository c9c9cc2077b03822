"""SASL/PLAIN (RFC 4616) as Kafka's ``PlainSaslServer``: one message
``[authzid] NUL authcid NUL passwd``, checked against the listener's JAAS users.

One ``PlainServer`` per authentication attempt; made by the connection's session.
"""
from __future__ import annotations

import hmac
from typing import Callable

from kafpy.broker.security.sasl_errors import SaslAuthenticationError, SaslExchangeError

MECHANISM = "PLAIN"


class PlainServer:
    """``users`` gives a user's password (None if unknown); comparison in constant time."""

    mechanism = MECHANISM

    def __init__(self, users: Callable[[str], str | None]) -> None:
        self._users = users
        self.complete = False
        self.authorization_id: str | None = None

    def evaluate(self, response: bytes) -> bytes:
        if self.complete:
            raise SaslExchangeError("PLAIN authentication already complete")
        try:
            text = response.decode("utf-8")
        except UnicodeDecodeError:
            raise SaslExchangeError("Invalid SASL/PLAIN response: not UTF-8") from None
        tokens = text.split("\0")
        if len(tokens) != 3:
            raise SaslExchangeError(f"Invalid SASL/PLAIN response: expected 3 tokens, got {len(tokens)}")
        authzid, username, password = tokens
        if not username:
            raise SaslAuthenticationError("Authentication failed: username not specified")
        if not password:
            raise SaslAuthenticationError("Authentication failed: password not specified")
        expected = self._users(username)
        if expected is None or not hmac.compare_digest(expected.encode(), password.encode()):
            raise SaslAuthenticationError("Authentication failed: Invalid username or password")
        if authzid and authzid != username:
            raise SaslAuthenticationError(
                "Authentication failed: Client requested an authorization id that is different from username")
        self.authorization_id = username
        self.complete = True
        return b""


def plain_client_message(username: str, password: str) -> bytes:
    """The client's one PLAIN message (no authorization id), for the inter-broker client."""
    return f"\0{username}\0{password}".encode()
