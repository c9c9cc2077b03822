"""Failed log directories, as Kafka's ``LogDirFailureChannel`` keeps them.

An I/O error that means the disk is broken or full (EIO, ENOSPC, EDQUOT, EROFS) during an
append, roll, flush or checkpoint takes the whole log directory offline, once: its logs
are closed and its partitions answer KAFKA_STORAGE_ERROR until the broker restarts (Kafka
does not bring a directory back online either, even once space is freed). Running out of
descriptors (EMFILE) is not a disk failure: that append fails, later ones may not.

Keeps nothing on disk. Who may call it: the logs (any thread: appends on the event loop,
flushes and checkpoints in workers) report; the broker's replica manager is the listener
that takes the directory offline, and must move to its own thread itself.
"""
from __future__ import annotations

import errno
import logging
import threading
from typing import Callable, Optional

log = logging.getLogger(__name__)

DIR_FAILURE_ERRNOS = frozenset({errno.EIO, errno.ENOSPC, errno.EDQUOT, errno.EROFS})


def failure_errno(exc: Optional[BaseException]) -> Optional[int]:
    """The errno of ``exc`` or of the error that caused it (a ``KafkaStorageError`` wraps
    the ``OSError``), None if there is none."""
    seen = 0
    while exc is not None and seen < 8:
        code = getattr(exc, "errno", None)
        if isinstance(code, int):
            return code
        exc = exc.__cause__ or exc.__context__
        seen += 1
    return None


def is_log_dir_failure(exc: BaseException) -> bool:
    """True when ``exc`` means the log directory's disk failed (not a transient error)."""
    return failure_errno(exc) in DIR_FAILURE_ERRNOS


class LogDirFailureChannel:
    """The set of offline log directories; tells ``listener(dir)`` of each new one once."""

    def __init__(self) -> None:
        self._offline: set[str] = set()
        self._lock = threading.Lock()
        self.listener: Optional[Callable[[str], object]] = None

    def maybe_add_offline_log_dir(self, log_dir: str, message: str, exc: Optional[BaseException] = None) -> bool:
        """Marks ``log_dir`` offline (Kafka's maybeAddOfflineLogDir); True the first time."""
        with self._lock:
            if log_dir in self._offline:
                return False
            self._offline.add(log_dir)
        log.error("%s; log dir %s is offline: %s", message, log_dir, exc)
        listener = self.listener
        if listener is not None:
            listener(log_dir)
        return True

    def is_offline(self, log_dir: str) -> bool:
        return log_dir in self._offline

    def offline_dirs(self) -> set[str]:
        with self._lock:
            return set(self._offline)
