"""Features (KIP-584) as Kafka 4.4 advertises them: supported and finalized levels in
ApiVersions v3+, UpdateFeatures upgrading and downgrading them, the standalone
broker keeping them in its metadata file, and the APIs group.version gates."""
from __future__ import annotations

import asyncio
import json
from typing import cast
from types import SimpleNamespace

import pytest

from kafpy.protocol.messages import ApiVersionsRequest, UpdateFeaturesRequest

from kafpy.broker.apis import ApiRegistry
from kafpy.broker.controller import load_controller_state
from kafpy.broker.features import (DEFAULT_FINALIZED, GROUP_VERSION, FinalizedFeatures,
                                   FeatureUpdateError, KRaftFeatures, StandaloneFeatures, ZkFeatures,
                                   supported_features)
from kafpy.broker.kraft_registration import broker_supported_features
from kafpy.broker.handlers.api_versions import handle_api_versions
from kafpy.broker.handlers.features import handle_update_features
from kafpy.replication.zk_client import KafkaZkClient
from tests.unit.broker.helpers import LocalBroker, call

INVALID_UPDATE_VERSION = 95


@pytest.fixture
def broker(tmp_path):
    loop = asyncio.new_event_loop()
    b = LocalBroker(str(tmp_path), loop)
    b.apis = ApiRegistry.load()
    try:
        yield b
    finally:
        b.close()
        loop.close()


def _versions(broker, version=3):
    return call(broker, handle_api_versions, 18, version,
                ApiVersionsRequest(client_software_name="unit-test", client_software_version="1.0"))


def _update(broker, version, **levels):
    U = UpdateFeaturesRequest.FeatureUpdateKey
    updates = [U(feature=n.replace("_", "."), max_version_level=lv,
                 upgrade_type=1 if lv > 0 else 2, allow_downgrade=lv == 0)
               for n, lv in levels.items()]
    return call(broker, handle_update_features, 57, version,
                UpdateFeaturesRequest(timeout_ms=1000, feature_updates=updates))


def test_api_versions_v3_lists_supported_and_finalized_features(broker):
    resp = _versions(broker)
    supported = {f.name: (f.min_version, f.max_version) for f in resp.supported_features}
    assert supported == supported_features()
    assert supported[GROUP_VERSION] == (0, 1)
    assert supported["transaction.version"] == (0, 2)
    assert supported["streams.version"] == (0, 1)   # Streams groups (KIP-1071)
    finalized = {f.name: (f.min_version_level, f.max_version_level) for f in resp.finalized_features}
    # Kafka 4.4 finalizes streams.version 1 by default (StreamsVersion.LATEST_PRODUCTION)
    assert finalized == {GROUP_VERSION: (1, 1), "transaction.version": (2, 2), "share.version": (2, 2),
                         "streams.version": (1, 1)}
    assert resp.finalized_features_epoch == 0
    assert supported["share.version"] == (0, 2)


def test_api_versions_before_v3_carries_no_features(broker):
    resp = _versions(broker, 2)
    assert resp.supported_features == [] and resp.finalized_features == []


def test_update_features_downgrade_needs_a_downgrade_type(broker):
    U = UpdateFeaturesRequest.FeatureUpdateKey
    resp = call(broker, handle_update_features, 57, 1, UpdateFeaturesRequest(
        feature_updates=[U(feature=GROUP_VERSION, max_version_level=0, upgrade_type=1)]))
    assert resp.error_code == 0 and resp.results[0].error_code == INVALID_UPDATE_VERSION
    assert broker.services.features.current().level(GROUP_VERSION) == 1


def test_update_features_refuses_unsupported_levels(broker):
    resp = _update(broker, 2, group_version=7)
    assert resp.error_code == INVALID_UPDATE_VERSION
    resp = _update(broker, 1, no_such_feature=1)
    assert resp.results[0].error_code == INVALID_UPDATE_VERSION


def test_update_features_persists_and_bumps_the_epoch(broker, tmp_path):
    U = UpdateFeaturesRequest.FeatureUpdateKey
    pin = UpdateFeaturesRequest(timeout_ms=1000, feature_updates=[U(   # a safe downgrade
        feature="transaction.version", max_version_level=1, upgrade_type=2)])
    assert call(broker, handle_update_features, 57, 1, pin).results[0].error_code == 0
    resp = _versions(broker)
    finalized = {f.name: f.max_version_level for f in resp.finalized_features}
    assert finalized == {GROUP_VERSION: 1, "transaction.version": 1, "share.version": 2,
                         "streams.version": 1}
    assert resp.finalized_features_epoch == 1
    state = load_controller_state(str(tmp_path))
    assert state.finalized_features == finalized and state.features_epoch == 1


def test_group_version_zero_hides_the_consumer_group_apis(broker):
    assert _update(broker, 2, group_version=0).error_code == 0
    resp = _versions(broker)
    keys = {k.api_key for k in resp.api_keys}
    assert 68 not in keys and 69 not in keys and 11 in keys
    assert sorted(f.name for f in resp.finalized_features) == ["share.version", "streams.version",
                                                               "transaction.version"]


def test_share_version_gates_the_share_group_apis(broker):
    keys = {k.api_key for k in _versions(broker).api_keys}
    assert {76, 77} <= keys
    assert _update(broker, 2, share_version=0).error_code == 0
    keys = {k.api_key for k in _versions(broker).api_keys}
    assert not keys & {76, 77, 78, 79, 90, 91, 92} and 68 in keys


def test_streams_version_zero_hides_the_streams_group_apis(broker):
    assert 88 in {k.api_key for k in _versions(broker).api_keys}
    assert _update(broker, 2, streams_version=0).error_code == 0
    keys = {k.api_key for k in _versions(broker).api_keys}
    assert 88 not in keys and 89 not in keys and 68 in keys


def test_a_metadata_file_from_before_features_gets_the_defaults():
    async def never(levels, epoch):
        raise AssertionError("nothing is written until an update")
    store = StandaloneFeatures(None, 0, never)
    assert dict(store.current().levels) == DEFAULT_FINALIZED
    assert FinalizedFeatures({}).enables(68) is False and FinalizedFeatures({}).enables(11)


class FakeZk:
    """The KafkaZkClient calls ZkFeatures makes, over in-memory znodes (path -> data,
    version); watches are kept and fired by `fire()`."""

    def __init__(self) -> None:
        self.nodes: dict[str, tuple[bytes, int]] = {}
        self.watches: list = []

    async def get_data(self, path, watch=None):
        if watch is not None:
            self.watches.append(watch)
        if path not in self.nodes:
            return None, None
        data, version = self.nodes[path]
        return data, SimpleNamespace(version=version)

    async def get_children(self, path, watch=None):
        if watch is not None:
            self.watches.append(watch)
        return sorted({p[len(path) + 1:].split("/")[0] for p in self.nodes if p.startswith(path + "/")})

    async def exists(self, path, watch=None):
        if watch is not None:
            self.watches.append(watch)
        return path in self.nodes

    async def conditional_set_or_create(self, path, data, expected_version):
        version = self.nodes.get(path, (None, -1))[1]
        assert expected_version is None or expected_version == version
        self.nodes[path] = (data, version + 1)

    def add_session_listener(self, listener) -> None:
        pass

    def feature_levels(self) -> dict:
        return json.loads(self.nodes["/feature"][0])["features"]

    def register(self, broker_id: int, features: dict) -> None:
        reg = {"version": 5, "endpoints": [f"PLAINTEXT://127.0.0.1:{9092 + broker_id}"],
               "listener_security_protocol_map": {"PLAINTEXT": "PLAINTEXT"}, "host": "127.0.0.1",
               "port": 9092 + broker_id, "jmx_port": -1, "features": features, "timestamp": "1"}
        self.nodes[f"/brokers/ids/{broker_id}"] = (json.dumps(reg).encode(), 0)


KAFPY_SUPPORTED = {name: {"min_version": low, "max_version": high}
                   for name, (low, high) in supported_features().items()}


async def _started(zk: FakeZk) -> ZkFeatures:
    store = ZkFeatures(cast(KafkaZkClient, zk))   # the fake stands in for the ZooKeeper client
    await store.start()
    return store


def test_zookeeper_mode_serves_transaction_version_2_without_writing_it():
    zk = FakeZk()
    zk.register(0, KAFPY_SUPPORTED)
    store = asyncio.run(_started(zk))
    assert store.current().level("transaction.version") == 2
    assert store.current().level(GROUP_VERSION) == 1
    # /feature keeps only what an operator sets: Apache 3.9 brokers of a mixed cluster read it
    assert zk.feature_levels() == {}
    asyncio.run(store.update({"transaction.version": 1}))
    assert store.current().level("transaction.version") == 1
    assert zk.feature_levels() == {"transaction.version": {"min_version_level": 1, "max_version_level": 1}}


def test_zookeeper_mode_caps_transaction_version_by_what_every_broker_supports():
    zk = FakeZk()
    zk.register(0, KAFPY_SUPPORTED)
    zk.register(2, {})     # an Apache 3.9 broker in ZooKeeper mode lists no feature
    store = asyncio.run(_started(zk))
    assert store.current().level("transaction.version") == 0
    assert store.current().level(GROUP_VERSION) == 1     # only transaction.version is capped
    # a level the Apache broker does not support is refused (it would halt on it)
    with pytest.raises(FeatureUpdateError):
        asyncio.run(store.update({"transaction.version": 1}))
    assert zk.feature_levels() == {}
    # once it is gone, the default is back
    del zk.nodes["/brokers/ids/2"]
    asyncio.run(store._refresh_brokers())
    assert store.current().level("transaction.version") == 2


def test_a_kraft_broker_lists_the_ranges_it_registers_with(broker):
    """As Kafka 4.4's KRaft broker (BrokerFeatures.defaultSupportedFeatures): ApiVersions v4 lists
    metadata.version (3.3-IV3 to 4.4-IV2), kraft.version and eligible.leader.replicas.version
    beside the group/transaction/share/streams versions: what its BrokerRegistration lists."""
    features = KRaftFeatures(broker_supported_features())
    features.publish({"metadata.version": 33, "kraft.version": 1, GROUP_VERSION: 1}, 40)
    broker.services.features = features
    resp = _versions(broker, 4)
    supported = {f.name: (f.min_version, f.max_version) for f in resp.supported_features}
    assert supported == {"metadata.version": (7, 33), "kraft.version": (0, 1),
                         "eligible.leader.replicas.version": (0, 1), GROUP_VERSION: (0, 1),
                         "transaction.version": (0, 2), "share.version": (0, 2), "streams.version": (0, 1)}
    finalized = {f.name: f.max_version_level for f in resp.finalized_features}
    assert finalized == {"metadata.version": 33, "kraft.version": 1, GROUP_VERSION: 1}
    assert resp.finalized_features_epoch == 40
    # before v4 (KIP-1022) the ranges that start at 0 are left out
    old = _versions(broker, 3)
    assert {f.name: (f.min_version, f.max_version) for f in old.supported_features} == {"metadata.version": (7, 33)}
