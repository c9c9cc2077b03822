"""What a request handler is and what it is given.

Each module in ``broker/handlers/`` exports ``HANDLERS: list[Handler]``; ``broker/apis.py``
joins them into the registry that dispatch and ApiVersions both read.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Awaitable, Callable, TypeVar, cast

from kafpy.protocol.api_keys import ApiKey

from kafpy.broker.security.principal import ANONYMOUS, KafkaPrincipal

if TYPE_CHECKING:
    from kafpy.protocol.message_base import Message
    from kafpy.protocol.messages import RequestHeader

    from kafpy.broker.security.session import AuthSession
    from kafpy.broker.services import BrokerServices

_Request = TypeVar("_Request", bound="Message")   # the request class a handler is written on


class CloseConnection(Exception):
    """A handler raises this to close the client's connection instead of answering (Kafka
    does so for a failed Produce with acks=0, so the producer notices and refreshes metadata)."""


class PreEncodedResponse:
    """A response body that encodes itself from parts its handler cached (a full Metadata):
    the server sends ``encode_chunks(api_version, correlation_id)`` (the whole frame)."""

    __slots__ = ()

    def encode_chunks(self, api_version: int, correlation_id: int) -> list:
        raise NotImplementedError


HandlerFunc = Callable[["RequestContext", "Message"], Awaitable["Message | None"]]


@dataclass(frozen=True, init=False)
class Handler:
    """One API's handler and the versions it serves, registered under its ``ApiKey``."""

    api_key: ApiKey
    min_version: int
    max_version: int
    # answers its response, or None for no answer
    func: HandlerFunc

    def __init__(self, api_key: ApiKey, min_version: int, max_version: int,
                 func: Callable[[RequestContext, _Request], Awaitable[Message | None]]) -> None:
        """``func`` is written on its API's request class; the registry spans every API, so
        it is held as taking any Message: dispatch decodes ``api_key``'s request class only."""
        object.__setattr__(self, "api_key", api_key)
        object.__setattr__(self, "min_version", min_version)
        object.__setattr__(self, "max_version", max_version)
        object.__setattr__(self, "func", cast(HandlerFunc, func))


class RequestContext:
    """Per-request facts for a handler: the broker's services (its collaborators), the
    header, and who is asking."""

    __slots__ = ("services", "header", "api_version", "client_id", "client_host", "client_port",
                 "connection_id", "listener", "principal", "session")

    def __init__(self, services: "BrokerServices", header: "RequestHeader", client_host: str, client_port: int,
                 connection_id: str, listener: str, principal: KafkaPrincipal = ANONYMOUS,
                 session: "AuthSession | None" = None) -> None:
        self.services = services
        self.header = header
        self.api_version: int = header.request_api_version
        self.client_id: str = header.client_id or ""
        self.client_host = client_host
        self.client_port = client_port
        self.connection_id = connection_id
        self.listener = listener
        self.principal = principal  # who the connection authenticated as (User:ANONYMOUS if not)
        self.session = session  # the connection's broker.security.session.AuthSession (None in unit tests)
