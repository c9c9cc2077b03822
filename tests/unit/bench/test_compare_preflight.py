"""bench.compare checks what it needs before starting any broker."""
from __future__ import annotations

import importlib.util
import shutil

from bench import compare


def test_a_missing_matplotlib_skips_the_chart_and_says_how_to_get_it(monkeypatch) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "matplotlib" else real(name, *a))
    problem, draw, note = compare.preflight(profile=False, both=True)
    assert problem is None and not draw
    assert note is not None and "pip install '.[bench]'" in note
    assert compare.preflight(profile=False, both=False) == (None, False, None)   # no chart for one broker


def test_profile_without_py_spy_refuses_to_start(monkeypatch) -> None:
    monkeypatch.setattr(shutil, "which", lambda name: None)
    problem, _draw, _note = compare.preflight(profile=True, both=True)
    assert problem is not None and "py-spy" in problem
    monkeypatch.setattr(shutil, "which", lambda name: "/usr/bin/" + name)
    assert compare.preflight(profile=True, both=True)[0] is None


def test_rows_matching_no_scenario_refuse_to_start_and_list_the_names(monkeypatch, capsys) -> None:
    def no_broker(*a, **k):
        raise AssertionError("a broker was started")
    monkeypatch.setattr(compare, "KafpyBroker", no_broker)
    monkeypatch.setattr(compare, "ReferenceKafka", no_broker)
    assert compare.main(["--rows", "100 B acks=all"]) == 2
    err = capsys.readouterr().err
    assert "matches no scenario" in err and "2000k x 100B acks=all none" in err
