"""The scripts' interpreter choice (scripts/kafpy-python.sh) on a simulated PEP 668 system.

The system's ``python3`` here is a stand-in that behaves like Debian's externally managed
interpreter: ``-m pip install`` fails with "externally-managed-environment", ``-m venv`` makes
a virtual environment (a directory whose ``bin/python3`` is this test's interpreter). Every
call to it is logged, so a test can tell that nothing was pip-installed into it.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
CHOOSER = REPO / "scripts" / "kafpy-python.sh"

FAKE_PYTHON3 = """#!/bin/bash
echo "$*" >> "{log}"
if [ "$1" = "-m" ] && [ "$2" = "pip" ]; then
    echo "error: externally-managed-environment" >&2
    exit 1
fi
if [ "$1" = "-m" ] && [ "$2" = "venv" ]; then
    {venv_body}
fi
exit 0
"""
VENV_WORKS = 'dir="${@: -1}"; mkdir -p "$dir/bin" && ln -s "%s" "$dir/bin/python3"; exit 0' % sys.executable
VENV_MISSING = 'echo "The virtual environment was not created because ensurepip is not available" >&2; exit 1'


def _system(tmp_path: Path, venv_body: str) -> tuple[Path, dict[str, str]]:
    """A checkout holding the chooser and a PATH whose python3 (and apt-get) are stand-ins."""
    checkout = tmp_path / "checkout"
    (checkout / "scripts").mkdir(parents=True)
    shutil.copy(CHOOSER, checkout / "scripts" / "kafpy-python.sh")
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir()
    log = tmp_path / "python3.calls"
    log.touch()
    py = fake_bin / "python3"
    py.write_text(FAKE_PYTHON3.format(log=log, venv_body=venv_body))
    py.chmod(0o755)
    apt = fake_bin / "apt-get"               # apt-get cannot help either (no network, no package)
    apt.write_text('#!/bin/bash\necho "apt-get $*" >> "%s"\n[ "$1" = update ] || exit 100\n' % log)
    apt.chmod(0o755)
    sudo = fake_bin / "sudo"                 # run as root or not, apt-get is reached the same way
    sudo.write_text('#!/bin/bash\nexec "$@"\n')
    sudo.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHON", "VIRTUAL_ENV")}
    env["PATH"] = f"{fake_bin}:/usr/bin:/bin"
    return checkout, env


def _choose(checkout: Path, env: dict[str, str], *flags: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["bash", "-c", '. "$1/scripts/kafpy-python.sh" && kafpy_python "$@"', "_", str(checkout), *flags],
        env=env, capture_output=True, text=True, timeout=30)


def _calls(tmp_path: Path) -> list[str]:
    return (tmp_path / "python3.calls").read_text().splitlines()


def test_no_venv_creates_the_checkouts_venv_and_never_pip_installs_into_the_system(tmp_path: Path) -> None:
    checkout, env = _system(tmp_path, VENV_WORKS)
    r = _choose(checkout, env, "--create")
    assert r.returncode == 0, r.stderr
    chosen = r.stdout.strip()
    assert chosen == f"{checkout}/.venv/bin/python3"
    assert _calls(tmp_path) == [f"-m venv --system-site-packages {checkout}/.venv"]
    # the chosen interpreter is a real one that pip may install into
    out = subprocess.run([chosen, "-c", "print('ok')"], capture_output=True, text=True, timeout=30)
    assert out.stdout.strip() == "ok"
    # a second run (a later terminal) takes the venv as it is, without asking python3 anything
    r = _choose(checkout, env, "--create")
    assert r.stdout.strip() == chosen
    assert len(_calls(tmp_path)) == 1


def test_missing_venv_module_fails_instead_of_falling_back_to_the_system_python(tmp_path: Path) -> None:
    checkout, env = _system(tmp_path, VENV_MISSING)
    r = _choose(checkout, env, "--create")
    assert r.returncode == 1
    assert r.stdout == ""
    assert "python3-venv" in r.stderr
    assert not (checkout / ".venv").exists()
    calls = _calls(tmp_path)
    assert any(c.startswith("apt-get install") and "python3-venv" in c for c in calls), calls
    assert not any(c.startswith("-m pip") for c in calls)


@pytest.mark.parametrize("flags", [(), ("--create",)])
def test_python_then_active_venv_then_checkout_venv(tmp_path: Path, flags: tuple[str, ...]) -> None:
    checkout, env = _system(tmp_path, VENV_WORKS)
    active = tmp_path / "active"
    (active / "bin").mkdir(parents=True)
    (active / "bin" / "python").symlink_to(sys.executable)
    (checkout / ".venv" / "bin").mkdir(parents=True)
    (checkout / ".venv" / "bin" / "python3").symlink_to(sys.executable)

    assert _choose(checkout, {**env, "PYTHON": "/opt/py/bin/python3", "VIRTUAL_ENV": str(active)},
                   *flags).stdout.strip() == "/opt/py/bin/python3"
    assert _choose(checkout, {**env, "VIRTUAL_ENV": str(active)}, *flags).stdout.strip() == f"{active}/bin/python"
    assert _choose(checkout, env, *flags).stdout.strip() == f"{checkout}/.venv/bin/python3"
    assert _calls(tmp_path) == []


def test_launch_scripts_without_a_venv_use_python3_and_create_nothing(tmp_path: Path) -> None:
    checkout, env = _system(tmp_path, VENV_WORKS)
    r = _choose(checkout, env)
    assert r.stdout.strip() == "python3"
    assert not (checkout / ".venv").exists()
    assert _calls(tmp_path) == []


def test_run_tests_and_install_deps_choose_through_the_chooser() -> None:
    for script in ("run-tests.sh", "install-deps.sh"):
        text = (REPO / "scripts" / script).read_text()
        assert '. "$REPO/scripts/kafpy-python.sh"' in text, script
        assert 'PYTHON=$(kafpy_python "$REPO" --create)' in text, script
        assert 'PYTHON="${PYTHON:-python3}"' not in text, script
