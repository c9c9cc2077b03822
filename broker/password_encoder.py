"""Encrypts the password configs of ``/config/brokers/<id>`` (Kafka's ``PasswordEncoder``):
a key derived from ``password.encoder.secret`` with PBKDF2 (HMAC-SHA512, a random salt,
``password.encoder.iterations``, ``password.encoder.key.length`` bits) encrypts the
password with AES/CBC/PKCS5Padding under a random IV. The stored form lists what decoding
needs as ``name:value`` pairs joined by commas, with Kafka's names.

Who may call it: the config handlers before storing a dynamic broker password
(``encode``), ``KafkaConfig.set_dynamic`` when it reads one back (``decode``).
"""
from __future__ import annotations

import base64
import os

__all__ = ["encode", "decode", "is_encoded", "PasswordDecodeError"]

KEY_FACTORY = "PBKDF2WithHmacSHA512"
CIPHER = "AES/CBC/PKCS5Padding"


class PasswordDecodeError(ValueError):
    """A stored password that does not decrypt with this broker's secret."""


def _key(secret: str, salt: bytes, iterations: int, key_length: int) -> bytes:
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.kdf.pbkdf2 import PBKDF2HMAC
    return PBKDF2HMAC(hashes.SHA512(), key_length // 8, salt, iterations).derive(secret.encode())


def encode(password: str, secret: str, iterations: int = 4096, key_length: int = 128) -> str:
    from cryptography.hazmat.primitives import padding
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
    salt, iv = os.urandom(16), os.urandom(16)
    padder = padding.PKCS7(128).padder()
    data = padder.update(password.encode()) + padder.finalize()
    enc = Cipher(algorithms.AES(_key(secret, salt, iterations, key_length)), modes.CBC(iv)).encryptor()
    fields = {"encryptedPassword": base64.b64encode(enc.update(data) + enc.finalize()).decode(),
              "passwordLength": str(len(password)), "salt": base64.b64encode(salt).decode(),
              "keyFactoryAlgorithm": KEY_FACTORY, "cipherAlgorithm": CIPHER, "keyLength": str(key_length),
              "iterations": str(iterations), "initializationVector": base64.b64encode(iv).decode()}
    return ",".join(f"{k}:{v}" for k, v in fields.items())


def is_encoded(value: str) -> bool:
    return value.startswith("encryptedPassword:")


def decode(value: str, secret: str) -> str:
    from cryptography.hazmat.primitives import padding
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
    try:
        fields = dict(p.split(":", 1) for p in value.split(","))
        if fields["keyFactoryAlgorithm"] != KEY_FACTORY or fields["cipherAlgorithm"] != CIPHER:
            raise PasswordDecodeError(f"unsupported encoding {fields['keyFactoryAlgorithm']}/{fields['cipherAlgorithm']}")
        key = _key(secret, base64.b64decode(fields["salt"]), int(fields["iterations"]), int(fields["keyLength"]))
        dec = Cipher(algorithms.AES(key), modes.CBC(base64.b64decode(fields["initializationVector"]))).decryptor()
        data = dec.update(base64.b64decode(fields["encryptedPassword"])) + dec.finalize()
        unpadder = padding.PKCS7(128).unpadder()
        password = (unpadder.update(data) + unpadder.finalize()).decode()
    except (KeyError, ValueError, UnicodeDecodeError) as e:
        raise PasswordDecodeError(f"cannot decode the password: {e}") from None
    if len(password) != int(fields["passwordLength"]):
        raise PasswordDecodeError("cannot decode the password: length mismatch")
    return password
