"""SaslHandshake (17), SaslAuthenticate (36), DescribeUserScramCredentials (50) and
AlterUserScramCredentials (51).

The SASL handlers drive the connection's ``AuthSession`` (``ctx.session``); on a listener
without SASL (or after authentication, when re-authentication is off) they answer
ILLEGAL_SASL_STATE as Kafka's KafkaApis does. A failed login is answered after
``connection.failed.authentication.delay.ms`` and the socket server then closes the
connection. The credential APIs read and write ``ctx.services.user_configs``.
"""
from __future__ import annotations

import asyncio
from collections import Counter

from kafpy.protocol import messages
from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.api_keys import ApiKey

from kafpy.broker.handler import Handler, RequestContext
from kafpy.broker.security.scram import (MAX_ITERATIONS, MECHANISM_NUMBERS, MECHANISM_TYPES, MIN_ITERATIONS,
                                   credential_from_salted_password)


async def handle_sasl_handshake(ctx: RequestContext, req: messages.SaslHandshakeRequest) -> messages.SaslHandshakeResponse:
    session = ctx.session
    if session is None:
        return messages.SaslHandshakeResponse(error_code=ErrorCode.ILLEGAL_SASL_STATE, mechanisms=[])
    error, mechanisms = session.handshake(ctx.api_version, req.mechanism)
    return messages.SaslHandshakeResponse(error_code=error, mechanisms=mechanisms)


async def handle_sasl_authenticate(ctx: RequestContext, req: messages.SaslAuthenticateRequest) -> messages.SaslAuthenticateResponse:
    session = ctx.session
    if session is None or session.state != "AUTHENTICATE":
        return messages.SaslAuthenticateResponse(
            error_code=ErrorCode.ILLEGAL_SASL_STATE,
            error_message="SaslAuthenticate request received after successful authentication")
    error, message, token, lifetime = await session.authenticate(req.auth_bytes)
    if session.failed:
        await asyncio.sleep(session.listener.failed_auth_delay_ms / 1000)
    return messages.SaslAuthenticateResponse(error_code=error, error_message=message, auth_bytes=token,
                                      session_lifetime_ms=lifetime)


async def handle_describe_user_scram_credentials(ctx: RequestContext, req: messages.DescribeUserScramCredentialsRequest) -> messages.DescribeUserScramCredentialsResponse:
    store = ctx.services.user_configs
    if req.users is None or not req.users:
        names = await store.users() if store else []
        explicit = False
    else:
        names = [u.name for u in req.users]
        explicit = True
    counts = Counter(names)
    results = []
    for name in dict.fromkeys(names):
        if counts[name] > 1:
            results.append(messages.DescribeUserScramCredentialsResponse.DescribeUserScramCredentialsResult(
                user=name, error_code=ErrorCode.DUPLICATE_RESOURCE,
                error_message=f"Cannot describe SCRAM credentials for the same user twice in a single request: {name}"))
            continue
        creds = await store.scram_configs(name) if store else {}
        if not creds:
            if explicit:
                results.append(messages.DescribeUserScramCredentialsResponse.DescribeUserScramCredentialsResult(
                    user=name, error_code=ErrorCode.RESOURCE_NOT_FOUND,
                    error_message=f"Attempt to describe a user credential that does not exist: {name}"))
            continue
        results.append(messages.DescribeUserScramCredentialsResponse.DescribeUserScramCredentialsResult(user=name, credential_infos=[
            messages.DescribeUserScramCredentialsResponse.CredentialInfo(mechanism=MECHANISM_NUMBERS[m], iterations=c.iterations)
            for m, c in sorted(creds.items())]))
    return messages.DescribeUserScramCredentialsResponse(results=results)


def _alter_error(mechanism: int, iterations: int | None, name: str) -> tuple[int, str] | None:
    if not name:
        return ErrorCode.UNACCEPTABLE_CREDENTIAL, "Username must not be empty"
    if mechanism not in MECHANISM_TYPES:
        return ErrorCode.UNSUPPORTED_SASL_MECHANISM, "Unknown SCRAM mechanism"
    if iterations is not None and iterations < MIN_ITERATIONS:
        return ErrorCode.UNACCEPTABLE_CREDENTIAL, "Too few iterations"
    if iterations is not None and iterations > MAX_ITERATIONS:
        return ErrorCode.UNACCEPTABLE_CREDENTIAL, "Too many iterations"
    return None


async def handle_alter_user_scram_credentials(ctx: RequestContext, req: messages.AlterUserScramCredentialsRequest) -> messages.AlterUserScramCredentialsResponse:
    """Kafka's checks, per user: a user named twice for one mechanism fails as a whole
    (DUPLICATE_RESOURCE); any bad entry fails that user's whole change; deleting a
    credential that does not exist is RESOURCE_NOT_FOUND."""
    store = ctx.services.user_configs
    users = list(dict.fromkeys([d.name for d in req.deletions] + [u.name for u in req.upsertions]))
    pairs = Counter([(d.name, d.mechanism) for d in req.deletions] + [(u.name, u.mechanism) for u in req.upsertions])
    errors: dict[str, tuple[int, str]] = {}
    for name in users:
        if any(n == name and c > 1 for (n, _m), c in pairs.items()):
            errors[name] = (ErrorCode.DUPLICATE_RESOURCE, "A user credential cannot be altered twice in the same request")
    for d in req.deletions:
        err = _alter_error(d.mechanism, None, d.name)
        if err and d.name not in errors:
            errors[d.name] = err
    for u in req.upsertions:
        err = _alter_error(u.mechanism, u.iterations, u.name)
        if err and u.name not in errors:
            errors[u.name] = err
    results = []
    for name in users:
        if name in errors:
            code, msg = errors[name]
            results.append(messages.AlterUserScramCredentialsResponse.AlterUserScramCredentialsResult(user=name, error_code=code, error_message=msg))
            continue
        if store is None:
            results.append(messages.AlterUserScramCredentialsResponse.AlterUserScramCredentialsResult(
                user=name, error_code=ErrorCode.UNKNOWN_SERVER_ERROR, error_message="No credential store"))
            continue
        existing = await store.scram_configs(name)
        deletions = [MECHANISM_TYPES[d.mechanism] for d in req.deletions if d.name == name]
        missing = [m for m in deletions if m not in existing]
        if missing:
            results.append(messages.AlterUserScramCredentialsResponse.AlterUserScramCredentialsResult(
                user=name, error_code=ErrorCode.RESOURCE_NOT_FOUND,
                error_message="Attempt to delete a user credential that does not exist"))
            continue
        upserts = {MECHANISM_TYPES[u.mechanism]: credential_from_salted_password(
            MECHANISM_TYPES[u.mechanism], bytes(u.salted_password), bytes(u.salt), u.iterations)
            for u in req.upsertions if u.name == name}
        await store.alter(name, upserts, deletions)
        results.append(messages.AlterUserScramCredentialsResponse.AlterUserScramCredentialsResult(user=name))
    return messages.AlterUserScramCredentialsResponse(results=results)


def _versions(api_key: int) -> tuple[int, int]:
    spec = messages.API_KEYS[api_key]
    return spec.min_version, spec.max_version


HANDLERS = [
    Handler(ApiKey.SASL_HANDSHAKE, *_versions(ApiKey.SASL_HANDSHAKE), handle_sasl_handshake),
    Handler(ApiKey.SASL_AUTHENTICATE, *_versions(ApiKey.SASL_AUTHENTICATE), handle_sasl_authenticate),
    Handler(ApiKey.DESCRIBE_USER_SCRAM_CREDENTIALS, *_versions(ApiKey.DESCRIBE_USER_SCRAM_CREDENTIALS), handle_describe_user_scram_credentials),
    Handler(ApiKey.ALTER_USER_SCRAM_CREDENTIALS, *_versions(ApiKey.ALTER_USER_SCRAM_CREDENTIALS), handle_alter_user_scram_credentials),
]
