"""Brokers and controllers in the metadata image: registration, fencing and controlled
shutdown (BrokerRegistrationChangeRecord's tri-state fields), epochs checked, live brokers."""
from __future__ import annotations

import pytest

from kafpy.metadata.image.errors import MetadataReplayError
from kafpy.metadata.image.metadata_delta import MetadataDelta
from kafpy.metadata.image.metadata_image import EMPTY_IMAGE, MetadataImage
from kafpy.metadata.image.provenance import MetadataProvenance
from kafpy.protocol import messages as M
from kafpy.protocol.messages import Message

DIR_A = bytes(range(100, 116))
DIR_B = bytes(range(120, 136))
R = M.RegisterBrokerRecord


def image_of(records: list[Message], base: MetadataImage = EMPTY_IMAGE) -> MetadataImage:
    delta = MetadataDelta(base)
    delta.replay_all(records)
    return delta.apply(MetadataProvenance(0, 1, 0))


def register(broker_id: int, epoch: int = 10, fenced: bool = True, rack: str | None = None) -> R:
    return R(broker_id=broker_id, broker_epoch=epoch, incarnation_id=bytes([broker_id]) * 16,
             end_points=[R.BrokerEndpoint(name="PLAINTEXT", host="h", port=9000 + broker_id, security_protocol=0),
                         R.BrokerEndpoint(name="SSL", host="h", port=9100 + broker_id, security_protocol=1)],
             features=[R.BrokerFeature(name="metadata.version", min_supported_version=7, max_supported_version=33)],
             rack=rack, fenced=fenced, log_dirs=[DIR_B, DIR_A])


def test_register_and_lookups():
    image = image_of([register(1, rack="r1"), register(2, fenced=False)])
    b1 = image.cluster.broker(1)
    assert b1 is not None and b1.fenced and b1.rack == "r1" and b1.epoch == 10
    assert b1.directories == (DIR_A, DIR_B)  # sorted, as Kafka keeps them
    assert b1.supported_features["metadata.version"].max_supported == 33
    assert [b.id for b in image.live_brokers()] == [2]
    ssl = image.live_broker_endpoints("SSL")
    assert list(ssl) == [2] and ssl[2].port == 9102
    assert image.live_broker_endpoints("NOPE") == {}


def test_unfence_fence_check_the_epoch():
    image = image_of([register(1), M.UnfenceBrokerRecord(id=1, epoch=10)])
    assert [b.id for b in image.live_brokers()] == [1]
    image = image_of([M.FenceBrokerRecord(id=1, epoch=10)], image)
    assert image.live_brokers() == []
    with pytest.raises(MetadataReplayError, match="did not match the current broker epoch, 10"):
        image_of([M.UnfenceBrokerRecord(id=1, epoch=9)], image)
    with pytest.raises(MetadataReplayError, match="was not registered"):
        image_of([M.FenceBrokerRecord(id=7, epoch=10)], image)


def test_registration_change_tri_states():
    image = image_of([register(1)])
    unfenced = image_of([M.BrokerRegistrationChangeRecord(broker_id=1, broker_epoch=10, fenced=-1)], image)
    b = unfenced.cluster.broker(1)
    assert b is not None and not b.fenced and not b.in_controlled_shutdown
    # fenced 0 means "no change"; inControlledShutdown 1 sets it
    shutting = image_of([M.BrokerRegistrationChangeRecord(broker_id=1, broker_epoch=10, fenced=0,
                                                           in_controlled_shutdown=1)], unfenced)
    b = shutting.cluster.broker(1)
    assert b is not None and not b.fenced and b.in_controlled_shutdown
    fenced = image_of([M.BrokerRegistrationChangeRecord(broker_id=1, broker_epoch=10, fenced=1)], shutting)
    b = fenced.cluster.broker(1)
    assert b is not None and b.fenced and b.in_controlled_shutdown
    for bad in (dict(fenced=2), dict(in_controlled_shutdown=-1)):
        with pytest.raises(MetadataReplayError, match="unknown value"):
            image_of([M.BrokerRegistrationChangeRecord(broker_id=1, broker_epoch=10, **bad)], image)
    with pytest.raises(MetadataReplayError, match="epoch"):
        image_of([M.BrokerRegistrationChangeRecord(broker_id=1, broker_epoch=11, fenced=-1)], image)


def test_registration_change_directories_and_cordoned():
    image = image_of([register(1)])
    same = image_of([M.BrokerRegistrationChangeRecord(broker_id=1, broker_epoch=10, log_dirs=[])], image)
    assert same.cluster == image.cluster  # an empty list leaves the directories
    moved = image_of([M.BrokerRegistrationChangeRecord(broker_id=1, broker_epoch=10, log_dirs=[DIR_B])], image)
    b = moved.cluster.broker(1)
    assert b is not None and b.directories == (DIR_B,) and b.cordoned_directories is None
    cordoned = image_of([M.BrokerRegistrationChangeRecord(broker_id=1, broker_epoch=10, cordoned_log_dirs=[DIR_A])], image)
    b = cordoned.cluster.broker(1)
    assert b is not None and b.cordoned_directories == (DIR_A,)


def test_reregistration_replaces_and_unregister_removes():
    image = image_of([register(1), M.UnfenceBrokerRecord(id=1, epoch=10)])
    again = image_of([register(1, epoch=20)], image)
    b = again.cluster.broker(1)
    assert b is not None and b.epoch == 20 and b.fenced
    gone = image_of([M.UnregisterBrokerRecord(broker_id=1, broker_epoch=20)], again)
    assert gone.cluster.broker(1) is None and gone.cluster.is_empty()


def test_controllers_register_and_unregister():
    C = M.RegisterControllerRecord
    image = image_of([C(controller_id=3000, incarnation_id=b"\x07" * 16,
                        end_points=[C.ControllerEndpoint(name="CONTROLLER", host="c", port=9093, security_protocol=0)],
                        features=[C.ControllerFeature(name="kraft.version", min_supported_version=0,
                                                      max_supported_version=1)])])
    c = image.cluster.controllers[3000]
    assert c.listeners[0].port == 9093 and c.supported_features["kraft.version"].max_supported == 1
    assert image.live_brokers() == []
    gone = image_of([M.UnregisterControllerRecord(controller_id=3000)], image)
    assert gone.cluster.controllers == {}
