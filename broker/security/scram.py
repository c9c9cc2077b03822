"""SCRAM-SHA-256 and SCRAM-SHA-512 (RFC 5802, RFC 7677) as Kafka does them: credentials in
Kafka's string form, the server side of the exchange (Kafka's ``ScramSaslServer``) and a
client (for the inter-broker connection and for tests).

A ``ScramCredential`` is what is stored (``salt=...,stored_key=...,server_key=...,iterations=N``,
the value of ``SCRAM-SHA-256`` in ``/config/users/<user>``); the password never is. One
``ScramServer`` per authentication attempt, made by the connection's session.
"""
from __future__ import annotations

import base64
import hashlib
import hmac
import os
import re
from dataclasses import dataclass
from typing import Callable

from kafpy.broker.security.sasl_errors import SaslAuthenticationError, SaslExchangeError

HASHES = {"SCRAM-SHA-256": "sha256", "SCRAM-SHA-512": "sha512"}
# Kafka's ScramMechanism: both mechanisms take 4096..16384 iterations.
MIN_ITERATIONS = 4096
MAX_ITERATIONS = 16384
# AlterUserScramCredentials' mechanism numbers (Kafka's ScramMechanism.type()).
MECHANISM_TYPES = {1: "SCRAM-SHA-256", 2: "SCRAM-SHA-512"}
MECHANISM_NUMBERS = {v: k for k, v in MECHANISM_TYPES.items()}
SUPPORTED_EXTENSIONS = {"tokenauth"}


@dataclass(frozen=True)
class ScramCredential:
    salt: bytes
    stored_key: bytes
    server_key: bytes
    iterations: int

    def to_string(self) -> str:
        """Kafka's ``ScramCredentialUtils.credentialToString``."""
        b64 = lambda b: base64.b64encode(b).decode()   # noqa: E731
        return (f"salt={b64(self.salt)},stored_key={b64(self.stored_key)},"
                f"server_key={b64(self.server_key)},iterations={self.iterations}")

    @classmethod
    def from_string(cls, text: str) -> "ScramCredential":
        try:
            kv = dict(p.split("=", 1) for p in text.split(","))
            return cls(base64.b64decode(kv["salt"]), base64.b64decode(kv["stored_key"]),
                       base64.b64decode(kv["server_key"]), int(kv["iterations"]))
        except (ValueError, KeyError) as e:
            raise ValueError(f"Invalid SCRAM credential: {e}") from None


def _hmac(algo: str, key: bytes, msg: bytes) -> bytes:
    return hmac.new(key, msg, algo).digest()


def salted_password(mechanism: str, password: str, salt: bytes, iterations: int) -> bytes:
    return hashlib.pbkdf2_hmac(HASHES[mechanism], password.encode(), salt, iterations)


def credential_from_salted_password(mechanism: str, salted: bytes, salt: bytes, iterations: int) -> ScramCredential:
    """What AlterUserScramCredentials stores: the client sends salt and salted password."""
    algo = HASHES[mechanism]
    client_key = _hmac(algo, salted, b"Client Key")
    stored_key = hashlib.new(algo, client_key).digest()
    server_key = _hmac(algo, salted, b"Server Key")
    return ScramCredential(salt, stored_key, server_key, iterations)


def new_credential(mechanism: str, password: str, iterations: int = MIN_ITERATIONS,
                   salt: bytes | None = None) -> ScramCredential:
    salt = salt if salt is not None else os.urandom(32)
    return credential_from_salted_password(mechanism, salted_password(mechanism, password, salt, iterations),
                                           salt, iterations)


def _nonce() -> str:
    return base64.urlsafe_b64encode(os.urandom(24)).decode().rstrip("=").replace("-", "x").replace("_", "y")


def sasl_name_to_username(name: str) -> str:
    """RFC 5802 saslname: ``=2C`` is a comma, ``=3D`` an equals sign; any other ``=`` is invalid."""
    if re.search(r"=(?!2C|3D)", name):
        raise SaslExchangeError(f"Invalid username: {name}")
    return name.replace("=2C", ",").replace("=3D", "=")


def username_to_sasl_name(user: str) -> str:
    return user.replace("=", "=3D").replace(",", "=2C")


_CLIENT_FIRST = re.compile(
    r"n,(?:a=(?P<authzid>[^,]*))?,(?P<bare>n=(?P<saslname>[^,]+),r=(?P<nonce>[\x21-\x2b\x2d-\x7e]+)"
    r"(?P<ext>(?:,[A-Za-z]+=[^,]*)*))")
_CLIENT_FINAL = re.compile(
    r"(?P<nonproof>c=(?P<cbind>[A-Za-z0-9+/=]*),r=(?P<nonce>[\x21-\x2b\x2d-\x7e]+)(?:,[A-Za-z]+=[^,]*)*?)"
    r",p=(?P<proof>[A-Za-z0-9+/=]+)")


class ScramServer:
    """The server side of one SCRAM exchange: client-first -> server-first, client-final ->
    server-final. ``credentials(user)`` gives the stored credential of this mechanism, or
    None for an unknown user (which fails like a wrong password: the client cannot tell)."""

    def __init__(self, mechanism: str, credentials: Callable[[str], ScramCredential | None]) -> None:
        if mechanism not in HASHES:
            raise ValueError(f"Unsupported mechanism {mechanism}")
        self.mechanism = mechanism
        self._algo = HASHES[mechanism]
        self._credentials = credentials
        self._state = "client-first"
        self.complete = False
        self.authorization_id: str | None = None
        self._credential: ScramCredential | None = None
        self._client_first_bare = self._server_first = self._nonce = self._gs2 = ""

    def evaluate(self, response: bytes) -> bytes:
        try:
            text = response.decode("utf-8")
        except UnicodeDecodeError:
            raise SaslExchangeError("SCRAM message is not UTF-8") from None
        if self._state == "client-first":
            return self._client_first(text)
        if self._state == "client-final":
            return self._client_final(text)
        raise SaslExchangeError(f"Unexpected SCRAM message in state {self._state}")

    def _client_first(self, text: str) -> bytes:
        self._state = "failed"
        m = _CLIENT_FIRST.fullmatch(text)
        if m is None:
            raise SaslExchangeError("Invalid SCRAM client first message format")
        ext = dict(e.split("=", 1) for e in m.group("ext").split(",") if e)
        if not set(ext) <= SUPPORTED_EXTENSIONS:
            raise SaslExchangeError(f"Unsupported extensions will not be accepted: {sorted(ext)}")
        if ext.get("tokenauth", "false").lower() == "true":
            raise SaslExchangeError("Delegation token authentication is not supported")
        username = sasl_name_to_username(m.group("saslname"))
        authzid = m.group("authzid")
        if authzid and authzid != username:
            raise SaslAuthenticationError(
                "Authentication failed: Client requested an authorization id that is different from username")
        credential = self._credentials(username)
        if credential is None:
            raise SaslExchangeError("Authentication failed: Invalid user credentials")
        if credential.iterations < MIN_ITERATIONS:
            raise SaslExchangeError(f"Iterations {credential.iterations} is less than the minimum "
                                    f"{MIN_ITERATIONS} for {self.mechanism}")
        self.authorization_id = username
        self._credential = credential
        self._gs2 = text[:m.start("bare")]
        self._client_first_bare = m.group("bare")
        self._nonce = m.group("nonce") + _nonce()
        self._server_first = (f"r={self._nonce},s={base64.b64encode(credential.salt).decode()},"
                              f"i={credential.iterations}")
        self._state = "client-final"
        return self._server_first.encode()

    def _client_final(self, text: str) -> bytes:
        self._state = "failed"
        m = _CLIENT_FINAL.fullmatch(text)
        if m is None:
            raise SaslExchangeError("Invalid SCRAM client final message format")
        if m.group("nonce") != self._nonce:
            raise SaslExchangeError("Invalid client nonce in the final client message.")
        if m.group("cbind") != base64.b64encode(self._gs2.encode()).decode():
            raise SaslExchangeError("Invalid channel binding in the final client message.")
        cred = self._credential
        assert cred is not None
        auth_message = f"{self._client_first_bare},{self._server_first},{m.group('nonproof')}".encode()
        try:
            proof = base64.b64decode(m.group("proof"), validate=True)
        except ValueError:
            raise SaslExchangeError("Invalid client proof") from None
        signature = _hmac(self._algo, cred.stored_key, auth_message)
        if len(proof) != len(signature):
            raise SaslExchangeError("Invalid client credentials")
        client_key = bytes(a ^ b for a, b in zip(proof, signature))
        if not hmac.compare_digest(hashlib.new(self._algo, client_key).digest(), cred.stored_key):
            raise SaslExchangeError("Invalid client credentials")
        server_signature = _hmac(self._algo, cred.server_key, auth_message)
        self._credential = None
        self._state = "complete"
        self.complete = True
        return b"v=" + base64.b64encode(server_signature)


class ScramClient:
    """The client side: ``first()``, then ``final(server_first)``, then
    ``verify(server_final)`` (raises SaslAuthenticationError on a bad server signature)."""

    def __init__(self, mechanism: str, username: str, password: str) -> None:
        self.mechanism = mechanism
        self._algo = HASHES[mechanism]
        self.username = username
        self.password = password
        self._nonce = _nonce()
        self._bare = f"n={username_to_sasl_name(username)},r={self._nonce}"
        self._server_signature = b""

    def first(self) -> bytes:
        return f"n,,{self._bare}".encode()

    def final(self, server_first: bytes) -> bytes:
        text = server_first.decode()
        if text.startswith("e="):
            raise SaslAuthenticationError(f"SCRAM server error: {text[2:]}")
        kv = dict(p.split("=", 1) for p in text.split(","))
        nonce, salt, iterations = kv["r"], base64.b64decode(kv["s"]), int(kv["i"])
        if not nonce.startswith(self._nonce):
            raise SaslAuthenticationError("Invalid server nonce: does not start with client nonce")
        salted = salted_password(self.mechanism, self.password, salt, iterations)
        client_key = _hmac(self._algo, salted, b"Client Key")
        stored_key = hashlib.new(self._algo, client_key).digest()
        without_proof = f"c=biws,r={nonce}"
        auth_message = f"{self._bare},{text},{without_proof}".encode()
        signature = _hmac(self._algo, stored_key, auth_message)
        proof = bytes(a ^ b for a, b in zip(client_key, signature))
        self._server_signature = _hmac(self._algo, _hmac(self._algo, salted, b"Server Key"), auth_message)
        return f"{without_proof},p={base64.b64encode(proof).decode()}".encode()

    def verify(self, server_final: bytes) -> None:
        text = server_final.decode()
        if not text.startswith("v=") or not hmac.compare_digest(base64.b64decode(text[2:]),
                                                                  self._server_signature):
            raise SaslAuthenticationError("Invalid server signature in SCRAM server final message")
