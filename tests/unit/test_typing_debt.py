"""pyproject.toml's typing-debt list (modules mypy does not check yet) names modules that
exist: a module moved or removed leaves the list with it, so the list only shrinks and never
silences a module that took over an old name."""
from __future__ import annotations

import re

from tests.support.floors import REPO


def _debt() -> list[str]:
    text = (REPO / "pyproject.toml").read_text()
    section = text[text.index("# Typing debt"):]
    section = section[:section.index("ignore_errors = true")]
    return re.findall(r'"([\w.]+)"', section[section.index("module = ["):])


def _file_of(module: str) -> list[str]:
    parts = module.split(".")
    base = REPO.joinpath(*parts[1:]) if parts[0] == "kafpy" else REPO.joinpath(*parts)
    return [str(p) for p in (base.with_suffix(".py"), base / "__init__.py") if p.is_file()]


def test_every_module_of_the_typing_debt_exists() -> None:
    debt = _debt()
    assert debt, "the reader found no list"  # (when the last module leaves, the section goes too)
    assert len(debt) == len(set(debt))
    assert [m for m in debt if not _file_of(m)] == []
