"""scripts/kafka-storage.sh side by side with Apache Kafka 4.4's kafka-storage: the same
command line on the same server.properties (the same directory paths: the order of the
"Formatting ..." lines is Java's HashMap order of them) gives the same output and exit code,
and each tool accepts the directories the other formatted."""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Iterator

import pytest

from tests.integration.scripts.tools import run_script
from tests.support.kafka_dist import run_tool
from tests.support.tool_server import ToolServer

from kafpy.metadata.bootstrap import read_bootstrap_snapshot
from kafpy.metadata.meta_properties import read_meta_properties

CLUSTER = "MkU3OEVBNTcwNTJENDM2Qg"


@pytest.fixture(scope="module")
def apache() -> Iterator[ToolServer]:
    """Apache Kafka 4.4's kafka-storage, every run of the file's in one JVM (a JVM start per
    run was most of the file's time); test_tool_server_answers_as_fresh_jvms holds it to what
    a JVM of its own answers."""
    with ToolServer("4", "kafka-storage") as server:
        yield server
SNAPSHOT = "__cluster_metadata-0/00000000000000000000-0000000000.checkpoint"


def _config(base: Path, kind: str) -> Path:
    """A server.properties under ``base``: 'dynamic' (controller.quorum.bootstrap.servers),
    'static' (controller.quorum.voters, two data dirs), 'broker' (broker only)."""
    lines = {
        "dynamic": ["process.roles=broker,controller", "node.id=1",
                    "controller.quorum.bootstrap.servers=127.0.0.1:19093",
                    "listeners=PLAINTEXT://127.0.0.1:19092,CONTROLLER://127.0.0.1:19093",
                    f"log.dirs={base}/data", f"metadata.log.dir={base}/meta"],
        "static": ["process.roles=broker,controller", "node.id=1", "controller.quorum.voters=1@127.0.0.1:19093",
                   "listeners=PLAINTEXT://127.0.0.1:19092,CONTROLLER://127.0.0.1:19093",
                   f"log.dirs={base}/data1,{base}/data2", f"metadata.log.dir={base}/meta"],
        "broker": ["process.roles=broker", "node.id=2", "controller.quorum.bootstrap.servers=127.0.0.1:19093",
                   "listeners=PLAINTEXT://127.0.0.1:19094", f"log.dirs={base}/data"],
    }[kind]
    lines += ["controller.listener.names=CONTROLLER",
              "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT"]
    base.mkdir(parents=True, exist_ok=True)
    path = base / "server.properties"
    path.write_text("\n".join(lines) + "\n")
    return path


def _files(base: Path) -> list[str]:
    return sorted(str(p.relative_to(base)) for p in base.rglob("*") if p.is_file() and p.name != "server.properties")


def _wipe(base: Path) -> None:
    for child in base.iterdir():
        if child.name != "server.properties":
            shutil.rmtree(child)


def _first_error_line(text: str) -> str:
    return text.splitlines()[0] if text else ""


def _mask_scram(text: str) -> str:
    return re.sub(r"salt=\[[^]]*\], storedKey=\[[^]]*\], serverKey=\[[^]]*\]", "salt=..., keys=...", text)


def side_by_side(apache: ToolServer, base: Path, args: list[str]) -> tuple[subprocess.CompletedProcess, subprocess.CompletedProcess,
                                                     list[str], list[str]]:
    """Run Apache's tool then ours with ``args`` on a fresh tree at the same paths."""
    _wipe(base)
    theirs = apache.run(args)
    their_files = _files(base)
    _wipe(base)
    ours = run_script("kafka-storage", *args)
    return theirs, ours, their_files, _files(base)


@pytest.mark.parametrize("kind, extra", [
    ("dynamic", ["--standalone"]),
    ("dynamic", ["-N"]),
    ("dynamic", ["--initial-controllers", "1@127.0.0.1:19093:KfNGNAS3RbGoNxGKptH2ug,"
                 "2@127.0.0.1:19095:AQEBAQEBAQEBAQEBAQEBAQ"]),
    ("dynamic", ["-I", "3@127.0.0.1:19095:AQEBAQEBAQEBAQEBAQEBAQ"]),
    ("dynamic", ["--standalone", "-r", "3.8"]),
    ("static", ["--release-version", "3.9", "--add-scram", "SCRAM-SHA-256=[name=alice,password=alice-secret]"]),
    ("static", ["-r", "4.0-IV1", "-f", "group.version=0"]),
    ("broker", ["-N"]),
    ("broker", []),
])
def test_format_like_apache(apache: ToolServer, tmp_path: Path, kind: str, extra: list[str]) -> None:
    config = _config(tmp_path / "node", kind)
    args = ["format", "-t", CLUSTER, "-c", str(config), *extra]
    theirs, ours, their_files, our_files = side_by_side(apache, tmp_path / "node", args)
    assert (ours.returncode, _mask_scram(ours.stdout), ours.stderr) == (
        theirs.returncode, _mask_scram(theirs.stdout), theirs.stderr), (ours, theirs)
    assert our_files == their_files
    # Apache's info reads what we wrote, and both tools say the same of it
    their_info = apache.run(["info", "-c", str(config)])
    our_info = run_script("kafka-storage", "info", "-c", str(config))
    assert (our_info.returncode, our_info.stdout) == (their_info.returncode, their_info.stdout) == (0, our_info.stdout)
    # a second format refuses, or with -g skips, formatted directories, as Apache's does
    for again in (args, [*args, "-g"]):
        theirs2 = apache.run(again)
        ours2 = run_script("kafka-storage", *again)
        assert (ours2.returncode, ours2.stdout, ours2.stderr) == (theirs2.returncode, theirs2.stdout, theirs2.stderr)


def test_standalone_snapshot_matches_apaches(apache: ToolServer, tmp_path: Path) -> None:
    base = tmp_path / "node"
    config = _config(base, "dynamic")
    args = ["format", "-t", CLUSTER, "-c", str(config), "--standalone"]
    _wipe(base)
    apache.run(args, check=True)
    their_meta, their_kraft, their_voters = read_bootstrap_snapshot(base / "meta")
    their_dir_id = read_meta_properties(base / "meta")
    _wipe(base)
    assert run_script("kafka-storage", *args).returncode == 0
    our_meta, our_kraft, our_voters = read_bootstrap_snapshot(base / "meta")
    our_dir_id = read_meta_properties(base / "meta")
    assert our_meta.records == their_meta.records and our_kraft == their_kraft == 1
    assert their_voters is not None and our_voters is not None and their_dir_id and our_dir_id
    # the voter is this node on its controller listener, with the metadata dir's directory id
    [theirs] = their_voters.voters
    [ours] = our_voters.voters
    assert (ours.voter_id, ours.endpoints, ours.k_raft_version_feature) == (
        theirs.voter_id, theirs.endpoints, theirs.k_raft_version_feature)
    assert ours.voter_directory_id != theirs.voter_directory_id  # both random
    from kafpy.metadata.meta_properties import uuid_to_string
    assert uuid_to_string(ours.voter_directory_id) == our_dir_id.directory_id
    assert uuid_to_string(theirs.voter_directory_id) == their_dir_id.directory_id


@pytest.mark.parametrize("kind, extra", [
    ("dynamic", []),
    ("dynamic", ["--standalone", "-f", "foo"]),
    ("dynamic", ["--standalone", "-f", "bogus.version=1"]),
    ("dynamic", ["--standalone", "-f", "transaction.version=9"]),
    ("dynamic", ["--standalone", "-f", "transaction.version=x"]),
    ("dynamic", ["--standalone", "-r", "3.9", "-f", "eligible.leader.replicas.version=1"]),
    ("dynamic", ["--standalone", "-r", "4.5-IV0"]),
    ("dynamic", ["--standalone", "-f", "kraft.version=0"]),
    ("dynamic", ["--standalone", "-r", "4.0", "-f", "metadata.version=20"]),
    ("dynamic", ["-I", "bogus"]),
    ("dynamic", ["--standalone", "--add-scram", "SCRAM-SHA-256=[name=alice]"]),
    ("dynamic", ["--standalone", "--add-scram", "bogus"]),
    ("dynamic", ["--standalone", "-r", "3.4", "--add-scram", "SCRAM-SHA-256=[name=a,password=b]"]),
    ("dynamic", ["--standalone", "-N"]),
    ("static", ["--standalone"]),
    ("static", ["-f", "kraft.version=1"]),
    ("broker", ["--standalone"]),
])
def test_format_errors_like_apache(apache: ToolServer, tmp_path: Path, kind: str, extra: list[str]) -> None:
    config = _config(tmp_path / "node", kind)
    theirs, ours, their_files, our_files = side_by_side(
        apache, tmp_path / "node", ["format", "-t", CLUSTER, "-c", str(config), *extra])
    assert theirs.returncode == 1 and ours.returncode == 1
    assert ours.stdout == theirs.stdout
    if theirs.stderr.startswith("usage:"):
        assert ours.stderr == theirs.stderr
    else:  # a Java exception's stack trace follows its first line
        assert _first_error_line(ours.stderr) == _first_error_line(theirs.stderr)
    assert our_files == their_files == []


@pytest.mark.parametrize("args", [
    [], ["--help"], ["bogus"], ["format", "--help"], ["info", "--help"], ["format", "-c", "x"],
    ["info"], ["version-mapping"], ["version-mapping", "-r", "3.9"], ["version-mapping", "--release-version", "4.0"],
    ["version-mapping", "-r", "4.5-IV0"], ["version-mapping", "-r", "3.2"],
    ["feature-dependencies", "--feature", "eligible.leader.replicas.version=1"],
    ["feature-dependencies", "--feature", "metadata.version=33", "--feature", "group.version=1"],
    ["feature-dependencies", "--feature", "bogus.version=1"],
    ["feature-dependencies", "--feature", "transaction.version=9"],
    ["feature-dependencies", "--feature", "nothing"],
    ["version-mapping", "--help"], ["feature-dependencies", "--help"], ["random-uuid", "--help"],
    ["feature-dependencies"], ["random-uuid", "x"], ["info", "-c"], ["format", "--cluster-id"],
    ["format", "--c", "x", "-t", "y"], ["version-mapping", "-r", "3.9", "--release=4.0"],
])
def test_commands_like_apache(apache: ToolServer, args: list[str]) -> None:
    theirs = apache.run(args)
    ours = run_script("kafka-storage", *args)
    assert (ours.returncode, ours.stdout, ours.stderr) == (theirs.returncode, theirs.stdout, theirs.stderr)


def test_random_uuid(apache: ToolServer) -> None:
    theirs = apache.run(["random-uuid"], check=True)
    ours = run_script("kafka-storage", "random-uuid")
    assert ours.returncode == 0
    assert re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_-]{21}\n", ours.stdout)
    assert re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9_-]{21}\n", theirs.stdout)


def test_info_problems_like_apache(apache: ToolServer, tmp_path: Path) -> None:
    base = tmp_path / "node"
    config = _config(base, "static")
    _wipe(base)
    (base / "data1").mkdir()
    (base / "data2").write_text("a file, not a directory")
    cases = []
    cases.append("fresh")
    their = apache.run(["info", "-c", str(config)])
    ours = run_script("kafka-storage", "info", "-c", str(config))
    assert (ours.returncode, ours.stdout) == (their.returncode, their.stdout) == (1, their.stdout)
    # two directories of different clusters
    (base / "data2").unlink()
    apache.run(["format", "-t", CLUSTER, "-c", str(config)], check=True)
    text = (base / "data2" / "meta.properties").read_text().replace(CLUSTER, "AAAAAAAAAAAAAAAAAAAAAA")
    (base / "data2" / "meta.properties").write_text(text)
    their = apache.run(["info", "-c", str(config)])
    ours = run_script("kafka-storage", "info", "-c", str(config))
    assert (ours.returncode, ours.stdout) == (their.returncode, their.stdout) == (1, their.stdout)
    assert "Mismatched cluster IDs" in ours.stdout


def test_tool_server_answers_as_fresh_jvms(apache: ToolServer, tmp_path: Path) -> None:
    """The file's Apache runs share one JVM (the ``apache`` fixture): for a usage error, a
    success, a TerseFailure and an exception out of main, it answers what a JVM of its own
    answers (exit code, stdout, stderr; of a stack trace, whose frames below main differ, the
    first line), after runs that wrote files and failed."""
    config = _config(tmp_path / "node", "dynamic")
    cases = [["format", "--c", "x", "-t", "y"], ["version-mapping", "-r", "3.9"],
             ["format", "-t", CLUSTER, "-c", str(config), "--standalone", "-f", "bogus.version=1"],
             ["format", "-t", CLUSTER, "-c", str(config), "-I", "bogus"]]
    traces = 0
    for args in cases:
        _wipe(tmp_path / "node")
        fresh = run_tool("4", "kafka-storage", args, check=False, fresh_jvm=True)
        _wipe(tmp_path / "node")
        served = apache.run(args)
        assert (served.returncode, served.stdout) == (fresh.returncode, fresh.stdout), args
        if fresh.stderr.startswith('Exception in thread "main" '):
            traces += 1
            assert _first_error_line(served.stderr) == _first_error_line(fresh.stderr), args
        else:
            assert served.stderr == fresh.stderr, args
    assert traces == 1
