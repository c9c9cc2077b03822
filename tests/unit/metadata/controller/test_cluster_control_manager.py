from __future__ import annotations

import pytest

from kafpy.metadata.controller.broker_heartbeat_manager import BrokerControlState, BrokerHeartbeatManager
from kafpy.metadata.controller.controller_result import ControllerError
from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import (
    BrokerHeartbeatRequest,
    ControllerRegistrationRequest,
    RegisterBrokerRecord,
    RegisterControllerRecord,
)
from tests.unit.metadata.controller.helpers import (
    SESSION_TIMEOUT_MS,
    controller,
    incarnation,
    log_dir,
    registration,
)


def test_a_broker_registers_fenced_with_the_record_offset_as_its_epoch():
    c = controller()
    offset = c.metadata.next_write_offset()
    result = c.cluster.register_broker(registration(1, rack="r1"), offset, now_ms=0)
    (record,) = result.records
    assert isinstance(record, RegisterBrokerRecord)
    assert (record.broker_id, record.broker_epoch, record.fenced, record.rack) == (1, offset, True, "r1")
    assert record.log_dirs == [log_dir(1)]
    assert result.response.broker_epoch == offset
    assert c.cluster.registration(1) is None  # only replay changes state
    c.commit(result)
    reg = c.cluster.registration(1)
    assert reg is not None and reg.epoch == offset and reg.fenced
    assert c.cluster.register_broker_record_offset(1) == offset
    assert not c.cluster.is_active(1)


def test_wrong_cluster_id_and_zk_brokers_are_refused():
    c = controller()
    req = registration(1)
    req.cluster_id = "other"
    with pytest.raises(ControllerError) as e:
        c.cluster.register_broker(req, 5, 0)
    assert e.value.error == ErrorCode.INCONSISTENT_CLUSTER_ID
    assert str(e.value) == "Expected cluster ID q1uE1x5TRfWq0Z6LlPdqfQ, but got cluster ID other"
    req = registration(1)
    req.is_migrating_zk_broker = True
    with pytest.raises(ControllerError) as e:
        c.cluster.register_broker(req, 5, 0)
    assert e.value.error == ErrorCode.BROKER_ID_NOT_REGISTERED


def test_a_broker_must_support_every_finalized_feature():
    c = controller(mv=33)
    with pytest.raises(ControllerError) as e:
        c.cluster.register_broker(registration(1, mv_range=(7, 30)), 5, 0)
    assert e.value.error == ErrorCode.UNSUPPORTED_VERSION
    assert str(e.value) == ("Unable to register because the broker does not support finalized "
                            "version 33 of metadata.version. The broker wants a version between "
                            "7 and 30, inclusive.")
    req = registration(1)
    req.features = []  # no metadata.version range: only the first KRaft one
    with pytest.raises(ControllerError) as e:
        c.cluster.register_broker(req, 5, 0)
    assert "version between 1 and 1" in str(e.value)


def test_directories_are_checked():
    c = controller()
    req = registration(1)
    req.log_dirs = []
    with pytest.raises(ControllerError, match="No directories specified in request"):
        c.cluster.register_broker(req, 5, 0)
    req.log_dirs = [bytes(16)]
    with pytest.raises(ControllerError, match="Reserved directory ID in request"):
        c.cluster.register_broker(req, 5, 0)
    c.commit(c.cluster.register_broker(registration(1), c.metadata.next_write_offset(), 0))
    req = registration(2)
    req.log_dirs = [log_dir(1)]
    with pytest.raises(ControllerError, match="Broker 1 is already registered with directory"):
        c.cluster.register_broker(req, 9, 0)


def test_same_incarnation_amends_and_another_is_refused_while_the_session_lives():
    c = controller()
    first = c.metadata.next_write_offset()
    c.commit(c.cluster.register_broker(registration(1), first, 0))
    c.cluster.heartbeat_manager.touch(1, fenced=False, metadata_offset=first, now_ms=100)
    again = c.cluster.register_broker(registration(1), c.metadata.next_write_offset(), 200)
    assert again.response.broker_epoch == first  # amended: the epoch stays
    with pytest.raises(ControllerError) as e:
        c.cluster.register_broker(registration(1, inc=incarnation(99)), 50, 200)
    assert e.value.error == ErrorCode.DUPLICATE_BROKER_REGISTRATION
    # once the session expired, a new incarnation gets a new epoch
    later = 100 + SESSION_TIMEOUT_MS + 1
    new = c.cluster.register_broker(registration(1, inc=incarnation(99)), 50, later)
    assert new.response.broker_epoch == 50


def test_check_broker_epoch():
    c = controller()
    c.commit(c.cluster.register_broker(registration(1), 1, 0))
    with pytest.raises(ControllerError) as e:
        c.cluster.check_broker_epoch(1, 7)
    assert (e.value.error, str(e.value)) == (ErrorCode.STALE_BROKER_EPOCH,
                                             "Expected broker epoch 1, but got broker epoch 7")
    with pytest.raises(ControllerError, match="No broker registration found for broker id 2"):
        c.cluster.check_broker_epoch(2, 1)


def test_controller_registration():
    c = controller()
    R = ControllerRegistrationRequest
    req = R(controller_id=3000, incarnation_id=incarnation(3000),
            listeners=[R.Listener(name="CONTROLLER", host="h", port=9093, security_protocol=0)],
            features=[R.Feature(name="metadata.version", min_supported_version=7,
                                max_supported_version=34)])
    (record,) = c.cluster.register_controller(req).records
    assert isinstance(record, RegisterControllerRecord)
    c.metadata.replay(record)
    assert 3000 in c.metadata.image.cluster.controllers
    old = controller(mv=14)
    with pytest.raises(ControllerError) as e:
        old.cluster.register_controller(req)
    assert e.value.error == ErrorCode.UNSUPPORTED_VERSION


def test_a_controller_registers_whatever_ranges_it_lists() -> None:
    """Kafka 4.4's registerController records the ranges without checking them against the
    finalized levels (a broker's are checked): a controller that supports metadata.version
    up to 3.9-IV0 only, and no group.version, still registers on a 4.4-IV2 cluster; its ranges
    are what UpdateFeatures later holds changes to."""
    c = controller()
    R = ControllerRegistrationRequest
    req = R(controller_id=3001, incarnation_id=incarnation(3001), zk_migration_ready=True,
            listeners=[R.Listener(name="CONTROLLER", host="h", port=9093, security_protocol=0)],
            features=[R.Feature(name="metadata.version", min_supported_version=7, max_supported_version=21)])
    result = c.cluster.register_controller(req)
    assert result.is_atomic
    (record,) = result.records
    # zkMigrationReady as the controller sent it: Kafka 3.9's migration waits for it on every voter
    assert isinstance(record, RegisterControllerRecord) and record.zk_migration_ready is True
    assert [(f.name, f.min_supported_version, f.max_supported_version) for f in record.features] == \
        [("metadata.version", 7, 21)]


def _hb(current_metadata_offset: int = 0, want_fence: bool = False,
        want_shut_down: bool = False) -> BrokerHeartbeatRequest:
    return BrokerHeartbeatRequest(broker_id=1, broker_epoch=5,
                                  current_metadata_offset=current_metadata_offset,
                                  want_fence=want_fence, want_shut_down=want_shut_down)


def test_heartbeat_state_machine():
    S = BrokerControlState
    m = BrokerHeartbeatManager(SESSION_TIMEOUT_MS)
    m.register(1, fenced=True, now_ms=0)
    no_leaders: list[bool] = [False]
    leaders = lambda: no_leaders[0]  # noqa: E731
    # fenced until caught up with its registration record's offset
    assert m.calculate_next_broker_state(1, _hb(current_metadata_offset=4), 5, leaders) == (S.FENCED, S.FENCED)
    assert m.calculate_next_broker_state(1, _hb(current_metadata_offset=5), 5, leaders) == (S.FENCED, S.UNFENCED)
    assert m.calculate_next_broker_state(1, _hb(want_shut_down=True), 5, leaders) == (S.FENCED, S.SHUTDOWN_NOW)
    m.touch(1, fenced=False, metadata_offset=5, now_ms=10)
    assert m.calculate_next_broker_state(1, _hb(want_fence=True), 5, leaders)[1] == S.FENCED
    assert m.calculate_next_broker_state(1, _hb(want_shut_down=True), 5, leaders)[1] == S.SHUTDOWN_NOW
    no_leaders[0] = True
    assert m.calculate_next_broker_state(1, _hb(want_shut_down=True), 5, leaders)[1] == S.CONTROLLED_SHUTDOWN
    m.maybe_update_controlled_shutdown_offset(1, 20)
    assert m.current_state(1) == S.CONTROLLED_SHUTDOWN
    assert m.calculate_next_broker_state(1, _hb(want_shut_down=True), 5, leaders)[1] == S.CONTROLLED_SHUTDOWN
    no_leaders[0] = False
    # no other active broker: the lowest active offset is unbounded, shutdown granted
    assert m.calculate_next_broker_state(1, _hb(want_shut_down=True), 5, leaders)[1] == S.SHUTDOWN_NOW
    m.register(2, fenced=True, now_ms=0)
    m.touch(2, fenced=False, metadata_offset=19, now_ms=10)
    assert m.calculate_next_broker_state(1, _hb(want_shut_down=True), 5, leaders)[1] == S.CONTROLLED_SHUTDOWN


def test_sessions_expire_after_the_timeout():
    m = BrokerHeartbeatManager(SESSION_TIMEOUT_MS)
    m.register(1, fenced=True, now_ms=0)
    assert m.find_one_stale_broker(10**9) is None  # a fenced broker has no session to lose
    m.touch(1, fenced=False, metadata_offset=0, now_ms=1000)
    assert m.has_valid_session(1, 1000 + SESSION_TIMEOUT_MS)
    assert m.find_one_stale_broker(1000 + SESSION_TIMEOUT_MS) is None
    assert m.find_one_stale_broker(1001 + SESSION_TIMEOUT_MS) == 1
    assert not m.has_valid_session(1, 1001 + SESSION_TIMEOUT_MS)
