"""Small text files Kafka keeps next to the logs, written atomically.

Formats (as Kafka writes them):
- offset checkpoints (``recovery-point-offset-checkpoint``, ``log-start-offset-checkpoint``,
  ``replication-offset-checkpoint``, ``cleaner-offset-checkpoint``): line ``0`` (version),
  a count line, then ``<topic> <partition> <offset>`` lines;
- ``leader-epoch-checkpoint``: ``0``, count, then ``<epoch> <start offset>`` lines;
- ``partition.metadata``: ``version: 0`` and ``topic_id: <base64url uuid, no padding>``;
- ``meta.properties``: Java properties (``version=0``, ``broker.id``, ``cluster.id``).

Every write goes to ``<name>.tmp``, is fsynced, renamed over the target and the
directory fsynced, so a crash leaves either the old or the new file, never half of one.
A partition's ``partition.metadata`` and ``leader-epoch-checkpoint`` may instead be
written at once and fsynced later (``PendingFsyncs``): becoming leader of 1,000
partitions would otherwise spend seconds in fsyncs on the event loop.
Who may call it: LogManager and Log (event-loop thread), the cleaner for its own file;
``PendingFsyncs.flush`` from any one thread.
"""

from __future__ import annotations

import base64
import logging
import os
import threading
import time
from typing import Callable, Iterable

__all__ = [
    "atomic_write",
    "PendingFsyncs",
    "fsync_all",
    "OffsetCheckpointFile",
    "LeaderEpochCheckpointFile",
    "PartitionMetadataFile",
    "read_meta_properties",
    "write_meta_properties",
    "topic_id_to_base64",
    "topic_id_from_base64",
]

log = logging.getLogger(__name__)


def fsync_dir(path: str) -> None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write(path: str, data: bytes | str, pending: "PendingFsyncs | None" = None) -> None:
    """temp file, fsync, rename, fsync the directory; with ``pending``, no fsync here:
    the path is handed to it after the rename and its next ``flush`` makes both durable."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    tmp = path + ".tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        view = memoryview(data)
        while view:
            n = os.write(fd, view)
            view = view[n:]
        if pending is None:
            os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)
    if pending is None:
        fsync_dir(os.path.dirname(os.path.abspath(path)))
    else:
        pending.add(path)


class PendingFsyncs:
    """Paths written (and renamed into place) but not yet fsynced, with their directories.

    Kafka writes ``partition.metadata`` through a one-off "flush-metadata-file" task and
    flushes the leader epoch checkpoint off the request thread on truncation; here both
    files of every partition wait in one set and one pass fsyncs them all. Durability
    rule: the LogManager flushes this set before it writes the recovery point checkpoint
    and before the clean-shutdown marker, so a recovery point never covers data whose
    epoch entry is not on disk (recovery rebuilds entries above the recovery point from
    the batches) and a clean shutdown never skips them. ``add`` is called after the
    rename, so a path rewritten while a pass runs is flushed again by the next one.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()  # guards _paths (the event loop adds, a thread flushes)
        # one pass at a time, so flush returns only once every earlier add is durable
        self._flush_lock = threading.Lock()
        self._paths: set[str] = set()
        self._deferred: dict[str, Callable[[], bytes]] = {}

    def add(self, path: str) -> None:
        with self._lock:
            self._paths.add(path)

    def defer(self, path: str, render: Callable[[], bytes]) -> None:
        """Write ``render()`` to ``path`` (atomically, fsynced) in the next flush rather
        than now, as Kafka flushes the leader epoch file asynchronously: the caller (the
        event loop hosting a thousand partitions) pays for neither the write nor the
        rename, and several changes before a flush make one write. ``render`` runs in
        the flushing thread and must read a consistent snapshot (e.g. one tuple)."""
        with self._lock:
            self._deferred[path] = render

    def __len__(self) -> int:
        return len(self._paths) + len(self._deferred)

    def flush(self) -> None:
        """fsync every pending file, then each of their directories once. A file gone
        meanwhile (partition deleted) is skipped; other errors are logged and the path
        stays pending for the next pass. The fsyncs run on a few threads at once: the
        disk commits concurrent fsyncs together (a thousand partitions' files take
        ~0.1 s that way instead of ~1 s one after another)."""
        with self._flush_lock:
            with self._lock:
                paths, self._paths = list(self._paths), set()
                deferred, self._deferred = self._deferred, {}
            if not paths and not deferred:
                return
            failed = [p for p, ok in zip(paths, fsync_all(paths)) if ok is False]
            items = list(deferred.items())
            undone = [it for it, ok in zip(items, _in_threads(_write_deferred, items)) if ok is False]
            fsync_all(list({os.path.dirname(os.path.abspath(p)) for p in paths + list(deferred)}), directories=True)
            if failed or undone:
                with self._lock:
                    self._paths.update(failed)
                    for path, render in undone:
                        self._deferred.setdefault(path, render)


def _write_deferred(item: "tuple[str, Callable[[], bytes]]") -> "bool | None":
    """A deferred write: temp file, fsync, rename (the caller fsyncs the directory). None
    when the directory is gone (partition deleted meanwhile), False when it failed."""
    path, render = item
    tmp = path + ".tmp"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    except FileNotFoundError:
        return None
    except OSError as e:
        log.error("writing %s failed: %s", path, e)
        return False
    try:
        data = render()
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
    except OSError as e:
        log.error("writing %s failed: %s", path, e)
        return False
    finally:
        os.close(fd)
    try:
        os.replace(tmp, path)
    except FileNotFoundError:
        return None
    except OSError as e:
        log.error("writing %s failed: %s", path, e)
        return False
    return True


FSYNC_THREADS = 8


def _fsync_path(path: str, directory: bool = False) -> "bool | None":
    """fsync one file (or directory); None when it is gone, False when it failed (logged)."""
    try:
        fd = os.open(path, os.O_RDONLY | (os.O_DIRECTORY if directory else 0))
    except FileNotFoundError:
        return None
    except OSError as e:
        log.error("opening %s to fsync failed: %s", path, e)
        return False
    try:
        os.fsync(fd)
        return True
    except OSError as e:
        if not directory:
            log.error("fsync of %s failed: %s", path, e)
            return False
        return True  # as fsync_dir: some filesystems refuse a directory fsync
    finally:
        os.close(fd)


def fsync_all(paths: list[str], directories: bool = False) -> list["bool | None"]:
    """``_fsync_path`` for each path, up to ``FSYNC_THREADS`` at a time; results in order."""
    return _in_threads(lambda p: _fsync_path(p, directories), paths)


def _in_threads(fn: Callable, items: list) -> list:
    if len(items) <= 1:
        return [fn(x) for x in items]
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(min(FSYNC_THREADS, len(items)), thread_name_prefix="fsync") as ex:
        return list(ex.map(fn, items))


def _read_versioned(path: str) -> list[str]:
    with open(path, "r", encoding="utf-8") as f:
        lines = f.read().splitlines()
    if not lines:
        raise ValueError(f"empty checkpoint file {path}")
    if lines[0].strip() != "0":
        raise ValueError(f"unsupported checkpoint version {lines[0]!r} in {path}")
    if len(lines) < 2:
        raise ValueError(f"missing count in {path}")
    count = int(lines[1])
    entries = [l for l in lines[2:] if l.strip()]
    if len(entries) != count:
        raise ValueError(f"expected {count} entries in {path}, found {len(entries)}")
    return entries


class OffsetCheckpointFile:
    """``topic partition offset`` checkpoint of a log dir."""

    def __init__(self, path: str):
        self.path = path

    def write(self, offsets: dict[tuple[str, int], int]) -> None:
        lines = ["0", str(len(offsets))]
        lines += [f"{t} {p} {o}" for (t, p), o in sorted(offsets.items())]
        atomic_write(self.path, "\n".join(lines) + "\n")

    def read(self) -> dict[tuple[str, int], int]:
        """Entries, or {} when the file is missing or malformed (a warning is logged)."""
        if not os.path.exists(self.path):
            return {}
        try:
            out = {}
            for line in _read_versioned(self.path):
                topic, part, off = line.split()
                out[(topic, int(part))] = int(off)
            return out
        except (ValueError, OSError) as e:
            log.warning("ignoring malformed checkpoint %s: %s", self.path, e)
            return {}


class LeaderEpochCheckpointFile:
    """``epoch start_offset`` lines in ``<partition dir>/leader-epoch-checkpoint``."""

    def __init__(self, path: str, pending: PendingFsyncs | None = None):
        self.path = path
        self.pending = pending  # fsync later in a batch (see PendingFsyncs), or now when None

    def write(self, entries: Iterable[tuple[int, int]]) -> None:
        """Write now, or with ``pending`` in its next flush (``PendingFsyncs.defer``)."""
        entries = tuple(entries)
        if self.pending is not None:
            self.pending.defer(self.path, lambda: self.render(entries))
        else:
            atomic_write(self.path, self.render(entries))

    @staticmethod
    def render(entries: Iterable[tuple[int, int]]) -> bytes:
        entries = list(entries)
        lines = ["0", str(len(entries))] + [f"{e} {o}" for e, o in entries]
        return ("\n".join(lines) + "\n").encode()

    def read(self) -> list[tuple[int, int]]:
        if not os.path.exists(self.path):
            return []
        try:
            return [tuple(int(x) for x in line.split()) for line in _read_versioned(self.path)]  # type: ignore[misc]
        except (ValueError, OSError) as e:
            log.warning("ignoring malformed leader epoch checkpoint %s: %s", self.path, e)
            return []


def topic_id_to_base64(topic_id: bytes) -> str:
    return base64.urlsafe_b64encode(topic_id).decode("ascii").rstrip("=")


def topic_id_from_base64(s: str) -> bytes:
    s = s.strip()
    return base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))


class PartitionMetadataFile:
    """``partition.metadata``: the topic id a partition directory belongs to."""

    def __init__(self, path: str, pending: PendingFsyncs | None = None):
        self.path = path
        self.pending = pending  # fsync later in a batch (see PendingFsyncs), or now when None

    def write(self, topic_id: bytes) -> None:
        atomic_write(self.path, f"version: 0\ntopic_id: {topic_id_to_base64(topic_id)}", self.pending)

    def read(self) -> bytes | None:
        if not os.path.exists(self.path):
            return None
        try:
            fields = {}
            with open(self.path, "r", encoding="utf-8") as f:
                for line in f:
                    if ":" in line:
                        k, v = line.split(":", 1)
                        fields[k.strip()] = v.strip()
            if fields.get("version") != "0":
                raise ValueError(f"unsupported version {fields.get('version')!r}")
            return topic_id_from_base64(fields["topic_id"])
        except (ValueError, KeyError, OSError) as e:
            log.warning("ignoring malformed %s: %s", self.path, e)
            return None


def read_meta_properties(path: str) -> dict[str, str]:
    props: dict[str, str] = {}
    if not os.path.exists(path):
        return props
    with open(path, "r", encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#") or "=" not in line:
                continue
            k, v = line.split("=", 1)
            props[k.strip()] = v.strip()
    return props


def write_meta_properties(path: str, props: dict[str, str]) -> None:
    stamp = time.strftime("%a %b %d %H:%M:%S UTC %Y", time.gmtime())
    body = "#\n#" + stamp + "\n" + "".join(f"{k}={v}\n" for k, v in props.items())
    atomic_write(path, body)
