"""Apache Kafka 4.4's `kafka-features.sh` against kafpy: describe reads the supported
and finalized features from ApiVersions, downgrade/upgrade set group.version (which
turns the consumer group protocol's APIs off and on), standalone and on the
ZooKeeper cluster (where the levels live in `/feature`)."""
from __future__ import annotations

import re


from tests.support.kafka_dist import run_tool


def _features(bootstrap: str) -> dict[str, dict[str, str]]:
    out = run_tool("4", "kafka-features", ["--bootstrap-server", bootstrap, "describe"],
                   timeout=120).stdout
    rows = {}
    for line in out.splitlines():
        fields = dict(re.findall(r"(\w+):\s*(\S+)", line))
        if "Feature" in fields:
            rows[fields["Feature"]] = fields
    return rows


def _set(bootstrap: str, action: str, level: int) -> str:
    return run_tool("4", "kafka-features", ["--bootstrap-server", bootstrap, action,
                                            "--feature", f"group.version={level}"],
                    timeout=120).stdout


def _check_describe_and_update(bootstrap: str) -> None:
    rows = _features(bootstrap)
    group = rows["group.version"]
    assert (group["SupportedMinVersion"], group["SupportedMaxVersion"]) == ("0", "1")
    assert group["FinalizedVersionLevel"] == "1"
    streams = rows["streams.version"]     # Streams groups (KIP-1071), on as on Kafka 4.4
    assert (streams["SupportedMaxVersion"], streams["FinalizedVersionLevel"]) == ("1", "1")
    epoch = int(group["Epoch"])
    _set(bootstrap, "downgrade", 0)
    rows = _features(bootstrap)
    assert rows["group.version"]["FinalizedVersionLevel"] == "0"
    assert int(rows["group.version"]["Epoch"]) > epoch
    _set(bootstrap, "upgrade", 1)
    assert _features(bootstrap)["group.version"]["FinalizedVersionLevel"] == "1"


def test_kafka_features_describe_and_update_standalone(broker_factory):
    b = broker_factory()
    _check_describe_and_update(b.bootstrap)
    b.restart()
    assert _features(b.bootstrap)["group.version"]["FinalizedVersionLevel"] == "1"


def test_kafka_features_on_the_zookeeper_cluster(zookeeper, broker_factory):
    b = broker_factory({"zookeeper.connect": zookeeper.connect_string})
    _check_describe_and_update(b.bootstrap)
