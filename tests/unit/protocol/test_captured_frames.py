"""Frames captured from real clients and a real Apache Kafka broker decode and re-encode byte for byte.

Files: ``tests/data/frames/<api>_v<N>_<client>.bin`` (a request frame without its size
prefix) and ``<api>_v<N>_<client>.resp.bin`` (the reference broker's response, also
without prefix). ``<api>`` is the API name (``ApiVersions``, ``api_versions`` and
``apiversions`` are all accepted); ``<client>`` may carry a suffix (``librdkafka_gzip``).
Versions newer than our specs must raise ``UnsupportedVersion`` (after reading the header).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kafpy.protocol import codec
from kafpy.protocol import messages as M
from kafpy.protocol.errors import UnsupportedVersion

FRAMES = Path(__file__).resolve().parents[2] / "data" / "frames"
NAME = re.compile(r"^(?P<api>.+?)_v(?P<version>\d+)_(?P<client>.+?)(?P<resp>\.resp)?\.bin$")

EXPECTED_APIS = ("ApiVersions", "Metadata", "Produce", "Fetch", "FindCoordinator", "JoinGroup", "SyncGroup",
                 "OffsetCommit")
EXPECTED_CLIENTS = ("java", "librdkafka", "kafka-python")


def _norm(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


API_BY_NAME = {_norm(spec.name): key for key, spec in M.API_KEYS.items()}


def _captures() -> list[Path]:
    return sorted(FRAMES.glob("*.bin")) if FRAMES.is_dir() else []


def _parse(path: Path) -> tuple[int, int, str, bool]:
    m = NAME.match(path.name)
    assert m, f"unexpected capture file name {path.name}"
    api = API_BY_NAME.get(_norm(m["api"]))
    assert api is not None, f"unknown API in {path.name}"
    return api, int(m["version"]), m["client"], bool(m["resp"])


def test_expected_captures_exist() -> None:
    have = set()
    for path in _captures():
        api, _version, client, resp = _parse(path)
        if not resp:
            have.add((api, _norm(client)))

    def captured(api: str, client: str) -> bool:
        # the client part may carry a suffix, e.g. produce_v10_librdkafka_gzip.bin
        key = API_BY_NAME[_norm(api)]
        return any(a == key and c.startswith(_norm(client)) for a, c in have)

    missing = [f"{api}/{client}" for api in EXPECTED_APIS for client in EXPECTED_CLIENTS if not captured(api, client)]
    assert not missing, f"captured request frames missing in {FRAMES}: {', '.join(missing)}"


def _check(path: Path) -> None:
    api, version, _client, resp = _parse(path)
    data = path.read_bytes()
    spec = codec.SPECS[api]
    if version > spec.max_version:
        # newer than our specs: the header must still be read so the broker can answer
        if resp:
            with pytest.raises(UnsupportedVersion):
                codec.decode_response(api, version, data)
            return
        with pytest.raises(UnsupportedVersion) as info:
            codec.decode_request(data)
        assert info.value.header is not None
        assert info.value.header.request_api_key == api
        assert info.value.header.request_api_version == version
        return
    if resp:
        cid, body = codec.decode_response(api, version, data)
        assert codec.encode_response(api, version, cid, body)[4:] == data, path.name
    else:
        header, body = codec.decode_request(data)
        assert (header.request_api_key, header.request_api_version) == (api, version)
        assert codec.encode_request(header, body)[4:] == data, path.name


def test_captures_reencode_identically() -> None:
    captures = _captures()
    assert captures, f"no captured frames in {FRAMES}"
    failures = []
    for path in captures:
        try:
            _check(path)
        except Exception as exc:  # noqa: BLE001 - collect every file's failure, then fail once
            failures.append(f"{path.name}: {type(exc).__name__}: {exc}")
    assert not failures, "\n".join(failures)
