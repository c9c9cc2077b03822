import os

from kafpy.storage.checkpoint import (
    LeaderEpochCheckpointFile,
    OffsetCheckpointFile,
    PartitionMetadataFile,
    read_meta_properties,
    write_meta_properties,
)


def test_offset_checkpoint_format_roundtrip(tmp_path):
    f = OffsetCheckpointFile(str(tmp_path / "recovery-point-offset-checkpoint"))
    f.write({("b", 1): 7, ("a", 0): 42})
    assert (tmp_path / "recovery-point-offset-checkpoint").read_text() == "0\n2\na 0 42\nb 1 7\n"
    assert f.read() == {("a", 0): 42, ("b", 1): 7}
    assert not any(n.endswith(".tmp") for n in os.listdir(tmp_path))


def test_offset_checkpoint_malformed_is_ignored(tmp_path):
    p = tmp_path / "cp"
    p.write_text("0\n3\na 0 1\n")
    assert OffsetCheckpointFile(str(p)).read() == {}
    assert OffsetCheckpointFile(str(tmp_path / "missing")).read() == {}


def test_leader_epoch_checkpoint_format(tmp_path):
    f = LeaderEpochCheckpointFile(str(tmp_path / "leader-epoch-checkpoint"))
    f.write([(0, 0), (3, 120)])
    assert (tmp_path / "leader-epoch-checkpoint").read_text() == "0\n2\n0 0\n3 120\n"
    assert f.read() == [(0, 0), (3, 120)]


def test_partition_metadata_format(tmp_path):
    tid = bytes(range(16))
    f = PartitionMetadataFile(str(tmp_path / "partition.metadata"))
    f.write(tid)
    text = (tmp_path / "partition.metadata").read_text()
    assert text == "version: 0\ntopic_id: AAECAwQFBgcICQoLDA0ODw"
    assert f.read() == tid


def test_meta_properties(tmp_path):
    p = str(tmp_path / "meta.properties")
    write_meta_properties(p, {"version": "0", "broker.id": "2", "cluster.id": "xyz"})
    assert read_meta_properties(p) == {"version": "0", "broker.id": "2", "cluster.id": "xyz"}
    assert open(p).read().startswith("#\n#")
