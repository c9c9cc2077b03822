"""kafka-server-start/stop and zookeeper-server-start/stop as a user runs them.

The stop scripts signal every matching process on the machine (as Kafka's do), so they run
inside a private PID namespace together with the servers they stop."""
from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
import time

from tests.integration.scripts.tools import REPO, run_script, script, started_script, unshare_prefix
from tests.support.ports import LOOPBACK, free_port


def broker_overrides(port: int, log_dir) -> list[str]:
    return ["--override", f"listeners=PLAINTEXT://{LOOPBACK}:{port}",
            "--override", f"advertised.listeners=PLAINTEXT://{LOOPBACK}:{port}",
            "--override", f"log.dirs={log_dir}"]


def wait_for_port(port: int, proc: subprocess.Popen | None = None, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise AssertionError(f"exited with {proc.returncode} before listening on {port}")
        try:
            import socket
            with socket.create_connection((LOOPBACK, port), timeout=1):
                return
        except OSError:
            time.sleep(0.2)
    raise AssertionError(f"nothing listens on {port} after {timeout}s")


def test_usage_without_arguments():
    for name, usage in (("kafka-server-start", "[-daemon] server.properties [--override property=value]*"),
                        ("zookeeper-server-start", "[-daemon] zookeeper.properties")):
        res = run_script(name)
        assert res.returncode == 1
        assert res.stdout.startswith("USAGE: ") and res.stdout.rstrip().endswith(usage)


def test_foreground_broker_exits_cleanly_on_sigterm(tmp_path):
    port = free_port()
    with open(tmp_path / "server.out", "wb") as out, \
            started_script("kafka-server-start", str(REPO / "config" / "server.properties"),
                           *broker_overrides(port, tmp_path / "data"), stdout=out,
                           stderr=subprocess.STDOUT) as proc:
        wait_for_port(port, proc)
        res = run_script("kafka-topics", "--bootstrap-server", f"{LOOPBACK}:{port}", "--create",
                         "--topic", "fg", "--partitions", "2")
        assert res.stdout == "Created topic fg.\n", res.stderr
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=60)
    assert code == 0, (tmp_path / "server.out").read_text(errors="replace")[-3000:]
    assert (tmp_path / "data" / "fg-0").is_dir()


def test_daemon_start_and_stop_script(tmp_path):
    port = free_port()
    log_dir = tmp_path / "logs"
    inner = f"""
set -u
{script('kafka-server-start')} -daemon {REPO / 'config' / 'server.properties'} \
  {' '.join(broker_overrides(port, tmp_path / 'data'))}
echo "start=$?"
for i in $(seq 1 300); do
  (exec 3<>/dev/tcp/{LOOPBACK}/{port}) 2>/dev/null && break
  sleep 0.2
done
{script('kafka-topics')} --bootstrap-server {LOOPBACK}:{port} --list > /dev/null && echo "listed"
{script('kafka-server-stop')}; echo "stop=$?"
for i in $(seq 1 300); do  # signal 0: is any broker left?
  SIGNAL=0 {script('kafka-server-stop')} > /dev/null || break
  sleep 0.2
done
{script('kafka-server-stop')}; echo "stop-again=$?"
"""
    res = subprocess.run([*unshare_prefix(), "bash", "-c", inner], capture_output=True, text=True,
                         timeout=180, env={**os.environ, "LOG_DIR": str(log_dir)}, cwd="/")
    assert res.stdout.splitlines() == ["start=0", "listed", "stop=0", "No kafka server to stop",
                                       "stop-again=1"], res.stdout + res.stderr
    server_out = (log_dir / "kafkaServer.out").read_text(errors="replace")
    assert str(port) in server_out


def test_zookeeper_start_and_stop_scripts(tmp_path):
    port = free_port()
    props = tmp_path / "zookeeper.properties"
    props.write_text(f"dataDir={tmp_path / 'zk'}\nclientPort={port}\nclientPortAddress={LOOPBACK}\n"
                     "maxClientCnxns=0\nadmin.enableServer=false\n")
    inner = f"""
{script('zookeeper-server-start')} -daemon {props}; echo "start=$?"
for i in $(seq 1 300); do
  (exec 3<>/dev/tcp/{LOOPBACK}/{port}) 2>/dev/null && break
  sleep 0.2
done
{shlex.quote(sys.executable)} - <<'PY'
from kazoo.client import KazooClient
zk = KazooClient(hosts="{LOOPBACK}:{port}")
zk.start(timeout=30)
print("children", sorted(zk.get_children("/")))
zk.stop()
PY
{script('zookeeper-server-stop')}; echo "stop=$?"
for i in $(seq 1 300); do
  SIGNAL=0 {script('zookeeper-server-stop')} > /dev/null || break
  sleep 0.2
done
{script('zookeeper-server-stop')}; echo "stop-again=$?"
"""
    res = subprocess.run([*unshare_prefix(), "bash", "-c", inner], capture_output=True, text=True,
                         timeout=180, env={**os.environ, "LOG_DIR": str(tmp_path / "logs")}, cwd="/")
    assert res.stdout.splitlines() == ["start=0", "children ['zookeeper']", "stop=0",
                                       "No zookeeper server to stop", "stop-again=1"], \
        res.stdout + res.stderr
    assert (tmp_path / "logs" / "zookeeper.out").is_file()


def test_zookeeper_foreground_and_missing_installation(tmp_path):
    port = free_port()
    props = tmp_path / "zookeeper.properties"
    props.write_text(f"dataDir={tmp_path / 'zk'}\nclientPort={port}\nclientPortAddress={LOOPBACK}\n")
    with started_script("zookeeper-server-start", str(props), stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL) as proc:
        wait_for_port(port, proc)
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)
    missing = run_script("zookeeper-server-start", str(props),
                         env={"KAFPY_ZOOKEEPER_JAR": str(tmp_path / "none.jar"),
                              "KAFPY_CACHE": str(tmp_path / "empty-cache")})
    assert missing.returncode == 1
    assert "apt-get install zookeeper" in missing.stderr
