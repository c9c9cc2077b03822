"""Applies the authorization rules (``kafpy.broker.authorization_rules.RULES``, one row per
Kafka API) by wrapping the handlers before the broker serves them, and starts the authorizer.
An API served without a rule is refused (closed connection) rather than served unchecked.

With no authorizer (``authorizer.class.name`` empty) ``guard_registry`` is not called and the
handlers run bare: no cost at all. With one, a check is the authorizer's cached decision.

Who may call it: the broker, once at startup (``start_authorizer``, ``guard_registry``).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Collection, cast

from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.message_base import Message

from kafpy.broker.apis import ApiRegistry
from kafpy.broker.authorization_rules import RULES
from kafpy.broker.authz_check import AuthzCheck, RuleCall, no_check, principal_of
from kafpy.broker.error_responses import error_response
from kafpy.broker.handler import CloseConnection, Handler, RequestContext
from kafpy.broker.security.acl_store import LocalAclStore, ZkAclStore
from kafpy.broker.security.authorizer import AclStore, Authorizer, create_authorizer

if TYPE_CHECKING:
    from kafpy.broker.admin_controller import AdminController
    from kafpy.broker.config import KafkaConfig
    from kafpy.replication.zk_client import KafkaZkClient

__all__ = ["guard_registry", "RULES"]


def guard(handler: Handler, authorizer: Authorizer, early_start: Collection[str] = (),
          forwarded: Collection[int] = ()) -> Handler:
    """``handler`` with its API's rule in front (none for the APIs of ``forwarded``: a KRaft
    broker forwards them and the controller authorizes them as the client); while ``authorizer`` is not ready (a KRaft
    node before its initial ACL load) a request waits for it, except on the listeners of
    ``early_start``, where anyone but a super user is answered UNKNOWN_SERVER_ERROR (Kafka's
    AuthorizerNotReadyException) and a super user is served."""
    rule = no_check if handler.api_key in forwarded else RULES.get(handler.api_key)
    inner = handler.func
    if rule is no_check:
        if authorizer.ready:
            return handler

        async def unchecked(ctx: RequestContext, req: Message) -> Message | None:
            if not authorizer.ready and ctx.listener not in early_start:
                await authorizer.wait_ready()
            return await inner(ctx, req)
        return Handler(handler.api_key, handler.min_version, handler.max_version, unchecked)

    if rule is None:
        async def refuse(ctx: RequestContext, req: Message) -> Message | None:
            raise CloseConnection(f"api key {handler.api_key} has no authorization rule")
        return Handler(handler.api_key, handler.min_version, handler.max_version, refuse)

    call = cast(RuleCall, rule)   # RULES holds it under the API whose request dispatch decodes

    async def checked(ctx: RequestContext, req: Message) -> Message | None:
        if not authorizer.ready:
            if ctx.listener not in early_start:
                await authorizer.wait_ready()
            elif not authorizer.is_super_user(principal_of(ctx)):
                return error_response(ctx.header.request_api_key, ctx.api_version, req,
                                      ErrorCode.UNKNOWN_SERVER_ERROR)
        return await call(AuthzCheck(ctx, authorizer), ctx, req, inner)
    return Handler(handler.api_key, handler.min_version, handler.max_version, checked)


async def start_authorizer(config: KafkaConfig, zk: KafkaZkClient | None, controller: AdminController | None,
                           clock: Callable[[], float]) -> Authorizer | None:
    """The authorizer ``authorizer.class.name`` names, loaded and started, with its ACLs in
    ZooKeeper (``zk`` given) or in the standalone controller's metadata file; None when the
    setting is empty."""
    if not config["authorizer.class.name"]:
        return None
    if zk is not None:
        store: AclStore = ZkAclStore(zk, clock)
    else:
        from kafpy.broker.controller import StandaloneController
        assert isinstance(controller, StandaloneController), "a broker without ZooKeeper is standalone"
        store = LocalAclStore(controller.acls, controller.update_acls)
    authorizer = create_authorizer(config, store)
    if authorizer is not None:
        await authorizer.start()
    return authorizer


def guard_registry(apis: ApiRegistry, authorizer: Authorizer, early_start: Collection[str] = (),
                   forwarded: Collection[int] = ()) -> ApiRegistry:
    """The same APIs and versions, each behind its authorization rule (``early_start``: the
    listeners served before the authorizer is ready; ``forwarded``: the APIs the controller
    authorizes)."""
    return ApiRegistry([guard(h, authorizer, early_start, forwarded) for h in apis.by_key.values()])


def early_start_listeners(config: KafkaConfig) -> frozenset[str]:
    """``early.start.listeners``, upper-cased as listener names are."""
    return frozenset(n.strip().upper() for n in config.values.get("early.start.listeners") or [] if n.strip())

