"""Build kafpy's wheel once and install it into clean virtual environments, for the
package's acceptance tests.

A clean venv here: made by ``python -m venv`` from an interpreter of its own (pyenv's
3.10, 3.12, 3.13 where installed, and the one running the tests), no repository path on
``sys.path`` (PYTHONPATH dropped, cwd a temp folder), dependencies installed with the
machine's pip configuration (its cache, and find-links such as /opt/wheels) so already
downloaded wheels are reused.
"""
from __future__ import annotations

import glob
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from tests.support.survivors import OWNER_VARIABLE

REPO_ROOT = Path(__file__).resolve().parents[3]
MIN_VERSION = (3, 10)
# What the user's test project needs beside kafpy's own dependencies.
TEST_PROJECT_DEPS = ["pytest>=8", "pytest-xdist>=3.5", "pytest-timeout>=2.3",
                     "confluent-kafka>=2.5", "aiokafka>=0.11"]


def clean_env(**extra: str) -> dict[str, str]:
    """The environment without anything that points Python at this checkout or at pytest
    (the session's process marker kept: tests/support/survivors.py)."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTHONSTARTUP", "PYTHON",
                        # the suite's bytecode cache (tests/support/bytecode.py) is kept out
                        # too: it mirrors source paths, and the venvs' are new every run
                        "PYTHONPYCACHEPREFIX")
           and (k == OWNER_VARIABLE or not k.startswith(("PYTEST_", "KAFPY_")))}
    env.update(extra)
    return env


def run(cmd: list[str], *, cwd: Path, timeout: float, env: dict[str, str] | None = None,
        check: bool = True) -> subprocess.CompletedProcess:
    proc = subprocess.run(cmd, cwd=cwd, env=env or clean_env(), capture_output=True, text=True,
                          timeout=timeout)
    if check and proc.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)} exited {proc.returncode}:\n"
                             f"{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}")
    return proc


def build(out_dir: Path) -> tuple[Path, Path]:
    """``python -m build`` (sdist, then the wheel from the sdist, in an isolated build env
    with setuptools from the pip cache or index): (wheel, sdist).

    Built from a copy of the checkout, since building writes ``kafpy.egg-info`` into the
    source folder, and an egg-info in a checkout registers the installed plugin there."""
    source = out_dir / "source"
    shutil.copytree(REPO_ROOT, source, ignore=shutil.ignore_patterns(
        ".git", ".venv", "__pycache__", "*.egg-info", "build", "dist", "results", ".pytest_cache"))
    run([sys.executable, "-m", "build", "--outdir", str(out_dir), str(source)],
        cwd=out_dir, timeout=300)
    [wheel] = out_dir.glob("kafpy-*.whl")
    [sdist] = out_dir.glob("kafpy-*.tar.gz")
    return wheel, sdist


def interpreters() -> dict[str, str]:
    """Runnable interpreters of Python 3.10 or newer: {"3.12": path}, the running one included."""
    found = {f"{sys.version_info[0]}.{sys.version_info[1]}": sys.executable}
    home = os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv"))
    candidates = glob.glob(os.path.join(home, "versions", "*", "bin", "python3.*"))
    for path in sorted(candidates):
        m = re.search(r"python(3)\.(\d+)$", path)
        if not m or (3, int(m.group(2))) < MIN_VERSION:
            continue
        version = f"3.{m.group(2)}"
        if version in found or not os.access(path, os.X_OK):
            continue
        found[version] = path
    return dict(sorted(found.items(), key=lambda kv: tuple(map(int, kv[0].split(".")))))


def project_dependencies() -> list[str]:
    """kafpy's install requirements as pyproject.toml lists them."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:
        import tomli as tomllib
    data = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())
    return list(data["project"]["dependencies"])


class Venv:
    """A virtual environment at ``path`` made by ``python``."""

    def __init__(self, path: Path, python: str):
        self.path = path
        run([python, "-m", "venv", str(path)], cwd=path.parent, timeout=180)
        self.python = str(path / "bin" / "python")
        self.bin = path / "bin"

    def pip_install(self, *args: str, timeout: float = 600) -> None:
        run([self.python, "-m", "pip", "install", "-q", "--disable-pip-version-check", *args],
            cwd=self.path, timeout=timeout)

    def site_packages(self) -> Path:
        out = run([self.python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                  cwd=self.path, timeout=60)
        return Path(out.stdout.strip())

    def top_level(self) -> set[str]:
        """The names in site-packages (bytecode caches aside)."""
        return {p.name for p in self.site_packages().iterdir() if p.name != "__pycache__"}
