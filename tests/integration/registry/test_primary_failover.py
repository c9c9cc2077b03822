"""A registry on each of three brokers, one primary elected through the group protocol
(group ``schema-registry``, protocol type ``sr``): the primary's broker and registry are
killed with SIGKILL while a writer registers schemas through another instance; afterwards
every acknowledged registration is readable from every surviving instance with the id it
was acknowledged with, and no id was given to two schemas."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import cast

from tests.integration.cluster.harness import start_cluster, wait_until
from tests.support.ports import LOOPBACK, free_port

REPO = Path(__file__).resolve().parents[3]
CT = "application/vnd.schemaregistry.v1+json"


def http(url: str, body: dict | None = None, timeout: float = 15) -> tuple[int, object]:
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method="POST" if data else "GET", headers={"Content-Type": CT})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null")


class RegistryProcess:
    def __init__(self, bootstrap: str, log_path: Path) -> None:
        self.port = free_port()
        self.url = f"http://{LOOPBACK}:{self.port}"
        self.log = open(log_path, "wb")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "kafpy.registry", "--bootstrap-server", bootstrap, "--listener", self.url,
             "--session-timeout-ms", "6000"], cwd=REPO, stdout=self.log, stderr=subprocess.STDOUT)

    def primary(self) -> bool:
        return "This instance" in Path(self.log.name).read_text(errors="replace").split("No longer the primary")[-1]

    def kill(self) -> None:
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.kill()
        self.log.close()


def schema(i: int) -> dict:
    return {"schema": json.dumps({"type": "record", "name": f"R{i}", "fields": [{"name": "f", "type": "int"}]})}


def test_acknowledged_registrations_survive_primary_kill(zookeeper, broker_factory, tmp_path):
    brokers = start_cluster(zookeeper, broker_factory, 3)
    registries = [RegistryProcess(b.bootstrap, tmp_path / f"registry-{i}.log") for i, b in enumerate(brokers)]
    try:
        for r in registries:
            wait_until(lambda r=r: http(f"{r.url}/subjects")[0] == 200, 60, f"registry {r.url} serving")
        wait_until(lambda: sum(r.primary() for r in registries) == 1, 60, "one primary elected")
        primary = next(i for i, r in enumerate(registries) if r.primary())
        writer_index = (primary + 1) % 3
        writer_url = registries[writer_index].url
        acked: dict[int, int] = {}
        stop = threading.Event()

        def write() -> None:
            i = 0
            while not stop.is_set():
                try:
                    status, body = http(f"{writer_url}/subjects/s{i}-value/versions", schema(i))
                except OSError:
                    status, body = 0, None
                if status == 200:
                    assert isinstance(body, dict), body
                    acked[i] = body["id"]
                i += 1
                time.sleep(0.02)
        writer = threading.Thread(target=write, daemon=True)
        writer.start()
        wait_until(lambda: len(acked) >= 10, 60, "registrations before the kill")
        brokers[primary].kill()
        registries[primary].kill()
        before = len(acked)
        wait_until(lambda: len(acked) >= before + 10, 120, "registrations after the kill")
        stop.set()
        writer.join(30)
        survivors = [r for i, r in enumerate(registries) if i != primary]
        assert sum(r.primary() for r in survivors) == 1
        ids = list(acked.values())
        assert len(set(ids)) == len(ids), "an id was given to two schemas"
        for r in survivors:
            def all_readable(r=r) -> bool:
                # the registry answers a JSON object
                return all(cast(dict, http(f"{r.url}/subjects/s{i}-value/versions/latest")[1]).get("id") == sid
                           for i, sid in acked.items())
            wait_until(all_readable, 60, f"every acknowledged registration on {r.url}")
            for i, sid in list(acked.items())[:: max(1, len(acked) // 10)]:
                assert json.loads(http(f"{r.url}/schemas/ids/{sid}")[1]["schema"]) == json.loads(schema(i)["schema"])
    finally:
        for r in registries:
            r.stop()
