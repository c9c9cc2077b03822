"""The controlled shutdown loop: it asks the controller the metadata cache names, retries
controlled.shutdown.max.retries times controlled.shutdown.retry.backoff.ms apart, and gives up
with Kafka's "unclean shutdown" warning. The controller is a scripted stand-in client."""
from __future__ import annotations

import asyncio
import logging
from typing import Any, cast

from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import ControlledShutdownResponse

from kafpy.broker.config import KafkaConfig
from kafpy.broker.controlled_shutdown import ClientFactory, controlled_shutdown
from kafpy.replication.metadata_cache import BrokerInfo, MetadataCache

R = ControlledShutdownResponse


class ScriptedController:
    """Answers each ControlledShutdown with the next scripted response (or raises it)."""

    def __init__(self, script: list[Any]) -> None:
        self.script = script
        self.requests: list[tuple[int, int]] = []
        self.clients: list[tuple[str, int, int]] = []
        self.closed = 0

    def factory(self, host: str, port: int, controller_id: int) -> "ScriptedController":
        self.clients.append((host, port, controller_id))
        return self

    async def send(self, api_key: int, body: Any) -> Any:
        assert api_key == 7
        self.requests.append((body.broker_id, body.broker_epoch))
        answer = self.script.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    async def close(self) -> None:
        self.closed += 1


def run(script: list[Any], controller_id: int = 1, retries: int = 3) -> tuple[bool, ScriptedController, list[float]]:
    config = KafkaConfig({"broker.id": "2", "log.dirs": "/unused", "controlled.shutdown.max.retries": str(retries),
                          "controlled.shutdown.retry.backoff.ms": "5000"})
    cache = MetadataCache("cluster", BrokerInfo(2, "127.0.0.1", 9094))
    cache.update(controller_id=controller_id, brokers=[BrokerInfo(1, "127.0.0.1", 9093), BrokerInfo(2, "127.0.0.1", 9094)])
    controller = ScriptedController(script)
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    factory = cast(ClientFactory, controller.factory)   # the scripted controller stands in for a NetworkClient
    done = asyncio.run(controlled_shutdown(config, cache, lambda: 77, lambda: 0.0, factory, sleep))
    return done, controller, slept


def test_succeeds_once_no_partition_remains():
    remaining = R(error_code=ErrorCode.NONE, remaining_partitions=[R.RemainingPartition(topic_name="t", partition_index=0)])
    done, controller, slept = run([remaining, R(error_code=ErrorCode.NONE, remaining_partitions=[])])
    assert done
    assert controller.requests == [(2, 77), (2, 77)]
    assert controller.clients == [("127.0.0.1", 9093, 1)]
    assert slept == [5.0]
    assert controller.closed == 1


def test_gives_up_after_the_retries_with_an_unclean_shutdown(caplog):
    not_controller = R(error_code=ErrorCode.NOT_CONTROLLER, remaining_partitions=[])
    with caplog.at_level(logging.INFO, logger="kafka.server.KafkaServer"):
        done, controller, slept = run([not_controller, ConnectionError("refused"), not_controller])
    assert not done
    assert len(controller.requests) == 3
    assert slept == [5.0, 5.0]
    messages = [r.getMessage() for r in caplog.records]
    assert any("failed with error NOT_CONTROLLER" in m for m in messages)
    assert any("Retrying controlled shutdown (1 retries remaining)" in m for m in messages)
    assert messages[-1].endswith("Proceeding to do an unclean shutdown as all the controlled shutdown attempts failed")


def test_without_a_known_controller_nothing_is_sent():
    done, controller, slept = run([], controller_id=-1, retries=2)
    assert (done, controller.requests, slept) == (False, [], [5.0])
