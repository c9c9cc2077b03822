"""A kafpy cluster whose every node runs in its own network namespace, with each broker's log
dir on a small ext4 file system of its own. ``mode="zookeeper"``: ZooKeeper (a namespace of its
own) and ZooKeeper-mode brokers; ``mode="kraft"``: combined broker-and-controller nodes of one
KRaft quorum, each node's controller listener in its namespace and its ``__cluster_metadata``
log on its log disk (disks.py: one can be filled up or
slowed down). The fault harness owns it: ``start()``, fault hooks (``kill``, ``pause``...),
``stop()`` (SIGTERM, exit codes kept) and ``close()``, which always leaves nothing behind:
processes, mounts, loop devices, cgroups, namespaces."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable

from kazoo.client import KazooClient

from kafpy.broker.properties import load_properties
from kafpy.embedded import KRaftQuorum, random_cluster_id, write_properties
from kafpy.protocol import codec
from kafpy.protocol.messages import (DescribeQuorumRequest, DescribeQuorumResponse, MetadataRequest,
                                     RequestHeader)
from kafpy.replication.zk_data import broker_path
from tests.integration.cluster.harness import CLUSTER_OVERRIDES
from tests.support import wire
from tests.support.kafpy_broker import DEFAULT_CONFIG, REPO_ROOT, KafpyBroker
from tests.support.zookeeper import ZooKeeperServer

from . import disks
from .disks import LogDisk
from .netns import PREFIX, Network

BROKER_PORT = 9092
CONTROLLER_PORT = 9093
KRAFT_CONFIG = REPO_ROOT / "config" / "kraft" / "server-0.properties"  # node settings come as overrides
ZK_PORT = 2181


class NamespacedBroker(KafpyBroker):
    """A KafpyBroker run through ``ip netns exec``, listening on its namespace's address."""

    def __init__(self, address: str, prefix: tuple[str, ...], **kwargs: Any):
        self.address = address
        self.prefix = prefix
        self.paused = False
        super().__init__(port=BROKER_PORT, **kwargs)

    @property
    def host(self) -> str:
        return self.address

    @property
    def bootstrap(self) -> str:
        return f"{self.address}:{self.port}"

    def command(self) -> list[str]:
        return [*self.prefix, *super().command()]

    def answers_api_versions(self) -> bool:
        return bool(wire.api_versions(self.address, self.port, timeout=2.0))

    def signal(self, sig: int) -> None:
        if self.running:
            assert self.proc is not None
            os.killpg(self.proc.pid, sig)
        self.paused = sig == signal.SIGSTOP

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.running and self.proc is not None else None

    def output_mark(self) -> int:
        """Where its output file ends now (for ``output_since``)."""
        return self._output_size()

    def output_since(self, mark: int) -> str:
        return self._output_since(mark)


def kraft_format(config: Path, overrides: dict[str, object], path: Path, cluster_id: str) -> None:
    """``kafka-storage format`` of a node started as ``config`` plus ``overrides``."""
    write_properties(path, {**load_properties(str(config)), **overrides})
    subprocess.run([sys.executable, "-m", "kafpy.scripts.kafka_storage", "format", "-t", cluster_id, "-c",
                    str(path), "--ignore-formatted"], check=True, capture_output=True, cwd=REPO_ROOT, timeout=60)


def _describe_quorum(host: str, port: int, timeout: float) -> DescribeQuorumResponse.PartitionData | None:
    """``__cluster_metadata-0`` as the controller at ``host:port`` describes it, or None
    when it is not the leader (or answers with an error)."""
    header = RequestHeader(request_api_key=55, request_api_version=2, correlation_id=1, client_id="chaos")
    req = DescribeQuorumRequest(topics=[DescribeQuorumRequest.TopicData(
        topic_name="__cluster_metadata", partitions=[DescribeQuorumRequest.PartitionData(partition_index=0)])])
    body = codec.decode_response(55, 2, wire.roundtrip(host, port, codec.encode_request(header, req),
                                                        timeout=timeout))[1]
    assert isinstance(body, DescribeQuorumResponse)
    if body.error_code or not body.topics or body.topics[0].partitions[0].error_code:
        return None
    return body.topics[0].partitions[0]


def quorum_leader(host: str, port: int, timeout: float = 3.0) -> int | None:
    """The raft leader's id if the controller at ``host:port`` is the leader, else None."""
    part = _describe_quorum(host, port, timeout)
    return None if part is None else part.leader_id


def quorum_high_watermark(host: str, port: int, timeout: float = 3.0) -> int | None:
    """The leader's high watermark if the controller at ``host:port`` leads, else None."""
    part = _describe_quorum(host, port, timeout)
    return None if part is None else part.high_watermark


def metadata(host: str, port: int, topics: list[str] | None = None, timeout: float = 3.0):
    header = RequestHeader(request_api_key=3, request_api_version=12, correlation_id=1, client_id="chaos")
    req = None if topics is None else [MetadataRequest.MetadataRequestTopic(name=t) for t in topics]
    frame = codec.encode_request(header, MetadataRequest(topics=req, allow_auto_topic_creation=False))
    return codec.decode_response(3, 12, wire.roundtrip(host, port, frame, timeout=timeout))[1]


class Cluster:
    """ZooKeeper plus ``n`` brokers (ids 0..n-1), each in a namespace of ``network``."""

    def __init__(self, work_dir: Path, n: int = 3, session_timeout_ms: int = 6000,
                 disk_mb: int = 96, mode: str = "zookeeper") -> None:
        assert mode in ("zookeeper", "kraft"), mode
        self.mode = mode
        self.work_dir = work_dir
        self.n = n
        self.session_timeout_ms = session_timeout_ms
        self.disk_mb = disk_mb
        self.net = Network()
        self.zk: ZooKeeperServer | None = None
        self.brokers: list[NamespacedBroker] = []
        self.disks: list[LogDisk] = []  # broker id -> its log disk
        self.expected_down: set[int] = set()  # brokers the harness killed or stopped

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> "Cluster":
        disks.sweep_stale()
        self.net.up()
        settings: dict[str, object] = {**CLUSTER_OVERRIDES, "min.insync.replicas": 2,
                                       "unclean.leader.election.enable": "false", "num.partitions": 3}
        quorum = None
        if self.mode == "zookeeper":
            zk_addr = self.net.add_node("zk")
            self.zk = ZooKeeperServer(data_dir=self.work_dir / "zk", port=ZK_PORT, host=zk_addr,
                                      command_prefix=self.net.exec_prefix("zk"))
            self.zk.start()
            settings.update({"zookeeper.session.timeout.ms": self.session_timeout_ms,
                             "zookeeper.connect": self.zk.connect_string})
        else:
            settings = {k: v for k, v in settings.items() if not k.startswith("zookeeper.")}
            # the KRaft counterpart of the ZooKeeper session: the controller fences a broker
            # whose heartbeats stop for this long
            settings["broker.session.timeout.ms"] = self.session_timeout_ms
        addresses = [self.net.add_node(f"b{i}") for i in range(self.n)]
        if self.mode == "kraft":
            quorum = KRaftQuorum(random_cluster_id(), {i: CONTROLLER_PORT for i in range(self.n)},
                                 dict(enumerate(addresses)))
        for i, addr in enumerate(addresses):
            work = self.work_dir / f"broker{i}"
            logs = work / "logs"
            self.disks.append(LogDisk(f"{PREFIX}{self.net.tag}-b{i}", logs, self.disk_mb))
            self.disks[-1].create()
            listener = f"PLAINTEXT://{addr}:{BROKER_PORT}"
            overrides = {**settings, "broker.id": i, "listeners": listener, "advertised.listeners": listener}
            config = DEFAULT_CONFIG
            if quorum is not None:
                del overrides["broker.id"]
                config = KRAFT_CONFIG
                overrides.update({
                    "node.id": i, "controller.quorum.voters": quorum.voters,
                    "listeners": f"{listener},CONTROLLER://{addr}:{CONTROLLER_PORT}",
                    "log.dirs": logs, "metadata.log.dir": logs})
                kraft_format(config, overrides, work / "format.properties", quorum.cluster_id)
            self.brokers.append(NamespacedBroker(
                addr, self.net.exec_prefix(f"b{i}"), log_dir=logs, work_dir=work, config=config,
                overrides=overrides))
        # A start is mostly the interpreter loading kafpy (seconds each on the loaded 2-core
        # machine), so the brokers start side by side, but ZooKeeper mode's broker 0 first: it
        # registers alone and becomes the controller, as when they started one after another
        # (a seed's faults pick their targets by role). A KRaft quorum elects whichever node
        # it elects either way.
        first = self.brokers[:1] if self.mode == "zookeeper" else []
        for b in first:
            b.start()
        rest = self.brokers[len(first):]
        with ThreadPoolExecutor(len(rest)) as pool:
            list(pool.map(lambda b: b.start(), rest))
        self.wait(lambda: all(self._knows_all(b) for b in self.brokers), 60, "cluster formed")
        return self

    def active_controller(self) -> int | None:
        """The controller: ZooKeeper mode's (from Metadata), KRaft's active one (the quorum's
        leader, asked with DescribeQuorum); None when no live node names one."""
        if self.mode == "zookeeper":
            md = self.metadata()
            return None if md is None or md.controller_id < 0 else md.controller_id
        return self._from_quorum_leader(quorum_leader)

    def metadata_high_watermark(self) -> int | None:
        """KRaft: the quorum leader's high watermark of ``__cluster_metadata`` (None when no
        live node leads)."""
        return self._from_quorum_leader(quorum_high_watermark)

    def _from_quorum_leader(self, ask: Callable[[str, int], int | None]) -> int | None:
        """``ask(host, CONTROLLER_PORT)`` of the first live node that answers as the leader."""
        for b in self.live():
            try:
                value = ask(b.host, CONTROLLER_PORT)
            except Exception:  # noqa: BLE001 - not answering: ask the next one
                continue
            if value is not None:
                return value
        return None

    def _knows_all(self, b: NamespacedBroker) -> bool:
        md = metadata(b.host, b.port)
        return len(md.brokers) == self.n and (md.controller_id >= 0 or self.mode == "kraft")

    def stop(self) -> dict[int, int | None]:
        """SIGTERM every broker (SIGCONT first if paused); their exit codes."""
        codes = {}
        for i, b in enumerate(self.brokers):
            if b.paused:
                b.signal(signal.SIGCONT)
            codes[i] = b.stop(timeout=30) if b.running else None
        return codes

    def close(self) -> None:
        """Kill what still runs, remove the disks and the namespaces: safe to call twice."""
        for b in self.brokers:
            try:
                if b.paused:
                    b.signal(signal.SIGCONT)
                b.kill()
            except Exception:  # noqa: BLE001,S110 - keep cleaning
                pass
        if self.zk is not None:
            self.zk.kill()
        try:
            for d in self.disks:
                try:
                    d.close()
                except Exception:  # noqa: BLE001,S110 - keep cleaning; sweep_stale gets the rest
                    pass
            self.disks.clear()
        finally:
            self.net.down()

    def slow_down_disk(self, broker_id: int) -> None:
        """Throttle broker ``broker_id``'s log disk for its processes (every thread) until
        ``heal_disk``, and evict its files' clean pages from the page cache, so that reads
        of anything but the newest data wait for the slow disk too."""
        b, disk = self.brokers[broker_id], self.disks[broker_id]
        disk.slow_down(disks.group_pids(b.pid) if b.pid is not None else [])
        disk.drop_cache()

    def heal_disk(self, broker_id: int) -> int:
        """End a slow disk (also when the broker is gone); the I/O requests it throttled."""
        return self.disks[broker_id].heal()

    # ------------------------------------------------------------------ state
    @property
    def bootstrap(self) -> list[str]:
        return [b.bootstrap for b in self.brokers]

    def live(self) -> list[NamespacedBroker]:
        return [b for b in self.brokers if b.running and not b.paused]

    def metadata(self, topics: list[str] | None = None):
        """Metadata from the first live broker that answers (None if none does)."""
        for b in self.live():
            try:
                return metadata(b.host, b.port, topics)
            except (OSError, Exception):  # noqa: BLE001 - try the next broker
                continue
        return None

    def partitions(self, md, topic: str) -> dict[int, Any]:
        return {p.partition_index: p for t in md.topics if t.name == topic for p in t.partitions}

    def healthy(self, topics: list[str]) -> bool:
        """Every broker up, and each one's Metadata shows every partition of ``topics`` with a
        leader and all ``n`` replicas in sync."""
        return not self.unhealthy(topics)

    def unhealthy(self, topics: list[str]) -> list[str]:
        """What keeps the cluster from ``healthy``, broker by broker, short enough to stand in
        a verdict: "b1: down", "b0: t-2 leader 2 isr [2, 0]", ... (empty: healthy)."""
        live = self.live()
        found: list[str] = []
        for i, b in enumerate(self.brokers):
            if b not in live:
                found.append(f"b{i}: down")
                continue
            try:
                md = metadata(b.host, b.port, topics)
            except Exception as e:  # noqa: BLE001 - not answering: not healthy yet
                found.append(f"b{i}: no Metadata ({type(e).__name__})")
                continue
            if (md.controller_id < 0 and self.mode == "zookeeper") or len(md.brokers) != self.n:
                found.append(f"b{i}: controller {md.controller_id}, "
                             f"brokers {sorted(x.node_id for x in md.brokers)}")
            for t in md.topics:
                if t.error_code or not t.partitions:
                    found.append(f"b{i}: {t.name} error {t.error_code}")
                for p in t.partitions:
                    if p.leader_id < 0 or len(p.isr_nodes) != self.n:
                        found.append(f"b{i}: {t.name}-{p.partition_index} leader {p.leader_id} "
                                     f"isr {list(p.isr_nodes)}")
        return found

    def registered_since(self, broker_id: int, since_ms: int) -> bool:
        """True when ``/brokers/ids/<id>`` exists and ZooKeeper created it at or after
        ``since_ms`` (wall clock: ZooKeeper runs on this machine), i.e. it is the registration
        of a process started after then, not the leftover of a killed one whose session has
        not expired yet. False while ZooKeeper does not answer. KRaft: the node started after
        then answers Metadata listing itself (registered with the active controller and
        unfenced)."""
        if self.mode == "kraft":
            b = self.brokers[broker_id]
            try:
                return any(n.node_id == broker_id for n in metadata(b.host, b.port).brokers)
            except Exception:  # noqa: BLE001 - not answering yet
                return False
        assert self.zk is not None, "the cluster is not started"
        zk = KazooClient(hosts=self.zk.connect_string, timeout=2.0)
        try:
            zk.start(timeout=2.0)
            stat = zk.exists(broker_path(broker_id))
            return stat is not None and stat.ctime >= since_ms
        except Exception:  # noqa: BLE001 - ZooKeeper down or restarting: not registered (yet)
            return False
        finally:
            zk.stop()
            zk.close()

    def unexpected_exits(self) -> list[tuple[int, int]]:
        """(broker id, exit code) of brokers that died although nobody killed them."""
        return [(i, b.proc.returncode) for i, b in enumerate(self.brokers)
                if i not in self.expected_down and b.proc is not None and b.proc.poll() is not None]

    @staticmethod
    def wait(check, timeout: float, what: str) -> float:
        """Poll ``check`` until true; the seconds it took. TimeoutError naming ``what``."""
        start = time.monotonic()
        while True:
            try:
                if check():
                    return time.monotonic() - start
            except Exception:  # noqa: BLE001,S110 - a failing probe means "not yet"
                pass
            if time.monotonic() - start > timeout:
                raise TimeoutError(f"{what}: not within {timeout:.0f}s")
            time.sleep(0.25)
