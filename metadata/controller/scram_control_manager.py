"""SCRAM credentials, as Kafka's ``ScramControlManager``.

Who calls it: the quorum controller for AlterUserScramCredentials. An upsertion becomes a
``UserScramCredentialRecord`` holding the salt, the stored key and the server key derived
from the salted password (RFC 5802), never the password; a deletion becomes a
``RemoveUserScramCredentialRecord``. A user with any bad alteration gets that error and none
of its alterations apply, as in Kafka."""

from __future__ import annotations

import hashlib
import hmac

from kafpy.metadata.controller.controller_metadata import ControllerMetadata
from kafpy.metadata.controller.controller_result import ApiError, ControllerResult
from kafpy.metadata.image.scram import ScramMechanism
from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import (
    AlterUserScramCredentialsRequest,
    AlterUserScramCredentialsResponse,
    Message,
    RemoveUserScramCredentialRecord,
    UserScramCredentialRecord,
)

MIN_ITERATIONS = 4096
MAX_ITERATIONS = 16384
_HASH = {ScramMechanism.SCRAM_SHA_256: "sha256", ScramMechanism.SCRAM_SHA_512: "sha512"}


def scram_keys(mechanism: ScramMechanism, salted_password: bytes) -> tuple[bytes, bytes]:
    """(stored key, server key) for a salted password (Kafka's ``ScramFormatter``)."""
    digest = _HASH[mechanism]
    client_key = hmac.new(salted_password, b"Client Key", digest).digest()
    stored_key = hashlib.new(digest, client_key).digest()
    server_key = hmac.new(salted_password, b"Server Key", digest).digest()
    return stored_key, server_key


class ScramControlManager:
    """Reads the stored credentials from the image."""

    def __init__(self, metadata: ControllerMetadata) -> None:
        self.metadata = metadata

    def alter_credentials(self, request: AlterUserScramCredentialsRequest
                          ) -> ControllerResult[AlterUserScramCredentialsResponse]:
        seen: dict[tuple[str, int], int] = {}
        keys = ([(d.name, d.mechanism) for d in request.deletions]
                + [(u.name, u.mechanism) for u in request.upsertions])
        for key in keys:
            seen[key] = seen.get(key, 0) + 1
        errors: dict[str, ApiError] = {}
        per_user: dict[str, list[Message]] = {}
        users: list[str] = []
        for d in request.deletions:
            if d.name not in users:
                users.append(d.name)
            error = self._check(d.name, d.mechanism, seen) or self._check_deletion(d)
            if error is not None:
                errors.setdefault(d.name, error)
            else:
                per_user.setdefault(d.name, []).append(
                    RemoveUserScramCredentialRecord(name=d.name, mechanism=d.mechanism))
        for u in request.upsertions:
            if u.name not in users:
                users.append(u.name)
            error = self._check(u.name, u.mechanism, seen) or self._check_upsertion(u)
            if error is not None:
                errors.setdefault(u.name, error)
                continue
            stored, server = scram_keys(ScramMechanism(u.mechanism), u.salted_password)
            per_user.setdefault(u.name, []).append(UserScramCredentialRecord(
                name=u.name, mechanism=u.mechanism, salt=u.salt, stored_key=stored,
                server_key=server, iterations=u.iterations))
        records: list[Message] = []
        response = AlterUserScramCredentialsResponse()
        for user in users:
            error = errors.get(user)
            if error is None:
                records += per_user.get(user, [])
                response.results.append(AlterUserScramCredentialsResponse.AlterUserScramCredentialsResult(
                    user=user, error_code=0, error_message=None))
            else:
                response.results.append(AlterUserScramCredentialsResponse.AlterUserScramCredentialsResult(
                    user=user, error_code=int(error.error), error_message=error.message))
        return ControllerResult.atomic_of(records, response)

    @staticmethod
    def _check(name: str, mechanism: int, seen: dict[tuple[str, int], int]) -> ApiError | None:
        if not name:
            return ApiError(ErrorCode.UNACCEPTABLE_CREDENTIAL, "Username must not be empty")
        if mechanism not in _HASH:
            return ApiError(ErrorCode.UNSUPPORTED_SASL_MECHANISM, "Unknown SCRAM mechanism")
        if seen[(name, mechanism)] > 1:
            return ApiError(ErrorCode.DUPLICATE_RESOURCE,
                            "A user credential cannot be altered twice in the same request")
        return None

    def _check_deletion(self, d: AlterUserScramCredentialsRequest.ScramCredentialDeletion
                        ) -> ApiError | None:
        if self.metadata.image.scram.credential(ScramMechanism(d.mechanism), d.name) is None:
            return ApiError(ErrorCode.RESOURCE_NOT_FOUND,
                            "Attempt to delete a user credential that does not exist")
        return None

    @staticmethod
    def _check_upsertion(u: AlterUserScramCredentialsRequest.ScramCredentialUpsertion
                         ) -> ApiError | None:
        if u.iterations < MIN_ITERATIONS:
            return ApiError(ErrorCode.UNACCEPTABLE_CREDENTIAL, "Too few iterations")
        if u.iterations > MAX_ITERATIONS:
            return ApiError(ErrorCode.UNACCEPTABLE_CREDENTIAL, "Too many iterations")
        return None
