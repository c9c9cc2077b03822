"""``python -m tests.faults --summarize``: a run's result read back from its history file
alone and judged again (no brokers, no sockets)."""
from __future__ import annotations

import json
from pathlib import Path

from tests.faults.__main__ import main
from tests.faults.run import result_from_history


def write_history(path: Path, events: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    return path


def events(acked_value: str, final_value: str) -> list[dict]:
    return [
        {"t": 0.0, "kind": "schedule", "seed": 7, "brokers": 3,
         "faults": [{"kind": "kill_leader", "at": 1.0, "duration": 2.0, "pick": 0.5}]},
        {"t": 1.0, "kind": "fault", "fault": "kill_leader", "target": 1},
        {"t": 1.5, "kind": "ack", "producer": "ck-all", "value": acked_value, "partition": 0, "offset": 0},
        {"t": 3.0, "kind": "heal", "fault": "kill_leader", "target": 1},
        {"t": 4.0, "kind": "converged", "seconds": 1.25},
        {"t": 5.0, "kind": "fuzz", "sent": 300, "seconds": 1.0},
        {"t": 6.0, "kind": "final", "partition": 0, "end": 1, "records": [[0, final_value]]},
    ]


def test_a_history_gives_back_its_seed_faults_and_verdict(tmp_path):
    r = result_from_history(write_history(tmp_path / "seed-7" / "history.jsonl",
                                          events("ck-all:0", "ck-all:0")))
    assert (r.seed, r.injected["kill_leader"], r.fuzz_sent, r.seconds) == (7, 1, 300, 6.0)
    assert r.verdict.ok and r.verdict.acked_all == 1 and r.verdict.converge_s == 1.25


def test_summarize_fails_when_a_kept_history_lost_an_acknowledged_record(tmp_path, capsys):
    write_history(tmp_path / "a" / "seed-1" / "history.jsonl", events("ck-all:0", "ck-all:0"))
    assert main(["--summarize", str(tmp_path / "a")]) == 0
    write_history(tmp_path / "b" / "seed-2" / "history.jsonl", events("ck-all:0", "ck-all:9"))
    assert main(["--summarize", str(tmp_path / "a"), str(tmp_path / "b")]) == 1
    out = capsys.readouterr().out
    assert "seed 7: FAILED" in out and "| runs (failed)" in out
