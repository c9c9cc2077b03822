"""Topics and partitions in the metadata image: Kafka's PartitionRegistration.merge semantics,
deletes, ClearElrRecord, errors for unknown topics, and a broker's local changes."""
from __future__ import annotations

import pytest

from kafpy.metadata.image.errors import MetadataReplayError
from kafpy.metadata.image.metadata_delta import MetadataDelta
from kafpy.metadata.image.metadata_image import EMPTY_IMAGE, MetadataImage
from kafpy.metadata.image.partition import MIGRATING, LeaderRecoveryState
from kafpy.metadata.image.provenance import MetadataProvenance
from kafpy.protocol import messages as M
from kafpy.protocol.messages import Message

FOO = bytes(range(1, 17))
BAR = bytes(range(2, 18))
DIR_A = bytes(range(100, 116))
DIR_B = bytes(range(120, 136))


def image_of(records: list[Message], base: MetadataImage = EMPTY_IMAGE, offset: int = 0) -> MetadataImage:
    delta = MetadataDelta(base)
    delta.replay_all(records)
    return delta.apply(MetadataProvenance(offset, 1, 0))


def foo_with_partition(**fields: object) -> MetadataImage:
    record = dict(partition_id=0, topic_id=FOO, replicas=[1, 2, 3], isr=[1, 2, 3], leader=1,
                  leader_epoch=4, partition_epoch=7, directories=[DIR_A, DIR_B, DIR_A])
    record.update(fields)
    return image_of([M.TopicRecord(name="foo", topic_id=FOO), M.PartitionRecord(**record)])  # type: ignore[arg-type]  # keyword fields of PartitionRecord


def change(image: MetadataImage, **fields: object) -> MetadataImage:
    record: dict[str, object] = dict(partition_id=0, topic_id=FOO)
    record.update(fields)
    return image_of([M.PartitionChangeRecord(**record)], image)  # type: ignore[arg-type]  # keyword fields of PartitionChangeRecord


def test_partition_record_creates_the_partition_with_its_fields():
    image = foo_with_partition()
    p = image.partition("foo", 0)
    assert p is not None
    assert (p.replicas, p.isr, p.leader, p.leader_epoch, p.partition_epoch) == ((1, 2, 3), (1, 2, 3), 1, 4, 7)
    assert p.directories == (DIR_A, DIR_B, DIR_A)
    assert p.leader_recovery_state is LeaderRecoveryState.RECOVERED
    assert image.topic_by_id(FOO) is image.topic("foo")


def test_a_partition_record_without_directories_has_every_replica_migrating():
    p = foo_with_partition(directories=[]).partition("foo", 0)
    assert p is not None and p.directories == (MIGRATING,) * 3


def test_change_with_no_fields_keeps_everything_but_bumps_the_partition_epoch():
    before = foo_with_partition()
    after = change(before)
    p0, p1 = before.partition("foo", 0), after.partition("foo", 0)
    assert p0 is not None and p1 is not None
    assert p1.partition_epoch == p0.partition_epoch + 1
    assert p1.leader_epoch == p0.leader_epoch
    assert (p1.replicas, p1.isr, p1.leader, p1.directories) == (p0.replicas, p0.isr, p0.leader, p0.directories)


def test_isr_change_keeps_the_leader_epoch():
    p = change(foo_with_partition(), isr=[1, 2]).partition("foo", 0)
    assert p is not None
    assert (p.isr, p.leader, p.leader_epoch, p.partition_epoch) == ((1, 2), 1, 4, 8)


def test_leader_change_bumps_the_leader_epoch_even_to_the_same_leader():
    p = change(foo_with_partition(), leader=2).partition("foo", 0)
    assert p is not None and (p.leader, p.leader_epoch, p.partition_epoch) == (2, 5, 8)
    p = change(foo_with_partition(), leader=1).partition("foo", 0)
    assert p is not None and (p.leader, p.leader_epoch) == (1, 5)
    p = change(foo_with_partition(), leader=-1).partition("foo", 0)
    assert p is not None and (p.leader, p.leader_epoch) == (-1, 5) and not p.has_leader()


def test_leader_recovery_state_minus_one_keeps_it_and_other_values_set_it():
    recovering = change(foo_with_partition(), leader=2, leader_recovery_state=1)
    p = recovering.partition("foo", 0)
    assert p is not None and p.leader_recovery_state is LeaderRecoveryState.RECOVERING
    p = change(recovering, isr=[2]).partition("foo", 0)
    assert p is not None and p.leader_recovery_state is LeaderRecoveryState.RECOVERING
    p = change(recovering, leader_recovery_state=0).partition("foo", 0)
    assert p is not None and p.leader_recovery_state is LeaderRecoveryState.RECOVERED


def test_elr_and_last_known_elr_change_only_when_given():
    image = change(foo_with_partition(), isr=[], leader=-1, eligible_leader_replicas=[1, 2],
                   last_known_elr=[3])
    p = image.partition("foo", 0)
    assert p is not None and (p.elr, p.last_known_elr) == ((1, 2), (3,))
    p = change(image, isr=[1]).partition("foo", 0)
    assert p is not None and (p.elr, p.last_known_elr) == ((1, 2), (3,))
    p = change(image, eligible_leader_replicas=[]).partition("foo", 0)
    assert p is not None and (p.elr, p.last_known_elr) == ((), (3,))


def test_reassignment_fields_and_directories():
    image = change(foo_with_partition(), replicas=[1, 2, 3, 4], adding_replicas=[4],
                   removing_replicas=[3], directories=[DIR_A, DIR_B, DIR_A, DIR_B])
    p = image.partition("foo", 0)
    assert p is not None
    assert (p.replicas, p.adding_replicas, p.removing_replicas) == ((1, 2, 3, 4), (4,), (3,))
    assert p.directory(4) == DIR_B and p.directory(9) is None
    p = change(image, directories=[DIR_B, DIR_B, DIR_B, DIR_B]).partition("foo", 0)
    assert p is not None and p.directories == (DIR_B,) * 4 and p.replicas == (1, 2, 3, 4)


def test_directories_that_do_not_match_the_replicas_are_an_error():
    with pytest.raises(MetadataReplayError, match="directories"):
        change(foo_with_partition(), replicas=[1, 2], directories=[DIR_A])
    with pytest.raises(MetadataReplayError, match="directories"):
        foo_with_partition(directories=[DIR_A])


def test_change_for_an_unknown_topic_or_partition_is_an_error():
    with pytest.raises(MetadataReplayError, match="no such topic"):
        image_of([M.PartitionChangeRecord(partition_id=0, topic_id=BAR, isr=[1])])
    with pytest.raises(MetadataReplayError, match="Unable to find partition"):
        change(foo_with_partition(), partition_id=5)
    with pytest.raises(MetadataReplayError, match="no such topic"):
        image_of([M.PartitionRecord(partition_id=0, topic_id=BAR, replicas=[1])])


def test_remove_topic_drops_it_and_its_configs_and_unknown_ids_fail():
    image = image_of([M.ConfigRecord(resource_type=2, resource_name="foo", name="retention.ms",
                                     value="1")], foo_with_partition())
    assert image.topic_config("foo") == {"retention.ms": "1"}
    gone = image_of([M.RemoveTopicRecord(topic_id=FOO)], image)
    assert gone.topic("foo") is None and gone.topic_by_id(FOO) is None
    assert gone.topic_config("foo") == {} and gone.configs.is_empty()
    with pytest.raises(MetadataReplayError, match="no such topic"):
        image_of([M.RemoveTopicRecord(topic_id=FOO)], gone)
    with pytest.raises(MetadataReplayError, match="no such topic"):
        image_of([M.RemoveTopicRecord(topic_id=FOO), M.PartitionChangeRecord(topic_id=FOO, partition_id=0)], image)


def test_a_topic_created_and_removed_within_one_delta_leaves_nothing():
    image = image_of([M.TopicRecord(name="t", topic_id=BAR),
                      M.PartitionRecord(partition_id=0, topic_id=BAR, replicas=[1], isr=[1], leader=1),
                      M.ConfigRecord(resource_type=2, resource_name="t", name="a", value="b"),
                      M.RemoveTopicRecord(topic_id=BAR)])
    assert image.topics.is_empty() and image.configs.is_empty()


def test_recreating_a_topic_name_with_a_new_id_replaces_it():
    image = image_of([M.RemoveTopicRecord(topic_id=FOO), M.TopicRecord(name="foo", topic_id=BAR)],
                     foo_with_partition())
    assert image.topic_by_id(FOO) is None
    topic = image.topic("foo")
    assert topic is not None and topic.id == BAR and not topic.partitions


def test_clear_elr_of_one_topic_and_of_all_topics():
    base = change(foo_with_partition(), isr=[], leader=-1, eligible_leader_replicas=[1, 2],
                  last_known_elr=[3])
    base = image_of([M.TopicRecord(name="bar", topic_id=BAR),
                     M.PartitionRecord(partition_id=0, topic_id=BAR, replicas=[1], isr=[], leader=-1,
                                       eligible_leader_replicas=[1], partition_epoch=3)], base)
    one = image_of([M.ClearElrRecord(topic_name="foo")], base)
    foo, bar = one.partition("foo", 0), one.partition("bar", 0)
    assert foo is not None and (foo.elr, foo.last_known_elr, foo.partition_epoch) == ((), (), 9)
    assert bar is not None and bar.elr == (1,) and bar.partition_epoch == 3
    every = image_of([M.ClearElrRecord(topic_name="")], base)
    for name in ("foo", "bar"):
        p = every.partition(name, 0)
        assert p is not None and (p.elr, p.last_known_elr) == ((), ())
    with pytest.raises(MetadataReplayError, match="no such topic"):
        image_of([M.ClearElrRecord(topic_name="nope")], base)


def test_an_unchanged_partition_is_not_bumped_by_clear_elr():
    base = foo_with_partition()
    after = image_of([M.ClearElrRecord(topic_name="")], base)
    assert after.topics == base.topics


def test_local_changes_leaders_followers_deletes():
    base = image_of([M.TopicRecord(name="bar", topic_id=BAR),
                     M.PartitionRecord(partition_id=0, topic_id=BAR, replicas=[2, 3], isr=[2, 3], leader=2,
                                       leader_epoch=0, partition_epoch=0)], foo_with_partition())
    delta = MetadataDelta(base)
    delta.replay_all([
        M.PartitionChangeRecord(partition_id=0, topic_id=FOO, leader=2),  # 2 leads foo-0
        M.PartitionRecord(partition_id=1, topic_id=FOO, replicas=[3, 2], isr=[3, 2], leader=3,
                          leader_epoch=0, partition_epoch=0),  # 2 follows the new foo-1
        M.RemoveTopicRecord(topic_id=BAR),  # 2 deletes bar-0
    ])
    changes = delta.local_changes(2)
    assert set(changes.leaders) == {("foo", 0)} and set(changes.elected_leaders) == {("foo", 0)}
    assert changes.leaders[("foo", 0)].partition.leader_epoch == 5
    assert set(changes.followers) == {("foo", 1)}
    assert changes.deletes == {("bar", 0)}
    assert changes.topic_ids == {"foo": FOO}
    assert changes.directory_ids == {(FOO, 1): MIGRATING}
    assert delta.deleted_topics() == {BAR: "bar"}
    assert {(t, p) for t, _i, p, _r in delta.changed_partitions()} == {("foo", 0), ("foo", 1)}
    # broker 1 stays a follower of foo-0 whose partition epoch moved; not a replica of foo-1
    one = delta.local_changes(1)
    assert set(one.followers) == {("foo", 0)} and not one.leaders and not one.deletes


def test_local_changes_isr_only_change_is_a_leader_but_not_an_elected_one():
    delta = MetadataDelta(foo_with_partition())
    delta.replay(M.PartitionChangeRecord(partition_id=0, topic_id=FOO, isr=[1, 2]))
    changes = delta.local_changes(1)
    assert set(changes.leaders) == {("foo", 0)} and not changes.elected_leaders


def test_local_changes_replica_moved_off_the_broker_is_deleted():
    delta = MetadataDelta(foo_with_partition())
    delta.replay(M.PartitionChangeRecord(partition_id=0, topic_id=FOO, replicas=[1, 2], isr=[1, 2],
                                         directories=[DIR_A, DIR_B]))
    assert delta.local_changes(3).deletes == {("foo", 0)}
    assert MetadataDelta(foo_with_partition()).local_changes(1).leaders == {}


def test_lookups_by_broker():
    image = image_of([M.PartitionRecord(partition_id=1, topic_id=FOO, replicas=[2, 3], isr=[2, 3], leader=2)],
                     foo_with_partition())
    assert sorted((t.name, p) for t, p, _ in image.partitions_led_by(1)) == [("foo", 0)]
    assert sorted((t.name, p) for t, p, _ in image.partitions_led_by(2)) == [("foo", 1)]
    assert sorted((t.name, p) for t, p, _ in image.partitions_on(3)) == [("foo", 0), ("foo", 1)]
    assert list(image.partitions_on(9)) == []
