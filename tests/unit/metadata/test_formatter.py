"""The format logic without a JVM: feature levels, voters, Java's orders and strings."""

from __future__ import annotations

from pathlib import Path

import pytest

from kafpy.metadata.bootstrap import read_bootstrap_snapshot
from kafpy.metadata.formatter import (
    Formatter,
    FormatterError,
    hash_map_order,
    java_message_repr,
    java_string_hash,
    parse_dynamic_voters,
)
from kafpy.metadata.meta_properties import read_meta_properties
from kafpy.metadata.metadata_version import LATEST_PRODUCTION, PRODUCTION_FEATURES, from_version_string
from kafpy.protocol.messages import FeatureLevelRecord, UserScramCredentialRecord


def test_java_string_hash() -> None:
    assert java_string_hash("") == 0
    assert java_string_hash("a") == 97
    assert java_string_hash("hello") == 99162322
    assert java_string_hash("polygenelubricants") == (-2147483648) & 0xFFFFFFFF


def test_hash_map_order_matches_what_apache_printed() -> None:
    # the "Formatting ..." lines Apache Kafka 4.4 printed for these directories
    assert hash_map_order(["/tmp/mdf/b/data1", "/tmp/mdf/b/data2", "/tmp/mdf/b/meta"]) == [
        "/tmp/mdf/b/data2", "/tmp/mdf/b/meta", "/tmp/mdf/b/data1"]
    assert hash_map_order(["/tmp/mdf/errs/10/data", "/tmp/mdf/errs/10/meta"]) == [
        "/tmp/mdf/errs/10/meta", "/tmp/mdf/errs/10/data"]


def test_java_repr() -> None:
    assert java_message_repr(FeatureLevelRecord(name="metadata.version", feature_level=33)) == \
        "FeatureLevelRecord(name='metadata.version', featureLevel=33)"
    rec = UserScramCredentialRecord(name="a", mechanism=1, salt=b"\x01\xff", stored_key=b"", server_key=b"\x80",
                                    iterations=4096)
    assert java_message_repr(rec) == ("UserScramCredentialRecord(name='a', mechanism=1, salt=[1, -1], storedKey=[], "
                                      "serverKey=[-128], iterations=4096)")


def test_version_strings() -> None:
    assert from_version_string("4.0").name == "4.0-IV3"
    assert from_version_string("3.9-IV0").level == 21
    assert LATEST_PRODUCTION.name == "4.4-IV2" and LATEST_PRODUCTION.level == 33
    defaults = {f.name: f.default_level(from_version_string("4.1-IV0")) for f in PRODUCTION_FEATURES}
    assert defaults == {"kraft.version": 1, "transaction.version": 2, "group.version": 1,
                        "eligible.leader.replicas.version": 1, "share.version": 0, "streams.version": 0}


@pytest.mark.parametrize("text, message", [
    ("bogus", "No @ found"),
    ("@h:1:x", "Invalid @ at beginning"),
    ("x@h:1:AQEBAQEBAQEBAQEBAQEBAQ", "Failed to parse node id"),
    ("1@h", "No colon following hostname"),
    ("1@h:99999:AQEBAQEBAQEBAQEBAQEBAQ", "Invalid port 99999"),
    ("1@h:1:nope", "Failed to parse directory ID"),
    ("1@h:1:AQEBAQEBAQEBAQEBAQEBAQ,1@h:2:AgICAgICAgICAgICAgICAg", "specified more than once"),
])
def test_bad_voters(text: str, message: str) -> None:
    with pytest.raises(FormatterError, match=message):
        parse_dynamic_voters(text)


def test_ipv6_voter() -> None:
    [voter] = parse_dynamic_voters("2@[::1]:9093:AQEBAQEBAQEBAQEBAQEBAQ").values()
    assert (voter.node_id, voter.host, voter.port) == (2, "::1", 9093)


def _formatter(tmp_path: Path, lines: list[str], **kw: object) -> Formatter:
    dirs = [str(tmp_path / "data"), str(tmp_path / "meta")]
    f = Formatter(node_id=1, cluster_id="MkU3OEVBNTcwNTJENDM2Qg", directories=dirs,
                  metadata_log_directory=str(tmp_path / "meta"), controller_listener_name="CONTROLLER",
                  out=lines.append)
    for k, v in kw.items():
        setattr(f, k, v)
    return f


def test_format_dynamic_voter(tmp_path: Path) -> None:
    lines: list[str] = []
    voters = parse_dynamic_voters("1@localhost:9093:AQEBAQEBAQEBAQEBAQEBAQ")
    _formatter(tmp_path, lines, initial_controllers=voters, has_dynamic_quorum=True).run()
    assert lines[0].startswith("Bootstrap metadata: BootstrapMetadata(records=[ApiMessageAndVersion(")
    assert sorted(lines[1:]) == [
        f"Formatting data directory {tmp_path}/data with metadata.version 4.4-IV2.",
        f"Formatting dynamic metadata voter directory {tmp_path}/meta with metadata.version 4.4-IV2."]
    meta = read_meta_properties(tmp_path / "meta")
    assert meta is not None and meta.directory_id == "AQEBAQEBAQEBAQEBAQEBAQ"
    data = read_meta_properties(tmp_path / "data")
    assert data is not None and data.directory_id not in (None, meta.directory_id)
    boot, kraft_version, record = read_bootstrap_snapshot(tmp_path / "meta")
    assert kraft_version == 1 and record is not None and record.voters[0].endpoints[0].host == "localhost"
    assert boot.metadata_version_level == 33
    assert not (tmp_path / "data" / "__cluster_metadata-0").exists()
    # formatted now: refused, or skipped with ignore_formatted
    with pytest.raises(FormatterError, match="is already formatted"):
        _formatter(tmp_path, [], initial_controllers=voters, has_dynamic_quorum=True).run()
    again: list[str] = []
    _formatter(tmp_path, again, ignore_formatted=True, initial_controllers=voters, has_dynamic_quorum=True).run()
    assert again == ["All of the log directories are already formatted."]


def test_format_static_quorum_kraft_version_0(tmp_path: Path) -> None:
    _formatter(tmp_path, [], release_version=from_version_string("3.9")).run()
    boot, kraft_version, voters = read_bootstrap_snapshot(tmp_path / "meta")
    assert (kraft_version, voters, boot.metadata_version_level) == (0, None, 21)


def test_scram_needs_3_5_iv2(tmp_path: Path) -> None:
    with pytest.raises(FormatterError, match="SCRAM is only supported in metadata.version 3.5-IV2 or later"):
        _formatter(tmp_path, [], release_version=from_version_string("3.4"), scram_records=lambda: []).run()


def test_feature_checks(tmp_path: Path) -> None:
    with pytest.raises(FormatterError, match="depends on metadata.version level 23"):
        _formatter(tmp_path, [], release_version=from_version_string("3.9"),
                   feature_levels={"eligible.leader.replicas.version": 1}).run()
    with pytest.raises(FormatterError, match="Unsupported feature: x. Supported features are: eligible"):
        _formatter(tmp_path, [], feature_levels={"x": 1}).run()
    with pytest.raises(FormatterError, match="Cannot set kraft.version to 1 unless"):
        _formatter(tmp_path, [], feature_levels={"kraft.version": 1}).run()
    assert not (tmp_path / "meta").exists()
