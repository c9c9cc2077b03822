"""A share group survives its coordinator's restart (kill -9): the group, its member with
its epoch and assignment, and which share partitions are initialized are replayed from
Kafka 4.4's ShareGroup* records in `__consumer_offsets`, so the member goes on
heartbeating at its epoch without being fenced, and `kafka-dump-log --offsets-decoder`
reads the records."""
from __future__ import annotations

import re

from tests.integration.coordinator.helpers import create_topic, wait_until
from tests.support.kafka_dist import run_tool
from kafpy.scripts.kafka_console_share_consumer import ShareConsumer
from kafpy.scripts.share_group_client import ShareGroupAdmin

BROKER = {"group.share.heartbeat.interval.ms": 500, "group.share.min.heartbeat.interval.ms": 500}


def _describe(bootstrap: str, group: str):
    with ShareGroupAdmin(bootstrap) as admin:
        d, _, _ = admin.describe(group)
        return d


def test_a_share_group_is_replayed_after_a_kill(broker_factory):
    b = broker_factory(BROKER)
    create_topic(b.bootstrap, "replayed", 2)
    with ShareGroupAdmin(b.bootstrap) as admin:
        member = ShareConsumer(admin, "replayed-group", "replayed", "replay-test", 1)

        def assigned():
            member.heartbeat()
            return member.assigned == {0, 1}
        wait_until(assigned, 30, "the member's assignment")
        before = _describe(b.bootstrap, "replayed-group")
        epoch = member.epoch
    b.restart(kill=True)
    after = wait_until(lambda: _describe(b.bootstrap, "replayed-group"), 30, "the group loaded")
    assert after.error_code == 0, after
    assert (after.group_epoch, after.assignment_epoch) == (before.group_epoch, before.assignment_epoch)
    [m] = after.members
    assert (m.member_id, m.member_epoch) == (member.member_id, epoch)
    assert sorted(p for tp in m.assignment.topic_partitions for p in tp.partitions) == [0, 1]
    with ShareGroupAdmin(b.bootstrap) as admin:
        member.admin = admin
        member.heartbeat()          # at its epoch: not fenced, nothing to initialize again
        assert member.epoch == epoch and member.assigned == {0, 1}
        member.heartbeat(leaving=True)
    assert _describe(b.bootstrap, "replayed-group").group_state == "Empty"
    segments = sorted(b.log_dir.glob("__consumer_offsets-*/*.log"))
    dumped = "".join(run_tool("4", "kafka-dump-log", ["--offsets-decoder", "--files", str(s)],
                              timeout=90).stdout for s in segments if s.stat().st_size)
    # Apache's decoder read every record (a record it cannot parse prints an error): member
    # metadata, group metadata, target assignment, target member, current assignment, state
    # partition metadata
    types = {int(t) for t in re.findall(r'key: \{"type":"(\d+)"', dumped)}
    assert {10, 11, 12, 13, 14, 15} <= types, types
    assert "Error" not in dumped and "Exception" not in dumped
    assert '"initializedTopics":[{"topicId"' in dumped
