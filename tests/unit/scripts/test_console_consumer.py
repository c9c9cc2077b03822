"""kafka-console-consumer: options, DefaultMessageFormatter output, the consume loop."""
import io

import pytest
from kafka import TopicPartition

from kafpy.scripts import kafka_console_consumer as cc
from kafpy.scripts._cli import UsageExit
from tests.unit.scripts.fakes import FakeConsumer, Rec


def opts(args):
    p = cc.build_parser()
    return cc.Options(p, p.parse(args), args)


REC = Rec("t", 3, 42, 1700000000000, 0, b"k", b"v", [("h1", b"a"), ("h2", None)])


def fmt(**props):
    return cc.DefaultMessageFormatter({k.replace("_", "."): v for k, v in props.items()}).format(REC)


def test_value_only_by_default():
    assert fmt() == b"v\n"


def test_all_columns_in_kafkas_order():
    assert fmt(print_timestamp="true", print_partition="true", print_offset="true",
               print_headers="true", print_key="true") == \
        b"CreateTime:1700000000000\tPartition:3\tOffset:42\th1:a,h2:null\tk\tv\n"


def test_separators_null_literal_and_no_value():
    r = Rec("t", 0, 1, 5, 1, None, None, [])
    f = cc.DefaultMessageFormatter({"print.key": "true", "key.separator": " | ",
                                    "null.literal": "<nil>", "print.timestamp": "true",
                                    "print.headers": "true"})
    assert f.format(r) == b"LogAppendTime:5 | NO_HEADERS | <nil> | <nil>\n"
    f = cc.DefaultMessageFormatter({"print.key": "true", "print.value": "false"})
    assert f.format(REC) == b"k\n"


def test_deserializers():
    r = Rec("t", 0, 1, 5, 0, (7).to_bytes(8, "big"), b"x", [])
    f = cc.DefaultMessageFormatter({"print.key": "true", "key.deserializer":
                                    "org.apache.kafka.common.serialization.LongDeserializer"})
    assert f.format(r) == b"7\tx\n"


def test_random_group_without_commits_and_latest_start():
    o = opts(["--bootstrap-server", "h:1", "--topic", "t"])
    assert o.consumer_props["group.id"].startswith("console-consumer-")
    assert o.consumer_props["enable.auto.commit"] == "false"
    assert o.consumer_props["auto.offset.reset"] == "latest"
    assert o.consumer_props["client.id"] == "console-consumer"


def test_group_and_from_beginning():
    o = opts(["--bootstrap-server", "h:1", "--topic", "t", "--group", "g", "--from-beginning"])
    assert o.consumer_props["group.id"] == "g" and "enable.auto.commit" not in o.consumer_props
    assert o.consumer_props["auto.offset.reset"] == "earliest"


@pytest.mark.parametrize("args, message", [
    (["--bootstrap-server", "h:1"], "Exactly one of --include/--topic is required. "),
    (["--bootstrap-server", "h:1", "--include", "x", "--partition", "0"],
     "The topic is required when partition is specified."),
    (["--bootstrap-server", "h:1", "--topic", "t", "--offset", "5"],
     "The partition is required when offset is specified."),
    (["--bootstrap-server", "h:1", "--topic", "t", "--partition", "0", "--offset", "x"],
     "The provided offset value 'x' is incorrect. Valid values are 'earliest', 'latest', or a "
     "non-negative long."),
    (["--bootstrap-server", "h:1", "--topic", "t", "--partition", "0", "--group", "g"],
     "Options group and partition cannot be specified together."),
    (["--topic", "t"], 'Missing required argument "[bootstrap-server]"'),
])
def test_option_errors(args, message, capsys):
    with pytest.raises(UsageExit):
        opts(args)
    assert capsys.readouterr().err.startswith(message + "\n")


def test_from_beginning_conflicts_with_explicit_reset(capsys):
    with pytest.raises(UsageExit):
        opts(["--bootstrap-server", "h:1", "--topic", "t", "--from-beginning",
              "--consumer-property", "auto.offset.reset=latest"])
    assert "Can't simultaneously specify --from-beginning and 'auto.offset.reset=latest'" in \
        capsys.readouterr().err


def batch(partition, offsets):
    return {TopicPartition("t", partition): [Rec("t", partition, o, 1, 0, None, f"m{o}".encode(), [])
                                             for o in offsets]}


def test_max_messages_stops_and_seeks_back_unprinted_records():
    o = opts(["--bootstrap-server", "h:1", "--topic", "t", "--max-messages", "3"])
    consumer = FakeConsumer([batch(0, [0, 1]), batch(1, [5, 6, 7])])
    out = io.BytesIO()
    cc.consume(consumer, o, out)
    assert out.getvalue() == b"m0\nm1\nm5\n"
    assert o.processed == 3
    assert consumer.sought == {("t", 1): 6}


def test_timeout_without_records_ends_the_loop(capsys):
    o = opts(["--bootstrap-server", "h:1", "--topic", "t", "--timeout-ms", "1000"])
    now = [0.0]

    def clock():
        now[0] += 0.3
        return now[0]
    consumer = FakeConsumer([batch(0, [0])])
    out = io.BytesIO()
    cc.consume(consumer, o, out, clock=clock)
    assert out.getvalue() == b"m0\n"
    assert "org.apache.kafka.common.errors.TimeoutException" in capsys.readouterr().err
    assert consumer.polls < 20


class FailingOnce(FakeConsumer):
    """Raises ``error`` from its first poll, as kafka-python can while a coordinator moves."""

    def __init__(self, batches, error):
        super().__init__(batches)
        self.error = error

    def poll(self, timeout_ms=0):
        if self.error is not None:
            error, self.error = self.error, None
            self.polls += 1
            raise error
        return super().poll(timeout_ms)


def test_a_retriable_poll_error_is_logged_and_the_loop_goes_on(capsys):
    from kafka.errors import KafkaConnectionError
    o = opts(["--bootstrap-server", "h:1", "--topic", "t", "--max-messages", "2"])
    consumer = FailingOnce([batch(0, [0, 1])], KafkaConnectionError("111 ECONNREFUSED"))
    slept = []
    out = io.BytesIO()
    assert cc.consume(consumer, o, out, sleep=slept.append) == 2
    assert out.getvalue() == b"m0\nm1\n"
    assert slept == [cc.RETRY_BACKOFF_S]
    assert "WARN poll failed, retrying: KafkaConnectionError" in capsys.readouterr().err


def test_a_fatal_poll_error_ends_the_tool(capsys):
    from kafka.errors import TopicAuthorizationFailedError
    consumer = FailingOnce([batch(0, [0])], TopicAuthorizationFailedError("t"))
    code = cc.run(["--bootstrap-server", "h:1", "--topic", "t"],
                  consumer_factory=lambda props: consumer, out=io.BytesIO())
    err = capsys.readouterr().err
    assert code == 1 and consumer.closed
    assert "ERROR Unknown error when running consumer" in err and "TopicAuthorizationFailedError" in err


def test_stop_request_ends_the_loop():
    o = opts(["--bootstrap-server", "h:1", "--topic", "t"])
    consumer = FakeConsumer([])
    cc.Stop.requested = True
    try:
        cc.consume(consumer, o, io.BytesIO())
    finally:
        cc.Stop.requested = False
    assert consumer.polls == 0


def test_run_reports_the_count_on_stderr(capsys):
    consumer = FakeConsumer([batch(0, [0, 1])])
    code = cc.run(["--bootstrap-server", "h:1", "--topic", "t", "--max-messages", "2"],
                  consumer_factory=lambda props: consumer, out=io.BytesIO())
    assert code == 0 and consumer.closed
    assert capsys.readouterr().err.endswith("Processed a total of 2 messages\n")


def test_partition_and_offset_assign_and_seek():
    consumer = FakeConsumer([])
    cc.start(consumer, opts(["--bootstrap-server", "h:1", "--topic", "t", "--partition", "2",
                             "--offset", "17"]))
    assert consumer.assigned == [TopicPartition("t", 2)]
    assert consumer.sought == {("t", 2): 17}
    consumer = FakeConsumer([])
    cc.start(consumer, opts(["--bootstrap-server", "h:1", "--topic", "t", "--partition", "2",
                             "--offset", "earliest"]))
    assert consumer.sought_to == ("beginning", (TopicPartition("t", 2),))
