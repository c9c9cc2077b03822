"""A broker shutting down answers a JoinGroup parked in a rebalance with NOT_COORDINATOR
(the client rediscovers the coordinator) instead of holding the shutdown for it."""

from __future__ import annotations

import socket
import threading
import time

from kafpy.protocol import messages as M
from kafpy.protocol.codec import decode_response, encode_request
from tests.support.wire import read_frame


def test_parked_join_group_is_answered_when_the_broker_stops(broker_factory):
    b = broker_factory({"group.initial.rebalance.delay.ms": 600_000})
    s = socket.create_connection((b.host, b.port), timeout=60)

    def send(key: int, version: int, body, corr: int) -> None:
        header = M.RequestHeader(request_api_key=key, request_api_version=version,
                                 correlation_id=corr, client_id="parked")
        s.sendall(encode_request(header, body))

    # The first FindCoordinator only asks for __consumer_offsets (COORDINATOR_NOT_AVAILABLE,
    # as Kafka answers); the coordinator is there once its partitions are led.
    for attempt in range(100):
        send(10, 1, M.FindCoordinatorRequest(key="parked-group", key_type=0), 0)
        _, found = decode_response(10, 1, read_frame(s))
        if found.error_code != 15 or attempt == 99:
            break
        time.sleep(0.1)
    assert found.error_code == 0
    P = M.JoinGroupRequest.JoinGroupRequestProtocol
    send(11, 3, M.JoinGroupRequest(group_id="parked-group", session_timeout_ms=10000,
                                   rebalance_timeout_ms=600_000, member_id="",
                                   protocol_type="consumer",
                                   protocols=[P(name="range", metadata=b"")]), 1)
    stopper = threading.Thread(target=b.stop)
    stopper.start()
    try:
        corr, resp = decode_response(11, 3, read_frame(s))
    finally:
        stopper.join(120)
        s.close()
    assert corr == 1 and resp.error_code == 16          # NOT_COORDINATOR
