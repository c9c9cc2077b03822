"""Bytecode caching for the Python processes the suite starts.

With PYTHONDONTWRITEBYTECODE set (as in some shells and CI images), no `.pyc` is ever
written for the checkout's modules, so every broker, script and tool the suite starts
compiles kafpy from source again: `import kafpy.broker.broker` costs 1.2-1.3 CPU-s that way
against 0.3-0.4 from cached bytecode (protocol/messages.py alone, 11,000 generated lines,
0.9 s to compile). The suite has several hundred such processes.

`cache_bytecode_outside_the_tree` keeps that setting's purpose (no `__pycache__` folders in
the checkout) and still caches: it points PYTHONPYCACHEPREFIX at a folder of the kafpy cache
(`<KAFPY_CACHE or ~/.cache/kafpy>/pycache`, which mirrors absolute source paths, so
checkouts and worktrees side by side never share an entry) and drops PYTHONDONTWRITEBYTECODE,
for this process (sys.pycache_prefix) and every child it starts. tests/conftest.py calls it
at configure, before pytest-xdist starts its workers. Bytecode of sources under the temp
folder (projects a test writes there) is never found again, so each session's controller
drops that part of the cache first (`prune_temporary`), all but the checkout's own when the
checkout itself lies there; the wheel tests' venvs run without
the prefix at all (tests/integration/package/wheel_env.py).
"""
from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import MutableMapping
from pathlib import Path

from .kafka_dist import cache_dir


def pycache_prefix() -> Path:
    """Where the suite's processes keep bytecode when the checkout must stay free of it."""
    return cache_dir() / "pycache"


def cache_bytecode_outside_the_tree(environ: MutableMapping[str, str] = os.environ) -> Path | None:
    """When `environ` forbids writing bytecode (PYTHONDONTWRITEBYTECODE) and names no
    PYTHONPYCACHEPREFIX: write it under `pycache_prefix()` instead (environ and this
    interpreter). Returns the prefix now in use, or None when nothing was changed."""
    if not environ.get("PYTHONDONTWRITEBYTECODE") or environ.get("PYTHONPYCACHEPREFIX"):
        return None
    prefix = pycache_prefix()
    prefix.mkdir(parents=True, exist_ok=True)
    environ["PYTHONPYCACHEPREFIX"] = str(prefix)
    del environ["PYTHONDONTWRITEBYTECODE"]
    if environ is os.environ:
        sys.pycache_prefix = str(prefix)
        sys.dont_write_bytecode = False
    return prefix


def prune_temporary(prefix: Path, keep: Path | None = None) -> None:
    """Remove the cache's mirror of the temp folder (sources there live for one test), except
    the mirror of ``keep`` (the checkout) when it lies in the temp folder: a clone there keeps
    the bytecode that scripts/run-tests.sh's first collection wrote for this run."""
    temp = Path(tempfile.gettempdir()).resolve()
    temporary = prefix / temp.relative_to("/")
    try:
        inside = keep.resolve().relative_to(temp).parts if keep is not None else ()
    except ValueError:
        inside = ()
    if not inside:
        shutil.rmtree(temporary, ignore_errors=True)
        return
    node = temporary
    for part in inside:  # along the checkout's path, everything beside it goes
        if not node.is_dir():
            return
        for child in node.iterdir():
            if child.name == part:
                continue
            if child.is_dir() and not child.is_symlink():
                shutil.rmtree(child, ignore_errors=True)
            else:
                child.unlink(missing_ok=True)
        node = node / part
