"""Properties of the metadata image over random valid record sequences (every metadata
record type): the records an image writes replay onto an empty image into an equal image,
each framed at a version that holds it; how the records are cut into deltas does not change
the image."""
from __future__ import annotations

import dataclasses

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kafpy.metadata.image.metadata_delta import MetadataDelta
from kafpy.metadata.image.metadata_image import EMPTY_IMAGE, MetadataImage
from kafpy.metadata.image.provenance import EMPTY_PROVENANCE, MetadataProvenance
from kafpy.protocol import messages as M
from kafpy.protocol.codec import decode_data, encode_data
from kafpy.protocol.messages import Message

BROKERS = st.integers(0, 4)
DIRS = [bytes([0] * 15 + [0]), bytes([7] * 16), bytes([8] * 16), bytes([9] * 16)]
NAMES = ["a", "b", "c", "d", "e"]
KEYS = ["k1", "k2", "k3"]


class Model:
    """What a sequence has created so far, so each next record is one a controller could write."""

    def __init__(self) -> None:
        self.topics: dict[bytes, tuple[str, dict[int, int]]] = {}  # id -> name, partition -> replica count
        self.brokers: dict[int, int] = {}  # id -> epoch
        self.controllers: set[int] = set()
        self.acls: set[bytes] = set()
        self.scram: set[tuple[str, int]] = set()
        self.tokens: set[str] = set()
        self.used_ids: set[bytes] = set()


def replicas(draw: st.DrawFn) -> list[int]:
    return draw(st.lists(BROKERS, min_size=1, max_size=3, unique=True))


def subset(draw: st.DrawFn, of: list[int]) -> list[int]:
    return [r for r in of if draw(st.booleans())]


def directories(draw: st.DrawFn, count: int) -> list[bytes]:
    if draw(st.booleans()):
        return []
    return [draw(st.sampled_from(DIRS)) for _ in range(count)]


def new_id(draw: st.DrawFn, model: Model) -> bytes:
    value = draw(st.binary(min_size=16, max_size=16).filter(lambda b: b not in model.used_ids and any(b)))
    model.used_ids.add(value)
    return value


@st.composite
def record_sequences(draw: st.DrawFn) -> list[Message]:
    model = Model()
    out: list[Message] = []
    for _ in range(draw(st.integers(1, 60))):
        out.append(draw(next_record(model)))
    return out


@st.composite
def next_record(draw: st.DrawFn, model: Model) -> Message:  # noqa: C901 - one branch per record type
    kinds = ["topic", "config", "feature", "register", "controller", "producer_ids", "acl", "scram",
             "quota", "token", "noop", "clear_elr_all"]
    if model.topics:
        kinds += ["partition", "partition", "remove_topic", "clear_elr"]
        if any(parts for _n, parts in model.topics.values()):
            kinds += ["change", "change", "change"]
    if model.brokers:
        kinds += ["unregister", "fence", "registration_change"]
    if model.controllers:
        kinds.append("unregister_controller")
    if model.acls:
        kinds.append("remove_acl")
    if model.scram:
        kinds.append("remove_scram")
    if model.tokens:
        kinds.append("remove_token")
    kind = draw(st.sampled_from(kinds))
    if kind == "topic":
        used = {n for n, _p in model.topics.values()}
        free = [n for n in NAMES if n not in used]
        if not free:
            return M.NoOpRecord()
        topic_id = new_id(draw, model)
        name = draw(st.sampled_from(free))
        model.topics[topic_id] = (name, {})
        return M.TopicRecord(name=name, topic_id=topic_id)
    if kind == "partition":
        topic_id = draw(st.sampled_from(sorted(model.topics)))
        partition = draw(st.integers(0, 3))
        reps = replicas(draw)
        model.topics[topic_id][1][partition] = len(reps)
        return M.PartitionRecord(
            partition_id=partition, topic_id=topic_id, replicas=reps, isr=subset(draw, reps),
            removing_replicas=subset(draw, reps), adding_replicas=subset(draw, reps),
            leader=draw(st.sampled_from(reps + [-1])), leader_recovery_state=draw(st.sampled_from([0, 1])),
            leader_epoch=draw(st.integers(0, 100)), partition_epoch=draw(st.integers(0, 100)),
            directories=directories(draw, len(reps)),
            eligible_leader_replicas=draw(st.sampled_from([None, [], reps[:1]])),
            last_known_elr=draw(st.sampled_from([None, [], reps[-1:]])))
    if kind == "change":
        topic_id = draw(st.sampled_from(sorted(t for t, (_n, parts) in model.topics.items() if parts)))
        parts = model.topics[topic_id][1]
        partition = draw(st.sampled_from(sorted(parts)))
        new_replicas = replicas(draw) if draw(st.booleans()) else None
        count = parts[partition] if new_replicas is None else len(new_replicas)
        parts[partition] = count
        pool = new_replicas or list(range(5))
        dirs = directories(draw, count) if new_replicas is not None or draw(st.booleans()) else None

        def maybe(values: list[int]) -> list[int] | None:
            return values if draw(st.booleans()) else None
        return M.PartitionChangeRecord(
            partition_id=partition, topic_id=topic_id, replicas=new_replicas, directories=dirs,
            isr=maybe(subset(draw, pool)), leader=draw(st.sampled_from([-2, -2, -1] + pool)),
            removing_replicas=maybe(subset(draw, pool)), adding_replicas=maybe(subset(draw, pool)),
            leader_recovery_state=draw(st.sampled_from([-1, -1, 0, 1])),
            eligible_leader_replicas=maybe(subset(draw, pool)), last_known_elr=maybe(subset(draw, pool)))
    if kind == "remove_topic":
        topic_id = draw(st.sampled_from(sorted(model.topics)))
        del model.topics[topic_id]
        return M.RemoveTopicRecord(topic_id=topic_id)
    if kind == "clear_elr":
        return M.ClearElrRecord(topic_name=draw(st.sampled_from(sorted(n for n, _p in model.topics.values()))))
    if kind == "clear_elr_all":
        return M.ClearElrRecord(topic_name="")
    if kind == "config":
        resource_type = draw(st.sampled_from([2, 4, 16, 32]))
        name = draw(st.sampled_from(NAMES + [""] if resource_type == 4 else NAMES))
        return M.ConfigRecord(resource_type=resource_type, resource_name=name, name=draw(st.sampled_from(KEYS)),
                              value=draw(st.one_of(st.none(), st.text(max_size=5))))
    if kind == "feature":
        if draw(st.booleans()):
            return M.FeatureLevelRecord(name="metadata.version", feature_level=draw(st.integers(1, 33)))
        return M.FeatureLevelRecord(name=draw(st.sampled_from(["group.version", "share.version"])),
                                    feature_level=draw(st.integers(0, 2)))
    if kind == "register":
        broker_id = draw(BROKERS)
        epoch = draw(st.integers(0, 1000))
        model.brokers[broker_id] = epoch
        R = M.RegisterBrokerRecord
        return R(broker_id=broker_id, broker_epoch=epoch, incarnation_id=new_id(draw, model),
                 end_points=[R.BrokerEndpoint(name=n, host="h", port=draw(st.integers(0, 65535)), security_protocol=p)
                             for n, p in draw(st.sampled_from([[("PLAINTEXT", 0)], [("PLAINTEXT", 0), ("SSL", 1)]]))],
                 features=[R.BrokerFeature(name="metadata.version", min_supported_version=7,
                                           max_supported_version=draw(st.integers(7, 33)))],
                 rack=draw(st.sampled_from([None, "r1"])), fenced=draw(st.booleans()),
                 in_controlled_shutdown=draw(st.booleans()), is_migrating_zk_broker=draw(st.booleans()),
                 log_dirs=draw(st.lists(st.sampled_from(DIRS[1:]), unique=True)),
                 cordoned_log_dirs=draw(st.sampled_from([None, [], DIRS[1:2]])))
    if kind == "unregister":
        broker_id = draw(st.sampled_from(sorted(model.brokers)))
        return M.UnregisterBrokerRecord(broker_id=broker_id, broker_epoch=model.brokers.pop(broker_id))
    if kind == "fence":
        broker_id = draw(st.sampled_from(sorted(model.brokers)))
        cls = draw(st.sampled_from([M.FenceBrokerRecord, M.UnfenceBrokerRecord]))
        return cls(id=broker_id, epoch=model.brokers[broker_id])
    if kind == "registration_change":
        broker_id = draw(st.sampled_from(sorted(model.brokers)))
        return M.BrokerRegistrationChangeRecord(
            broker_id=broker_id, broker_epoch=model.brokers[broker_id], fenced=draw(st.sampled_from([-1, 0, 1])),
            in_controlled_shutdown=draw(st.sampled_from([0, 1])),
            log_dirs=draw(st.lists(st.sampled_from(DIRS[1:]), unique=True)),
            cordoned_log_dirs=draw(st.sampled_from([None, [], DIRS[2:3]])))
    if kind == "controller":
        controller_id = draw(st.integers(3000, 3002))
        model.controllers.add(controller_id)
        C = M.RegisterControllerRecord
        return C(controller_id=controller_id, incarnation_id=new_id(draw, model),
                 zk_migration_ready=draw(st.booleans()),
                 end_points=[C.ControllerEndpoint(name="CONTROLLER", host="c", port=9093, security_protocol=0)],
                 features=[C.ControllerFeature(name="kraft.version", min_supported_version=0, max_supported_version=1)])
    if kind == "unregister_controller":
        controller_id = draw(st.sampled_from(sorted(model.controllers)))
        model.controllers.discard(controller_id)
        return M.UnregisterControllerRecord(controller_id=controller_id)
    if kind == "producer_ids":
        return M.ProducerIdsRecord(broker_id=draw(BROKERS), broker_epoch=draw(st.integers(-1, 9)),
                                   next_producer_id=draw(st.integers(0, 2**40)))
    if kind == "acl":
        acl_id = new_id(draw, model)
        model.acls.add(acl_id)
        return M.AccessControlEntryRecord(
            id=acl_id, resource_type=draw(st.integers(2, 6)), resource_name=draw(st.sampled_from(NAMES)),
            pattern_type=draw(st.sampled_from([3, 4])), principal=draw(st.sampled_from(["User:x", "User:y"])),
            host="*", operation=draw(st.integers(2, 12)), permission_type=draw(st.sampled_from([2, 3])))
    if kind == "remove_acl":
        acl_id = draw(st.sampled_from(sorted(model.acls)))
        model.acls.discard(acl_id)
        return M.RemoveAccessControlEntryRecord(id=acl_id)
    if kind == "scram":
        key = (draw(st.sampled_from(NAMES)), draw(st.sampled_from([1, 2])))
        model.scram.add(key)
        return M.UserScramCredentialRecord(name=key[0], mechanism=key[1], salt=draw(st.binary(max_size=8)),
                                           stored_key=draw(st.binary(max_size=8)),
                                           server_key=draw(st.binary(max_size=8)), iterations=draw(st.integers(4096, 9000)))
    if kind == "remove_scram":
        name, mechanism = draw(st.sampled_from(sorted(model.scram)))
        model.scram.discard((name, mechanism))
        return M.RemoveUserScramCredentialRecord(name=name, mechanism=mechanism)
    if kind == "quota":
        E = M.ClientQuotaRecord.EntityData
        entity = draw(st.sampled_from([[E(entity_type="user", entity_name="x")], [E(entity_type="client-id", entity_name=None)],
                                       [E(entity_type="user", entity_name=None), E(entity_type="client-id", entity_name="c")]]))
        return M.ClientQuotaRecord(entity=entity, key=draw(st.sampled_from(["producer_byte_rate", "request_percentage"])),
                                   value=draw(st.floats(0, 1e9, allow_nan=False)), remove=draw(st.booleans()))
    if kind == "token":
        token_id = draw(st.sampled_from(["t1", "t2"]))
        model.tokens.add(token_id)
        return M.DelegationTokenRecord(owner="User:o", requester="User:r", renewers=draw(st.lists(st.sampled_from(["User:a", "User:b"]))),
                                       issue_timestamp=draw(st.integers(0, 10)), max_timestamp=20,
                                       expiration_timestamp=draw(st.integers(10, 20)), token_id=token_id)
    if kind == "remove_token":
        token_id = draw(st.sampled_from(sorted(model.tokens)))
        model.tokens.discard(token_id)
        return M.RemoveDelegationTokenRecord(token_id=token_id)
    return M.NoOpRecord()


def replayed(records: list[Message], base: MetadataImage = EMPTY_IMAGE) -> MetadataImage:
    delta = MetadataDelta(base)
    delta.replay_all(records)
    return delta.apply(MetadataProvenance(base.provenance.last_contained_offset + len(records), 1, 0))


def same_content(a: MetadataImage, b: MetadataImage) -> bool:
    return dataclasses.replace(a, provenance=EMPTY_PROVENANCE) == dataclasses.replace(b, provenance=EMPTY_PROVENANCE)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(record_sequences())
def test_written_records_replay_into_an_equal_image(records: list[Message]):
    image = replayed(records)
    written = image.records()
    assert same_content(replayed([r.message for r in written]), image)
    # each at a version that holds it: framed and read back at that version it is the same
    for message, version in written:
        assert type(message).VALID_VERSIONS[0] <= version <= type(message).VALID_VERSIONS[1]
        assert decode_data(type(message), version, encode_data(message, version)) == message
    assert image.is_empty() == (written == [])


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(record_sequences(), st.data())
def test_cutting_the_records_into_deltas_gives_the_same_image(records: list[Message], data: st.DataObject):
    cuts = sorted(data.draw(st.lists(st.integers(0, len(records)), max_size=5)))
    image = EMPTY_IMAGE
    start = 0
    for cut in cuts + [len(records)]:
        image = replayed(records[start:cut], image)
        start = cut
    assert same_content(image, replayed(records))
    assert image.provenance.last_contained_offset == len(records) - 1
