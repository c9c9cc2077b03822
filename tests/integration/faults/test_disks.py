"""The fault harness's log disks against the real kernel (root: loop devices, mounts, blkio
cgroups): a disk fills up, a slow disk throttles the fsyncs of the processes moved into it,
and nothing is left behind, also by a run that died."""
from __future__ import annotations

import errno
import os
import subprocess
import sys

import pytest

from tests.faults.disks import BLKIO, SHM, LogDisk, group_pids, sweep_stale
from tests.faults.faults import fill
from tests.faults.netns import PREFIX

pytestmark = pytest.mark.timeout(120)

# writes a KB and fsyncs it, ``count`` times, then waits for stdin to close
FSYNCER = """
import os, sys
path, count = sys.argv[1], int(sys.argv[2])
sys.stdin.readline()
for i in range(count):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    os.write(fd, b"x" * 1024)
    os.fsync(fd)
    os.close(fd)
print("done", flush=True)
sys.stdin.readline()
"""


def leftovers(name: str) -> list[str]:
    loops = subprocess.run(["losetup", "--list", "--noheadings", "--output", "BACK-FILE"],
                           capture_output=True, text=True).stdout
    return ([line for line in loops.splitlines() if name in line] +
            [str(p) for p in (*SHM.glob(f"{name}*"), *BLKIO.glob(f"{name}*"))])


def fsyncs(disk: LogDisk, count: int, slow: bool) -> int:
    """Run FSYNCER on ``disk`` (slowed down for it when ``slow``); the I/O the throttle saw."""
    proc = subprocess.Popen([sys.executable, "-c", FSYNCER, str(disk.mount_point / "f"), str(count)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                            start_new_session=True)
    assert proc.stdin is not None and proc.stdout is not None, "started with stdin and stdout=PIPE"
    try:
        if slow:
            disk.slow_down(group_pids(proc.pid))
        proc.stdin.write("go\n")
        proc.stdin.flush()
        assert proc.stdout.readline() == "done\n"
        proc.stdin.close()
        proc.wait(10)
        return disk.heal()  # the process is gone: heal must not mind
    finally:
        proc.kill()
        proc.wait()


def test_a_log_disk_fills_up_throttles_the_fsyncs_of_its_processes_and_leaves_nothing(tmp_path):
    name = f"{PREFIX}{os.getpid():x}-t0"
    disk = LogDisk(name, tmp_path / "b0" / "logs", 16)
    try:
        disk.create()
        assert os.listdir(disk.mount_point) == []  # a log dir holds partitions only
        written = fill(disk.mount_point / "filler")
        assert 12 << 20 < written < 16 << 20
        with pytest.raises(OSError) as e:
            (disk.mount_point / "more").write_bytes(b"x" * 4096)
        assert e.value.errno == errno.ENOSPC
        (disk.mount_point / "filler").unlink()
        assert fsyncs(disk, 3, slow=True) >= 3  # every fsync went through the throttle
        assert not list(BLKIO.glob(f"{name}*"))  # healed: the cgroup is gone
        assert disk.heal() == 0
        assert (disk.mount_point / "f").stat().st_size == 3 * 1024
        assert disk.drop_cache() == 2  # "f" and the empty "more": read from the disk again
    finally:
        disk.close()
        disk.close()
    assert leftovers(name) == []
    assert not os.path.ismount(tmp_path / "b0") and not os.path.ismount(tmp_path / "b0" / "logs")


def test_sweep_removes_what_a_dead_run_left(tmp_path):
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    name = f"{PREFIX}{int(dead.stdout):x}-b0"
    disk = LogDisk(name, tmp_path / "b0" / "logs", 16).create()
    keeper = subprocess.Popen(["sleep", "60"], start_new_session=True)
    try:
        disk.slow_down([keeper.pid])  # a run that died with a broker under a slow disk
        sweep_stale()
        assert leftovers(name) == []
        assert not os.path.ismount(tmp_path / "b0") and not os.path.ismount(tmp_path / "b0" / "logs")
        assert (BLKIO / "cgroup.procs").read_text().split().count(str(keeper.pid)) == 1
    finally:
        keeper.kill()
        keeper.wait()
        disk.throttle = None  # swept already
        disk.close()
