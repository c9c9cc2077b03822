"""Broker log disks for a fault run: each log dir is the root of a small ext4 file system on a
loop device whose backing file lives in /dev/shm (memory, like the tmpfs it replaces), so one
can be filled up (``disk_full``) and one can be made slow (``slow_disk``): a cgroup v1 blkio
group that throttles I/O to that loop device, with the broker's processes moved into it.

cgroup v1 throttles only the I/O a process submits itself: fsync, O_DSYNC writes and reads
that miss the page cache. Plain buffered writes go to the page cache and are written back by
the kernel's flusher threads, outside the group, so they stay fast, as on a real slow disk
whose cache absorbs them until something waits for durability.

Everything is named ``kfz<tag>-...`` where ``tag`` is this process's id in hex (as netns.py
names namespaces), so several runs can share a machine; ``sweep_stale()`` removes the loop
devices, backing files and cgroups of runs whose process is gone. Only root may call this."""
from __future__ import annotations

import errno
import json
import os
import re
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from .netns import PREFIX, _pid_alive

SHM = Path("/dev/shm")
BLKIO = Path("/sys/fs/cgroup/blkio")


@dataclass(frozen=True)
class Limits:
    """blkio throttle limits of a slow disk. Chosen so that what waits for the disk takes
    hundreds of milliseconds: at 8 write IOPS one fsync (the data, then the directory or the
    file's metadata) costs 125-250 ms and the 256 KiB/s cap makes a segment fsync of a few MB
    take seconds; reads that miss the page cache get 20 IOPS and 1 MiB/s, a busy spinning disk.
    Low enough to stall whoever waits on the event loop, high enough that a broker that keeps
    its fsyncs off the loop stays in the ISR."""
    write_bps: int = 256 * 1024
    write_iops: int = 8
    read_bps: int = 1 << 20
    read_iops: int = 20

    def files(self, device: str) -> dict[str, str]:
        """blkio file name -> the line to write to it, for ``device`` ("MAJ:MIN")."""
        return {"blkio.throttle.write_bps_device": f"{device} {self.write_bps}",
                "blkio.throttle.write_iops_device": f"{device} {self.write_iops}",
                "blkio.throttle.read_bps_device": f"{device} {self.read_bps}",
                "blkio.throttle.read_iops_device": f"{device} {self.read_iops}"}


def run(*cmd: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(list(cmd), capture_output=True, text=True, check=check)


def owner_pid(name: str) -> int | None:
    """The process id a ``kfz<hex>-...`` name was made by (None for other names)."""
    m = re.match(rf"{PREFIX}([0-9a-f]+)-", name)
    return int(m.group(1), 16) if m else None


def parse_serviced(text: str, device: str) -> int:
    """The total of ``device``'s lines in a blkio ``io_serviced`` file ("7:0 Write 12", ...)."""
    return sum(int(parts[2]) for parts in (line.split() for line in text.splitlines())
               if len(parts) == 3 and parts[0] == device and parts[1] == "Total")


def group_pids(pgid: int) -> list[int]:
    """Processes of process group ``pgid`` (a broker and any child it started)."""
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()  # after "pid (comm) "
        if int(fields[2]) == pgid:
            pids.append(int(entry))
    return pids


def blkio_cgroup_of(pid: int) -> Path:
    """The blkio cgroup directory ``pid`` is in now."""
    for line in Path(f"/proc/{pid}/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        if "blkio" in controllers.split(","):
            return BLKIO / path.lstrip("/")
    return BLKIO


def move(pid: int, cgroup: Path) -> bool:
    """Move ``pid`` (the whole process, every thread) into ``cgroup``; False if it is gone."""
    try:
        (cgroup / "cgroup.procs").write_text(f"{pid}\n")
        return True
    except OSError as e:
        if e.errno in (errno.ESRCH, errno.ENOENT):
            return False
        raise


def remove_cgroup(cgroup: Path, home: Path = BLKIO) -> None:
    """Move what is left in ``cgroup`` to ``home`` and remove it (a process exiting just now
    may keep it busy for a moment)."""
    for attempt in range(50):
        try:
            for pid in (cgroup / "cgroup.procs").read_text().split():
                move(int(pid), home)
            cgroup.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError as e:
            if e.errno != errno.EBUSY or attempt == 49:
                raise
            time.sleep(0.1)


class Throttle:
    """A blkio cgroup slowing one device for the processes moved into it; ``release()`` moves
    them back where each came from and removes the group, also when they are gone."""

    def __init__(self, name: str, device: str, limits: Limits) -> None:
        self.cgroup = BLKIO / name
        self.device = device
        self.homes: dict[int, Path] = {}  # pid -> the cgroup it came from
        self.cgroup.mkdir()
        try:
            for file, line in limits.files(device).items():
                (self.cgroup / file).write_text(line + "\n")
        except BaseException:
            remove_cgroup(self.cgroup)
            raise

    def add(self, pids: list[int]) -> None:
        for pid in pids:
            try:
                home = blkio_cgroup_of(pid)
            except OSError:  # gone already
                continue
            if move(pid, self.cgroup):
                self.homes[pid] = home

    def serviced(self) -> int:
        """I/O requests to the device that went through the throttle so far."""
        try:
            return parse_serviced((self.cgroup / "blkio.throttle.io_serviced").read_text(), self.device)
        except OSError:
            return 0

    def release(self) -> None:
        for pid, home in self.homes.items():
            move(pid, home)  # False when it exited meanwhile: nothing to move back
        self.homes.clear()
        remove_cgroup(self.cgroup)


class LogDisk:
    """An ext4 file system of ``size_mb`` on a loop device, mounted at ``mount_point``; the
    backing file is ``/dev/shm/<name>.img``. ``close()`` unmounts, detaches, deletes.

    The file system is mounted under a shared bind mount of ``mount_point``'s parent (the
    holder): ``ip netns exec`` gives every process it starts (of this run or of another on
    the machine) a mount namespace copied from this one, and without a shared parent the
    unmount does not reach those copies, which keep the loop device busy until they end."""

    def __init__(self, name: str, mount_point: Path, size_mb: int) -> None:
        self.name = name
        self.mount_point = mount_point
        self.size_mb = size_mb
        self.image = SHM / f"{name}.img"
        self.loop: str | None = None
        self.holder: Path | None = None  # bind-mounted and shared while set
        self.mounted = False
        self.throttle: Throttle | None = None

    def create(self) -> "LogDisk":
        with open(self.image, "wb") as f:
            f.truncate(self.size_mb << 20)
        self.loop = run("losetup", "--find", "--show", str(self.image)).stdout.strip()
        # -m 0: no blocks reserved for root (the broker runs as root here: a reserve would
        # hide a full disk); no lazy init, no discard: nothing written after mkfs returns
        run("mkfs.ext4", "-q", "-m", "0", "-E", "lazy_itable_init=0,lazy_journal_init=0,nodiscard",
            self.loop)
        self.mount_point.mkdir(parents=True, exist_ok=True)
        holder = str(self.mount_point.parent)
        run("mount", "--bind", holder, holder)
        self.holder = self.mount_point.parent
        run("mount", "--make-private", holder)  # a peer group of its own
        run("mount", "--make-shared", holder)
        run("mount", "-t", "ext4", self.loop, str(self.mount_point))
        self.mounted = True
        (self.mount_point / "lost+found").rmdir()  # only fsck uses it; a log dir holds partitions
        return self

    @property
    def device(self) -> str:
        """The loop device as "MAJ:MIN" (what blkio throttle files take)."""
        assert self.loop is not None, "the disk is not set up"
        rdev = os.stat(self.loop).st_rdev
        return f"{os.major(rdev)}:{os.minor(rdev)}"

    def slow_down(self, pids: list[int], limits: Limits = Limits()) -> Throttle:
        """Throttle this disk for ``pids`` until the returned Throttle is released."""
        if self.throttle is not None:
            raise RuntimeError(f"{self.name} is already slowed down")
        self.throttle = Throttle(f"{self.name}-slow", self.device, limits)
        try:
            self.throttle.add(pids)
        except BaseException:
            self.heal()
            raise
        return self.throttle

    def drop_cache(self) -> int:
        """Evict the clean cached pages of every file on this disk (dirty and mapped ones
        stay), so that the next reads of older data go to the disk; the files advised."""
        count = 0
        for root, _, names in os.walk(self.mount_point):
            for name in names:
                try:
                    fd = os.open(os.path.join(root, name), os.O_RDONLY)
                except OSError:  # deleted meanwhile
                    continue
                try:
                    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
                    count += 1
                finally:
                    os.close(fd)
        return count

    def heal(self) -> int:
        """Release the throttle (if any); the I/O requests it serviced."""
        throttle, self.throttle = self.throttle, None
        if throttle is None:
            return 0
        serviced = throttle.serviced()
        throttle.release()
        return serviced

    def close(self) -> None:
        """Safe to call twice and after a failed ``create``."""
        try:
            self.heal()
        finally:
            if self.mounted:
                if run("umount", str(self.mount_point), check=False).returncode:
                    run("umount", "-l", str(self.mount_point), check=False)  # detached when unused
                self.mounted = False
            if self.loop:
                run("losetup", "-d", self.loop, check=False)  # with a lazy umount: at its end
                self.loop = None
            if self.holder is not None:
                run("umount", "-l", str(self.holder), check=False)
                self.holder = None
            self.image.unlink(missing_ok=True)


def sweep_stale() -> None:
    """Remove the cgroups, mounts, loop devices and backing files of dead runs."""
    if BLKIO.is_dir():
        for cgroup in BLKIO.glob(f"{PREFIX}*"):
            pid = owner_pid(cgroup.name)
            if pid is not None and cgroup.is_dir() and not _pid_alive(pid):
                remove_cgroup(cgroup)
    listing = run("losetup", "--list", "--json", "--output", "NAME,BACK-FILE", check=False).stdout
    loops = json.loads(listing or '{"loopdevices": []}').get("loopdevices", [])
    mounts = [line.split()[:2] for line in Path("/proc/mounts").read_text().splitlines()]
    for loop in loops:
        back = Path((loop.get("back-file") or "").removesuffix(" (deleted)"))
        pid = owner_pid(back.name)
        if back.parent != SHM or pid is None or _pid_alive(pid):
            continue
        for device, mount_point in mounts:
            if device == loop["name"]:
                run("umount", "-l", mount_point, check=False)
                if os.path.ismount(os.path.dirname(mount_point)):  # its holder
                    run("umount", "-l", os.path.dirname(mount_point), check=False)
        run("losetup", "-d", loop["name"], check=False)
    for image in SHM.glob(f"{PREFIX}*.img"):
        pid = owner_pid(image.name)
        if pid is not None and not _pid_alive(pid):
            image.unlink(missing_ok=True)
