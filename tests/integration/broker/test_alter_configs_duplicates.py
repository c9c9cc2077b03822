"""AlterConfigs and IncrementalAlterConfigs naming one resource twice: each time the resource
appears it is refused (INVALID_REQUEST, "Each resource must appear at most once."), and the
request's other resources are answered as if it were not there.

IncrementalAlterConfigs goes to a standalone kafpy broker and to Apache Kafka 4.4's single
node alike. The legacy AlterConfigs to kafpy only: Apache 4.4 computes the same refusals
(its ConfigAdminManager), then fails to put the answer together ("IllegalStateException:
Duplicate key ConfigResource(type=BROKER, name='')" in its log) and never answers, so the
client waits out its timeout."""
from __future__ import annotations

from typing import Any, Iterator

import pytest

from kafpy.protocol import messages as M
from kafpy.protocol.api_keys import ApiKey
from kafpy.protocol.errors import ErrorCode
from tests.integration.broker.raw import RawConnection
from tests.support.side_by_side import apache_and_kafpy

TOPIC = "altered-twice"
TOPIC_RESOURCE, BROKER_RESOURCE = 2, 4


@pytest.fixture(scope="module")
def brokers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    yield from apache_and_kafpy(tmp_path_factory.mktemp("alter-twice"))


def _answers(broker: Any, legacy: bool) -> dict[str, Any]:
    host, port = broker.bootstrap.split(":")
    C, L = M.IncrementalAlterConfigsRequest, M.AlterConfigsRequest
    seen: dict[str, Any] = {}
    with RawConnection(host, int(port), timeout=30) as c:
        T = M.CreateTopicsRequest
        created = c.request(ApiKey.CREATE_TOPICS, 7, T(timeout_ms=30000, validate_only=False, topics=[
            T.CreatableTopic(name=TOPIC, num_partitions=1, replication_factor=1, assignments=[], configs=[])]))
        assert created.topics[0].error_code == 0, created.topics[0]
        for validate_only in (True, False):
            r = c.request(ApiKey.INCREMENTAL_ALTER_CONFIGS, 1, C(validate_only=validate_only, resources=[
                C.AlterConfigsResource(resource_type=TOPIC_RESOURCE, resource_name=TOPIC, configs=[
                    C.AlterableConfig(name="retention.ms", config_operation=0, value="1000")]),
                C.AlterConfigsResource(resource_type=BROKER_RESOURCE, resource_name="", configs=[
                    C.AlterableConfig(name="log.cleaner.threads", config_operation=0, value="2")]),
                C.AlterConfigsResource(resource_type=TOPIC_RESOURCE, resource_name=TOPIC, configs=[
                    C.AlterableConfig(name="retention.bytes", config_operation=0, value="1000")])]))
            seen[f"incremental, validate_only={validate_only}"] = [
                (x.resource_type, x.resource_name, x.error_code, x.error_message) for x in r.responses]
            if not legacy:
                continue
            r = c.request(ApiKey.ALTER_CONFIGS, 2, L(validate_only=validate_only, resources=[
                L.AlterConfigsResource(resource_type=BROKER_RESOURCE, resource_name="", configs=[
                    L.AlterableConfig(name="log.cleaner.threads", value="2")]),
                L.AlterConfigsResource(resource_type=TOPIC_RESOURCE, resource_name=TOPIC, configs=[
                    L.AlterableConfig(name="retention.ms", value="2000")]),
                L.AlterConfigsResource(resource_type=BROKER_RESOURCE, resource_name="", configs=[
                    L.AlterableConfig(name="log.cleaner.threads", value="3")])]))
            seen[f"legacy, validate_only={validate_only}"] = [
                (x.resource_type, x.resource_name, x.error_code, x.error_message) for x in r.responses]
        D = M.DescribeConfigsRequest
        r = c.request(ApiKey.DESCRIBE_CONFIGS, 4, D(include_synonyms=False, include_documentation=False, resources=[
            D.DescribeConfigsResource(resource_type=TOPIC_RESOURCE, resource_name=TOPIC,
                                      configuration_keys=["retention.ms", "retention.bytes"])]))
        seen["topic after"] = sorted((str(x.name), str(x.value)) for x in r.results[0].configs)
    return seen


def test_a_resource_named_twice_is_refused_as_kafka_44_refuses_it(brokers: dict[str, Any]) -> None:
    seen = {side: _answers(b, legacy=side == "kafpy") for side, b in brokers.items()}
    for key in seen["apache"]:
        if key != "topic after":   # the legacy request set retention.ms on kafpy only
            assert seen["kafpy"][key] == seen["apache"][key], (key, seen["apache"][key])
    assert seen["apache"]["topic after"] == [("retention.bytes", "-1"), ("retention.ms", "604800000")]
    twice = (int(ErrorCode.INVALID_REQUEST), "Each resource must appear at most once.")
    assert [x[2:] for x in seen["kafpy"]["incremental, validate_only=False"]] == [twice, (0, None), twice]
    assert [x[2:] for x in seen["kafpy"]["legacy, validate_only=False"]] == [twice, (0, None), twice]
    # the topic's resource was refused in the incremental request, then set by the legacy one
    assert seen["kafpy"]["topic after"] == [("retention.bytes", "-1"), ("retention.ms", "2000")]
