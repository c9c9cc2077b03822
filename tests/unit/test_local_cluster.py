"""kafpy-cluster's layout: ports from --port (node i on PORT+i, its controller on PORT+100+i),
free ports with --port 0, and a folder's recorded cluster started again as it was."""
from __future__ import annotations

from pathlib import Path

import pytest

from kafpy.embedded import write_properties
from kafpy.local_cluster import STATE_FILE, _layout, parse_args


def test_ports_follow_the_base_port(tmp_path: Path):
    ports, quorum = _layout(parse_args(["--nodes", "3", "--port", "19092"]), tmp_path)
    assert ports == [19092, 19093, 19094]
    assert quorum is not None and dict(quorum.controller_ports) == {0: 19192, 1: 19193, 2: 19194}
    assert quorum.voters == "0@127.0.0.1:19192,1@127.0.0.1:19193,2@127.0.0.1:19194"


def test_port_zero_leaves_the_ports_to_the_cluster(tmp_path: Path):
    assert _layout(parse_args(["--port", "0"]), tmp_path) == (None, None)


def test_a_recorded_cluster_comes_back_with_its_id_and_ports(tmp_path: Path):
    write_properties(tmp_path / STATE_FILE, {"cluster.id": "AAAAAAAAAAAAAAAAAAAAAA",
                                             "broker.ports": "1,2", "controller.ports": "3,4"})
    ports, quorum = _layout(parse_args(["--nodes", "2", "--port", "9092"]), tmp_path)
    assert ports == [1, 2] and quorum is not None
    assert quorum.cluster_id == "AAAAAAAAAAAAAAAAAAAAAA" and dict(quorum.controller_ports) == {0: 3, 1: 4}
    with pytest.raises(SystemExit, match="holds a cluster of 2 nodes, not 3"):
        _layout(parse_args(["--nodes", "3"]), tmp_path)


def test_at_least_one_node(capsys: pytest.CaptureFixture[str]):
    with pytest.raises(SystemExit):
        parse_args(["--nodes", "0"])
    assert "--nodes must be at least 1" in capsys.readouterr().err
