from kazoo.client import KazooClient

from tests.support.zookeeper import four_letter_word


def test_kazoo_connects_and_round_trips_a_znode(zookeeper):
    client = KazooClient(hosts=zookeeper.connect_string, timeout=10)
    client.start(timeout=30)
    try:
        client.create("/brokers/ids/0", b'{"version":5}', ephemeral=True, makepath=True)
        assert client.get_children("/brokers/ids") == ["0"]
        assert client.get("/brokers/ids/0")[0] == b'{"version":5}'
    finally:
        client.stop()
        client.close()
    assert "Zookeeper version" in four_letter_word(zookeeper.port, "srvr")


def test_stop_ends_the_process(zookeeper):
    assert zookeeper.proc.poll() is None
    zookeeper.stop()
    assert zookeeper.proc.poll() is not None


def test_zookeeper_runs_a_light_jvm(zookeeper):
    """Serial GC and C1 alone: the suite starts a ZooKeeper per cluster test."""
    cmdline = open(f"/proc/{zookeeper.proc.pid}/cmdline", "rb").read().split(b"\0")
    assert b"-XX:+UseSerialGC" in cmdline and b"-XX:TieredStopAtLevel=1" in cmdline


def test_ready_only_once_it_serves(tmp_path):
    """ZooKeeper answers `ruok` with imok while it still loads its database and drops clients
    then; readiness is `srvr` naming a mode (a listener answering as such a server does)."""
    import socket
    import threading

    from tests.support.zookeeper import ZooKeeperServer

    answers = {b"ruok": b"imok", b"srvr": b"This ZooKeeper instance is not currently serving requests\n"}
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(10)

    def serve() -> None:
        for _ in range(3):
            conn, _addr = listener.accept()
            with conn:
                conn.sendall(answers[conn.recv(4)])

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        zk = ZooKeeperServer(data_dir=tmp_path, port=listener.getsockname()[1])
        assert four_letter_word(zk.port) == "imok"
        assert not zk.serving()
        answers[b"srvr"] = b"Zookeeper version: 3.8.0\nMode: standalone\nNode count: 5\n"
        assert zk.serving()
    finally:
        thread.join(10)
        listener.close()
