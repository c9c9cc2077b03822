"""AlterPartitionManager without sockets: a fake controller connection records the requests
and answers from a script; partitions are stand-ins that record the answers they get."""
from __future__ import annotations

import asyncio
import logging

from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import AlterPartitionResponse

from kafpy.replication.metadata_cache import BrokerInfo, MetadataCache
from kafpy.replication.alter_partition_manager import AlterPartitionManager, alter_partition_request
from kafpy.replication.partition import PendingIsrChange

TID = b"\x07" * 16
R = AlterPartitionResponse


class FakePartition:
    """What the manager uses of a Partition: its name, pending change and answer hook."""

    def __init__(self, index: int, topic_id: bytes = TID, retry_codes=(ErrorCode.REQUEST_TIMED_OUT,)) -> None:
        self.topic, self.index, self.topic_id = "t", index, topic_id
        self.pending_isr: PendingIsrChange | None = None
        self.answers: list[tuple] = []
        self.retry_codes = retry_codes

    def propose(self, isr: tuple[int, ...]) -> PendingIsrChange:
        self.pending_isr = PendingIsrChange(isr, isr, 4, 9)
        return self.pending_isr

    def on_alter_partition_result(self, pending, error, isr=(), leader_epoch=-1, partition_epoch=-1) -> bool:
        self.answers.append((error, isr, partition_epoch))
        if error in self.retry_codes:
            return True
        self.pending_isr = None
        return False


class FakeClient:
    def __init__(self, node: BrokerInfo, script: list, version: int) -> None:
        self.node, self.script, self.version = node, script, version
        self.requests: list = []
        self.closed = False

    async def ready(self) -> None:
        pass

    def api_version(self, key: int) -> int:
        return self.version

    async def send(self, key: int, request, version=None, timeout_ms=None):
        self.requests.append((version, request))
        answer = self.script.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer(request)

    async def close(self) -> None:
        self.closed = True


def ok(request):
    return R(error_code=0, topics=[R.TopicData(topic_name=t.topic_name, topic_id=t.topic_id, partitions=[
        R.PartitionData(partition_index=p.partition_index, error_code=0, leader_id=0, leader_epoch=p.leader_epoch,
                        isr=list(p.new_isr), partition_epoch=p.partition_epoch + 1) for p in t.partitions])
        for t in request.topics])


def per_partition(code):
    def answer(request):
        return R(error_code=0, topics=[R.TopicData(topic_name=t.topic_name, topic_id=t.topic_id, partitions=[
            R.PartitionData(partition_index=p.partition_index, error_code=code) for p in t.partitions])
            for t in request.topics])
    return answer


def top_level(code):
    return lambda request: R(error_code=code)


def run(script: list, version: int = 3, controller: int = 1):
    """Submit two changes, let the manager send them until the script is used up."""
    async def main():
        loop = asyncio.get_running_loop()
        cache = MetadataCache("c", BrokerInfo(0, "h", 1), live_brokers=[BrokerInfo(0, "h", 1), BrokerInfo(1, "h", 2)])
        cache.update(controller_id=controller)
        clients: list[FakeClient] = []

        def factory(node):
            clients.append(FakeClient(node, script, version))
            return clients[-1]
        m = AlterPartitionManager(0, lambda: 42, cache, factory, loop, retry_backoff_ms=1)
        parts = [FakePartition(0), FakePartition(1)]
        lookups = _NoControllerLog()
        m.start()
        for p in parts:
            m.submit(p, p.propose((0, 1, 2)))
        try:
            if controller < 0:
                # nothing can be sent: wait until the manager looked for a controller, backed
                # off and looked again (so it did consider the changes)
                await _until(lambda: lookups.count >= 2, "two controller lookups")
            else:
                # the script is used up and its last answer applied: nothing pending any more
                await _until(lambda: not script and all(p.pending_isr is None for p in parts),
                             "every change answered")
        finally:
            lookups.close()
            await m.shutdown()
        return parts, clients
    return asyncio.run(main())


class _NoControllerLog(logging.Handler):
    """Counts the manager's "No controller known" lines (it looked, found none, will retry)."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.count = 0
        self._logger = logging.getLogger("kafka.server.DefaultAlterPartitionManager")
        self._level = self._logger.level
        self._logger.setLevel(logging.DEBUG)
        self._logger.addHandler(self)

    def emit(self, record: logging.LogRecord) -> None:
        if record.getMessage().startswith("No controller known"):
            self.count += 1

    def close(self) -> None:
        self._logger.removeHandler(self)
        self._logger.setLevel(self._level)
        super().close()


async def _until(condition, what: str, timeout: float = 5.0) -> None:
    """Let the manager run until ``condition()`` holds (its retry backoff is 1 ms here)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        assert loop.time() < deadline, f"{what} within {timeout} s"
        await asyncio.sleep(0.001)


def test_batched_request_and_adopted_answers():
    parts, clients = run([ok])
    (client,) = clients
    assert client.node.node_id == 1 and client.closed
    (version, req), = client.requests
    assert version == 3 and req.broker_id == 0 and req.broker_epoch == 42
    (t,) = req.topics
    assert t.topic_id == TID and [p.partition_index for p in t.partitions] == [0, 1]
    assert [b.broker_id for b in t.partitions[0].new_isr_with_epochs] == [0, 1, 2]
    assert all(p.answers == [(ErrorCode.NONE, (0, 1, 2), 10)] for p in parts)


def test_top_level_errors_and_lost_connections_are_retried():
    parts, clients = run([top_level(ErrorCode.NOT_CONTROLLER), ConnectionError("gone"),
                          top_level(ErrorCode.STALE_BROKER_EPOCH), ok])
    assert sum(len(c.requests) for c in clients) == 4
    assert all(p.answers == [(ErrorCode.NONE, (0, 1, 2), 10)] for p in parts)


def test_partition_errors_go_to_the_partition_which_may_ask_again():
    parts, clients = run([per_partition(ErrorCode.REQUEST_TIMED_OUT), per_partition(ErrorCode.FENCED_LEADER_EPOCH)])
    assert [a[0] for a in parts[0].answers] == [ErrorCode.REQUEST_TIMED_OUT, ErrorCode.FENCED_LEADER_EPOCH]
    assert sum(len(c.requests) for c in clients) == 2


def test_no_controller_known_sends_nothing():
    parts, clients = run([ok], controller=-1)
    assert clients == [] and all(p.answers == [] for p in parts)


def test_name_based_versions():
    p = FakePartition(0, topic_id=bytes(16))
    req = alter_partition_request(0, 5, [(p, p.propose((0, 1)))], 1)
    assert req.topics[0].topic_name == "t" and req.topics[0].partitions[0].new_isr == [0, 1]
    parts, clients = run([ok], version=1)
    assert clients[0].requests[0][0] == 1
    assert all(p.answers[0][0] == ErrorCode.NONE for p in parts)
