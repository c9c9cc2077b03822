"""kafka.request.logger: every request at DEBUG, slow ones at INFO over the threshold."""
import logging
from types import SimpleNamespace as NS

from kafpy.metrics.request_logger import REQUEST_LOGGER, RequestLogger

CTX = NS(header=NS(request_api_version=9, correlation_id=7, client_id="producer-1"), principal="User:alice",
         connection_id="conn-3", client_host="10.0.0.2", client_port=5555, listener="SASL_SSL")


def _lines(caplog, threshold_ms, total_ms, level):
    caplog.set_level(level, logger=REQUEST_LOGGER)
    RequestLogger(lambda: threshold_ms).completed(CTX, "Produce", total_ms, None)
    return [(r.levelname, r.getMessage()) for r in caplog.records if r.name == REQUEST_LOGGER]


def test_debug_logs_every_request_with_header_client_principal_listener_and_time(caplog):
    [(level, line)] = _lines(caplog, -1, 1.5, logging.DEBUG)
    assert level == "DEBUG"
    for part in ("api=Produce", "version=9", "correlationId=7", "clientId=producer-1", "conn-3", "10.0.0.2:5555",
                 "totalTime:1.500", "principal:User:alice", "listener:SASL_SSL"):
        assert part in line


def test_a_slow_request_is_logged_at_info(caplog):
    [(level, line)] = _lines(caplog, 100, 250.0, logging.INFO)
    assert level == "INFO" and line.startswith("Slow request (over 100 ms)")


def test_nothing_at_info_below_the_threshold_or_without_one(caplog):
    assert _lines(caplog, 100, 99.0, logging.INFO) == []
    assert _lines(caplog, -1, 10_000.0, logging.INFO) == []


def test_the_line_breaks_the_time_down_as_kafka_does(caplog):
    caplog.set_level(logging.DEBUG, logger=REQUEST_LOGGER)
    RequestLogger(lambda: -1).completed(CTX, "Fetch", 502.5, None, remote_ms=500.0, throttle_ms=20)
    [line] = [r.getMessage() for r in caplog.records if r.name == REQUEST_LOGGER]
    assert ("totalTime:502.500,requestQueueTime:0.000,localTime:2.500,remoteTime:500.000,throttleTime:20,"
            "responseQueueTime:0.000,sendTime:0.000,principal:User:alice") in line
