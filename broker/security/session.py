"""Per-connection authentication: who the connection is and what it may send yet.

``ListenerSecurity`` is one listener's settings (its security protocol, TLS context, SASL
mechanisms and users, ``connections.max.reauth.ms``), built once at startup by the socket
server. ``AuthSession`` is one connection's state machine (Kafka's
``SaslServerAuthenticator`` states), made when the connection is accepted:

    PLAINTEXT / SSL:  AUTHENTICATED at once (User:ANONYMOUS, or the certificate's principal)
    SASL_*:           HANDSHAKE --SaslHandshake v1--> AUTHENTICATE --SaslAuthenticate--> AUTHENTICATED
                      HANDSHAKE --SaslHandshake v0--> RAW_TOKENS (bare SASL tokens, no Kafka header)
                      AUTHENTICATED --SaslHandshake (connections.max.reauth.ms > 0)--> AUTHENTICATE
                      any failure --> FAILED (the answer is sent, then the connection closed)

What may be sent, as Kafka's ``SaslServerAuthenticator`` allows it: in HANDSHAKE one
ApiVersions, then SaslHandshake; any other request (or a second ApiVersions) closes the
connection without an answer (Kafka throws InvalidRequestException / IllegalStateException,
which send nothing). In AUTHENTICATE only SaslAuthenticate; anything else is answered with
ILLEGAL_SASL_STATE, then the connection closed (Kafka's IllegalSaslStateException with the
request's error response: ``illegal_sasl_state_response``). Once a session has expired
(KIP-368), only SaslHandshake (re-authentication) is served.
Time comes from ``clock`` (monotonic seconds), so tests drive expiry.
"""
from __future__ import annotations

import asyncio
import logging
import ssl
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.api_keys import ApiKey
from kafpy.protocol.message_base import Message

from kafpy.broker.security.jaas import parse_jaas_config, plain_users
from kafpy.broker.security.plain import PlainServer
from kafpy.broker.security.principal import ANONYMOUS, KafkaPrincipal
from kafpy.broker.security.sasl_errors import SaslAuthenticationError, SaslExchangeError, client_message
from kafpy.broker.security.scram import HASHES, ScramServer
from kafpy.broker.security.ssl_principal import NoMatchingRule, SslPrincipalMapper, distinguished_name

if TYPE_CHECKING:
    from kafpy.broker.config import KafkaConfig
    from kafpy.broker.security.credentials import UserConfigs
    from kafpy.broker.security.ssl_reconfig import ReconfigurableServerSsl

log = logging.getLogger("kafka.security")

HANDSHAKE, AUTHENTICATE, RAW_TOKENS, AUTHENTICATED, FAILED = (
    "HANDSHAKE", "AUTHENTICATE", "RAW_TOKENS", "AUTHENTICATED", "FAILED")
SASL_PROTOCOLS = ("SASL_PLAINTEXT", "SASL_SSL")
TLS_PROTOCOLS = ("SSL", "SASL_SSL")
SERVED_MECHANISMS = ("PLAIN", *HASHES)


@dataclass
class ListenerSecurity:
    """One listener's security settings; ``user_configs`` is set by the broker once its
    metadata store is up (SCRAM logins and the credential APIs need it)."""

    name: str
    protocol: str
    ssl_context: ssl.SSLContext | None = None
    ssl_reconfig: "ReconfigurableServerSsl | None" = None   # TLS listeners: swaps certificates for new connections
    mechanisms: list[str] = field(default_factory=list)
    plain_users: dict[str, str] = field(default_factory=dict)
    reauth_ms: int = 0
    failed_auth_delay_ms: int = 100
    # sasl.server.max.receive.size: the largest frame read before a SASL connection has
    # authenticated (Kafka reads those with the authenticator's own receive of that limit)
    max_receive_size: int = 524288
    principal_mapper: SslPrincipalMapper = field(default_factory=SslPrincipalMapper)
    user_configs: "UserConfigs | None" = None

    @property
    def sasl(self) -> bool:
        return self.protocol in SASL_PROTOCOLS

    @classmethod
    def from_config(cls, config: "KafkaConfig", listener: str) -> "ListenerSecurity":
        from kafpy.broker.config import ConfigError
        from kafpy.broker.security.ssl_reconfig import ReconfigurableServerSsl
        protocol = config.security_protocol(listener)
        get = lambda key: config.listener_config(listener, key)   # noqa: E731
        sec = cls(listener, protocol, reauth_ms=get("connections.max.reauth.ms"),
                  failed_auth_delay_ms=get("connection.failed.authentication.delay.ms"),
                  max_receive_size=get("sasl.server.max.receive.size"))
        if protocol in TLS_PROTOCOLS:
            sec.ssl_reconfig = ReconfigurableServerSsl(get, listener)
            sec.ssl_context = sec.ssl_reconfig.context
            try:
                sec.principal_mapper = SslPrincipalMapper(get("ssl.principal.mapping.rules"))
            except ValueError as e:
                raise ConfigError(f"Invalid value for ssl.principal.mapping.rules: {e}") from None
        if protocol in SASL_PROTOCOLS:
            sec.mechanisms = list(get("sasl.enabled.mechanisms"))
            unknown = [m for m in sec.mechanisms if m not in SERVED_MECHANISMS]
            if unknown:
                raise ConfigError(f"Listener {listener}: SASL mechanisms {unknown} are not supported "
                                  f"(supported: {', '.join(SERVED_MECHANISMS)}); set sasl.enabled.mechanisms")
            if "PLAIN" in sec.mechanisms:
                text = get("plain.sasl.jaas.config") or get("sasl.jaas.config")
                if not text:
                    raise ConfigError(f"Listener {listener}: PLAIN needs listener.name.{listener.lower()}"
                                      ".plain.sasl.jaas.config")
                try:
                    sec.plain_users = plain_users(parse_jaas_config(text))
                except ValueError as e:
                    raise ConfigError(f"Invalid JAAS config for listener {listener}: {e}") from None
        return sec

    def new_session(self, transport: asyncio.BaseTransport | None, clock: Callable[[], float]) -> "AuthSession":
        return AuthSession(self, clock, self._tls_principal(transport))

    def _tls_principal(self, transport: asyncio.BaseTransport | None) -> KafkaPrincipal:
        if self.ssl_context is None or transport is None:
            return ANONYMOUS
        ssl_object = transport.get_extra_info("ssl_object")
        cert = ssl_object.getpeercert() if ssl_object is not None else None
        if not cert or "subject" not in cert:
            return ANONYMOUS
        try:
            return KafkaPrincipal.user(self.principal_mapper.principal_name(distinguished_name(cert["subject"])))
        except NoMatchingRule as e:
            log.warning("Client certificate: %s; connection is User:ANONYMOUS", e)
            return ANONYMOUS


class AuthSession:
    """One connection's authentication state (see the module docstring). The socket server
    asks ``admits`` before each request and reads ``principal``; the SaslHandshake and
    SaslAuthenticate handlers drive it."""

    def __init__(self, listener: ListenerSecurity, clock: Callable[[], float],
                 tls_principal: KafkaPrincipal = ANONYMOUS) -> None:
        self.listener = listener
        self.clock = clock
        self.principal = tls_principal
        self.state = HANDSHAKE if listener.sasl else AUTHENTICATED
        self.mechanism: str | None = None
        self.expires_at: float | None = None
        self.reauthenticating = False
        self.versions_seen = False   # one ApiVersions is served before SaslHandshake
        self._server: PlainServer | ScramServer | None = None

    @property
    def failed(self) -> bool:
        return self.state == FAILED

    @property
    def authenticating(self) -> bool:
        """Frames are read by the authenticator (Kafka's SaslServerAuthenticator), held to
        ``sasl.server.max.receive.size``: before the login completes, and during a
        re-authentication's SaslAuthenticate."""
        return self.state != AUTHENTICATED

    @property
    def raw_tokens(self) -> bool:
        return self.state == RAW_TOKENS

    def admits(self, api_key: int) -> bool:
        """Whether a request of ``api_key`` is served now (an ApiVersions before the
        handshake is counted: a second one is not)."""
        state = self.state
        if state == AUTHENTICATED:
            if self.expires_at is not None and self.clock() >= self.expires_at and api_key != ApiKey.SASL_HANDSHAKE:
                log.info("Closing a connection of %s: its session expired (connections.max.reauth.ms) "
                         "without re-authentication", self.principal)
                return False
            return True
        if state == HANDSHAKE:
            if api_key == ApiKey.API_VERSIONS:
                if self.versions_seen:
                    return False
                self.versions_seen = True
                return True
            return api_key == ApiKey.SASL_HANDSHAKE
        if state == AUTHENTICATE:
            return api_key == ApiKey.SASL_AUTHENTICATE
        return False

    def answers_refusal(self) -> bool:
        """Whether a request ``admits`` refused gets ILLEGAL_SASL_STATE before the close (in
        AUTHENTICATE, as Kafka answers it) rather than no answer at all."""
        return self.state == AUTHENTICATE

    # -- SaslHandshake ---------------------------------------------------------------------
    def handshake(self, version: int, mechanism: str) -> tuple[int, list[str]]:
        """(error code, enabled mechanisms) for a SaslHandshake; on an error the session has
        FAILED and the connection closes after the answer."""
        enabled = list(self.listener.mechanisms)
        if not self.listener.sasl:
            return ErrorCode.ILLEGAL_SASL_STATE, enabled
        if self.state == AUTHENTICATED:
            if self.listener.reauth_ms <= 0 or version < 1:
                return ErrorCode.ILLEGAL_SASL_STATE, enabled
            if mechanism != self.mechanism:
                log.info("Re-authentication of %s with %s instead of %s refused", self.principal, mechanism,
                         self.mechanism)
                self.state = FAILED
                return ErrorCode.ILLEGAL_SASL_STATE, enabled
            self.reauthenticating = True
        elif self.state != HANDSHAKE:
            self.state = FAILED
            return ErrorCode.ILLEGAL_SASL_STATE, enabled
        if mechanism not in enabled:
            log.info("Unsupported SASL mechanism %s requested (enabled: %s)", mechanism, enabled)
            self.state = FAILED
            return ErrorCode.UNSUPPORTED_SASL_MECHANISM, enabled
        self.mechanism = mechanism
        self._server = self._new_server(mechanism)
        self.state = AUTHENTICATE if version >= 1 else RAW_TOKENS
        return ErrorCode.NONE, enabled

    def _new_server(self, mechanism: str) -> PlainServer | ScramServer:
        if mechanism == "PLAIN":
            return PlainServer(self.listener.plain_users.get)
        store = self.listener.user_configs
        return ScramServer(mechanism, (lambda u: store.credential(u, mechanism)) if store else (lambda u: None))

    # -- SaslAuthenticate ------------------------------------------------------------------
    async def authenticate(self, token: bytes) -> tuple[int, str | None, bytes, int]:
        """(error code, error message, response token, session lifetime ms) for one
        SaslAuthenticate (or one raw token). On failure the session has FAILED."""
        server = self._server
        assert server is not None and self.mechanism is not None
        try:
            if isinstance(server, ScramServer) and self.listener.user_configs is not None and not server.complete:
                user = _scram_user(token)
                if user is not None:
                    await self.listener.user_configs.refresh(user)
            response = server.evaluate(bytes(token))
            if server.complete:
                principal = KafkaPrincipal.user(server.authorization_id or "")
                if self.reauthenticating and principal != self.principal:
                    raise SaslAuthenticationError(
                        f"Cannot change principals during re-authentication from {self.principal}: {principal}")
        except (SaslAuthenticationError, SaslExchangeError) as e:
            log.info("Failed %s with SASL mechanism %s on listener %s: %s",
                     "re-authentication" if self.reauthenticating else "authentication", self.mechanism,
                     self.listener.name, e)
            self.state = FAILED
            return (ErrorCode.SASL_AUTHENTICATION_FAILED,
                    client_message(e, self.mechanism, self.reauthenticating), b"", 0)
        lifetime = 0
        if server.complete:
            self.principal = principal
            self.state = AUTHENTICATED
            self.reauthenticating = False
            self._server = None
            if self.listener.reauth_ms > 0:
                lifetime = self.listener.reauth_ms
                self.expires_at = self.clock() + lifetime / 1000
            log.debug("Authenticated %s with %s on listener %s", principal, self.mechanism, self.listener.name)
        return ErrorCode.NONE, None, response, lifetime


def _scram_user(client_first: bytes) -> str | None:
    """The user name in a SCRAM client-first message, to load its credential; None if the
    message is not one (the SCRAM server then reports it)."""
    from kafpy.broker.security.scram import sasl_name_to_username
    try:
        bare = client_first.decode().split(",", 2)[2]
        name = bare.split(",", 1)[0]
        return sasl_name_to_username(name[2:]) if name.startswith("n=") else None
    except (UnicodeDecodeError, IndexError, SaslExchangeError):
        return None


def illegal_sasl_state_response(api_key: int, api_version: int) -> Message | None:
    """The response to a request sent where SaslAuthenticate was expected: its top-level
    ``error_code`` set to ILLEGAL_SASL_STATE, or None for an API (or version) whose response
    has no top-level error code (Kafka would set the error on each resource; kafpy closes
    without an answer there, which such a client sees as the same failed connection)."""
    from kafpy.protocol import codec
    cls: type[Message] = codec.response_class(api_key, api_version)
    for f in cls.FIELDS:
        if f.name == "error_code" and f.versions is not None and f.versions[0] <= api_version <= f.versions[1]:
            # a generated response class, and this version of it has an error_code field
            response: Message = cls(error_code=ErrorCode.ILLEGAL_SASL_STATE)  # type: ignore[call-arg]
            return response
    return None
