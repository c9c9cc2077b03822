"""The controller's serial event queue: order, one at a time, preemption, metrics, clean stop."""
from __future__ import annotations

import asyncio
import threading

from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import AlterPartitionRequest
from kafpy.replication import controller_events as ce


class RecordingProcessor:
    """Records what it processes and preempts; ``gate`` holds an event's processing open."""

    def __init__(self) -> None:
        self.processed: list[ce.ControllerEvent] = []
        self.preempted: list[ce.ControllerEvent] = []
        self.running = 0
        self.max_running = 0
        self.gate: asyncio.Event | None = None
        self.fail_on: type | None = None
        self.processed_one = asyncio.Event()  # set whenever an event was processed

    async def process(self, event: ce.ControllerEvent) -> None:
        self.running += 1
        self.max_running = max(self.max_running, self.running)
        try:
            if self.gate is not None:
                await self.gate.wait()
            await asyncio.sleep(0)
            if self.fail_on is not None and isinstance(event, self.fail_on):
                raise RuntimeError("boom")
            self.processed.append(event)
            self.processed_one.set()
        finally:
            self.running -= 1

    def preempt(self, event: ce.ControllerEvent) -> None:
        self.preempted.append(event)
        event.preempt()


def run_with_manager(body, gated: bool = False, clock=None, start: bool = True) -> None:
    """Run ``await body(mgr, proc)`` with a started manager over a RecordingProcessor."""
    async def main() -> None:
        proc = RecordingProcessor()
        if gated:
            proc.gate = asyncio.Event()
        mgr = ce.ControllerEventManager(1, proc, **({"clock": clock} if clock else {}))
        if start:
            mgr.start()
        try:
            await body(mgr, proc)
        finally:
            await mgr.close()
    asyncio.run(main())


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_events_run_in_order_one_at_a_time_and_errors_do_not_stop_the_queue():
    async def body(mgr: ce.ControllerEventManager, proc: RecordingProcessor) -> None:
        proc.fail_on = ce.TopicChange
        events = [ce.Startup(), ce.BrokerChange(), ce.TopicChange(), ce.PartitionModifications(topic="t"),
                  ce.BrokerModifications(broker_id=2)]
        queued = [mgr.put(e) for e in events]
        await asyncio.wait_for(queued[-1].done, 5)
        assert proc.processed == [events[0], events[1], events[3], events[4]]
        assert proc.max_running == 1
        assert all(q.done.done() for q in queued)  # the failed one is done too
        assert mgr.state == ce.ControllerState.IDLE and mgr.queue_size == 0
        await mgr.close()
        assert not mgr.is_running
    run_with_manager(body)


def test_clear_and_put_preempts_queued_events_but_not_the_running_one():
    async def body(mgr: ce.ControllerEventManager, proc: RecordingProcessor) -> None:
        answers: list[object] = []
        running = mgr.put(ce.BrokerChange())
        await asyncio.wait_for(running.await_processing(), 5)
        assert mgr.state == ce.ControllerState.BROKER_CHANGE
        election = ce.ReplicaLeaderElection(partitions=frozenset({("t", 0), ("t", 1)}),
                                            callback=answers.append)
        shutdown = ce.ControlledShutdown(broker_id=2, broker_epoch=40,
                                         callback=lambda err, left: answers.append((err, left)))
        alter = ce.AlterPartitionReceived(broker_id=2, broker_epoch=40, request=(AlterPartitionRequest(), 0),
                                          callback=answers.append)
        q_election, q_shutdown = mgr.put(election), mgr.put(shutdown)
        mgr.put(alter)
        expire = mgr.clear_and_put(ce.Expire())
        assert q_election.done.done() and q_shutdown.done.done()
        assert proc.preempted == [election, shutdown, alter]
        assert answers == [{("t", 0): ErrorCode.NOT_CONTROLLER, ("t", 1): ErrorCode.NOT_CONTROLLER},
                           (ErrorCode.NOT_CONTROLLER, frozenset()), ErrorCode.NOT_CONTROLLER]
        assert mgr.queue_size == 1
        assert proc.gate is not None   # gated=True
        proc.gate.set()
        await asyncio.wait_for(expire.done, 5)
        assert proc.processed == [ce.BrokerChange(), ce.Expire()]
    run_with_manager(body, gated=True)


def test_queue_time_and_per_state_processing_time_are_measured_with_the_given_clock():
    clock = FakeClock()

    async def body(mgr: ce.ControllerEventManager, proc: RecordingProcessor) -> None:
        q1 = mgr.put(ce.TopicChange())          # queued before start: waits 2.5 s
        clock.now += 2.5
        mgr.start()
        await asyncio.wait_for(q1.done, 5)
        assert mgr.event_queue_time.count == 1
        assert mgr.event_queue_time.last_ms == 2500.0
        assert mgr.rate_and_time[ce.ControllerState.TOPIC_CHANGE].count == 1
        assert ce.ControllerState.TOPIC_CHANGE.rate_and_time_metric_name == "TopicChangeRateAndTimeMs"
        assert ce.ControllerState.IDLE.rate_and_time_metric_name is None
    run_with_manager(body, clock=clock, start=False)


def test_watch_threads_hand_events_to_the_loop():
    async def body(mgr: ce.ControllerEventManager, proc: RecordingProcessor) -> None:
        thread = threading.Thread(target=mgr.put_threadsafe, args=(ce.Reelect(),))
        thread.start()
        thread.join()
        await asyncio.wait_for(proc.processed_one.wait(), 5)
        assert proc.processed == [ce.Reelect()]
    run_with_manager(body)


def test_close_preempts_what_is_queued_and_waits_for_the_running_event():
    async def body(mgr: ce.ControllerEventManager, proc: RecordingProcessor) -> None:
        running = mgr.put(ce.IsrChangeNotification())
        await running.await_processing()
        waiting = mgr.put(ce.LogDirEventNotification())
        closing = asyncio.ensure_future(mgr.close())
        await asyncio.wait_for(asyncio.shield(waiting.done), 5)   # the queued event is preempted
        for _ in range(5):                                          # and close, given turns, waits on
            await asyncio.sleep(0)
        assert not closing.done()                                   # the running one
        assert proc.gate is not None   # gated=True
        proc.gate.set()
        await asyncio.wait_for(closing, 5)
        assert proc.processed == [ce.IsrChangeNotification()]
        assert proc.preempted == [ce.LogDirEventNotification()]
        assert not any(isinstance(e, ce.ShutdownEventThread) for e in proc.preempted + proc.processed)
    run_with_manager(body, gated=True)
