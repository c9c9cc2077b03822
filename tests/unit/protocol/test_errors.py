from __future__ import annotations

from kafpy.protocol import errors as E


def test_codes_names_and_retriable() -> None:
    assert E.ErrorCode.NONE == 0 and E.ErrorCode.UNKNOWN_SERVER_ERROR == -1
    assert E.ErrorCode.UNKNOWN_TOPIC_OR_PARTITION == 3 and E.ErrorCode(3).retriable
    assert E.ErrorCode.NOT_LEADER_OR_FOLLOWER == 6 and E.ErrorCode(6).retriable
    assert E.ErrorCode.UNSUPPORTED_VERSION == 35 and not E.ErrorCode(35).retriable
    assert E.ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER == 45 and not E.ErrorCode(45).retriable
    assert E.ErrorCode.CORRUPT_MESSAGE.retriable and E.ErrorCode.NOT_COORDINATOR.retriable
    assert not E.ErrorCode.MESSAGE_TOO_LARGE.retriable
    assert E.ErrorCode.INVALID_REGULAR_EXPRESSION == 128
    codes = [int(c) for c in E.ErrorCode]
    assert codes == list(range(-1, 137))   # Kafka 4.4's, up to CONTROLLER_ID_NOT_REGISTERED
    assert E.ErrorCode.STREAMS_INVALID_TOPOLOGY == 130
    assert E.ErrorCode.CONTROLLER_ID_NOT_REGISTERED == 136 and not E.ErrorCode(136).retriable
    assert E.ErrorCode.of(3) is E.ErrorCode.UNKNOWN_TOPIC_OR_PARTITION and E.ErrorCode.of(9999) == 9999


def test_exceptions_carry_codes() -> None:
    cases = [
        (E.FrameTooLarge(10, 5), E.ErrorCode.INVALID_REQUEST),
        (E.TruncatedFrame("x"), E.ErrorCode.INVALID_REQUEST),
        (E.InvalidRequest("x"), E.ErrorCode.INVALID_REQUEST),
        (E.UnsupportedVersion(0, 99), E.ErrorCode.UNSUPPORTED_VERSION),
        (E.UnknownApiKey(999), E.ErrorCode.INVALID_REQUEST),
        (E.CorruptRecord("crc"), E.ErrorCode.CORRUPT_MESSAGE),
        (E.UnsupportedCompression("7"), E.ErrorCode.UNSUPPORTED_COMPRESSION_TYPE),
    ]
    for exc, code in cases:
        assert isinstance(exc, E.ProtocolError)
        assert exc.error_code == code
