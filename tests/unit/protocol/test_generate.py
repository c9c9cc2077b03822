"""The checked-in generated module matches what the generator makes from the in-repo schema,
and the importer turns Kafka's JSON specs into that schema."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from kafpy.protocol import generate, import_specs
from kafpy.protocol import messages as M

REPO = Path(__file__).resolve().parents[3]


def test_checked_in_output_is_current(tmp_path: Path) -> None:
    out = tmp_path / "messages.py"
    assert generate.main(["--output", str(out)]) == 0
    assert out.read_text(encoding="utf-8") == (REPO / "protocol" / "messages.py").read_text(encoding="utf-8"), (
        "protocol/messages.py is stale: run python -m kafpy.protocol.generate"
    )


def test_check_flag_exit_codes(tmp_path: Path) -> None:
    out = tmp_path / "messages.py"
    out.write_text("# stale\n", encoding="utf-8")
    cmd = [sys.executable, "-m", "kafpy.protocol.generate", "--check", "--output", str(out)]
    assert subprocess.run(cmd, cwd=REPO, capture_output=True).returncode == 1
    subprocess.run([sys.executable, "-m", "kafpy.protocol.generate", "--output", str(out)], cwd=REPO, check=True)
    assert subprocess.run(cmd, cwd=REPO, capture_output=True).returncode == 0


def test_output_is_deterministic() -> None:
    assert generate.generate() == generate.generate()


def test_strip_comments_keeps_slashes_inside_strings() -> None:
    text = '{"a": "http://x//y", // comment\n "b": "q\\"//"} // end'
    assert import_specs.strip_comments(text) == '{"a": "http://x//y", \n "b": "q\\"//"} '


KAFKA_REQUEST = """// Licensed to the Apache Software Foundation (ASF)
{
  "apiKey": 18, "type": "request", "listeners": ["broker"], "name": "ApiVersionsRequest",
  "validVersions": "0-4", "flexibleVersions": "3+",
  "fields": [
    { "name": "ClientSoftwareName", "type": "string", "versions": "3+",
      "ignorable": true, "about": "The name of the client." },
    { "name": "Topics", "type": "[]Topic", "versions": "0+", "about": "Topics.",
      "fields": [{ "name": "Name", "type": "string", "versions": "0+", "mapKey": true,
                   "entityType": "topicName", "about": "The topic name." }]}
  ]
}
"""
KAFKA_RESPONSE = """{ "apiKey": 18, "type": "response", "name": "ApiVersionsResponse",
  "validVersions": "0-4", "flexibleVersions": "3+",
  "fields": [{ "name": "ErrorCode", "type": "int16", "versions": "0+", "about": "x" }] }
"""
CONTROLLER_ONLY = """{ "apiKey": 62, "type": "request", "listeners": ["controller"],
  "name": "BrokerRegistrationRequest", "validVersions": "0", "flexibleVersions": "0+", "fields": [] }
"""
CLIENT_ONLY = """{ "apiKey": 99, "type": "request", "listeners": [],
  "name": "NobodysRequest", "validVersions": "0", "flexibleVersions": "0+", "fields": [] }
"""


def test_importer_keeps_facts_and_drops_prose(tmp_path: Path) -> None:
    kafka = tmp_path / "kafka"
    (kafka / "message").mkdir(parents=True)
    (kafka / "group-coordinator").mkdir()
    (kafka / "message" / "ApiVersionsRequest.json").write_text(KAFKA_REQUEST)
    (kafka / "message" / "ApiVersionsResponse.json").write_text(KAFKA_RESPONSE)
    (kafka / "message" / "BrokerRegistrationRequest.json").write_text(CONTROLLER_ONLY)
    (kafka / "message" / "BrokerRegistrationResponse.json").write_text(
        CONTROLLER_ONLY.replace("request", "response").replace("Request", "Response"))
    (kafka / "message" / "NobodysRequest.json").write_text(CLIENT_ONLY)
    (kafka / "message" / "NobodysResponse.json").write_text(
        CLIENT_ONLY.replace("request", "response").replace("Request", "Response"))
    (kafka / "metadata").mkdir()
    (kafka / "metadata" / "NoOpRecord.json").write_text(
        '{"apiKey": 20, "type": "metadata", "name": "NoOpRecord", "validVersions": "0", '
        '"flexibleVersions": "0+", "fields": []}')
    out = tmp_path / "schema"
    out.mkdir()
    (out / "Stale.json").write_text("{}")
    assert import_specs.main([str(kafka), "--out", str(out)]) == 0
    # the broker's and the controller's APIs and KRaft's metadata records; no listener, no import
    assert sorted(p.name for p in out.iterdir()) == [
        "ApiVersionsRequest.json", "ApiVersionsResponse.json", "BrokerRegistrationRequest.json",
        "BrokerRegistrationResponse.json", "NoOpRecord.json"]
    assert json.loads((out / "NoOpRecord.json").read_text())["apiKey"] == 20
    text = (out / "ApiVersionsRequest.json").read_text()
    assert "about" not in text and "listeners" not in text and "entityType" not in text
    assert "ignorable" not in text and "Licensed" not in text
    req = json.loads(text)
    assert req == {
        "name": "ApiVersionsRequest", "type": "request", "apiKey": 18, "validVersions": "0-4",
        "flexibleVersions": "3+", "fields": [
            {"name": "ClientSoftwareName", "type": "string", "versions": "3+"},
            {"name": "Topics", "type": "[]Topic", "versions": "0+", "fields": [
                {"name": "Name", "type": "string", "versions": "0+", "mapKey": True}]},
        ]}
    # the generator reads what the importer wrote
    assert "class ApiVersionsRequest(Message):" in generate.generate(out)


def test_importer_needs_a_spec_directory(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        import_specs.select_specs(tmp_path)


def test_schema_round_trips_through_the_importer_format() -> None:
    for path in sorted(generate.SCHEMA_DIR.glob("*.json")):
        text = path.read_text(encoding="utf-8")
        assert import_specs.dumps(json.loads(text)) == text, path.name


def test_parse_versions() -> None:
    assert generate.parse_versions("3+") == (3, 0x7FFF)
    assert generate.parse_versions("1-4") == (1, 4)
    assert generate.parse_versions("2") == (2, 2)
    assert generate.parse_versions("none") is None


def test_snake_case() -> None:
    assert generate.snake_case("PartitionIndex") == "partition_index"
    assert generate.snake_case("TopicID") == "topic_id"
    assert generate.snake_case("TopicId") == "topic_id"
    assert generate.snake_case("leaderEpoch") == "leader_epoch"
    assert generate.snake_case("ISRNodes") == "isr_nodes"


def test_selection_covers_broker_apis_headers_and_internal_records() -> None:
    names = set(M.MESSAGES)
    for n in ("RequestHeader", "ResponseHeader", "OffsetCommitKey", "OffsetCommitValue",
              "GroupMetadataKey", "GroupMetadataValue", "TransactionLogKey", "TransactionLogValue",
              "ConsumerProtocolSubscription", "ConsumerProtocolAssignment",
              # KRaft: control records of __cluster_metadata and its metadata records
              "VotersRecord", "LeaderChangeMessage", "SnapshotHeaderRecord", "TopicRecord",
              "PartitionChangeRecord", "FeatureLevelRecord", "RegisterBrokerRecord"):
        assert n in names
    # the controller's APIs are generated too (KRaft); which ones a listener serves is
    # the ApiRegistry's business, not the schema's
    assert M.API_KEYS[62].request_class is M.BrokerRegistrationRequest
    assert M.API_KEYS[52].request_class is M.VoteRequest
    assert M.TopicRecord.API_KEY == 2 and M.PartitionRecord.API_KEY == 3
    assert M.API_KEYS[0].request_class is M.ProduceRequest
    assert M.API_KEYS[18].flexible_min == 3
    assert M.ProduceResponse.TopicProduceResponse.__qualname__ == "ProduceResponse.TopicProduceResponse"
    assert M.MetadataResponse.MetadataResponseTopic().partitions == []


def test_constructor_defaults_and_fresh_mutables() -> None:
    a, b = M.MetadataResponse(), M.MetadataResponse()
    assert a.controller_id == -1 and a.cluster_id is None
    a.topics.append(1)  # type: ignore[arg-type]  # any object shows whether the list is shared
    assert b.topics == []
    fr = M.FetchResponse.PartitionData()
    assert fr.current_leader == M.FetchResponse.LeaderIdAndEpoch(leader_id=-1, leader_epoch=-1)
    assert fr.aborted_transactions == [] and fr.records is None  # nullable, no "null" default
    assert M.FetchRequest().cluster_id is None
    assert M.ProduceRequest(acks=-1).acks == -1
    assert repr(M.HeartbeatResponse()) == "HeartbeatResponse(throttle_time_ms=0, error_code=0)"
    assert hasattr(M.ProduceRequest(), "__dict__") is False


def test_api_key_enum() -> None:
    from kafpy.protocol.api_keys import ApiKey

    assert ApiKey.PRODUCE == 0 and ApiKey.API_VERSIONS == 18 and ApiKey.OFFSET_FOR_LEADER_EPOCH == 23
    assert {int(k) for k in ApiKey} == set(M.API_KEYS)
