"""Identical warnings repeated within a window are logged once, then counted; the count is
logged when the window ends, so nothing is dropped silently."""
import logging

from kafpy.metrics.log_rate_limit import RepeatedWarningFilter


class _Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def _setup(clock):
    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record):
            records.append(record)
    handler = Keep()
    f = RepeatedWarningFilter(window_s=60, clock=clock)
    handler.addFilter(f)
    logger = logging.getLogger("kafka.test.repeated")
    logger.propagate = False
    logger.handlers[:] = [handler]
    logger.setLevel(logging.DEBUG)
    return logger, f, records


def test_a_repeated_warning_is_logged_once_then_counted():
    clock = _Clock()
    logger, f, records = _setup(clock)
    for _ in range(1000):
        logger.warning("Closing connection from %s: %s", "10.0.0.1", "refused")
    logger.warning("another one")
    assert [r.getMessage() for r in records] == ["Closing connection from 10.0.0.1: refused", "another one"]
    clock.t = 61
    f.flush()
    assert records[-1].getMessage() == \
        "Closing connection from 10.0.0.1: refused (repeated 999 more times in the last 61 s)"
    assert records[-1].levelno == logging.WARNING
    assert len(records) == 3   # "another one" was not repeated: no summary


def test_a_new_window_logs_the_message_again_and_flushes_the_old_count_first():
    clock = _Clock()
    logger, f, records = _setup(clock)
    logger.warning("x")
    logger.warning("x")
    clock.t = 60
    logger.warning("x")
    assert [r.getMessage() for r in records] == ["x", "x (repeated 1 more times in the last 60 s)", "x"]


def test_info_and_debug_lines_are_never_held_back():
    logger, f, records = _setup(_Clock())
    for _ in range(3):
        logger.info("same")
    assert len(records) == 3
