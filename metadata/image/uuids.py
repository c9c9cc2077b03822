"""Kafka's textual form of a Uuid (base64url without padding), for messages and lookups."""

from __future__ import annotations

import base64


def uuid_str(value: bytes) -> str:
    """``value`` (16 bytes) as Kafka prints a Uuid, e.g. ``0jX0xZ0_QWGTz0Hd7o2xKQ``."""
    return base64.urlsafe_b64encode(value).decode("ascii").rstrip("=")


def uuid_bytes(text: str) -> bytes:
    """The 16 bytes of a Uuid printed as Kafka prints it."""
    raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    if len(raw) != 16:
        raise ValueError(f"not a Kafka Uuid: {text!r}")
    return raw
