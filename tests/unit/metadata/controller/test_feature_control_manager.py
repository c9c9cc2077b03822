from __future__ import annotations

from kafpy.metadata.controller.feature_control_manager import UpgradeType
from kafpy.metadata.image.cluster import VersionRange
from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import FeatureLevelRecord, UpdateFeaturesRequest
from tests.unit.metadata.controller.helpers import controller, registration

U = UpdateFeaturesRequest.FeatureUpdateKey


def _update(*updates: tuple[str, int, UpgradeType], validate_only: bool = False) -> UpdateFeaturesRequest:
    return UpdateFeaturesRequest(feature_updates=[
        U(feature=n, max_version_level=v, upgrade_type=int(t)) for n, v, t in updates],
        validate_only=validate_only)


LOCAL = {"metadata.version": VersionRange(7, 34), "transaction.version": VersionRange(0, 2),
         "group.version": VersionRange(0, 1)}


def test_upgrade_writes_a_feature_level_record_applied_only_on_replay():
    c = controller(local=LOCAL)
    result = c.features.update_features(_update(("transaction.version", 2, UpgradeType.UPGRADE)))
    assert result.response.is_success() and result.is_atomic
    assert [(r.name, r.feature_level) for r in result.records if isinstance(r, FeatureLevelRecord)] \
        == [("transaction.version", 2)]
    assert "transaction.version" not in c.features.finalized_features()
    c.commit(result)
    assert c.features.finalized_features()["transaction.version"] == 2


def test_validate_only_writes_nothing():
    c = controller(local=LOCAL)
    result = c.features.update_features(_update(("group.version", 1, UpgradeType.UPGRADE),
                                                validate_only=True))
    assert result.response.is_success() and result.records == []


def test_downgrade_needs_a_downgrade_type_and_an_upgrade_must_not_have_one():
    c = controller(local=LOCAL)
    c.commit(c.features.update_features(_update(("transaction.version", 2, UpgradeType.UPGRADE))))
    down = c.features.update_features(_update(("transaction.version", 1, UpgradeType.UPGRADE)))
    assert down.response.error == ErrorCode.INVALID_UPDATE_VERSION
    assert down.response.message == (
        "Invalid update version 1 for feature transaction.version. Can't downgrade the version "
        "of this feature without setting the upgrade type to either safe or unsafe downgrade.")
    up = c.features.update_features(_update(("group.version", 1, UpgradeType.SAFE_DOWNGRADE)))
    assert up.response.message == ("Invalid update version 1 for feature group.version. "
                                   "Can't downgrade to a newer version.")
    ok = c.features.update_features(_update(("transaction.version", 0, UpgradeType.SAFE_DOWNGRADE)))
    assert ok.response.is_success()
    c.commit(ok)
    assert "transaction.version" not in c.features.finalized_features()


def test_unknown_upgrade_type_and_negative_level():
    c = controller(local=LOCAL)
    r = c.features.update_features(UpdateFeaturesRequest(feature_updates=[
        U(feature="group.version", max_version_level=1, upgrade_type=9)]))
    assert r.response.message == ("Invalid update version 1 for feature group.version. The "
                                  "controller does not support the given upgrade type.")
    r = c.features.update_features(_update(("group.version", -1, UpgradeType.UPGRADE)))
    assert r.response.message == ("Invalid update version -1 for feature group.version. "
                                  "A feature version cannot be less than 0.")


def test_every_node_must_support_the_level():
    c = controller(local=LOCAL)
    r = c.features.update_features(_update(("share.version", 1, UpgradeType.UPGRADE)))
    assert r.response.message == ("Invalid update version 1 for feature share.version. "
                                  "Local controller 3000 does not support this feature.")
    r = c.features.update_features(_update(("transaction.version", 3, UpgradeType.UPGRADE)))
    assert r.response.message.endswith("Local controller 3000 only supports versions 0-2")
    # a registered broker that does not list the feature supports only level 0
    c.commit(c.cluster.register_broker(registration(1), c.metadata.next_write_offset(), 0))
    r = c.features.update_features(_update(("group.version", 1, UpgradeType.UPGRADE)))
    assert r.response.message == ("Invalid update version 1 for feature group.version. "
                                  "Broker 1 does not support this feature.")
    r = c.features.update_features(_update(("metadata.version", 34, UpgradeType.UPGRADE)))
    assert r.response.is_success(), r.response


def test_one_bad_update_fails_the_whole_request():
    c = controller(local=LOCAL)
    r = c.features.update_features(_update(("group.version", 1, UpgradeType.UPGRADE),
                                           ("share.version", 1, UpgradeType.UPGRADE)))
    assert r.response.error == ErrorCode.INVALID_UPDATE_VERSION and r.records == []


def test_metadata_version_downgrades():
    c = controller(mv=33, local=LOCAL)
    unsafe = c.features.update_features(_update(("metadata.version", 31, UpgradeType.UNSAFE_DOWNGRADE)))
    assert unsafe.response.message == ("Unsupported metadata.version downgrade from 33 to 31. "
                                       "Unsafe metadata downgrade is not supported in this version.")
    refused = c.features.update_features(_update(("metadata.version", 31, UpgradeType.SAFE_DOWNGRADE)))
    assert refused.response.message == ("Unsupported metadata.version downgrade from 33 to 31. "
                                        "Refusing to perform the requested downgrade because it "
                                        "might delete metadata information.")
    c2 = controller(mv=29, local=LOCAL)
    safe = c2.features.update_features(_update(("metadata.version", 26, UpgradeType.SAFE_DOWNGRADE)))
    assert safe.response.is_success()
    c2.commit(safe)
    assert c2.features.metadata_version() == 26
    low = c2.features.update_features(_update(("metadata.version", 6, UpgradeType.SAFE_DOWNGRADE)))
    assert low.response.error == ErrorCode.INVALID_UPDATE_VERSION


def test_a_feature_level_needs_its_dependencies():
    local = {**LOCAL, "eligible.leader.replicas.version": VersionRange(0, 1)}
    c = controller(mv=21, local=local)
    r = c.features.update_features(_update(("eligible.leader.replicas.version", 1, UpgradeType.UPGRADE)))
    assert r.response.message == (
        "Invalid update version 1 for feature eligible.leader.replicas.version. "
        "eligible.leader.replicas.version could not be set to 1 because it depends on "
        "metadata.version level 23")
    both = c.features.update_features(_update(("metadata.version", 23, UpgradeType.UPGRADE),
                                              ("eligible.leader.replicas.version", 1, UpgradeType.UPGRADE)))
    assert both.response.is_success() and len(both.records) == 2


def test_kraft_version_is_the_quorum_logs_and_never_a_feature_level_record():
    """As Kafka 4.4's KRaftVersionAccessor: the current kraft.version is the raft layer's; the
    same level is a NoOpRecord, a downgrade is refused with Kafka's words, and an upgrade (the
    raft layer's business in Kafka, not done by kafpy's raft) is refused rather than written as
    a FeatureLevelRecord the log's version would belie."""
    c = controller(local={**LOCAL, "kraft.version": VersionRange(0, 1)})
    kraft = [1]
    c.features.kraft_version = lambda: kraft[0]
    same = c.features.update_features(_update(("kraft.version", 1, UpgradeType.UPGRADE)))
    assert same.response.is_success()
    assert [type(r).__name__ for r in same.records] == ["NoOpRecord"]
    down = c.features.update_features(_update(("kraft.version", 0, UpgradeType.SAFE_DOWNGRADE)))
    assert (down.response.error, down.response.message) == (
        ErrorCode.INVALID_UPDATE_VERSION,
        "Invalid update version 0 for feature kraft.version. Can't downgrade the version of this feature.")
    kraft[0] = 0
    up = c.features.update_features(_update(("kraft.version", 1, UpgradeType.UPGRADE)))
    assert up.response.error == ErrorCode.INVALID_UPDATE_VERSION and up.records == []
    assert "cannot upgrade the kraft.version" in (up.response.message or "")
