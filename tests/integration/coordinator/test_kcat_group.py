"""kcat (Debian's, linked to an old librdkafka that enables group features only on
version-0 group APIs) as a balanced consumer: joins, consumes, commits, resumes."""

from __future__ import annotations

import subprocess
import threading

from tests.integration.coordinator.helpers import committed, create_topic, produce, wait_until


def _kcat_consume(bootstrap: str, expect: int, total: int) -> list[str]:
    proc = subprocess.Popen(
        ["kcat", "-u", "-b", bootstrap, "-G", "kcat-group", "-X", "auto.offset.reset=earliest", "-f", "%s\\n",
         "-X", "enable.auto.commit=true", "-X", "auto.commit.interval.ms=200", "kc"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    lines: list[str] = []
    stdout = proc.stdout
    assert stdout is not None, "started with stdout=PIPE"
    try:
        t = threading.Thread(target=lambda: lines.extend(
            line.rstrip("\n") for line in stdout), daemon=True)
        t.start()
        wait_until(lambda: len([x for x in lines if x.startswith("kc-")]) >= expect, 90,
                   f"kcat printing {expect} messages")
        # let the auto-commit run before a clean stop (SIGTERM commits and leaves)
        wait_until(lambda: sum(committed(bootstrap, "kcat-group").values()) >= total, 30,
                   "kcat committing")
    finally:
        from tests.support import process
        process.terminate(proc, timeout=20)
    return [x for x in lines if x.startswith("kc-")]


def test_kcat_balanced_consumer_commits_and_resumes(broker_factory):
    b = broker_factory({"group.initial.rebalance.delay.ms": 0})
    create_topic(b.bootstrap, "kc", 3)
    first = [f"kc-{i}" for i in range(9)]
    produce(b.bootstrap, "kc", [v.encode() for v in first], 3)
    assert sorted(_kcat_consume(b.bootstrap, 9, 9)) == sorted(first)
    second = [f"kc-{i}" for i in range(9, 15)]
    produce(b.bootstrap, "kc", [v.encode() for v in second], 3)
    total = sum(committed(b.bootstrap, "kcat-group").values())
    assert total == 9
    assert sorted(_kcat_consume(b.bootstrap, 6, 15)) == sorted(second)
