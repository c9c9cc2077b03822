"""Confluent Schema Registry's error codes, each with the HTTP status it is answered with.

Who may raise: ``state``, ``service`` and ``rest``; ``rest`` turns a ``RestError`` into
Confluent's JSON body ``{"error_code": ..., "message": ...}``.
"""
from __future__ import annotations

from enum import IntEnum


class RegistryErrorCode(IntEnum):
    SUBJECT_NOT_FOUND = 40401
    VERSION_NOT_FOUND = 40402
    SCHEMA_NOT_FOUND = 40403
    SUBJECT_SOFT_DELETED = 40404
    SUBJECT_NOT_SOFT_DELETED = 40405
    SCHEMAVERSION_SOFT_DELETED = 40406
    SCHEMAVERSION_NOT_SOFT_DELETED = 40407
    SUBJECT_LEVEL_COMPATIBILITY_NOT_CONFIGURED = 40408
    SUBJECT_LEVEL_MODE_NOT_CONFIGURED = 40409
    INCOMPATIBLE_SCHEMA = 409
    INVALID_SCHEMA = 42201
    INVALID_VERSION = 42202
    INVALID_COMPATIBILITY_LEVEL = 42203
    INVALID_MODE = 42204
    OPERATION_NOT_PERMITTED = 42205
    REFERENCE_EXISTS = 42206
    ID_DOES_NOT_MATCH = 42207
    INVALID_SUBJECT = 42208
    BAD_REQUEST = 400
    NOT_FOUND = 404
    NOT_ACCEPTABLE = 406
    UNSUPPORTED_MEDIA_TYPE = 415
    PAYLOAD_TOO_LARGE = 413
    STORE_ERROR = 50001
    OPERATION_TIMEOUT = 50002
    REQUEST_FORWARDING_FAILED = 50003
    UNKNOWN_LEADER = 50004


def http_status(code: int) -> int:
    """Confluent answers 40401..40409 with 404, 422xx with 422, 500xx with 500; the
    three-digit codes are their own status."""
    return code if code < 1000 else code // 100


class RestError(Exception):
    """An answer other than 2xx: ``code`` is Confluent's error_code."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = int(code)
        self.message = message

    @property
    def status(self) -> int:
        return http_status(self.code)


def subject_not_found(subject: str) -> RestError:
    return RestError(RegistryErrorCode.SUBJECT_NOT_FOUND, f"Subject '{subject}' not found.")


def version_not_found(subject: str, version: int | str) -> RestError:
    return RestError(RegistryErrorCode.VERSION_NOT_FOUND, f"Version {version} not found.")


def schema_not_found(detail: str = "Schema not found") -> RestError:
    return RestError(RegistryErrorCode.SCHEMA_NOT_FOUND, detail)


def invalid_schema(detail: str) -> RestError:
    return RestError(RegistryErrorCode.INVALID_SCHEMA, f"Invalid schema: {detail}")


def invalid_version(version: object) -> RestError:
    return RestError(RegistryErrorCode.INVALID_VERSION,
                     f"The specified version '{version}' is not a valid version id. Allowed values are "
                     "between [1, 2^31-1] and the string \"latest\"")


def reference_exists(subject: str, version: int) -> RestError:
    """42206: a version other schemas still reference may not be deleted (the key as
    Confluent's ``SchemaKey.toString`` writes it)."""
    return RestError(RegistryErrorCode.REFERENCE_EXISTS,
                     f"One or more references exist to the schema {{magic=1,keytype=SCHEMA,subject={subject},"
                     f"version={version}}}.")
