"""The two ways a SASL exchange fails, as Kafka tells them apart.

``SaslAuthenticationError`` (Kafka's ``SaslAuthenticationException``): its message goes to
the client as is ("Authentication failed: Invalid username or password").
``SaslExchangeError`` (Kafka's ``SaslException``): the client gets only a generic message,
so nothing (such as whether a user exists) leaks through it.
"""
from __future__ import annotations


class SaslAuthenticationError(Exception):
    """A failure whose message the client may see."""


class SaslExchangeError(Exception):
    """A malformed or wrong exchange; the client sees a generic message (``client_message``)."""


def client_message(error: Exception, mechanism: str, reauthenticating: bool = False) -> str:
    """What the SaslAuthenticate response says about ``error`` (Kafka's wording)."""
    if isinstance(error, SaslAuthenticationError):
        return str(error)
    what = "re-authentication" if reauthenticating else "authentication"
    return f"Authentication failed during {what} due to invalid credentials with SASL mechanism {mechanism}"
