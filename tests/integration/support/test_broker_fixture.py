"""The broker fixture's process handling, checked with a stand-in broker module."""
from __future__ import annotations

from tests.support import wire
from tests.support.kafpy_broker import KafpyBroker

STANDIN = "tests.integration.support.standin_broker"


def test_factory_passes_command_line_and_waits_for_api_versions(broker_factory):
    b = broker_factory({"broker.id": 7}, module=STANDIN)
    assert b.bootstrap == f"127.0.0.1:{b.port}"
    assert wire.api_versions("127.0.0.1", b.port) == {18: (0, 3)}
    args = (b.log_dir / "standin-args.txt").read_text().split()
    assert args[0].endswith("server.properties")
    assert f"listeners=PLAINTEXT://127.0.0.1:{b.port}" in args
    assert f"advertised.listeners=PLAINTEXT://127.0.0.1:{b.port}" in args
    assert f"log.dirs={b.log_dir}" in args
    assert "broker.id=7" in args
    assert "standin broker listening" in b.log_text()


def test_restart_kill_and_stop_keep_port_and_log_dir(broker_factory):
    b = broker_factory(module=STANDIN)
    port = b.port
    b.restart()
    assert b.exit_codes == [0]  # SIGTERM: clean exit
    b.restart(kill=True)
    assert b.exit_codes == [0, -9]
    assert b.port == port and b.answers_api_versions()
    assert len((b.log_dir / "standin-args.txt").read_text().splitlines()) == 3
    assert b.stop() == 0
    assert not b.running


def test_factory_stops_brokers_left_running(tmp_path):
    from tests.conftest import BrokerFactory

    factory = BrokerFactory(tmp_path)
    brokers = [factory(module=STANDIN) for _ in range(2)]
    assert all(b.running for b in brokers)
    factory.stop_all()
    assert not any(b.running for b in brokers)
    assert [name for name, _ in factory.failure_logs()] == [b.name for b in brokers]


def test_factory_teardown_kills_brokers_left_running(tmp_path):
    """The fixture's teardown (kill_all): every broker gets SIGKILL, none a clean stop."""
    from tests.conftest import BrokerFactory

    factory = BrokerFactory(tmp_path)
    brokers = [factory(module=STANDIN) for _ in range(2)]
    factory.kill_all()
    assert [b.exit_codes for b in brokers] == [[-9], [-9]]
    assert not any(b.running for b in brokers)


def test_start_failure_reports_output(tmp_path):
    b = KafpyBroker(work_dir=tmp_path, module="tests.integration.support.no_such_module",
                    start_timeout=30)
    try:
        b.start()
    except RuntimeError as e:
        assert "No module named" in str(e)
    else:
        raise AssertionError("start() of a missing module did not raise")
    assert not b.running


def test_first_start_moves_to_a_new_port_when_its_port_was_taken(tmp_path, monkeypatch):
    import socket

    from tests.support import kafpy_broker, ports

    taken = socket.create_server(("127.0.0.1", 0))
    picks = iter([taken.getsockname()[1]])
    monkeypatch.setattr(kafpy_broker, "free_port", lambda: next(picks, None) or ports.free_port())
    b = KafpyBroker(work_dir=tmp_path, module=STANDIN)
    try:
        assert b.port == taken.getsockname()[1]
        b.start()
        assert b.port != taken.getsockname()[1]
        assert b.answers_api_versions()
    finally:
        b.stop()
        taken.close()
