"""TLS contexts from Kafka's ``ssl.*`` settings (Kafka's ``SslFactory``), server and client side.

Keystores: ``PEM`` (``ssl.keystore.location`` naming a PEM file with the key and its chain,
or the PEM text itself in ``ssl.keystore.key`` + ``ssl.keystore.certificate.chain``) and
``PKCS12`` (read with the ``cryptography`` package). Truststores: PEM (a file or
``ssl.truststore.certificates``) and PKCS12. JKS is Java's own format and is refused with a
message saying so. Python's ``ssl`` loads keys only from files, so key material given as
text or PKCS12 is written to a private temporary file (mode 0600) for the load and removed
at once.

Who may call it: the socket server once per TLS listener at startup, and the inter-broker
client. Reads the listener's settings with ``KafkaConfig.listener_config`` (so
``listener.name.<l>.ssl.*`` overrides the broker-wide keys).
"""
from __future__ import annotations

import os
import ssl
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Union

from kafpy.broker.config import ConfigError

if TYPE_CHECKING:   # cryptography is imported where a PKCS12 store is read
    from cryptography.hazmat.primitives.asymmetric.types import PrivateKeyTypes
    from cryptography.x509 import Certificate

Getter = Callable[[str], Any]

CLIENT_AUTH_MODES = {"none": ssl.CERT_NONE, "requested": ssl.CERT_OPTIONAL, "required": ssl.CERT_REQUIRED}
_TLS_VERSIONS = {"TLSv1.2": ssl.TLSVersion.TLSv1_2, "TLSv1.3": ssl.TLSVersion.TLSv1_3,
                 "TLSv1.1": ssl.TLSVersion.TLSv1_1, "TLSv1": ssl.TLSVersion.TLSv1}


def _pkcs12(path: str, password: str | None
            ) -> tuple[PrivateKeyTypes | None, Certificate | None, list[Certificate]]:
    try:
        from cryptography.hazmat.primitives.serialization import pkcs12
    except ImportError:  # pragma: no cover - cryptography is a dependency of the security extra
        raise ConfigError("PKCS12 stores need the 'cryptography' package; use ssl.keystore.type=PEM") from None
    try:
        return pkcs12.load_key_and_certificates(Path(path).read_bytes(),
                                                password.encode() if password else None)
    except (ValueError, OSError) as e:
        raise ConfigError(f"Failed to load SSL store {path}: {e}") from None


def _pem_bytes(obj: Union[Certificate, PrivateKeyTypes]) -> bytes:
    from cryptography import x509
    from cryptography.hazmat.primitives import serialization
    if isinstance(obj, x509.Certificate):
        return obj.public_bytes(serialization.Encoding.PEM)
    return obj.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


def _load_chain_text(ctx: ssl.SSLContext, pem: bytes, password: str | None) -> None:
    fd, path = tempfile.mkstemp(prefix="kafpy-key-", suffix=".pem")
    try:
        os.write(fd, pem)
        os.close(fd)
        ctx.load_cert_chain(path, password=password)
    finally:
        os.unlink(path)


def load_keystore(ctx: ssl.SSLContext, get: Getter) -> bool:
    """Loads the key and certificate chain; False when no keystore is configured."""
    kind = (get("ssl.keystore.type") or "JKS").upper()
    location = get("ssl.keystore.location")
    key_password = get("ssl.key.password") or get("ssl.keystore.password")
    key_text, chain_text = get("ssl.keystore.key"), get("ssl.keystore.certificate.chain")
    try:
        if key_text or chain_text:
            if not (key_text and chain_text):
                raise ConfigError("ssl.keystore.key and ssl.keystore.certificate.chain must both be set")
            _load_chain_text(ctx, (key_text.strip() + "\n" + chain_text.strip() + "\n").encode(), key_password)
        elif not location:
            return False
        elif kind == "PEM":
            ctx.load_cert_chain(location, password=key_password)
        elif kind == "PKCS12":
            key, cert, extra = _pkcs12(location, get("ssl.keystore.password"))
            if key is None or cert is None:
                raise ConfigError(f"Keystore {location} holds no private key with its certificate")
            _load_chain_text(ctx, b"".join(_pem_bytes(x) for x in [key, cert, *extra]), None)
        else:
            raise ConfigError(f"ssl.keystore.type {kind} is not supported (JKS is Java's own format): "
                              "use PEM or PKCS12")
    except (ssl.SSLError, OSError) as e:
        raise ConfigError(f"Failed to load SSL keystore {location or '(inline PEM)'}: {e}") from None
    return True


def load_truststore(ctx: ssl.SSLContext, get: Getter) -> bool:
    """Loads the trusted certificates; False when no truststore is configured."""
    kind = (get("ssl.truststore.type") or "JKS").upper()
    location = get("ssl.truststore.location")
    text = get("ssl.truststore.certificates")
    try:
        if text:
            ctx.load_verify_locations(cadata=text)
        elif not location:
            return False
        elif kind == "PEM":
            ctx.load_verify_locations(cafile=location)
        elif kind == "PKCS12":
            _key, cert, extra = _pkcs12(location, get("ssl.truststore.password"))
            certs = [c for c in [cert, *extra] if c is not None]
            if not certs:
                raise ConfigError(f"Truststore {location} holds no certificate")
            ctx.load_verify_locations(cadata=b"".join(_pem_bytes(c) for c in certs).decode())
        else:
            raise ConfigError(f"ssl.truststore.type {kind} is not supported (JKS is Java's own format): "
                              "use PEM or PKCS12")
    except (ssl.SSLError, OSError) as e:
        raise ConfigError(f"Failed to load SSL truststore {location or '(inline PEM)'}: {e}") from None
    return True


def _protocols(ctx: ssl.SSLContext, get: Getter) -> None:
    enabled = [p for p in (get("ssl.enabled.protocols") or []) if p in _TLS_VERSIONS]
    if enabled:
        ctx.minimum_version = min((_TLS_VERSIONS[p] for p in enabled), key=lambda v: v.value)
        ctx.maximum_version = max((_TLS_VERSIONS[p] for p in enabled), key=lambda v: v.value)
    ciphers = get("ssl.cipher.suites")
    if ciphers:
        try:
            ctx.set_ciphers(":".join(ciphers))
        except ssl.SSLError as e:
            raise ConfigError(f"Invalid value for ssl.cipher.suites: {e}") from None


def server_context(get: Getter, listener: str = "") -> ssl.SSLContext:
    """The server context of a TLS listener: its keystore (required), the truststore to
    verify client certificates with, and ``ssl.client.auth``."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    _protocols(ctx, get)
    if not load_keystore(ctx, get):
        raise ConfigError(f"Listener {listener} uses TLS but no ssl.keystore.location (or "
                          "ssl.keystore.key/ssl.keystore.certificate.chain) is set")
    mode = get("ssl.client.auth") or "none"
    if mode not in CLIENT_AUTH_MODES:
        raise ConfigError(f"Invalid value {mode!r} for configuration ssl.client.auth")
    has_trust = load_truststore(ctx, get)
    if mode != "none":
        if not has_trust:
            ctx.load_default_certs(ssl.Purpose.CLIENT_AUTH)
        ctx.verify_mode = CLIENT_AUTH_MODES[mode]
    return ctx


def client_context(get: Getter) -> ssl.SSLContext:
    """A client context (the inter-broker client): trusts the truststore (else the system's
    CAs), presents the keystore if one is set, checks the host name when
    ``ssl.endpoint.identification.algorithm`` is ``https`` (Kafka's default)."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    _protocols(ctx, get)
    if not load_truststore(ctx, get):
        ctx.load_default_certs(ssl.Purpose.SERVER_AUTH)
    load_keystore(ctx, get)
    ctx.check_hostname = (get("ssl.endpoint.identification.algorithm") or "").lower() == "https"
    ctx.verify_mode = ssl.CERT_REQUIRED
    return ctx
