"""The package as a user gets it: ``python -m build``'s wheel and sdist, installed into clean
venvs (issue 22's first acceptance line and issue 26's).

One wheel per session (module fixture); the full check (broker, tools, Spark job, the plugin's
example project with three clients, also under ``-n 2``) runs on the interpreter running the
suite, the install-and-produce check on every other Python 3.10+ installed here.

Every venv is made in a background thread from the module's start (``venvs``): ``python -m
venv`` and, for the full check's venv, kafpy's and the test project's dependencies need no
wheel, so they overlap ``python -m build``; the other interpreters' threads then wait for the
wheel and install it, overlapping the full check. Each test waits for its own venv. The plugin
project's serial and ``-n 2`` runs go at the same time too, each with a base temp folder of
its own.
"""
from __future__ import annotations

import shutil
import subprocess
import sys
import tarfile
import zipfile
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from kafpy import __version__
from kafpy._ports import LOOPBACK, free_port
from kafpy._process import answers_api_versions, terminate, wait_for

from .wheel_env import (REPO_ROOT, TEST_PROJECT_DEPS, Venv, build, clean_env, interpreters,
                        project_dependencies, run)

CURRENT = f"{sys.version_info[0]}.{sys.version_info[1]}"
OTHER_PYTHONS = {v: p for v, p in interpreters().items() if v != CURRENT}
# Packages of a user's own project named like the repository's folders: if anything of
# kafpy imported them, the import would raise.
SHADOWS = ("storage", "protocol", "scripts", "broker", "replication", "coordinator")


@dataclass
class Venvs:
    """The module's venvs in the making: ``wheel`` is set once built; ``full_check`` the
    running interpreter's venv with the dependencies only; ``others`` every other
    interpreter's with the wheel installed."""
    wheel: Future[Path]
    full_check: Future[Venv]
    others: dict[str, Future[Venv]]


def dependencies_venv(path: Path) -> Venv:
    """A clean venv of the running interpreter with kafpy's and the test project's
    dependencies, the wheel not yet in it."""
    venv = Venv(path, sys.executable)
    venv.pip_install(*project_dependencies(), *TEST_PROJECT_DEPS)
    return venv


def installed_venv(path: Path, python: str, wheel: Future[Path]) -> Venv:
    """A clean venv of ``python`` at ``path`` with the wheel (and its dependencies) installed
    once it is built."""
    venv = Venv(path, python)
    venv.pip_install(str(wheel.result(timeout=900)))
    return venv


@pytest.fixture(scope="module")
def venvs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Venvs]:
    """Every venv of the module, made in background threads started before the wheel is
    built (set up ahead of ``dist``)."""
    wheel: Future[Path] = Future()
    with ThreadPoolExecutor(max_workers=len(OTHER_PYTHONS) + 1, thread_name_prefix="venv") as pool:
        made = Venvs(wheel, pool.submit(dependencies_venv, tmp_path_factory.mktemp("venv") / "venv"),
                     {v: pool.submit(installed_venv, tmp_path_factory.mktemp(f"venv{v}") / "venv", python, wheel)
                      for v, python in OTHER_PYTHONS.items()})
        try:
            yield made
        finally:
            if not wheel.done():   # the build failed or never ran: the waiting threads end
                wheel.set_exception(RuntimeError("no wheel was built"))
            for future in (made.full_check, *made.others.values()):
                future.cancel()


@pytest.fixture(scope="module")
def dist(venvs: Venvs, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    try:
        wheel, sdist = build(tmp_path_factory.mktemp("dist"))
    except BaseException as e:
        venvs.wheel.set_exception(e)
        raise
    venvs.wheel.set_result(wheel)
    return wheel, sdist


@pytest.fixture
def user_folder(tmp_path: Path) -> Path:
    """A project folder of the user's, with packages named like the repository's folders."""
    folder = tmp_path / "project"
    for name in SHADOWS:
        (folder / name).mkdir(parents=True)
        (folder / name / "__init__.py").write_text(
            f"raise ImportError('the user\\'s own {name} package was imported')\n")
    return folder


def test_wheel_holds_kafpy_alone_with_entry_points_and_typing(dist):
    wheel, sdist = dist
    assert wheel.name == f"kafpy-{__version__}-py3-none-any.whl"
    names = zipfile.ZipFile(wheel).namelist()
    assert {n.split("/")[0] for n in names} == {"kafpy", f"kafpy-{__version__}.dist-info"}
    for module in ("kafpy/py.typed", "kafpy/embedded.py", "kafpy/pytest_plugin.py",
                   "kafpy/broker/__main__.py", "kafpy/spark_jobs/batch_export.py",
                   "kafpy/protocol/schema/ProduceRequest.json"):
        assert module in names
    dist_info = zipfile.ZipFile(wheel)
    entry_points = dist_info.read(f"kafpy-{__version__}.dist-info/entry_points.txt").decode()
    assert "[pytest11]\nkafpy = kafpy.pytest_plugin" in entry_points
    assert "kafka-topics.sh = kafpy.scripts.kafka_topics:main" in entry_points
    metadata = dist_info.read(f"kafpy-{__version__}.dist-info/METADATA").decode()
    assert "Requires-Python: >=3.10" in metadata
    assert "Programming Language :: Python :: 3.13" in metadata
    sdist_names = tarfile.open(sdist).getnames()
    top = f"kafpy-{__version__}"
    for member in ("pyproject.toml", "CHANGELOG.md", "config/server.properties",
                   "kafpy/broker/__main__.py", "kafpy/__init__.py"):
        assert f"{top}/{member}" in sdist_names


def start_broker(cmd: list[str], cwd: Path, port: int, log: Path) -> subprocess.Popen:
    with open(log, "ab") as out:
        proc = subprocess.Popen(cmd, cwd=cwd, env=clean_env(), stdout=out,
                                stderr=subprocess.STDOUT, start_new_session=True)
    try:
        wait_for(lambda: answers_api_versions(LOOPBACK, port), timeout=60, what=cmd[0],
                 proc=proc, log_path=log)
    except BaseException:
        terminate(proc)
        raise
    return proc


def test_installed_wheel_runs_broker_tools_spark_job_and_plugin_from_any_folder(
        dist, venvs, tmp_path, user_folder):
    wheel, _ = dist
    venv = venvs.full_check.result(timeout=900)
    before = venv.top_level()
    venv.pip_install("--no-deps", str(wheel))
    assert venv.top_level() - before == {"kafpy", f"kafpy-{__version__}.dist-info"}
    run([venv.python, "-m", "pip", "check"], cwd=user_folder, timeout=120)

    # no repository path anywhere: kafpy is the installed one, whatever the cwd holds
    where = run([venv.python, "-c", "import sys, kafpy.storage.log as m; print(m.__file__); "
                 "print(sys.path)"], cwd=user_folder, timeout=60).stdout
    assert str(venv.site_packages()) in where.splitlines()[0]
    assert str(REPO_ROOT) not in where

    # the broker, as a module and as the console script, and a tool against it
    port = free_port()
    props = user_folder / "server.properties"
    props.write_text(f"listeners=PLAINTEXT://{LOOPBACK}:{port}\n"
                     f"log.dirs={tmp_path / 'data'}\noffsets.topic.num.partitions=1\n")
    broker = start_broker([venv.python, "-m", "kafpy.broker", str(props)], user_folder, port,
                          tmp_path / "broker.log")
    try:
        topics = str(venv.bin / "kafka-topics.sh")
        created = run([topics, "--bootstrap-server", f"{LOOPBACK}:{port}", "--create",
                       "--topic", "orders", "--partitions", "2"], cwd=user_folder, timeout=120)
        assert "Created topic orders." in created.stdout
        listed = run([topics, "--bootstrap-server", f"{LOOPBACK}:{port}", "--list"],
                     cwd=user_folder, timeout=120)
        assert listed.stdout.split() == ["orders"]
    finally:
        assert terminate(broker) == 0
    port = free_port()
    server = start_broker([str(venv.bin / "kafpy-server"), str(props), "--override",
                           f"listeners=PLAINTEXT://{LOOPBACK}:{port}"], user_folder, port,
                          tmp_path / "server.log")
    assert terminate(server) == 0

    spark_help = run([venv.python, "-m", "kafpy.spark_jobs.batch_export", "--help"],
                     cwd=user_folder, timeout=60)
    assert spark_help.stdout.startswith("usage:")

    # a user's test project with only the plugin's fixtures, serial and with two workers
    project = user_folder / "tests_of_mine"
    shutil.copytree(REPO_ROOT / "tests" / "data" / "plugin_project", project)
    runs = {name: [venv.python, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                   "--basetemp", str(tmp_path / f"basetemp-{name}"), *args]
            for name, args in (("serial", []), ("xdist", ["-n", "2"]))}
    with ThreadPoolExecutor(max_workers=len(runs)) as pool:
        results = {name: pool.submit(run, cmd, cwd=project, timeout=300, check=False)
                   for name, cmd in runs.items()}
        for name, future in results.items():
            result = future.result()
            assert result.returncode == 0, (name, result.stdout[-6000:] + result.stderr[-2000:])
            assert "6 passed" in result.stdout, name


EMBEDDED_PRODUCE = """
import sys
from kafka import KafkaProducer
from kafpy import EmbeddedBroker
with EmbeddedBroker() as broker:
    broker.create_topic("versions", partitions=2)
    producer = KafkaProducer(bootstrap_servers=broker.bootstrap_servers, acks="all")
    meta = producer.send("versions", sys.version.encode(), partition=1).get(timeout=30)
    producer.close()
    print("acknowledged at", meta.partition, meta.offset)
"""


@pytest.mark.parametrize("version", sorted(OTHER_PYTHONS) or ["none"],
                         ids=lambda v: f"python{v}")
def test_wheel_installs_and_produces_on_each_python(dist, venvs, user_folder, version):
    # dist: the wheel the venv waits for is built when this test runs alone too
    assert OTHER_PYTHONS, "no other Python 3.10+ found (pyenv's are expected here)"
    venv = venvs.others[version].result(timeout=900)
    out = run([venv.python, "-c", EMBEDDED_PRODUCE], cwd=user_folder, timeout=180)
    assert "acknowledged at 1 0" in out.stdout
