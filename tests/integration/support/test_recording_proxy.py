"""The recording proxy in front of a real Kafka 4.x broker advertising the proxy's port."""
from __future__ import annotations

import re
import struct

from kafka import KafkaProducer

from tests.support.ports import free_ports
from tests.support.recording_proxy import RecordingProxy, load_request_specs


def test_records_first_frames_and_caps_api_versions(reference_kafka_factory, tmp_path):
    kafka_port, proxy_port = free_ports(2)
    caps = {0: (0, 9), 3: (0, 9), 18: (0, 4), 22: (0, 4), 19: (0, 7), 1: (0, 12)}
    with RecordingProxy(kafka_port, tmp_path, port=proxy_port, client="kafka_python",
                        cap_versions=caps) as proxy:
        reference_kafka_factory("4", port=kafka_port, advertised_port=proxy_port)
        producer = KafkaProducer(bootstrap_servers=proxy.bootstrap, compression_type="gzip",
                                 linger_ms=20)
        for i in range(30):
            producer.send("proxied", b"payload %d " % i * 10)
        producer.flush(30)
        producer.close()

    names = sorted(p.name for p in tmp_path.glob("*.bin"))
    assert "produce_v9_kafka_python_gzip.bin" in names
    assert "produce_v9_kafka_python_gzip.resp.bin" in names
    assert proxy.counts[("produce", 9, "kafka_python")] >= 1
    known = {v["name"] for v in load_request_specs().values()}
    assert all(re.match(r"^(.*?)_v\d+_kafka_python", n)[1] in known for n in names)

    resp = (tmp_path / next(n for n in names if n.startswith("api_versions")
                            and n.endswith(".resp.bin"))).read_bytes()
    _corr, error = struct.unpack_from(">ih", resp, 0)
    assert error == 0
    n, pos, advertised = resp[6] - 1, 7, {}
    for _ in range(n):
        key, lo, hi = struct.unpack_from(">hhh", resp, pos)
        advertised[key] = (lo, hi)
        pos += 7
    assert set(advertised) == set(caps)
    assert all(advertised[k][1] <= caps[k][1] for k in caps)
