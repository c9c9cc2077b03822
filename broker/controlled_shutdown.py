"""A ZooKeeper-mode broker's controlled shutdown (KafkaServer.controlledShutdown): before it
stops serving, the broker asks the active controller — over the network, even when that is
itself — to move its leaderships away, so clients fail over without waiting for the session
timeout. It retries controlled.shutdown.max.retries times, controlled.shutdown.retry.backoff.ms
apart, while the controller answers an error or partitions it could not move yet, then goes
on with an unclean shutdown.

Who may call it: the Broker's shutdown, on the event loop, while its socket server still
answers (the controller sends it LeaderAndIsr and StopReplica meanwhile). Nothing on disk.
"""
from __future__ import annotations

import asyncio
import logging
from typing import Awaitable, Callable

from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import ControlledShutdownRequest
from kafpy.protocol.api_keys import ApiKey

from kafpy.broker.config import KafkaConfig
from kafpy.replication.metadata_cache import MetadataCache
from kafpy.replication.network_client import ConnectionSecurity, NetworkClient, NetworkClientConfig

log = logging.getLogger("kafka.server.KafkaServer")


ClientFactory = Callable[[str, int, int], NetworkClient]  # (host, port, controller id) -> client


async def controlled_shutdown(config: KafkaConfig, cache: MetadataCache, broker_epoch: Callable[[], int],
                              clock: Callable[[], float], client_factory: ClientFactory,
                              sleep: Callable[[float], Awaitable[None]] = asyncio.sleep) -> bool:
    """Ask the controller the metadata cache names until it has moved every leadership away;
    True when it did. ``broker_epoch`` is read for each attempt (a re-registration changes it)."""
    broker_id = config.broker_id
    remaining_retries = config["controlled.shutdown.max.retries"]
    backoff_s = config["controlled.shutdown.retry.backoff.ms"] / 1000
    log.info("[KafkaServer id=%d] Starting controlled shutdown", broker_id)
    client: NetworkClient | None = None
    target: tuple[int, str, int] | None = None
    start = clock()
    try:
        while remaining_retries > 0:
            remaining_retries -= 1
            controller_id = cache.controller_id
            node = cache.broker(controller_id) if controller_id >= 0 else None
            if node is None:
                log.info("[KafkaServer id=%d] No controller known yet for the controlled shutdown", broker_id)
            else:
                if target != (node.node_id, node.host, node.port):
                    if client is not None:
                        await client.close()
                    client = client_factory(node.host, node.port, node.node_id)
                    target = (node.node_id, node.host, node.port)
                assert client is not None
                try:
                    resp = await client.send(ApiKey.CONTROLLED_SHUTDOWN, ControlledShutdownRequest(
                        broker_id=broker_id, broker_epoch=broker_epoch()))
                    remaining = [(r.topic_name, r.partition_index) for r in resp.remaining_partitions]
                    if resp.error_code != ErrorCode.NONE:
                        log.info("[KafkaServer id=%d] Controlled shutdown request returned after %s failed with "
                                 "error %s", broker_id, remaining, ErrorCode(resp.error_code).name)
                    elif not remaining:
                        log.info("[KafkaServer id=%d] Controlled shutdown request returned successfully after %dms",
                                 broker_id, int((clock() - start) * 1000))
                        return True
                    else:
                        log.info("[KafkaServer id=%d] Remaining partitions to move: %s", broker_id, remaining)
                except asyncio.CancelledError:
                    raise
                except Exception as e:  # noqa: BLE001 - a lost connection or timeout: try again after the backoff
                    log.warning("[KafkaServer id=%d] Error during controlled shutdown, possibly because leader "
                                "movement took longer than the configured controller.socket.timeout.ms and/or "
                                "request.timeout.ms: %s", broker_id, e)
                    await client.close()
                    client, target = None, None
            if remaining_retries > 0:
                await sleep(backoff_s)
                log.info("[KafkaServer id=%d] Retrying controlled shutdown (%d retries remaining)", broker_id,
                         remaining_retries)
        log.warning("[KafkaServer id=%d] Proceeding to do an unclean shutdown as all the controlled shutdown "
                    "attempts failed", broker_id)
        return False
    finally:
        if client is not None:
            await client.close()


def controller_client_factory(config: KafkaConfig, loop: asyncio.AbstractEventLoop,
                              security: "ConnectionSecurity | None" = None) -> ClientFactory:
    """NetworkClients to the controller, bounded by controller.socket.timeout.ms, over the
    inter-broker listener's ``security``."""
    client_config = NetworkClientConfig(request_timeout_ms=config["controller.socket.timeout.ms"])

    def make(host: str, port: int, controller_id: int) -> NetworkClient:
        return NetworkClient(host, port, client_id=f"broker-{config.broker_id}-controlled-shutdown",
                             node_id=controller_id, config=client_config, loop=loop, security=security)
    return make
