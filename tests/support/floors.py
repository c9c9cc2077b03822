"""The project's floors, read from the one place that lists them: the committed symlinks
``kafpy/<floor> -> ../<floor>``. The architecture and vocabulary tests, the packaging checks
and the Docker image check take the list from here; pyproject.toml's banned bare names and
the layer order of tests/unit/test_layers.py are checked against it."""
from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def floors() -> tuple[str, ...]:
    """The floors' folder names, sorted: every symlink in ``kafpy/``."""
    return tuple(sorted(p.name for p in (REPO / "kafpy").iterdir() if p.is_symlink()))


FLOORS = floors()
