"""The classes generated messages build on: ``Field``, ``ApiSpec``, ``Struct``, ``Message``.

Who may call it: ``kafpy.protocol.messages`` (generated) imports them and re-exports them, so
callers keep writing ``kafpy.protocol.messages.Field``. Hand-written so the generator emits
only the per-message tables.
"""

from __future__ import annotations

from typing import Any, Literal, NamedTuple

# Kafka's Uuid.ZERO_UUID (no topic id): the one definition, imported wherever it is compared
ZERO_UUID = bytes(16)
# default of a constructor argument whose value must be built per instance (a list, a struct)
UNSET: Any = object()


class Field(NamedTuple):
    name: str
    type: str
    versions: tuple[int, int] | None
    nullable: tuple[int, int] | None
    tag: int | None
    tagged: tuple[int, int] | None
    flexible: Literal["inherit"] | tuple[int, int] | None  # "inherit", or a (low, high) range / None overriding the message's
    default: object  # scalar default; () for an array defaulting to empty, the type name for a struct


class ApiSpec(NamedTuple):
    api_key: int
    name: str
    min_version: int
    max_version: int
    request_class: type[Message]
    response_class: type[Message]
    flexible_min: int | None
    latest_version_unstable: bool


class Struct:
    """Base of generated structs: equality and repr over the slots."""

    __slots__: tuple[str, ...] = ()
    FIELDS: tuple[Field, ...] = ()

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        for name in self.__slots__:
            if getattr(self, name) != getattr(other, name):
                return False
        return True

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        args = ", ".join(f"{n}={getattr(self, n)!r}" for n in self.__slots__)
        return f"{type(self).__qualname__}({args})"


class Message(Struct):
    """Base of generated top-level messages."""

    __slots__ = ()
    NAME = ""
    KIND = ""
    API_KEY: int | None = None
    VALID_VERSIONS: tuple[int, int] = (0, 0)
    FLEXIBLE_VERSIONS: tuple[int, int] | None = None
    LATEST_VERSION_UNSTABLE = False
