"""A broker that had to compile its modules at start (no bytecode cache it can read or write:
PYTHONDONTWRITEBYTECODE, as many container images set) hands the heap that compiling freed
back to the system once it has started: it stays about as small as one started from cached
bytecode (without that, about 27 MB more: 73 MB against 46 MB, mostly protocol/messages.py)."""
from __future__ import annotations

import time
from pathlib import Path

from tests.support.bounded import rss_bytes
from tests.support.kafpy_broker import KafpyBroker

SETTLE_S = 2.0
SLACK = 12 << 20


def _settled_rss(broker: KafpyBroker) -> int:
    assert broker.pid is not None
    time.sleep(SETTLE_S)   # the start-up tasks that follow the listeners' opening
    return rss_bytes(broker.pid)


def test_a_broker_compiled_from_source_keeps_no_more_memory(tmp_path: Path) -> None:
    cached = KafpyBroker(work_dir=tmp_path / "cached", fork=False)   # two new interpreters
    cached.start()
    try:
        cached.stop()   # its first start wrote whatever bytecode was missing
        cached.start()
        from_cache = _settled_rss(cached)
    finally:
        cached.stop()
    compiled = KafpyBroker(work_dir=tmp_path / "compiled", fork=False, env={
        "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPYCACHEPREFIX": str(tmp_path / "no-bytecode-here")})
    compiled.start()
    try:
        from_source = _settled_rss(compiled)
    finally:
        compiled.stop()
    assert not any((tmp_path / "no-bytecode-here").rglob("*.pyc"))   # it did compile every module
    assert from_source - from_cache <= SLACK, (from_source >> 20, from_cache >> 20)
