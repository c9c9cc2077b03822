"""The committed captures in tests/data/frames: names, headers and coverage agree."""
from __future__ import annotations

import struct
from pathlib import Path

import pytest

from tests.support.recording_proxy import load_request_specs, produce_codec, request_header

FRAMES = Path(__file__).resolve().parents[2] / "data" / "frames"
CLIENTS = ("java", "librdkafka", "kafka_python", "aiokafka")
CODECS = ("none", "gzip", "snappy", "lz4", "zstd")
GROUP_APIS = ("api_versions", "metadata", "find_coordinator", "join_group", "sync_group",
              "heartbeat", "offset_fetch", "offset_commit", "fetch", "leave_group")


def _requests():
    import importlib.util

    spec = importlib.util.spec_from_file_location("frames_capture", FRAMES / "capture.py")
    capture = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(capture)
    out = []
    for path in sorted(FRAMES.glob("*.bin")):
        m = capture.NAME_RE.match(path.name)
        assert m, f"{path.name} does not follow <api>_v<N>_<client>[_<variant>].bin"
        if not m["resp"]:
            out.append((path, m))
    return out


REQUESTS = _requests()
SPECS = load_request_specs()
NAMES = {v["name"]: k for k, v in SPECS.items()}


@pytest.mark.parametrize("path,m", REQUESTS, ids=[p.name for p, _ in REQUESTS])
def test_frame_header_matches_its_name(path, m):
    frame = path.read_bytes()
    api_key, version = struct.unpack_from(">hh", frame, 0)
    assert api_key == NAMES[m["api"]]
    assert version == int(m["version"])
    spec = SPECS[api_key]
    flexible = spec["flexible_min"] is not None and version >= spec["flexible_min"]
    _, _, corr, body = request_header(frame, flexible)
    assert body <= len(frame)
    if m["api"] == "produce":
        assert produce_codec(frame, version, body, flexible) == m["variant"]
    resp = path.with_name(path.name[:-4] + ".resp.bin")
    assert resp.is_file(), f"{path.name} has no response"
    assert struct.unpack_from(">i", resp.read_bytes(), 0)[0] == corr


@pytest.mark.parametrize("client", CLIENTS)
def test_each_client_has_group_and_codec_coverage(client):
    have = {(m["api"], m["variant"]) for _, m in REQUESTS if m["client"] == client}
    for api in GROUP_APIS:
        assert (api, None) in have, f"{client}: no {api} capture"
    for codec in CODECS:
        assert ("produce", codec) in have, f"{client}: no produce capture with {codec}"
