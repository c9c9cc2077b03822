"""``kafpy-cluster``: a local N-node KRaft cluster on this host, one process per node, in the
foreground until Ctrl-C (or SIGTERM), with the configs and data it made kept in a folder.

    kafpy-cluster [--nodes 3] [--dir ./kafpy-cluster] [--port 9092] [--config KEY=VALUE ...]

Every node is a combined broker and controller (``process.roles=broker,controller``) of one
static controller quorum, as `kafpy.embedded.EmbeddedCluster` runs it: node ``i`` serves
clients on ``--port + i`` and the quorum on ``--port + 100 + i`` (``--port 0``: free ports),
its properties in ``<dir>/broker<i>/server.properties``, its log in ``<dir>/broker<i>/broker.log``
and its data in ``<dir>/broker<i>/data``, formatted by ``kafka-storage format`` with the
cluster's id. The folder's ``kafpy-cluster.properties`` records the cluster id and the ports,
so running the command again on the same folder starts the same cluster with its data.
Each node is its own process, so the cluster uses every core; each can be killed and
restarted on its own with ``scripts/kafka-server-start.sh <dir>/broker<i>/server.properties``.
"""
from __future__ import annotations

import argparse
import signal
import sys
import threading
from pathlib import Path

from kafpy.broker.properties import load_properties
from kafpy.embedded import EmbeddedCluster, KRaftQuorum, random_cluster_id, write_properties

STATE_FILE = "kafpy-cluster.properties"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="kafpy-cluster", description=__doc__.split("\n\n")[0])
    p.add_argument("--nodes", type=int, default=3, help="how many nodes (default 3)")
    p.add_argument("--dir", default="kafpy-cluster", help="folder for configs, logs and data "
                   "(default ./kafpy-cluster; an existing one is started again)")
    p.add_argument("--port", type=int, default=9092, help="client port of node 0; node i uses "
                   "PORT+i, its controller PORT+100+i (default 9092; 0 picks free ports)")
    p.add_argument("--config", action="append", default=[], metavar="KEY=VALUE",
                   help="a broker setting for every node, by Kafka's name (repeatable)")
    args = p.parse_args(argv)
    if args.nodes < 1:
        p.error("--nodes must be at least 1")
    return args


def _layout(args: argparse.Namespace, folder: Path) -> tuple[list[int] | None, KRaftQuorum | None]:
    """The ports and quorum: those recorded in the folder, else from ``--port`` (None: free)."""
    state = folder / STATE_FILE
    if state.exists():
        saved = load_properties(str(state))
        brokers = [int(p) for p in saved["broker.ports"].split(",")]
        controllers = [int(p) for p in saved["controller.ports"].split(",")]
        if len(brokers) != args.nodes:
            raise SystemExit(f"kafpy-cluster: {folder} holds a cluster of {len(brokers)} nodes, not {args.nodes}")
        return brokers, KRaftQuorum(saved["cluster.id"], dict(enumerate(controllers)))
    if args.port == 0:
        return None, None
    brokers = [args.port + i for i in range(args.nodes)]
    quorum = KRaftQuorum(random_cluster_id(), {i: args.port + 100 + i for i in range(args.nodes)})
    return brokers, quorum


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    folder = Path(args.dir).resolve()
    folder.mkdir(parents=True, exist_ok=True)
    config: dict[str, object] = {}
    for pair in args.config:
        key, sep, value = pair.partition("=")
        if not sep:
            raise SystemExit(f"kafpy-cluster: --config {pair!r} is not KEY=VALUE")
        config[key.strip()] = value.strip()
    ports, quorum = _layout(args, folder)
    cluster = EmbeddedCluster(args.nodes, config, work_dir=folder, keep_files=True,
                              broker_ports=ports, quorum=quorum)
    assert cluster.quorum is not None
    write_properties(folder / STATE_FILE, {
        "cluster.id": cluster.quorum.cluster_id,
        "broker.ports": ",".join(str(b.port) for b in cluster.brokers),
        "controller.ports": ",".join(str(cluster.quorum.controller_ports[i]) for i in range(args.nodes))})
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    print(f"kafpy-cluster: starting {args.nodes} KRaft nodes in {folder} (cluster id "
          f"{cluster.quorum.cluster_id})", flush=True)
    try:
        cluster.start()
        controllers = ",".join(f"127.0.0.1:{p}" for _, p in sorted(cluster.quorum.controller_ports.items()))
        print(f"bootstrap.servers={cluster.bootstrap_servers}", flush=True)
        print(f"bootstrap controllers: {controllers}", flush=True)
        for b in cluster.brokers:
            print(f"node {b.broker_id}: {b.properties_path} (log {b.output_path}, pid {b.pid})", flush=True)
        print("kafpy-cluster: running; Ctrl-C stops every node", flush=True)
        while not stop.wait(1.0):
            pass
    finally:
        print("kafpy-cluster: stopping", flush=True)
        cluster.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
