"""``kafpy.http.authentication.method=BASIC``: the HTTP stack's logins are the broker's SASL
users, and, when the broker has an authorizer, its requests are checked against the broker's
ACLs as ``User:<name>`` (the mapping is in ``kafpy.broker.http_acls``).

Who may call it: ``kafpy.broker.http_routes`` when it builds the HTTP server.

Users: a PLAIN user of any SASL listener's JAAS config (``user_<name>="<password>"``), or a
SCRAM user (SCRAM-SHA-256 or -512 credentials in ZooKeeper or the standalone file, as made
with ``kafka-configs.sh --alter --add-config 'SCRAM-SHA-256=[password=...]'``). A SCRAM
password is checked by deriving the stored key from it with the credential's salt and
iterations (PBKDF2, several milliseconds): it runs in the default executor, off the event
loop, and a verified (user, password) is remembered for ``VERIFIED_TTL_S`` so a client
sending the same header on every request pays it once; a changed or deleted credential takes
effect within that time. Failed logins are not remembered.
"""
from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import logging
import time
from typing import TYPE_CHECKING, Callable

from aiohttp import web

from kafpy.broker.http_acls import (
    AUTO_CREATING_ROUTES, BODY_ROUTES, CLUSTER_NAME, ROUTE_NEEDS, body_needs, plain_template, route_needs)
from kafpy.broker.security.acl import AclOperation, ResourceType
from kafpy.broker.security.scram import HASHES, ScramCredential, credential_from_salted_password, salted_password
from kafpy.web.access import BODY_KEY, MAY_KEY, May
from kafpy.web.basic_auth import BasicAuth

log = logging.getLogger(__name__)

if TYPE_CHECKING:
    from kafpy.broker.config import KafkaConfig
    from kafpy.broker.security.authorizer import Authorizer
    from kafpy.broker.security.credentials import UserConfigs

VERIFIED_TTL_S = 10.0
MAX_VERIFIED = 1024


def _scram_matches(mechanism: str, credential: ScramCredential, password: str) -> bool:
    salted = salted_password(mechanism, password, credential.salt, credential.iterations)
    derived = credential_from_salted_password(mechanism, salted, credential.salt, credential.iterations)
    return hmac.compare_digest(derived.stored_key, credential.stored_key)


class SaslUsers:
    """Checks HTTP Basic credentials against the broker's PLAIN users (``plain_users``, name ->
    password) and SCRAM credentials (``user_configs``, None before the broker's metadata store
    is up); keeps the recently verified SCRAM logins."""

    def __init__(self, plain_users: dict[str, str], user_configs: "UserConfigs | None",
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.plain_users = plain_users
        self.user_configs = user_configs
        self.clock = clock
        self._verified: dict[tuple[str, bytes], float] = {}

    async def authenticate(self, user: str, password: str) -> bool:
        expected = self.plain_users.get(user)
        if expected is not None:
            return hmac.compare_digest(expected.encode(), password.encode())
        if self.user_configs is None:
            return False
        key = (user, hashlib.sha256(password.encode()).digest())
        verified_at = self._verified.get(key)
        if verified_at is not None and self.clock() - verified_at < VERIFIED_TTL_S:
            return True
        await self.user_configs.refresh(user)
        loop = asyncio.get_running_loop()
        for mechanism in HASHES:
            credential = self.user_configs.credential(user, mechanism)
            if credential is not None and await loop.run_in_executor(
                    None, _scram_matches, mechanism, credential, password):
                if len(self._verified) >= MAX_VERIFIED:
                    self._verified.clear()
                self._verified[key] = self.clock()
                return True
        self._verified.pop(key, None)
        return False


class AclCheck:
    """Authorizes one HTTP request with the broker's authorizer and ``http_acls``' mapping."""

    def __init__(self, authorizer: "Authorizer", topic_exists: Callable[[str], bool] = lambda _: True) -> None:
        self.authorizer = authorizer
        self.topic_exists = topic_exists

    def may(self, principal: str, host: str) -> May:
        """The caller's rights as ``kafpy.web.access`` asks for them (by Kafka's names)."""
        def check(resource_type: str, name: str, operation: str) -> bool:
            return self.authorizer.authorize(principal, host, AclOperation[operation], ResourceType[resource_type], name)
        return check

    async def authorize(self, request: web.Request, principal: str) -> bool:
        resource = request.match_info.route.resource
        if resource is None:   # no route matched: the 404 / 405 needs no right
            return True
        host = request.remote or ""
        request[MAY_KEY] = self.may(principal, host)
        template, method = plain_template(resource.canonical), request.method
        if "{" in template and (method, template) not in ROUTE_NEEDS:
            # a route naming a resource without a rule: refuse rather than let it need nothing
            log.warning("HTTP %s %s has no authorization rule: refused", method, template)
            return False
        needs = route_needs(method, template, request.match_info)
        if (method, template) in BODY_ROUTES:
            # read whole by the HTTP server before authorization (bounded in size and time)
            body = request.get(BODY_KEY)
            if body is None:
                request[BODY_KEY] = body = await request.read()
            try:
                needs += body_needs(method, template, json.loads(body))
            except ValueError:
                pass   # the handler answers the malformed body
        if not all(self.authorizer.authorize(principal, host, op, rt, name) for rt, name, op in needs):
            return False
        if (method, template) in AUTO_CREATING_ROUTES and not self.topic_exists(request.match_info["topic"]):
            return (self.authorizer.authorize(principal, host, AclOperation.CREATE, ResourceType.CLUSTER, CLUSTER_NAME)
                    or self.authorizer.authorize(principal, host, AclOperation.CREATE, ResourceType.TOPIC,
                                                 request.match_info["topic"]))
        return True


def basic_auth(config: KafkaConfig, plain_users: dict[str, str], user_configs: "UserConfigs | None",
               authorizer: "Authorizer | None",
               topic_exists: Callable[[str], bool] = lambda _: True) -> BasicAuth | None:
    """The BasicAuth of ``config``; None when ``kafpy.http.authentication.method`` is NONE.
    ``topic_exists`` answers from the broker's metadata cache."""
    if config["kafpy.http.authentication.method"] != "BASIC":
        return None
    users = SaslUsers(plain_users, user_configs)
    check = AclCheck(authorizer, topic_exists) if authorizer is not None else None
    return BasicAuth(users.authenticate, check.authorize if check is not None else None,
                     realm=config["kafpy.http.authentication.realm"],
                     skip_paths=frozenset(config["kafpy.http.authentication.skip.paths"]))
