"""A failed log dir goes offline once, its logs close without writing, the other dirs go on."""
from __future__ import annotations

import errno
import os

import pytest

from kafpy.storage import KafkaStorageError, LogConfig, LogManager
from kafpy.storage.log_dir_failure import LogDirFailureChannel, failure_errno, is_log_dir_failure
from kafpy.storage.log_manager import CLEAN_SHUTDOWN_FILE, RECOVERY_POINT_CHECKPOINT
from tests.unit.storage.helpers import kp_batch


def _wrapped(code: int) -> KafkaStorageError:
    try:
        try:
            raise OSError(code, os.strerror(code))
        except OSError as e:
            raise KafkaStorageError("append failed") from e
    except KafkaStorageError as e:
        return e


def test_disk_failures_and_transient_errors():
    assert failure_errno(_wrapped(errno.ENOSPC)) == errno.ENOSPC
    assert is_log_dir_failure(_wrapped(errno.EIO))
    assert is_log_dir_failure(OSError(errno.EROFS, "read-only"))
    assert not is_log_dir_failure(_wrapped(errno.EMFILE))  # out of descriptors: that append fails only
    assert not is_log_dir_failure(KafkaStorageError("log is closed"))


def test_channel_reports_each_dir_once():
    channel = LogDirFailureChannel()
    told: list[str] = []
    channel.listener = told.append
    assert channel.maybe_add_offline_log_dir("/a", "append", _wrapped(errno.EIO))
    assert not channel.maybe_add_offline_log_dir("/a", "flush", _wrapped(errno.EIO))
    assert told == ["/a"] and channel.offline_dirs() == {"/a"} and not channel.is_offline("/b")


@pytest.fixture
def two_dirs(tmp_path):
    dirs = [str(tmp_path / "d0"), str(tmp_path / "d1")]
    lm = LogManager(dirs, LogConfig(), start_cleaner=False)
    lm.startup(cluster_id="c", broker_id=0)
    yield lm, dirs
    lm.shutdown()


def test_a_failed_dir_closes_its_logs_and_the_other_goes_on(two_dirs):
    lm, (d0, d1) = two_dirs
    told: list[str] = []
    lm.failure_channel.listener = told.append
    logs = lm.create_logs([("t", p, None, None) for p in range(4)])
    for lg in logs:
        lg.append_as_leader(kp_batch([(b"k", b"v")]), 0)
    lm.checkpoint()
    in_d0 = sorted(tp for tp in lm.logs() if lm.log_dir_of(*tp) == d0)
    assert len(in_d0) == 2
    # a transient error is not a failure; a disk error reported by a log is, once
    lm.maybe_fail_dir(d0, _wrapped(errno.EMFILE), "append")
    assert told == []
    failed_log = lm.get_log(*in_d0[0])
    failed_log.on_storage_error(_wrapped(errno.ENOSPC))
    failed_log.on_storage_error(_wrapped(errno.EIO))
    assert told == [d0]
    assert lm.handle_log_dir_failure(d0) == in_d0
    assert lm.live_log_dirs == [d1] and all(lm.get_log(*tp) is None for tp in in_d0)
    with pytest.raises(KafkaStorageError):
        failed_log.append_as_leader(kp_batch([(b"k", b"v")]), 0)
    with pytest.raises(KafkaStorageError):
        failed_log.read(0, 1000)
    with pytest.raises(KafkaStorageError):
        lm.get_or_create_log(*in_d0[0])  # offline until restart
    lm.get_or_create_log("new", 0)
    assert lm.log_dir_of("new", 0) == d1
    # nothing more is written in the failed dir: no checkpoints, no clean-shutdown marker
    os.unlink(os.path.join(d0, RECOVERY_POINT_CHECKPOINT))
    lm.checkpoint()
    lm.shutdown()
    assert not os.path.exists(os.path.join(d0, RECOVERY_POINT_CHECKPOINT))
    assert not os.path.exists(os.path.join(d0, CLEAN_SHUTDOWN_FILE))
    assert os.path.exists(os.path.join(d1, CLEAN_SHUTDOWN_FILE))
    # a restart brings the dir back with its data intact (it recovers: no clean marker)
    lm2 = LogManager([d0, d1], LogConfig(), start_cleaner=False)
    lm2.startup(cluster_id="c", broker_id=0)
    assert all(lm2.get_log(*tp).log_end_offset == 1 for tp in in_d0)
    lm2.shutdown()
