"""A real full disk for the storage tests: a small tmpfs (we mount it; the tests run as root)."""
from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Iterator

import pytest


@pytest.fixture
def small_fs(tmp_path: Path) -> Iterator[Path]:
    """A 1 MiB tmpfs, unmounted at teardown."""
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mnt)], check=True)
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], check=False)
