"""A live group outlives a broker crash: the Stable group is rebuilt from
__consumer_offsets, so members reconnect, keep heartbeating in the same generation
and go on consuming."""

from __future__ import annotations

import asyncio

from tests.integration.coordinator.helpers import create_topic, produce


def test_stable_group_survives_kill_9_without_rebalance(broker_factory):
    from aiokafka import AIOKafkaConsumer
    b = broker_factory({"group.initial.rebalance.delay.ms": 0})
    create_topic(b.bootstrap, "live", 2)
    produce(b.bootstrap, "live", [b"before-%d" % i for i in range(4)], 2)

    async def scenario():
        c = AIOKafkaConsumer("live", bootstrap_servers=b.bootstrap, group_id="live-group",
                             auto_offset_reset="earliest", session_timeout_ms=30_000,
                             heartbeat_interval_ms=1000, retry_backoff_ms=200)
        await c.start()
        got: list[bytes] = []
        loop = asyncio.get_running_loop()
        try:
            deadline = loop.time() + 60
            while len(got) < 4:
                for msgs in (await c.getmany(timeout_ms=200)).values():
                    got.extend(m.value for m in msgs)
                assert loop.time() < deadline, "first messages not consumed"
            await c.commit()
            generation, member = c._coordinator.generation, c._coordinator.member_id
            await loop.run_in_executor(None, b.kill)
            await loop.run_in_executor(None, b.start)
            await loop.run_in_executor(None, produce, b.bootstrap, "live",
                                       [b"after-%d" % i for i in range(4)], 2)
            deadline = loop.time() + 90
            while len(got) < 8:
                for msgs in (await c.getmany(timeout_ms=200)).values():
                    got.extend(m.value for m in msgs)
                assert loop.time() < deadline, f"consumption did not resume: {got}"
            return got, generation, member, c._coordinator.generation, c._coordinator.member_id
        finally:
            # aiokafka's close commits once more and retries that commit, without looking the
            # coordinator up again, for as long as it is unknown: after a failure above (the
            # broker down) it never returns, and the test would end on its 300 s timeout
            # instead of the failure's own message
            try:
                await asyncio.wait_for(c.stop(), 30)
            except asyncio.TimeoutError:
                pass

    got, gen_before, member_before, gen_after, member_after = asyncio.run(scenario())
    assert sorted(got) == sorted([b"before-%d" % i for i in range(4)] +
                                 [b"after-%d" % i for i in range(4)])
    assert (gen_after, member_after) == (gen_before, member_before)
