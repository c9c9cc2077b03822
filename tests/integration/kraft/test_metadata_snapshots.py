"""Metadata snapshots in a running KRaft cluster (KIP-630), with real processes.

Three kafpy controllers (``process.roles=controller``) with tiny snapshot thresholds (a few KB
of committed records, NoOpRecords every 100 ms) and a short segment roll and retention:

- every controller writes ``<offset>-<epoch>.checkpoint`` snapshots of its image while it runs,
  and Apache Kafka 4.4's ``kafka-dump-log --cluster-metadata-decoder`` decodes them;
- the minute log cleaner moves each log start up to a snapshot (old segments and snapshots go);
- an Apache Kafka 4.4 broker formatted only now joins late: the kafpy leader's log no longer
  starts at 0, so it is caught up with FetchSnapshot (its metadata log starts at the snapshot
  it fetched), unfenced, and a topic created through it gets a leader;
- a kafpy broker joining late is caught up the same way, writes snapshots of its own image,
  and restarted loads its latest one;
- an Apache 4.4 controller's snapshot is fetched and loaded by a kafpy broker joining late;
- three combined kafpy nodes snapshot through their controllers, and a restarted one loads
  its latest snapshot in both its controller and its broker;
- a controller restarted loads its latest snapshot (its log line) and replays only what
  follows: its next snapshot holds the same image as the others';
- a controller down while the leader's log start passed its log end fetches the leader's
  snapshot when it comes back (kafpy voter from a kafpy leader) and loads it while running.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Iterator

import pytest

from kafpy.metadata.image.metadata_delta import MetadataDelta
from kafpy.metadata.image.metadata_image import EMPTY_IMAGE
from kafpy.metadata.image.provenance import EMPTY_PROVENANCE
from kafpy.metadata.record_serde import read_record
from kafpy.raft.snapshot import CLUSTER_METADATA_DIR, SnapshotId, parse_snapshot_path, read_snapshot, snapshot_path

from tests.integration.raft.quorum_support import describe_quorum
from tests.support.kafka_dist import run_tool
from tests.support.kraft_brokers import KafpyKRaftBroker, KRaftCluster
from tests.support.kraft_combined import CombinedCluster
from tests.support.kraft_controllers import ApacheBroker, KafpyControllers, eventually
from tests.support.ports import free_ports

pytestmark = pytest.mark.timeout(900)

CLUSTER_ID = "SnApShOtS0yVZ1cYpUe9Qw"
TINY_SNAPSHOTS = {
    "metadata.log.max.record.bytes.between.snapshots": "3000",
    "metadata.max.idle.interval.ms": "100",
    "metadata.log.segment.ms": "2000",
    "metadata.max.retention.bytes": "1",
}


@pytest.fixture
def controllers(tmp_path: Path) -> Iterator[KafpyControllers]:
    c = KafpyControllers(tmp_path, CLUSTER_ID, TINY_SNAPSHOTS)
    c.format()
    c.start_all()
    try:
        yield c
    finally:
        c.stop_all()


def metadata_dir(c: KafpyControllers, node: int) -> Path:
    return c.work / f"controller-{node}" / CLUSTER_METADATA_DIR


def snapshots(directory: Path) -> list[SnapshotId]:
    """The frozen snapshots of a metadata log directory but the bootstrap one (0-0)."""
    out = []
    for path in directory.glob("*.checkpoint"):
        parsed = parse_snapshot_path(path)
        if parsed is not None and parsed.snapshot_id.end_offset > 0:
            out.append(parsed.snapshot_id)
    return sorted(out)


def first_segment(directory: Path) -> int:
    """The base offset of the first segment (-1 while there is none: a log being truncated)."""
    return min((int(p.stem) for p in directory.glob("*.log")), default=-1)


def image_records(path: Path) -> list[object]:
    """A snapshot replayed into an image, as its records (no provenance)."""
    delta = MetadataDelta(EMPTY_IMAGE)
    delta.replay_all([r.message for r in read_snapshot(path, read_record).records])
    return [r.message for r in delta.apply(EMPTY_PROVENANCE).records()]


def latest_path(directory: Path) -> Path:
    return snapshot_path(directory, snapshots(directory)[-1])


def test_snapshots_in_a_running_quorum(controllers: KafpyControllers, tmp_path: Path) -> None:
    c = controllers
    c.active()
    broker: ApacheBroker | None = None
    try:
        # 1. every controller writes snapshots of its own image while it runs
        for node in c.ports:
            eventually(lambda: len(snapshots(metadata_dir(c, node))) >= 2 or None, timeout=120,
                       what=f"two snapshots on controller {node}")
            assert "Creating new KRaft snapshot file" in c.output(node)
        # Apache's dump tool decodes one (header with kraft.version 0, the image's records, footer)
        some = latest_path(metadata_dir(c, 1))
        dumped = run_tool("4", "kafka-dump-log", ["--cluster-metadata-decoder", "--files", str(some)]).stdout
        assert "SnapshotHeader" in dumped and "SnapshotFooter" in dumped, dumped
        assert '"name":"metadata.version"' in dumped, dumped
        assert "isvalid: false" not in dumped and "Exception" not in dumped, dumped

        # 2. the minute cleaner moves the log start to a snapshot: the first segments go
        for node in c.ports:
            eventually(lambda: first_segment(metadata_dir(c, node)) > 0 or None, timeout=180, interval=2.0,
                       what=f"controller {node}'s first segment removed")
            assert first_segment(metadata_dir(c, node)) <= snapshots(metadata_dir(c, node))[-1].end_offset
            assert "Marking snapshot" in c.output(node)

        # 3. an Apache 4.4 broker joining now fetches the leader's snapshot, then the log
        broker = ApacheBroker(tmp_path, c)
        broker.format()
        broker.start()
        try:
            eventually(broker.serves_metadata, timeout=180, what="the late Apache broker unfenced")
            # its metadata log starts at the snapshot it fetched, not at 0
            broker_dir = tmp_path / "broker-data" / CLUSTER_METADATA_DIR
            start = first_segment(broker_dir)
            assert start > 0 and any(s.end_offset == start for s in snapshots(broker_dir)), (start, snapshots(broker_dir))
            run_tool("4", "kafka-topics", ["--bootstrap-server", broker.bootstrap, "--create", "--topic", "late",
                                           "--partitions", "2", "--replication-factor", "1"], timeout=120)

            late_bootstrap = broker.bootstrap

            def leaders() -> list[str] | None:
                # the broker learns of the topic from the controller a moment after its creation
                desc = run_tool("4", "kafka-topics", ["--bootstrap-server", late_bootstrap, "--describe",
                                                      "--topic", "late"], timeout=120, check=False).stdout
                found = re.findall(r"Leader: (-?\d+)", desc)
                return found if found == ["100", "100"] else None
            eventually(leaders, timeout=60, what="the late topic's leaders")
        except BaseException:
            print(broker.output()[-20000:])
            broker.kill()
            raise

        # 4. a kafpy broker joining now fetches it from the kafpy leader too, then writes its own
        # snapshots; restarted, it loads its latest one
        kafpy_broker = KafpyKRaftBroker(200, free_ports(1)[0], c.voters, tmp_path / "kafpy-broker", CLUSTER_ID,
                                        TINY_SNAPSHOTS)
        kafpy_broker.start()
        try:
            kafpy_broker.wait_registered(timeout=180)
            kafpy_dir = kafpy_broker.log_dir / CLUSTER_METADATA_DIR
            start = first_segment(kafpy_dir)
            assert start > 0 and any(s.end_offset == start for s in snapshots(kafpy_dir)), (start, snapshots(kafpy_dir))
            eventually(lambda: [s for s in snapshots(kafpy_dir) if s.end_offset > start] or None, timeout=120,
                       what="a snapshot the kafpy broker wrote itself")
            assert "Creating new KRaft snapshot file" in kafpy_broker.output_path.read_text()
            kafpy_broker.stop()
            own = snapshots(kafpy_dir)[-1]
            kafpy_broker.start()
            kafpy_broker.wait_registered(timeout=180)
            assert f"Loaded snapshot {own}" in kafpy_broker.output_path.read_text()
        except BaseException:
            print(kafpy_broker.output_path.read_text()[-20000:])
            raise
        finally:
            kafpy_broker.stop()

        # 5. a restarted controller loads its latest snapshot and replays only what follows
        restarted = next(n for n in c.ports if n != c.active())
        directory = metadata_dir(c, restarted)
        c.procs[restarted].terminate()
        c.procs[restarted].wait(timeout=60)
        before = snapshots(directory)[-1]
        assert first_segment(directory) > 0  # the log no longer holds what the snapshot replaced
        output_before = len(c.output(restarted))
        c.start(restarted)
        eventually(lambda: f"Finished replaying snapshot {before}" in c.output(restarted)[output_before:] or None,
                   timeout=60, what="the restarted controller loading its snapshot")
        eventually(lambda: snapshots(directory)[-1] > before or None, timeout=120,
                   what="a snapshot written after the restart")

        # every controller's latest snapshot holds the same image (NoOpRecords change nothing)
        def same_image() -> bool | None:
            images = [image_records(latest_path(metadata_dir(c, node))) for node in c.ports]
            return all(i == images[0] for i in images) or None
        eventually(same_image, timeout=60, interval=1.0, what="the same image in every latest snapshot")
        names = {getattr(r, "name", None) for r in image_records(latest_path(directory))}
        assert "late" in names

        # 6. a controller down while the leader's log start passed its log end is caught up with
        # FetchSnapshot from the kafpy leader and loads that snapshot while running
        leader = c.active()
        behind = next(n for n in c.ports if n != leader)
        ends = {v.replica_id: v.log_end_offset for v in describe_quorum(c.ports[leader]).current_voters}
        c.kill(behind)
        left_at = ends[behind]
        eventually(lambda: first_segment(metadata_dir(c, leader)) > left_at + 1 or None, timeout=180,
                   interval=2.0, what=f"the leader's log start past controller {behind}'s log end {left_at}")
        output_before = len(c.output(behind))
        c.start(behind)

        def fetched() -> SnapshotId | None:
            start = first_segment(metadata_dir(c, behind))
            loaded = [s for s in snapshots(metadata_dir(c, behind)) if s.end_offset == start and start > left_at]
            return loaded[0] if loaded else None
        snapshot_id = eventually(fetched, timeout=120, what=f"controller {behind} fetching the leader's snapshot")
        eventually(lambda: f"Finished replaying snapshot {snapshot_id}" in c.output(behind)[output_before:] or None,
                   timeout=60, what=f"controller {behind} loading the fetched snapshot")

        def caught_up() -> bool | None:
            # asked of whichever controller leads now: on a loaded machine the leader can
            # resign (not hearing from a majority in time) while the other catches up
            voters = describe_quorum(c.ports[c.active()]).current_voters
            return {v.replica_id: v.log_end_offset for v in voters}.get(behind, -1) > snapshot_id.end_offset or None
        eventually(caught_up, timeout=60, what=f"controller {behind} fetching the log after the snapshot")
        broker.stop()
        broker = None
    except BaseException:
        for node in c.ports:
            print(f"--- controller {node}\n{c.output(node)[-8000:]}")
        if broker is not None:   # the Apache broker of step 3 ends with the test
            broker.kill()
        raise


def test_a_kafpy_broker_loads_the_snapshot_an_apache_controller_wrote(tmp_path: Path) -> None:
    """An Apache Kafka 4.4 controller with the same tiny thresholds snapshots and cleans its
    log; a kafpy broker formatted only then fetches Apache's snapshot (FetchSnapshot from an
    Apache leader), loads it and is unfenced; it serves the topic the snapshot holds."""
    cluster = KRaftCluster(tmp_path, controllers=1, brokers=1, controller_overrides=TINY_SNAPSHOTS)
    try:
        cluster.start()
        first = cluster.brokers[0]
        run_tool("4", "kafka-topics", ["--bootstrap-server", first.bootstrap, "--create", "--topic", "before",
                                       "--partitions", "1", "--replication-factor", "1"], timeout=120)
        apache_dir = cluster.controllers[0].metadata_dir / CLUSTER_METADATA_DIR
        eventually(lambda: first_segment(apache_dir) > 0 or None, timeout=180, interval=2.0,
                   what="the Apache controller's first segment removed")
        late = cluster.add_broker()
        late.start()
        late.wait_registered(timeout=180)
        late_dir = late.log_dir / CLUSTER_METADATA_DIR
        start = first_segment(late_dir)
        assert start > 0 and any(s.end_offset == start for s in snapshots(late_dir)), (start, snapshots(late_dir))
        out = late.output_path.read_text()
        assert re.search(r"Loaded snapshot SnapshotId\(end_offset=\d+, epoch=\d+\): \d+ records", out), out[-5000:]
        topics = run_tool("4", "kafka-topics", ["--bootstrap-server", late.bootstrap, "--list"], timeout=120).stdout
        assert "before" in topics.split(), topics
    except BaseException:
        for b in cluster.brokers:
            print(f"--- broker {b.node_id}\n{b.output_path.read_text()[-8000:] if b.output_path.exists() else ''}")
        print(f"--- controller\n{cluster.controllers[0].output_path.read_text()[-8000:]}")
        raise
    finally:
        cluster.stop()


def test_combined_nodes_snapshot_and_load_their_snapshots(tmp_path: Path) -> None:
    """Three combined kafpy nodes: the controller of each writes the snapshots (its broker none
    of its own), and a node restarted loads its latest snapshot in both of its listeners."""
    cluster = CombinedCluster("kafpy", tmp_path)
    for node in cluster.nodes.values():
        with open(node.config_path, "a") as f:
            f.write("".join(f"{k}={v}\n" for k, v in TINY_SNAPSHOTS.items()))
    try:
        cluster.start()
        dirs = {n: node.work_dir / "data" / CLUSTER_METADATA_DIR for n, node in cluster.nodes.items()}
        for n, directory in dirs.items():
            eventually(lambda: len(snapshots(directory)) >= 2 or None, timeout=120,
                       what=f"two snapshots on combined node {n}")
            writers = set(re.findall(r"\[SnapshotGenerator id=(\d+)\]", cluster.nodes[n].output()))
            assert writers == {str(n)}, writers
        active = cluster.active_controller()
        node = next(nd for n, nd in cluster.nodes.items() if n != active)
        node.stop()
        latest = snapshots(dirs[node.node_id])[-1]
        seen = len(node.output())
        node.start()
        cluster.wait_serving(node, 3)
        after = node.output()[seen:]
        assert f"Finished replaying snapshot {latest}" in after, after[-5000:]
        assert f"Loaded snapshot {latest}" in after, after[-5000:]
    except BaseException:
        for n, nd in cluster.nodes.items():
            print(f"--- node {n}\n{nd.output()[-8000:]}")
        raise
    finally:
        cluster.kill_all()  # no clean shutdown checked; SIGTERM would leave the last node 20 s without a quorum
