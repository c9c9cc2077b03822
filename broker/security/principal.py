"""The principal a request is made by, as Kafka names it (``KafkaPrincipal``).

Every connection has one: ``User:ANONYMOUS`` until it authenticates (and for good on a
PLAINTEXT listener, or an SSL listener whose client sent no certificate), ``User:<name>``
after SASL, ``User:<mapped DN>`` for a TLS client certificate. The broker puts it on each
``RequestContext`` as ``ctx.principal``; the authorizer compares principals by type and name.
"""
from __future__ import annotations

from dataclasses import dataclass

USER_TYPE = "User"


@dataclass(frozen=True, slots=True)
class KafkaPrincipal:
    """A principal ``type:name`` (Kafka's ``KafkaPrincipal``; ``str()`` gives ``User:alice``).

    Immutable and hashable so ACL caches and sets can hold it."""

    principal_type: str
    name: str

    def __str__(self) -> str:
        return f"{self.principal_type}:{self.name}"

    @classmethod
    def from_string(cls, text: str) -> "KafkaPrincipal":
        """Parse ``Type:name`` as Kafka's ``SecurityUtils.parseKafkaPrincipal`` does: split at
        the first colon (names may contain colons); ValueError without one."""
        principal_type, sep, name = text.partition(":")
        if not sep or not principal_type:
            raise ValueError(f"expected a string in format principalType:principalName but got {text!r}")
        return cls(principal_type, name)

    @classmethod
    def user(cls, name: str) -> "KafkaPrincipal":
        return cls(USER_TYPE, name)


ANONYMOUS = KafkaPrincipal(USER_TYPE, "ANONYMOUS")
"""The principal of an unauthenticated connection (Kafka's ``KafkaPrincipal.ANONYMOUS``)."""
