"""The broker's client side of its inter-broker listener: TLS and SASL for the connections a
broker opens to other brokers (replica fetchers, the controller's channel, AlterPartition,
controlled shutdown, transaction markers).

Kafka builds one client channel for all of them from ``inter.broker.listener.name`` (or
``security.inter.broker.protocol``): the listener's ``ssl.truststore.*`` to check the other
broker's certificate, its keystore as the client certificate (needed when the listener has
``ssl.client.auth=required``), ``sasl.mechanism.inter.broker.protocol`` with the username and
password of the listener's ``listener.name.<l>.<mechanism>.sasl.jaas.config`` (PLAIN's
``username``/``password`` options, or ScramLoginModule's). ``ClientSecurity`` keeps that,
built once at startup; ``kafpy.replication.network_client`` applies it on every connection:
``ssl_context`` for the TLS handshake, then ``authenticate`` after ApiVersions.
"""
from __future__ import annotations

import ssl
from dataclasses import dataclass
from typing import TYPE_CHECKING, Awaitable, Callable, TypeVar

from kafpy.protocol import messages
from kafpy.protocol.api_keys import ApiKey
from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.message_base import Message

from kafpy.broker.security.jaas import parse_jaas_config
from kafpy.broker.security.plain import plain_client_message
from kafpy.broker.security.sasl_errors import SaslAuthenticationError
from kafpy.broker.security.scram import HASHES, ScramClient
from kafpy.broker.security.session import SASL_PROTOCOLS, TLS_PROTOCOLS

if TYPE_CHECKING:
    from kafpy.broker.config import KafkaConfig

Exchange = Callable[[int, Message], Awaitable[object]]
"""Sends one request (api key, body) on the connection being set up; its response body."""

_Response = TypeVar("_Response", bound=Message)


async def _exchange(exchange: Exchange, api_key: ApiKey, request: Message,
                    response: type[_Response]) -> _Response:
    """``exchange``'s answer, which for a request of ``api_key`` is its response class."""
    resp = await exchange(api_key, request)
    if not isinstance(resp, response):
        raise SaslAuthenticationError(f"{api_key.name} answered {type(resp).__name__}")
    return resp


@dataclass(frozen=True)
class ClientSecurity:
    """How this broker connects to the others: ``protocol``, a client TLS context, and the
    SASL mechanism with its username and password (None for no SASL)."""

    protocol: str
    ssl_context: ssl.SSLContext | None = None
    mechanism: str | None = None
    username: str = ""
    password: str = ""

    @classmethod
    def inter_broker(cls, config: "KafkaConfig") -> "ClientSecurity | None":
        """From the inter-broker listener's settings; None when it is PLAINTEXT."""
        from kafpy.broker.config import ConfigError
        from kafpy.broker.security.ssl_factory import client_context
        listener = config.inter_broker_listener_name
        protocol = config.security_protocol(listener)
        if protocol == "PLAINTEXT":
            return None
        get = lambda key: config.listener_config(listener, key)   # noqa: E731
        ctx = client_context(get) if protocol in TLS_PROTOCOLS else None
        if protocol not in SASL_PROTOCOLS:
            return cls(protocol, ctx)
        mechanism = config["sasl.mechanism.inter.broker.protocol"]
        if mechanism != "PLAIN" and mechanism not in HASHES:
            raise ConfigError(f"sasl.mechanism.inter.broker.protocol {mechanism} is not supported "
                              "(PLAIN, SCRAM-SHA-256, SCRAM-SHA-512)")
        text = get(f"{mechanism.lower()}.sasl.jaas.config") or get("sasl.jaas.config")
        try:
            options = parse_jaas_config(text).options if text else {}
        except ValueError as e:
            raise ConfigError(f"Invalid JAAS config for listener {listener}: {e}") from None
        if "username" not in options or "password" not in options:
            raise ConfigError(f"The inter-broker listener {listener} needs username and password in "
                              f"listener.name.{listener.lower()}.{mechanism.lower()}.sasl.jaas.config")
        return cls(protocol, ctx, mechanism, options["username"], options["password"])

    async def authenticate(self, exchange: Exchange) -> None:
        """The SASL exchange (SaslHandshake v1, then SaslAuthenticate) on a new connection;
        nothing without SASL. Raises SaslAuthenticationError when the other broker refuses."""
        if self.mechanism is None:
            return
        resp = await _exchange(exchange, ApiKey.SASL_HANDSHAKE, messages.SaslHandshakeRequest(mechanism=self.mechanism),
                               messages.SaslHandshakeResponse)
        if resp.error_code != ErrorCode.NONE:
            raise SaslAuthenticationError(f"SaslHandshake with {self.mechanism} refused: "
                                          f"{ErrorCode.of(resp.error_code)!r} (enabled: {resp.mechanisms})")
        if self.mechanism == "PLAIN":
            await _token(exchange, plain_client_message(self.username, self.password))
            return
        scram = ScramClient(self.mechanism, self.username, self.password)
        server_first = await _token(exchange, scram.first())
        scram.verify(await _token(exchange, scram.final(server_first)))


async def _token(exchange: Exchange, token: bytes) -> bytes:
    resp = await _exchange(exchange, ApiKey.SASL_AUTHENTICATE, messages.SaslAuthenticateRequest(auth_bytes=token),
                           messages.SaslAuthenticateResponse)
    if resp.error_code != ErrorCode.NONE:
        raise SaslAuthenticationError(resp.error_message or repr(ErrorCode.of(resp.error_code)))
    return bytes(resp.auth_bytes)
