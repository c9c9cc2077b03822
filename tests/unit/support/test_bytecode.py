from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.support import bytecode


def test_bytecode_goes_to_the_cache_when_the_tree_must_stay_free_of_it(tmp_path, monkeypatch):
    monkeypatch.setenv("KAFPY_CACHE", str(tmp_path))
    environ = {"PYTHONDONTWRITEBYTECODE": "1", "PATH": "/usr/bin"}
    assert bytecode.cache_bytecode_outside_the_tree(environ) == tmp_path / "pycache"
    assert environ == {"PYTHONPYCACHEPREFIX": str(tmp_path / "pycache"), "PATH": "/usr/bin"}
    assert (tmp_path / "pycache").is_dir()


def test_an_environment_that_allows_bytecode_or_names_a_prefix_is_left_alone(tmp_path, monkeypatch):
    monkeypatch.setenv("KAFPY_CACHE", str(tmp_path))
    allowed = {"PATH": "/usr/bin"}
    assert bytecode.cache_bytecode_outside_the_tree(allowed) is None
    assert allowed == {"PATH": "/usr/bin"}
    chosen = {"PYTHONDONTWRITEBYTECODE": "1", "PYTHONPYCACHEPREFIX": "/elsewhere"}
    assert bytecode.cache_bytecode_outside_the_tree(chosen) is None
    assert chosen == {"PYTHONDONTWRITEBYTECODE": "1", "PYTHONPYCACHEPREFIX": "/elsewhere"}
    assert not (tmp_path / "pycache").exists()


def test_children_of_the_suite_write_and_reuse_bytecode_outside_the_checkout(tmp_path):
    """A child started with the suite's environment caches what it imports (conftest), and
    not as __pycache__ beside the sources."""
    probe = ("import sys, importlib.util, kafpy.protocol.codec as m; "
             "print(sys.flags.dont_write_bytecode, importlib.util.cache_from_source(m.__file__))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True, env=dict(os.environ), cwd=tmp_path).stdout.split()
    assert out[0] == "0", "the suite's children must be allowed to write bytecode"
    cached = out[1]
    assert os.path.isfile(cached), f"{cached} was not written"
    if os.environ.get("PYTHONPYCACHEPREFIX"):
        assert cached.startswith(os.environ["PYTHONPYCACHEPREFIX"])


def test_prune_temporary_drops_only_the_temp_folders_mirror(tmp_path):
    temp_mirror = tmp_path / tempfile.gettempdir().lstrip("/") / "x" / "__pycache__"
    temp_mirror.mkdir(parents=True)
    (temp_mirror / "m.cpython-311.pyc").write_bytes(b"")
    kept = tmp_path / "work" / "kafpy" / "m.cpython-311.pyc"
    kept.parent.mkdir(parents=True)
    kept.write_bytes(b"")
    bytecode.prune_temporary(tmp_path)
    assert not (tmp_path / tempfile.gettempdir().lstrip("/")).exists()
    assert kept.is_file()


def test_prune_temporary_keeps_a_checkout_that_lies_in_the_temp_folder(tmp_path):
    temp = Path(tempfile.gettempdir()).resolve()
    mirror = tmp_path / temp.relative_to("/")
    ours = mirror / "clone.x" / "main" / "broker" / "__pycache__" / "m.cpython-311.pyc"
    beside = mirror / "clone.x" / "other" / "__pycache__" / "m.cpython-311.pyc"
    project = mirror / "pytest-of-root" / "p" / "__pycache__" / "m.cpython-311.pyc"
    for f in (ours, beside, project):
        f.parent.mkdir(parents=True)
        f.write_bytes(b"")
    (mirror / "stray.pyc").write_bytes(b"")
    bytecode.prune_temporary(tmp_path, keep=temp / "clone.x" / "main")
    assert ours.is_file()
    assert sorted(p.name for p in mirror.iterdir()) == ["clone.x"]
    assert sorted(p.name for p in (mirror / "clone.x").iterdir()) == ["main"]
    bytecode.prune_temporary(tmp_path, keep=Path("/work/elsewhere"))
    assert not mirror.exists()
