"""meta.properties as Apache Kafka 4.4 writes and checks it."""

from __future__ import annotations

import calendar
import os
from pathlib import Path

import pytest

from kafpy.metadata.meta_properties import (
    MetaProperties,
    MetaPropertiesError,
    load_ensemble,
    random_directory_id,
    random_uuid,
    read_meta_properties,
    read_properties,
    uuid_from_string,
    write_meta_properties,
)

DATA = Path(__file__).parent / "data"
APACHE = DATA / "kafka-4.4.0-meta.properties"  # written by kafka-storage format 4.4.0 in a UTC zone
CLUSTER = "MkU3OEVBNTcwNTJENDM2Qg"


def test_reads_apaches_file(tmp_path: Path) -> None:
    (tmp_path / "meta.properties").write_bytes(APACHE.read_bytes())
    meta = read_meta_properties(tmp_path)
    assert meta == MetaProperties(1, CLUSTER, 1, "KfNGNAS3RbGoNxGKptH2ug")


def test_writes_apaches_bytes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TZ", "UTC")
    import time
    time.tzset()
    when = calendar.timegm((2026, 11, 28, 21, 57, 30))
    write_meta_properties(tmp_path, MetaProperties(1, CLUSTER, 1, "KfNGNAS3RbGoNxGKptH2ug"), now_s=when)
    assert (tmp_path / "meta.properties").read_bytes() == APACHE.read_bytes()
    assert sorted(os.listdir(tmp_path)) == ["meta.properties"]


def test_v0_file_has_broker_id() -> None:
    meta = MetaProperties.from_properties({"broker.id": "3", "cluster.id": "abc"})
    assert meta == MetaProperties(0, "abc", 3) and meta.to_properties() == {
        "broker.id": "3", "version": "0", "cluster.id": "abc"}


@pytest.mark.parametrize("props, message", [
    ({"version": "1", "node.id": "1"}, "cluster.id was not found"),
    ({"version": "1", "cluster.id": "x"}, "Failed to find required property node.id"),
    ({"version": "1", "cluster.id": "x", "node.id": "one"}, "base-10"),
    ({"version": "1", "cluster.id": "x", "node.id": "1", "directory.id": "short"}, "Unable to read directory.id"),
    ({"version": "2"}, "Unknown meta.properties version number 2"),
])
def test_bad_files(props: dict[str, str], message: str) -> None:
    with pytest.raises(MetaPropertiesError, match=message):
        MetaProperties.from_properties(props)


def test_java_properties_syntax() -> None:
    text = "# c\n! c2\n  a = 1\nb:2\nc 3\nd=x\\\n   y\ne=a\\=b\\u0041\n"
    assert read_properties(text) == {"a": "1", "b": "2", "c": "3", "d": "xy", "e": "a=bA"}


def test_ids() -> None:
    for _ in range(50):
        assert len(uuid_from_string(random_uuid())) == 16
    uuids = iter([b"\xf8" + bytes(15), bytes(15) + b"\x01", bytes(16), b"\x02" * 16])
    assert random_uuid(lambda n: next(uuids)) == "AgICAgICAgICAgICAgICAg"  # no "-" first, no reserved id
    # a reserved directory id (zero high bits, low < 100) is never handed out
    draws = iter([bytes(15) + b"\x05", b"\x01" * 16])
    assert random_directory_id(random_bytes=lambda n: next(draws)) == "AQEBAQEBAQEBAQEBAQEBAQ"


def _format(d: Path, cluster: str = CLUSTER, node: int = 1, directory_id: str | None = None) -> None:
    d.mkdir(parents=True, exist_ok=True)
    write_meta_properties(d, MetaProperties(1, cluster, node, directory_id or random_directory_id()))


def test_kraft_start_checks(tmp_path: Path) -> None:
    a, b, meta = tmp_path / "a", tmp_path / "b", tmp_path / "meta"
    _format(a)
    _format(meta)
    b.mkdir()
    ensemble = load_ensemble([str(a), str(b)], str(meta))
    with pytest.raises(MetaPropertiesError, match="No `meta.properties` found in .*/b \\(have you run"):
        ensemble.verify_for_kraft_start(1)
    _format(b)
    load_ensemble([str(a), str(b)], str(meta)).verify_for_kraft_start(1)
    with pytest.raises(MetaPropertiesError, match="Stored node id 1 doesn't match previous node id 2"):
        load_ensemble([str(a), str(b)], str(meta)).verify_for_kraft_start(2)
    _format(b, cluster="other")
    with pytest.raises(MetaPropertiesError, match="Invalid cluster.id in: .*Expected"):
        load_ensemble([str(a), str(b)], str(meta)).verify(CLUSTER, 1)


def test_duplicate_directory_id_and_unreadable_metadata_dir(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    _format(a, directory_id="AQEBAQEBAQEBAQEBAQEBAQ")
    _format(b, directory_id="AQEBAQEBAQEBAQEBAQEBAQ")
    with pytest.raises(MetaPropertiesError, match="Duplicate directory ID"):
        load_ensemble([str(a), str(b)]).verify(None, None)
    (b / "meta.properties").write_text("version=1\ncluster.id=x\n")
    ensemble = load_ensemble([str(a)], str(b))
    assert str(b) in ensemble.error_log_dirs
    with pytest.raises(MetaPropertiesError, match="Encountered I/O error in metadata log directory"):
        ensemble.verify(None, 1)
    with pytest.raises(MetaPropertiesError, match="No readable meta.properties"):
        load_ensemble([str(tmp_path / "none")]).verify(None, 1, require_at_least_one_valid=True)


def test_metadata_partition_outside_the_metadata_dir(tmp_path: Path) -> None:
    a, meta = tmp_path / "a", tmp_path / "meta"
    _format(a)
    _format(meta)
    (meta / "__cluster_metadata-0").mkdir()
    load_ensemble([str(a)], str(meta)).verify_for_kraft_start(1)
    (a / "__cluster_metadata-0").mkdir()
    with pytest.raises(MetaPropertiesError, match="Found unexpected metadata location in data directory"):
        load_ensemble([str(a)], str(meta)).verify_for_kraft_start(1)
