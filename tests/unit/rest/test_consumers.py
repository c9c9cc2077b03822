"""v2 consumer instances: found by (group, name), Confluent's codes for a duplicate (40902),
an unknown instance (40403), too many (50004), a bad format or reset (42204); closed after
the idle timeout by the clock passed in, committing first when they auto-commit."""
import asyncio

import pytest

from kafpy.registry.errors import RestError
from kafpy.rest.consumers import ConsumerManager


class FakeConsumer:
    def __init__(self, **config):
        self.config = config
        self.events = []

    async def start(self):
        self.events.append("start")

    def assignment(self):
        return {"tp"}

    async def commit(self):
        self.events.append("commit")

    async def stop(self):
        self.events.append("stop")


class Clock:
    now = 0.0

    def __call__(self):
        return self.now


def test_instances_lifecycle():
    clock = Clock()
    mgr = ConsumerManager("b:9092", max_instances=2, instance_timeout_s=10, clock=clock, consumer_factory=FakeConsumer)

    async def scenario():
        a = await mgr.create("g", {"name": "a", "format": "json", "auto.offset.reset": "earliest"})
        assert a.consumer.config["group_id"] == "g" and a.consumer.config["auto_offset_reset"] == "earliest"
        with pytest.raises(RestError) as e:
            await mgr.create("g", {"name": "a"})
        assert e.value.code == 40902
        b = await mgr.create("g", {"name": "b", "auto.commit.enable": "false"})
        with pytest.raises(RestError) as e:
            await mgr.create("g", {"name": "c"})
        assert e.value.code == 50004
        clock.now = 8
        mgr.get("g", "a")                      # touched: not idle
        clock.now = 15
        assert await mgr.expire_idle() == [("g", "b")]
        assert b.consumer.events == ["start", "stop"]          # no auto-commit: no commit
        await mgr.delete("g", "a")
        assert a.consumer.events == ["start", "commit", "stop"]
        with pytest.raises(RestError) as e:
            mgr.get("g", "a")
        assert e.value.code == 40403
        for bad in ({"format": "xml"}, {"auto.offset.reset": "sometimes"}):
            with pytest.raises(RestError) as e:
                await mgr.create("g", bad)
            assert e.value.code == 42204
        await mgr.stop()
    asyncio.run(scenario())


def test_an_instance_is_its_creators_and_each_principal_has_a_share():
    async def body():
        mgr = ConsumerManager("b:9092", max_instances=10, max_instances_per_principal=2,
                              consumer_factory=FakeConsumer)
        await mgr.create("g", {"name": "a1"}, "User:alice")
        await mgr.create("g", {"name": "a2"}, "User:alice")
        with pytest.raises(RestError) as e:
            await mgr.create("g", {"name": "a3"}, "User:alice")
        assert e.value.code == 50004
        await mgr.create("g", {"name": "b1"}, "User:bob")   # another principal's share is untouched
        assert mgr.get("g", "a1", "User:alice").owner == "User:alice"
        for stranger in ("User:bob", None):
            with pytest.raises(RestError) as e:
                mgr.get("g", "a1", stranger)
            assert e.value.code == 40403
            with pytest.raises(RestError):
                await mgr.delete("g", "a1", stranger)
        await mgr.delete("g", "a1", "User:alice")
        await mgr.create("g", {"name": "a3"}, "User:alice")   # a freed share is usable again
        await mgr.stop()
    asyncio.run(body())
