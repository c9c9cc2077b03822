"""Everything the project imports of its own lives under ``kafpy``.

The floors are the repository's top-level folders, reached as ``kafpy.<floor>`` through the
committed relative symlinks ``kafpy/<floor> -> ../<floor>`` (no search path is changed at run
time, so mypy and an IDE resolve ``kafpy.*`` as Python does). No file imports a floor by its
generic bare name (``broker``, ``storage``, ...), which would load a second copy of a module,
or a user's own package of that name: ruff's banned-api rule (TID251, pyproject.toml) refuses
it, and this test checks the rule against the symlinks and that it works.
"""
from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

from tests.support.floors import FLOORS, REPO

# folders at the top of the checkout that are not floors, and why
NOT_FLOORS = {"kafpy": "the package itself", "tests": "the suite", "bench": "the benchmarks"}


def test_every_floor_is_a_relative_symlink_to_its_folder() -> None:
    assert "broker" in FLOORS and "storage" in FLOORS  # a broken reader would pass everything
    for floor in FLOORS:
        link = REPO / "kafpy" / floor
        assert os.readlink(link) == f"../{floor}", floor
        assert (link / "__init__.py").resolve() == REPO / floor / "__init__.py"
    packages = {p.parent.name for p in REPO.glob("*/__init__.py")}
    assert packages - set(NOT_FLOORS) == set(FLOORS), "a top-level package without its kafpy/ symlink"


def test_the_checkout_package_reaches_the_floors_through_its_own_folder() -> None:
    import kafpy
    import kafpy.storage.log as log

    assert Path(log.__file__).resolve().is_relative_to(REPO)
    assert Path(log.__file__).parent == Path(kafpy.__file__).parent / "storage"
    assert kafpy.__path__ == [str(Path(kafpy.__file__).parent)]  # nothing added at run time
    for not_part in ("kafpy.tests", "kafpy.setup", "kafpy.bench"):
        assert importlib.util.find_spec(not_part) is None, not_part


def test_the_linter_bans_every_bare_floor_name() -> None:
    """pyproject.toml bans each floor's bare name; fed one import of each, ruff reports all."""
    banned = set(re.findall(r'^"(\w+)"\.msg = ', (REPO / "pyproject.toml").read_text(), re.M))
    assert banned == set(FLOORS)
    source = "".join(f"import {f}\nfrom {f}.x import y\nimport kafpy.{f}\n" for f in FLOORS)
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--config", str(REPO / "pyproject.toml"), "--select",
         "TID251", "--output-format", "concise", "--stdin-filename", "probe.py", "-"],
        input=source, capture_output=True, text=True, cwd=REPO, timeout=60)
    flagged = re.findall(r"probe\.py:(\d+):\d+: TID251", result.stdout)
    assert result.returncode == 1, result.stdout + result.stderr
    # lines 1 and 2 of every three: the bare imports, never the kafpy.* one
    assert sorted(map(int, flagged)) == sorted(3 * i + k for i in range(len(FLOORS)) for k in (1, 2))
