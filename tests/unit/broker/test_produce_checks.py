"""ProduceChecks: a Produce whose check runs in the worker thread appends before any later
Produce to the same partition; other partitions are not held; the check's outcome is
the log's (here a stand-in log)."""
from __future__ import annotations

import asyncio
import threading

from kafpy.broker.produce_checks import ProduceChecks


class SlowLog:
    """Stands in for a Log: check_ahead blocks its (worker) thread until released."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.checked: list[object] = []

    def check_ahead(self, records: object) -> None:
        assert threading.current_thread() is not threading.main_thread()
        self.release.wait(10)
        self.checked.append(records)


def test_a_later_produce_to_the_partition_waits_for_the_checked_one():
    async def scenario() -> list[str]:
        checks = ProduceChecks()
        log = SlowLog()
        order: list[str] = []

        def appender(name: str):
            def do_append():
                order.append(name)
                fut = asyncio.get_running_loop().create_future()
                fut.set_result(name)
                return fut
            return do_append

        heavy = asyncio.create_task(checks.append([("t", 0, b"big")], [(log, b"big")], appender("heavy")))
        await asyncio.sleep(0.05)
        assert checks.must_wait([("t", 0, b"small")]) and not checks.must_wait([("t", 1, b"x")])
        light = asyncio.create_task(checks.append([("t", 0, b"small")], [], appender("light")))
        other = asyncio.create_task(checks.append([("t", 1, b"x")], [], appender("other")))
        await asyncio.wait_for(other, 5)   # another partition goes ahead at once
        await asyncio.sleep(0.05)
        assert order == ["other"] and not light.done()
        log.release.set()
        assert await asyncio.wait_for(light, 5) == "light"
        assert await heavy == "heavy"
        assert not checks.must_wait([("t", 0, b"small")])   # nothing left in line
        checks.close()
        return order

    assert asyncio.run(scenario()) == ["other", "heavy", "light"]
