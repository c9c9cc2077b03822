"""max.decompressed.message.bytes (Kafka 4.4): a client's compressed batch holding a record
body over the limit is refused with INVALID_RECORD; uncompressed batches, replicated batches
and the default limit read no record."""
import pytest

from kafpy.protocol.errors import CorruptRecord
from kafpy.protocol.records import largest_record
from kafpy.storage import InvalidRecordError
from kafpy.storage import log_validator

from .helpers import kp_batch, open_log

GZIP, ZSTD = 1, 4


def test_largest_record_reads_the_length_of_each_decompressed_record():
    batch = kp_batch([(b"a", b"y"), (b"k", b"x" * 5000), (b"b", b"z" * 20)], compression=GZIP)
    assert 5000 < largest_record(batch) < 5020
    assert largest_record(kp_batch([(b"k", b"v")], compression=ZSTD)) < 20
    claims_two = bytearray(kp_batch([(b"k", b"v")]))
    claims_two[57:61] = (2).to_bytes(4, "big")   # the records count: one record is there
    with pytest.raises(CorruptRecord):
        largest_record(claims_two)


def test_a_compressed_record_over_the_limit_is_refused_and_nothing_is_written(tmp_path):
    lg = open_log(tmp_path, max_decompressed_message_bytes=1000)
    assert lg.works_ahead
    with pytest.raises(InvalidRecordError):
        lg.append_as_leader(kp_batch([(b"k", b"x" * 1000)], compression=GZIP), 0)
    assert lg.log_end_offset == 0
    for batch in (kp_batch([(b"k", b"x" * 990)], compression=GZIP),   # a body of 998 bytes
                  kp_batch([(b"k", b"x" * 5000)])):                    # uncompressed: not looked into
        lg.append_as_leader(batch, 0)
    assert lg.log_end_offset == 2
    # a follower's append takes what the leader wrote, as Kafka's appendAsFollower does
    follower = open_log(tmp_path, name="follower-0", max_decompressed_message_bytes=1000)
    follower.append(kp_batch([(b"k", b"x" * 5000)], compression=GZIP), None, origin="replication")
    assert follower.log_end_offset == 1


def test_work_ahead_refuses_the_same_batch_off_the_loop(tmp_path):
    lg = open_log(tmp_path, max_decompressed_message_bytes=1000)
    big = kp_batch([(b"k%d" % i, b"v") for i in range(5000)] + [(b"k", b"x" * 2000)], compression=ZSTD)
    assert lg.records_to_check_ahead(big) == 5001
    assert lg.records_to_check_ahead(kp_batch([(b"k", b"x" * 2000)])) == 0   # uncompressed
    error, recompressed = log_validator.work_ahead(big, *lg.ahead_settings())
    assert isinstance(error, InvalidRecordError) and recompressed is None
    lg.checked_ahead(big, (error, None))
    with pytest.raises(InvalidRecordError):
        lg.append_as_leader(big, 0)


def test_the_default_limit_reads_no_record(tmp_path):
    lg = open_log(tmp_path)
    assert lg.config.max_decompressed_message_bytes == 2147483639 and not lg.works_ahead
    assert lg.records_to_check_ahead(kp_batch([(b"k", b"x")], compression=GZIP)) == 0
