"""Broker registration in ZooKeeper, in Kafka's own layout .

When ``zookeeper.connect`` is set the broker writes its ephemeral ``/brokers/ids/<id>`` znode
(the JSON Kafka 2.x/3.x writes) and ``/cluster/id`` if absent, so tools that find brokers
through ZooKeeper (``kafka-topics.sh --zookeeper``) reach it. Topic metadata still lives in
the standalone controller's state file; a ZooKeeper controller will feed the ``MetadataCache`` instead.

Uses kazoo's own thread for the session; called from the broker's startup and shutdown only.
"""
from __future__ import annotations

import json
import logging
from typing import Any

log = logging.getLogger("kafka.zk.KafkaZkClient")


class ZkRegistration:
    def __init__(self, connect: str, session_timeout_ms: int, connection_timeout_ms: int | None) -> None:
        from kazoo.client import KazooClient
        self.connect = connect
        self.client = KazooClient(hosts=connect, timeout=session_timeout_ms / 1000)
        self.connection_timeout_s = (connection_timeout_ms or session_timeout_ms) / 1000

    def start(self, broker_id: int, host: str, port: int, listener: str, cluster_id: str, now_ms: int,
              rack: str | None = None) -> str:
        """Register; returns the cluster id stored in ZooKeeper (ours if it had none)."""
        self.client.start(timeout=self.connection_timeout_s)
        for path in ("/brokers/ids", "/brokers/topics", "/config/topics", "/admin/delete_topics",
                     "/isr_change_notification", "/config/changes", "/cluster"):
            self.client.ensure_path(path)
        from kazoo.exceptions import NodeExistsError
        try:
            self.client.create("/cluster/id", json.dumps({"version": "1", "id": cluster_id}).encode())
        except NodeExistsError:
            data, _ = self.client.get("/cluster/id")
            cluster_id = json.loads(data)["id"]
        info: dict[str, Any] = {
            "features": {},
            "listener_security_protocol_map": {listener: "PLAINTEXT"},
            "endpoints": [f"{listener}://{host}:{port}"],
            "jmx_port": -1,
            "port": port,
            "host": host,
            "version": 5,
            "timestamp": str(now_ms),
        }
        if rack:
            info["rack"] = rack
        path = f"/brokers/ids/{broker_id}"
        try:
            self.client.create(path, json.dumps(info).encode(), ephemeral=True)
        except NodeExistsError:
            raise RuntimeError(f"Error while creating ephemeral at {path}, node already exists "
                               f"(another broker with id {broker_id} is registered)") from None
        log.info("Registered broker %d at path %s with addresses: %s", broker_id, path, info["endpoints"])
        return cluster_id

    def stop(self) -> None:
        try:
            self.client.stop()
            self.client.close()
        except Exception:
            log.debug("Error closing the ZooKeeper session", exc_info=True)
