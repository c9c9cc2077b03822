"""tests/support/xdist_weights.py and the suite's xdist scheduler (tests/conftest.py): the
units are handed out heaviest first by the committed table, not by their number of tests."""
from __future__ import annotations

from pathlib import Path
from typing import cast

import pytest
from xdist.scheduler import LoadFileScheduling
from xdist.workermanage import WorkerController

from tests import conftest
from tests.support import xdist_weights

REPO = Path(__file__).resolve().parents[3]


def test_table_names_existing_files_only() -> None:
    weights = xdist_weights.load()
    assert weights, "empty table"
    missing = [path for path in weights if not (REPO / path).is_file()]
    assert missing == [], f"stale entries in {xdist_weights.TABLE.name}: {missing}"


def test_durations_summed_per_file_and_table_rendered(tmp_path: Path) -> None:
    log = ["============ slowest durations ============",
           "12.50s call     tests/a/test_x.py::test_one[p1]",
           "2.00s setup    tests/a/test_x.py::test_one[p1]",
           "0.50s teardown tests/a/test_x.py::TestK::test_two",
           "30.00s call     tests/b/test_y.py::test_three",
           "(12 durations < 0.005s hidden.  Use -vv to show these durations.)"]
    weights = xdist_weights.from_durations(log)
    assert weights == {"tests/a/test_x.py": 15.0, "tests/b/test_y.py": 30.0}
    table = tmp_path / "weights.txt"
    table.write_text(xdist_weights.render(weights))
    assert xdist_weights.load(table) == weights
    assert table.read_text().splitlines()[1:] == ["    30.0 tests/b/test_y.py", "    15.0 tests/a/test_x.py"]


def test_folder_units_sum_their_files_and_unknown_units_count_their_tests() -> None:
    weights = {"tests/s/test_a.py": 10.0, "tests/s/test_b.py": 5.0, "tests/t/test_c.py": 7.0}
    assert xdist_weights.unit_weight("tests/s/", 9, weights) == 15.0
    assert xdist_weights.unit_weight("tests/t/test_c.py", 100, weights) == 7.0
    assert xdist_weights.unit_weight("tests/u/test_new.py", 10, weights) == 10 * xdist_weights.UNKNOWN_TEST_S


class Options:
    loadscopereorder = True   # xdist's default: units with the most tests first


class Config:
    """What the scheduler reads of pytest's config: -n 2 --dist loadfile."""

    option = Options()

    def getvalue(self, name: str) -> object:
        return {"dist": "loadfile", "tx": ["2*popen"]}[name]


class Gateway:
    def __init__(self, id: str) -> None:
        self.id = id


class Node:
    """A worker as the scheduler sees it: what it was told to run (indexes in its collection)."""

    def __init__(self, id: str) -> None:
        self.gateway = Gateway(id)
        self.sent: list[list[int]] = []
        self.shutting_down = False

    def send_runtest_some(self, indexes: list[int]) -> None:
        self.sent.append(indexes)

    def shutdown(self) -> None:
        self.shutting_down = True


def test_scheduler_hands_out_the_heaviest_units_first(monkeypatch: pytest.MonkeyPatch) -> None:
    weights = {"tests/integration/package/test_wheel.py": 400.0, "tests/integration/spark/test_a.py": 100.0,
               "tests/integration/spark/test_b.py": 150.0, "tests/unit/test_many.py": 1.0}
    monkeypatch.setattr(xdist_weights, "load", lambda: weights)
    scheduler = conftest.pytest_xdist_make_scheduler(cast(pytest.Config, Config()), None)
    assert isinstance(scheduler, LoadFileScheduling)
    collection = ([f"tests/unit/test_many.py::test_{i}" for i in range(50)]
                  + ["tests/integration/spark/test_a.py::test_1", "tests/integration/spark/test_b.py::test_2",
                     "tests/integration/package/test_wheel.py::test_1",
                     "tests/integration/package/test_wheel.py::test_2"])
    nodes = [Node("gw0"), Node("gw1")]
    for node in nodes:
        worker = cast(WorkerController, node)   # the stand-in has what the scheduler uses
        scheduler.add_node(worker)
        scheduler.add_node_collection(worker, collection)
    scheduler.schedule()
    # each node starts with two units: the wheel's file (400 s), the Spark folder (250 s),
    # then the 50 quick unit tests; xdist's own order would have started with those
    first, second = nodes
    assert [collection[i] for i in first.sent[0]] == collection[52:54]
    assert [collection[i] for i in second.sent[0]] == collection[50:52]
    assert [collection[i] for i in first.sent[1]] == collection[:50]
