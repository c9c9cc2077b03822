"""The shipped config/kraft/server-N.properties start a three-node KRaft cluster the way
docker-compose's "kraft" profile starts it: each node runs the profile's entrypoint (format
the directory with KAFPY_CLUSTER_ID, then kafka-server-start), here with the files' ports
moved to free ones and the scripts taken from this checkout."""
from __future__ import annotations

import os
import re
import subprocess
import time
from pathlib import Path

import yaml
from kafka.admin import KafkaAdminClient, NewTopic
from kafka.errors import KafkaError

from kafpy._process import kill
from tests.support.ports import free_ports

REPO = Path(__file__).resolve().parents[3]


def test_the_shipped_kraft_configs_form_a_cluster(tmp_path: Path) -> None:
    compose = yaml.safe_load((REPO / "docker-compose.yml").read_text())
    node0 = compose["services"]["kraft-0"]
    script = node0["entrypoint"][2].replace("$$", "$").replace("scripts/", f"{REPO}/scripts/")
    env = {**os.environ, **node0["environment"]}
    ports = free_ports(6)
    moved = {str(19092 + i): str(ports[i]) for i in range(3)} | {str(19192 + i): str(ports[3 + i]) for i in range(3)}
    procs = []
    try:
        for n in range(3):
            text = (REPO / "config" / "kraft" / f"server-{n}.properties").read_text()
            text = re.sub(r"\b(19[01]9[234])\b", lambda m: moved[m[1]], text)
            config = tmp_path / "config" / "kraft" / f"server-{n}.properties"
            config.parent.mkdir(parents=True, exist_ok=True)
            config.write_text(text)
            out = open(tmp_path / f"node-{n}.out", "wb")
            procs.append(subprocess.Popen(["bash", "-c", script, f"config/kraft/server-{n}.properties"],
                                          cwd=tmp_path, env=env, stdout=out, stderr=subprocess.STDOUT,
                                          start_new_session=True))
            out.close()
        bootstrap = ",".join(f"localhost:{ports[i]}" for i in range(3))
        deadline = time.monotonic() + 120
        while True:
            try:
                admin = KafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=5000)
                try:
                    if len(admin.describe_cluster()["brokers"]) == 3:
                        admin.create_topics([NewTopic("shipped", 3, 3)], timeout_ms=30000)
                        break
                finally:
                    admin.close()
            except (KafkaError, OSError):  # not up yet (NoBrokersAvailable, timeouts)
                pass
            outputs = "\n".join((tmp_path / f"node-{n}.out").read_text(errors="replace")[-2000:] for n in range(3))
            assert time.monotonic() < deadline, outputs
            assert all(p.poll() is None for p in procs), outputs
            time.sleep(0.5)
        for n in range(3):  # formatted with the profile's cluster id, data where the file says
            meta = (tmp_path / "logs" / f"kraft-{n}" / "meta.properties").read_text()
            assert f"cluster.id={node0['environment']['KAFPY_CLUSTER_ID']}" in meta
            assert f"node.id={n}" in meta
    finally:
        # kill -9: the test checks no clean shutdown, and SIGTERM in turn leaves the last node
        # without a quorum to grant its controlled shutdown (it waits that out for 20 s)
        for p in procs:
            kill(p)
