"""kafpy.coordinator.group.service without sockets: real storage Logs under a small stand-in for the
replica manager (the `get_partition` / `append_records` / `read_from_log` interface the
broker's ReplicaManager offers), whose commits the tests release by hand.
Covers: the offsets topic requested on the first FindCoordinator, commits answered only
once committed, error mapping, replay by a new service, leadership epochs."""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field

from kafpy.protocol.errors import ErrorCode as E
from kafpy.protocol.topics import GROUP_METADATA_TOPIC_NAME

from kafpy.coordinator.group import GroupCoordinatorConfig, OffsetAndMetadata
from kafpy.coordinator.runtime import LOAD_SLICE
from kafpy.coordinator.group.service import GroupCoordinatorService
from kafpy.replication.log_read import FetchParams, read_partitions
from kafpy.storage import LogConfig, LogManager

PARTITIONS = 3


@dataclass
class _PartitionInfo:
    leader: int
    leader_epoch: int
    replicas: list[int]
    isr: list[int]


@dataclass
class _Topic:
    partitions: dict[int, _PartitionInfo] = field(default_factory=dict)


@dataclass
class _Broker:
    node_id: int
    host: str
    port: int


class _Partition:
    is_leader = True
    leader_epoch = 0

    def __init__(self, log) -> None:
        self.log = log
        self.refuse: E | None = None


class _ReplicaManager:
    """Leads the `__consumer_offsets` partitions it is told to; a write commits (the
    high watermark moves) only when the test calls `commit`."""

    def __init__(self, log_manager: LogManager, loop: asyncio.AbstractEventLoop) -> None:
        self.log_manager = log_manager
        self.loop = loop
        self.partitions: dict[int, _Partition] = {}
        self.waits: list[tuple[_Partition, int, int, asyncio.Future]] = []

    def lead(self, index: int) -> None:
        cfg = LogConfig.from_properties({"cleanup.policy": "compact"})
        self.partitions[index] = _Partition(
            self.log_manager.get_or_create_log(GROUP_METADATA_TOPIC_NAME, index, cfg))

    def get_partition(self, topic: str, index: int):
        assert topic == GROUP_METADATA_TOPIC_NAME
        return self.partitions.get(index)

    def append_records(self, timeout_ms: int, required_acks: int, origin: str, entries, internal_topics_allowed=False,
                       on_appended=None) -> asyncio.Future:
        assert (required_acks, origin, internal_topics_allowed) == (-1, "coordinator", True)
        [(topic, index, batch)] = entries
        part = self.get_partition(topic, index)
        fut = self.loop.create_future()
        if part.refuse is not None:
            fut.set_result([(part.refuse, part.refuse.name, None, -1)])
            return fut
        info = part.log.append_as_leader(batch, 0, origin=origin)
        self.waits.append((part, info.last_offset + 1, timeout_ms, fut))
        return fut

    def read_from_log(self, params: FetchParams, partitions) -> list:
        return read_partitions(self.get_partition, lambda *_: E.NOT_LEADER_OR_FOLLOWER, params, partitions, False)[0]

    def commit(self, error: E = E.NONE) -> None:
        waits, self.waits = self.waits, []
        for part, offset, _, fut in waits:
            if error == E.NONE:
                part.log.update_high_watermark(offset)
            fut.set_result([(error, None, None, -1)])


class _Cluster:
    """Metadata cache and controller in one: creating the offsets topic makes this
    broker lead every partition and reports it to the service, as the broker does."""

    def __init__(self, rm: _ReplicaManager) -> None:
        self.rm = rm
        self.topics: dict[str, _Topic] = {}
        self.service: GroupCoordinatorService | None = None
        self.creations = 0

    def topic(self, name: str):
        return self.topics.get(name)

    def brokers(self):
        return [_Broker(0, "127.0.0.1", 9092)]

    def elect_all(self) -> None:
        self.topics[GROUP_METADATA_TOPIC_NAME] = _Topic(
            {p: _PartitionInfo(0, 0, [0], [0]) for p in range(PARTITIONS)})
        assert self.service is not None
        for p in range(PARTITIONS):
            self.rm.lead(p)
            self.service.on_elected(p, 0)

    async def ensure_offsets_topic(self) -> None:
        self.creations += 1
        self.elect_all()


@contextlib.asynccontextmanager
async def _service(tmp_path, clock=lambda: 1_000.0, elect=True, start=False):
    """A service over logs in `tmp_path`, this broker leading every partition unless
    `elect` is false; stopped (and the logs closed) on exit."""
    loop = asyncio.get_running_loop()
    lm = LogManager([str(tmp_path)], LogConfig(), start_cleaner=False)
    lm.startup(cluster_id="c", broker_id=0)
    rm = _ReplicaManager(lm, loop)
    cluster = _Cluster(rm)
    config = GroupCoordinatorConfig(offsets_topic_num_partitions=PARTITIONS,
                                    group_initial_rebalance_delay_ms=0)
    svc = GroupCoordinatorService(config, rm, cluster, cluster.ensure_offsets_topic, loop,
                                  clock=clock)
    cluster.service = svc
    try:
        if start:
            await svc.start()
        if elect:
            cluster.elect_all()
            await _loaded(svc)
        yield svc, rm, cluster
    finally:
        await svc.stop()
        lm.shutdown()


def _om(offset: int) -> OffsetAndMetadata:
    return OffsetAndMetadata(offset, -1, "m", 1_000_000)


def _count_polls(coordinator) -> asyncio.Event:
    """An event set each time the service's timer has polled ``coordinator``."""
    polled = asyncio.Event()
    poll = coordinator.poll

    def counted(now_ms: int) -> None:
        poll(now_ms)
        polled.set()
    coordinator.poll = counted
    return polled


async def _settle() -> None:
    for _ in range(3):
        await asyncio.sleep(0)


async def _loaded(svc: GroupCoordinatorService) -> None:
    """Let the background loads finish (they only yield to the loop, never wait)."""
    for _ in range(100):
        if not svc.coordinator.loading_partitions:
            return
        await asyncio.sleep(0)
    raise AssertionError(f"still loading {svc.coordinator.loading_partitions}")


def test_offsets_topic_is_requested_once_and_the_coordinator_found_after(tmp_path):
    async def scenario():
        async with _service(tmp_path, elect=False, start=True) as (svc, rm, cluster):
            assert svc.find_coordinator("g", 0)[0] == E.COORDINATOR_NOT_AVAILABLE
            assert svc.find_coordinator("g", 0)[0] == E.COORDINATOR_NOT_AVAILABLE
            await _settle()
            assert cluster.creations == 1
            assert svc.find_coordinator("g", 0) == (E.NONE, 0, "127.0.0.1", 9092)
            assert svc.coordinator.owned_partitions == set(range(PARTITIONS))
            # transactional ids are the transaction coordinator's
            assert svc.find_coordinator("txn", 1)[0] == E.INVALID_REQUEST
            assert svc.find_coordinator("x", 2)[0] == E.INVALID_REQUEST

    asyncio.run(scenario())


def test_commit_is_answered_and_visible_only_once_committed_then_replayed(tmp_path):
    async def first_life():
        async with _service(tmp_path) as (svc, rm, cluster):
            c = svc.coordinator
            fut = c.commit_offsets("g", "", None, -1, {("t", 0): _om(42)}, svc.now_ms())
            part = rm.partitions[c.partition_for("g")]
            assert part.log.log_end_offset == 1 and part.log.high_watermark == 0
            assert [w[1:3] for w in rm.waits] == [(1, 5000)]    # offsets.commit.timeout.ms
            await _settle()
            assert not fut.done()
            assert c.fetch_offsets("g", [("t", 0)])[1][("t", 0)].offset == -1
            rm.commit()
            assert await fut == {("t", 0): E.NONE}
            assert c.fetch_offsets("g", [("t", 0)])[1][("t", 0)].offset == 42

    async def second_life():
        async with _service(tmp_path, clock=lambda: 2_000.0) as (svc, rm, cluster):
            err, got = svc.coordinator.fetch_offsets("g", None)
            assert (err, got[("t", 0)].offset, got[("t", 0)].metadata) == (E.NONE, 42, "m")

    asyncio.run(first_life())
    asyncio.run(second_life())


def test_failed_writes_answer_coordinator_errors_and_change_nothing(tmp_path):
    async def scenario():
        async with _service(tmp_path) as (svc, rm, cluster):
            c = svc.coordinator
            p = c.partition_for("g")

            async def commit(offset):
                return (await c.commit_offsets("g", "", None, -1, {("t", 0): _om(offset)},
                                               svc.now_ms()))[("t", 0)]

            pending = asyncio.ensure_future(commit(1))
            await _settle()
            rm.commit(E.REQUEST_TIMED_OUT)
            assert await pending == E.COORDINATOR_NOT_AVAILABLE
            pending = asyncio.ensure_future(commit(2))
            await _settle()
            rm.commit(E.NOT_LEADER_OR_FOLLOWER)
            assert await pending == E.NOT_COORDINATOR
            rm.partitions[p].refuse = E.NOT_ENOUGH_REPLICAS
            assert await commit(3) == E.COORDINATOR_NOT_AVAILABLE
            rm.partitions[p].refuse = E.NOT_LEADER_OR_FOLLOWER
            assert await commit(4) == E.NOT_COORDINATOR
            del rm.partitions[p]
            assert await commit(5) == E.NOT_COORDINATOR
            assert c.fetch_offsets("g", None) == (E.NONE, {})

    asyncio.run(scenario())


def test_leadership_events_follow_leader_epochs(tmp_path):
    async def scenario():
        async with _service(tmp_path) as (svc, rm, cluster):
            c = svc.coordinator
            p = c.partition_for("g")
            fut = c.commit_offsets("g", "", None, -1, {("t", 0): _om(7)}, svc.now_ms())
            await _settle()
            rm.commit()
            await fut
            svc.on_resigned(p, 1)
            assert c.fetch_offsets("g", None)[0] == E.NOT_COORDINATOR
            svc.on_elected(p, 0)                       # stale: epoch 1 was seen
            assert c.fetch_offsets("g", None)[0] == E.NOT_COORDINATOR
            svc.on_elected(p, 2)
            assert c.fetch_offsets("g", None)[0] == E.COORDINATOR_LOAD_IN_PROGRESS
            await _loaded(svc)
            assert c.fetch_offsets("g", None)[1][("t", 0)].offset == 7
            svc.on_resigned(p, 1)                      # stale resignation
            assert c.fetch_offsets("g", None)[1][("t", 0)].offset == 7
            svc.on_topics_deleted(["t"])
            assert c.fetch_offsets("g", None) == (E.NONE, {})

    asyncio.run(scenario())


def test_sync_group_waits_for_the_assignment_to_commit(tmp_path):
    async def scenario():
        async with _service(tmp_path, start=True) as (svc, rm, cluster):
            c = svc.coordinator
            join = await c.join_group("g", "", None, False, False, "c", "/h", 30000, 10000,
                                      "consumer", [("range", b"")], svc.now_ms())
            assert join.error == E.NONE
            sync = c.sync_group("g", join.generation_id, join.member_id, None, None, None,
                                {join.member_id: b"a"}, svc.now_ms())
            await _settle()
            assert not sync.done() and c.describe_group("g").state == "CompletingRebalance"
            rm.commit()
            assert (await sync).assignment == b"a"
            assert c.describe_group("g").state == "Stable"

    asyncio.run(scenario())


def test_parked_join_is_answered_on_stop(tmp_path):
    async def scenario():
        async with _service(tmp_path, clock=lambda: 1.0, start=True) as (svc, rm, cluster):
            c = svc.coordinator
            c.config.group_initial_rebalance_delay_ms = 60_000
            polled = _count_polls(c)
            fut = c.join_group("g", "", None, False, False, "c", "/h", 30000, 10000,
                               "consumer", [("range", b"")], svc.now_ms())
            for _ in range(2):                        # the timer runs; the delay is not over
                await asyncio.wait_for(polled.wait(), 5)
                polled.clear()
            assert not fut.done()
        return await fut                              # stopped on leaving the block

    assert asyncio.run(scenario()).error == E.NOT_COORDINATOR


def test_a_new_leader_loads_in_the_background_and_answers_load_in_progress_meanwhile(tmp_path):
    """Issue 22, defect 4: LeaderAndIsr handling only starts the load of a
    `__consumer_offsets` partition; until it is done the partition's groups get
    COORDINATOR_LOAD_IN_PROGRESS (FindCoordinator still answers), and a resignation during
    the load leaves nothing behind (Kafka's scheduleLoadGroupAndOffsets)."""
    async def scenario():
        async with _service(tmp_path) as (svc, rm, cluster):
            c = svc.coordinator
            p = c.partition_for("g")
            n = 3 * LOAD_SLICE                                # the load yields twice at least
            many = {("t", i): _om(i) for i in range(n)}
            fut = c.commit_offsets("g", "", None, -1, many, svc.now_ms())
            await _settle()
            rm.commit()
            await fut
            svc.on_resigned(p, 1)

            svc.on_elected(p, 2)                              # returns before reading the log
            assert c.fetch_offsets("g", None)[0] == E.COORDINATOR_LOAD_IN_PROGRESS
            join = await c.join_group("g", "", None, False, False, "c", "/h", 30000, 10000,
                                      "consumer", [("range", b"")], svc.now_ms())
            assert join.error == E.COORDINATOR_LOAD_IN_PROGRESS
            assert svc.find_coordinator("g", 0)[0] == E.NONE
            await asyncio.sleep(0)
            await asyncio.sleep(0)
            assert p in c.loading_partitions                   # reading, slice by slice
            svc.on_resigned(p, 3)                              # mid-load: abandoned
            await _settle()
            assert p not in c.owned_partitions and p not in c.loading_partitions
            assert c.fetch_offsets("g", None)[0] == E.NOT_COORDINATOR and "g" not in c.groups

            svc.on_elected(p, 4)
            svc.on_elected(p, 5)                              # epoch bump while loading: one load
            await _loaded(svc)
            err, got = c.fetch_offsets("g", None)
            assert err == E.NONE and len(got) == n and got[("t", n - 1)].offset == n - 1

    asyncio.run(scenario())
