"""ProduceChecks: a Produce whose check runs in the worker process appends before any later
Produce to the same partition; other partitions are not held; the check's outcome is
handed to the log (here a stand-in log)."""
from __future__ import annotations

import asyncio

from kafpy.broker.produce_checks import ProduceChecks


class StandInLog:
    """Stands in for a Log: records the outcome it is handed."""

    def __init__(self) -> None:
        self.checked: list[tuple[object, object]] = []

    def ahead_settings(self) -> tuple:
        return True, None, 1 << 20

    def checked_ahead(self, records: object, outcome: object) -> None:
        self.checked.append((records, outcome))


def slow_work_ahead(records: bytes, *settings: object) -> tuple:
    """Runs in the worker process: waits for the test to let it go (a file appears)."""
    import os
    import time
    path = records.decode()
    while not os.path.exists(path):
        time.sleep(0.01)
    return None, None


def test_a_later_produce_to_the_partition_waits_for_the_checked_one(tmp_path, monkeypatch):
    from kafpy.broker import produce_checks
    monkeypatch.setattr(produce_checks, "work_ahead", slow_work_ahead)
    release = tmp_path / "release"
    big = str(release).encode()

    async def scenario() -> list[str]:
        checks = ProduceChecks()
        log = StandInLog()
        order: list[str] = []

        def appender(name: str):
            def do_append():
                order.append(name)
                fut = asyncio.get_running_loop().create_future()
                fut.set_result(name)
                return fut
            return do_append

        try:
            heavy = asyncio.create_task(checks.append([("t", 0, big)], [(log, big)], appender("heavy")))  # type: ignore[list-item]
            await asyncio.sleep(0.05)
            assert checks.must_wait([("t", 0, b"small")]) and not checks.must_wait([("t", 1, b"x")])
            light = asyncio.create_task(checks.append([("t", 0, b"small")], [], appender("light")))
            other = asyncio.create_task(checks.append([("t", 1, b"x")], [], appender("other")))
            await asyncio.wait_for(other, 5)   # another partition goes ahead at once
            await asyncio.sleep(0.2)
            assert order == ["other"] and not light.done() and not heavy.done()
            release.write_text("go")
            assert await asyncio.wait_for(light, 60) == "light"
            assert await heavy == "heavy"
            assert log.checked == [(big, (None, None))]
            assert not checks.must_wait([("t", 0, b"small")])   # nothing left in line
        finally:
            checks.close()
        return order

    assert asyncio.run(scenario()) == ["other", "heavy", "light"]
