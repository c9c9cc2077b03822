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
