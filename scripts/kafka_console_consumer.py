"""kafka-console-consumer: prints records to standard output with the flags, defaults and
formatting of Apache Kafka's ConsoleConsumer and DefaultMessageFormatter (3.9): a random
group "console-consumer-<n>" without offset commits unless --group is given, latest or
(--from-beginning) earliest start, --partition/--offset assignment, --max-messages,
--timeout-ms, "Processed a total of N messages" on stderr at exit, clean exit on SIGINT and
SIGTERM.
"""
from __future__ import annotations

import random
import signal
import struct
import sys
import time
import uuid
from types import FrameType
from typing import TYPE_CHECKING, BinaryIO, Callable

from kafpy.broker.properties import load_properties
from kafpy.scripts._cli import (tool_main, OptionParser, OptionSet, UsageExit,
                          parse_key_value_args)
from kafpy.scripts._clients import java_props_to_kwargs

if TYPE_CHECKING:
    from kafka import KafkaConsumer, TopicPartition
    from kafka.consumer.fetcher import ConsumerRecord

FORMATTER_PROPERTY_HELP = (
    "The properties to initialize the message formatter. Default properties include: \n"
    " print.timestamp=true|false\n print.key=true|false\n print.offset=true|false\n"
    " print.partition=true|false\n print.headers=true|false\n print.value=true|false\n"
    " key.separator=<key.separator>\n line.separator=<line.separator>\n"
    " headers.separator=<line.separator>\n null.literal=<null.literal>\n"
    " key.deserializer=<key.deserializer>\n value.deserializer=<value.deserializer>\n"
    " header.deserializer=<header.deserializer>\n"
    "\nUsers can also pass in customized properties for their formatter; more specifically, "
    "users can pass in properties keyed with 'key.deserializer.', 'value.deserializer.' and "
    "'headers.deserializer.' prefixes to configure their deserializers.")


def build_parser() -> OptionParser:
    p = OptionParser()
    p.accepts("topic", "The topic to consume on.", arg="required", described_as="topic")
    p.accepts("whitelist", "DEPRECATED, use --include instead; ignored if --include "
              "specified. Regular expression specifying list of topics to include for "
              "consumption.", arg="required", described_as="Java regex (String)")
    p.accepts("include", "Regular expression specifying list of topics to include for "
              "consumption.", arg="required", described_as="Java regex (String)")
    p.accepts("partition", "The partition to consume from. Consumption starts from the end of "
              "the partition unless '--offset' is specified.", arg="required",
              described_as="partition", type=int)
    p.accepts("offset", "The offset to consume from (a non-negative number), or 'earliest' "
              "which means from beginning, or 'latest' which means from end", arg="required",
              described_as="consume offset", default="latest")
    p.accepts("consumer-property", "A mechanism to pass user-defined properties in the form "
              "key=value to the consumer.", arg="required", described_as="consumer_prop")
    p.accepts("consumer.config", "Consumer config properties file. Note that "
              "[consumer-property] takes precedence over this config.", arg="required",
              described_as="config file")
    p.accepts("formatter", "The name of a class to use for formatting kafka messages for "
              "display.", arg="required", described_as="class",
              default="org.apache.kafka.tools.consumer.DefaultMessageFormatter")
    p.accepts("property", FORMATTER_PROPERTY_HELP, arg="required", described_as="prop")
    p.accepts("formatter-property", "Alias of --property (the name Kafka 4.1 introduced). "
              + FORMATTER_PROPERTY_HELP.split("\n", 1)[0], arg="required", described_as="prop")
    p.accepts("formatter-config", "Config properties file to initialize the message "
              "formatter. Note that [property] takes precedence over this config.",
              arg="required", described_as="config file")
    p.accepts("from-beginning", "If the consumer does not already have an established offset "
              "to consume from, start with the earliest message present in the log rather "
              "than the latest message.")
    p.accepts("max-messages", "The maximum number of messages to consume before exiting. If "
              "not set, consumption is continual.", arg="required",
              described_as="num_messages", type=int)
    p.accepts("timeout-ms", "If specified, exit if no message is available for consumption "
              "for the specified interval.", arg="required", described_as="timeout_ms",
              type=int, type_name="Long")
    p.accepts("skip-message-on-error", "If there is an error when processing a message, skip "
              "it instead of halt.")
    p.accepts("bootstrap-server", "REQUIRED: The server(s) to connect to.", arg="required",
              described_as="server to connect to")
    p.accepts("key-deserializer", arg="required", described_as="deserializer for key")
    p.accepts("value-deserializer", arg="required", described_as="deserializer for values")
    p.accepts("enable-systest-events", "Log lifecycle events of the consumer in addition to "
              "logging consumed messages. (This is specific for system tests.)")
    p.accepts("isolation-level", "Set to read_committed in order to filter out transactional "
              "messages which are not committed. Set to read_uncommitted to read all "
              "messages.", arg="required", default="read_uncommitted")
    p.accepts("group", "The consumer group id of the consumer.", arg="required",
              described_as="consumer group id")
    return p


# -- deserializers and the default formatter ---------------------------------------------------

def _deserializer(name: str) -> Callable[[bytes], str] | None:
    short = name.rsplit(".", 1)[-1]
    table: dict[str, Callable[[bytes], str]] = {
        "StringDeserializer": lambda b: b.decode("utf-8", "replace"),
        "ByteArrayDeserializer": lambda b: b.decode("utf-8", "replace"),
        "BytesDeserializer": lambda b: b.decode("utf-8", "replace"),
        "LongDeserializer": lambda b: str(struct.unpack(">q", b)[0]),
        "IntegerDeserializer": lambda b: str(struct.unpack(">i", b)[0]),
        "ShortDeserializer": lambda b: str(struct.unpack(">h", b)[0]),
        "DoubleDeserializer": lambda b: repr(struct.unpack(">d", b)[0]),
        "FloatDeserializer": lambda b: repr(struct.unpack(">f", b)[0]),
        "UUIDDeserializer": lambda b: str(uuid.UUID(b.decode("utf-8"))),
        "VoidDeserializer": lambda b: "null",
    }
    return table.get(short)


class DefaultMessageFormatter:
    """Kafka's DefaultMessageFormatter: optional timestamp, partition, offset, epoch,
    headers and key columns, separated by key.separator, then the value."""

    def __init__(self, props: dict[str, str]) -> None:
        truth = lambda k, d: props[k].strip().lower() == "true" if k in props else d  # noqa: E731
        self.print_timestamp = truth("print.timestamp", False)
        self.print_key = truth("print.key", False)
        self.print_offset = truth("print.offset", False)
        self.print_delivery = truth("print.delivery", False)
        self.print_epoch = truth("print.epoch", False)
        self.print_partition = truth("print.partition", False)
        self.print_headers = truth("print.headers", False)
        self.print_value = truth("print.value", True)
        self.key_separator = props.get("key.separator", "\t").encode()
        self.line_separator = props.get("line.separator", "\n").encode()
        self.headers_separator = props.get("headers.separator", ",").encode()
        self.null_literal = props.get("null.literal", "null").encode()
        self.key_deser = _deserializer(props["key.deserializer"]) if "key.deserializer" in props else None
        self.value_deser = _deserializer(props["value.deserializer"]) if "value.deserializer" in props else None
        self.headers_deser = (_deserializer(props["headers.deserializer"])
                              if "headers.deserializer" in props else None)

    def _bytes(self, data: bytes | None, deser: Callable[[bytes], str] | None) -> bytes:
        raw = data if data is not None else self.null_literal
        return deser(raw).encode("utf-8") if deser else raw

    def format(self, record: ConsumerRecord) -> bytes:
        parts: list[bytes] = []
        cols: list[bytes] = []
        if self.print_timestamp:
            ts_type = getattr(record, "timestamp_type", 0)
            ts = getattr(record, "timestamp", -1)
            if ts_type in (0, 1) and ts is not None:
                name = "CreateTime" if ts_type == 0 else "LogAppendTime"
                cols.append(f"{name}:{ts}".encode())
            else:
                cols.append(b"NO_TIMESTAMP")
        if self.print_partition:
            cols.append(f"Partition:{record.partition}".encode())
        if self.print_offset:
            cols.append(f"Offset:{record.offset}".encode())
        if self.print_delivery:
            cols.append(b"Delivery:NOT_PRESENT")
        if self.print_epoch:
            cols.append(b"Epoch:NOT_PRESENT")  # ConsoleConsumer hands records on without it
        if self.print_headers:
            headers = list(getattr(record, "headers", None) or [])
            if not headers:
                cols.append(b"NO_HEADERS")
            else:
                cols.append(self.headers_separator.join(
                    k.encode("utf-8") + b":" + self._bytes(v, self.headers_deser) for k, v in headers))
        if self.print_key:
            cols.append(self._bytes(record.key, self.key_deser))
        parts.append(self.key_separator.join(cols))
        if self.print_value:
            value = self._bytes(record.value, self.value_deser)
            if cols:
                parts.append(self.key_separator)
            parts.append(value)
            parts.append(self.line_separator)
        elif cols:
            parts.append(self.line_separator)
        return b"".join(parts)


# -- options -----------------------------------------------------------------------------------

class Options:
    """The parsed and validated command line, as ConsoleConsumerOptions."""

    def __init__(self, p: OptionParser, o: OptionSet, args: list[str]) -> None:
        p.maybe_help_or_version(o, args, "This tool helps to read data from Kafka topics and "
                                "outputs it to standard output.")
        self.topic: str | None = o.value_of("topic")
        self.include: str | None = o.value_of("include") or o.value_of("whitelist")
        if (self.topic is None) == (self.include is None):
            p.usage_and_exit("Exactly one of --include/--topic is required. ")
        self.partition: int | None = o.value_of("partition")
        self.from_beginning = o.has("from-beginning")
        if self.partition is not None:
            if self.topic is None:
                p.usage_and_exit("The topic is required when partition is specified.")
            if self.from_beginning and o.has("offset"):
                p.usage_and_exit("Options from-beginning and offset cannot be specified together.")
        elif o.has("offset"):
            p.usage_and_exit("The partition is required when offset is specified.")
        p.check_required(o, "bootstrap-server")
        file_props = load_properties(o.value_of("consumer.config")) if o.has("consumer.config") else {}
        extra = parse_key_value_args(o.values_of("consumer-property"))
        groups = []
        for source in ([o.value_of("group")] if o.has("group") else []) + \
                [file_props.get("group.id"), extra.get("group.id")]:
            if source is not None and source not in groups:
                groups.append(source)
        if len(groups) > 1:
            p.usage_and_exit("The group ids provided in different places (directly using "
                             "'--group', via '--consumer-property', or via '--consumer.config') "
                             "do not match. Detected group ids: "
                             + ", ".join(f"'{g}'" for g in groups))
        if groups and self.partition is not None:
            p.usage_and_exit("Options group and partition cannot be specified together.")
        props = dict(file_props)
        props.update(extra)
        if "auto.offset.reset" in props:
            if self.from_beginning and props["auto.offset.reset"] != "earliest":
                sys.stderr.write("Can't simultaneously specify --from-beginning and "
                                 f"'auto.offset.reset={props['auto.offset.reset']}', please "
                                 "remove one option\n")
                raise UsageExit(1)
        else:
            props["auto.offset.reset"] = "earliest" if self.from_beginning else "latest"
        props["bootstrap.servers"] = o.value_of("bootstrap-server")
        props.setdefault("client.id", "console-consumer")
        if o.has("isolation-level") or "isolation.level" not in props:
            props["isolation.level"] = o.value_of("isolation-level")
        if not groups:
            props["group.id"] = f"console-consumer-{random.randrange(100000)}"
            props.setdefault("enable.auto.commit", "false")
        else:
            props["group.id"] = groups[0]
        self.consumer_props = props
        self.offset = self._parse_offset(p, o)
        timeout = o.value_of("timeout-ms")
        self.timeout_ms: int | None = timeout if timeout is not None and timeout >= 0 else None
        self.max_messages: int = o.value_of("max-messages") if o.has("max-messages") else -1
        self.skip_on_error = o.has("skip-message-on-error")
        self.systest_events = o.has("enable-systest-events")
        fprops = load_properties(o.value_of("formatter-config")) if o.has("formatter-config") else {}
        if o.value_of("key-deserializer"):
            fprops["key.deserializer"] = o.value_of("key-deserializer")
        if o.value_of("value-deserializer"):
            fprops["value.deserializer"] = o.value_of("value-deserializer")
        fprops.update(parse_key_value_args(o.values_of("property")))
        fprops.update(parse_key_value_args(o.values_of("formatter-property")))
        formatter = o.value_of("formatter")
        if formatter.rsplit(".", 1)[-1] not in ("DefaultMessageFormatter", "DefaultFormatter"):
            p.usage_and_exit(formatter)
        self.formatter = DefaultMessageFormatter(fprops)
        self.processed = 0

    @staticmethod
    def _parse_offset(p: OptionParser, o: OptionSet) -> int:
        if o.has("offset"):
            text = o.value_of("offset")
            low = text.lower()
            if low == "earliest":
                return -2
            if low == "latest":
                return -1
            try:
                value = int(text)
            except ValueError:
                value = -3
            if value < 0:
                p.usage_and_exit(f"The provided offset value '{text}' is incorrect. Valid "
                                 "values are 'earliest', 'latest', or a non-negative long.")
            return value
        return -2 if o.has("from-beginning") else -1


# -- the consume loop --------------------------------------------------------------------------

class Stop:
    """Set by SIGINT/SIGTERM; the loop checks it between polls."""

    requested = False


def make_consumer(props: dict[str, str]) -> KafkaConsumer:
    from kafka import KafkaConsumer

    kwargs = java_props_to_kwargs(props, KafkaConsumer.DEFAULT_CONFIG)
    return KafkaConsumer(**kwargs)


def start(consumer: KafkaConsumer, opts: Options) -> None:
    if opts.topic is not None and opts.partition is not None:
        from kafka import TopicPartition

        tp = TopicPartition(opts.topic, opts.partition)
        consumer.assign([tp])
        if opts.offset == -2:
            consumer.seek_to_beginning(tp)
        elif opts.offset == -1:
            consumer.seek_to_end(tp)
        else:
            consumer.seek(tp, opts.offset)
    elif opts.topic is not None:
        consumer.subscribe([opts.topic])
    else:
        consumer.subscribe(pattern=opts.include)


RETRY_BACKOFF_S = 0.1  # Kafka's retry.backoff.ms default


def _poll(consumer: KafkaConsumer, wait_ms: int, sleep: Callable[[float], None]) -> dict:
    """One poll. A retriable client error (a broker killed: connection refused, a coordinator
    moving) is logged and counts as an empty poll after a back-off: the Java consumer under
    Apache's tool retries those inside poll() and never ends the tool for them, while
    kafka-python can raise one from poll() while it looks for a new coordinator."""
    from kafka.errors import KafkaError

    try:
        return consumer.poll(timeout_ms=wait_ms)
    except KafkaError as exc:
        if not getattr(exc, "retriable", False):
            raise
        sys.stderr.write(f"WARN poll failed, retrying: {type(exc).__name__}: {exc} "
                         "(org.apache.kafka.tools.consumer.ConsoleConsumer)\n")
        sys.stderr.flush()
        sleep(RETRY_BACKOFF_S)
        return {}


def consume(consumer: KafkaConsumer, opts: Options, out: BinaryIO, clock: Callable[[], float] = time.monotonic,
            poll_ms: int = 500, sleep: Callable[[float], None] = time.sleep) -> int:
    """Print records until max-messages, a timeout without records, or a stop request.
    Returns the number of records printed. Unprinted records of the last poll are sought
    back so that an auto-commit on close does not skip them."""
    count = 0
    pending: list[ConsumerRecord] = []
    last_data = clock()
    try:
        while (opts.max_messages < 0 or count < opts.max_messages) and not Stop.requested:
            if not pending:
                wait = poll_ms
                if opts.timeout_ms is not None:
                    left = opts.timeout_ms - (clock() - last_data) * 1000
                    if left < 0:
                        sys.stderr.write("ERROR Error processing message, terminating consumer "
                                         "process:  (org.apache.kafka.tools.consumer."
                                         "ConsoleConsumer)\norg.apache.kafka.common.errors."
                                         "TimeoutException\n")
                        break
                    wait = max(0, min(poll_ms, int(left)))
                batches = _poll(consumer, wait, sleep)
                for _tp, records in sorted(batches.items(), key=lambda kv: (kv[0].topic, kv[0].partition)):
                    pending.extend(records)
                if pending:
                    last_data = clock()
                continue
            record = pending.pop(0)
            count += 1
            opts.processed = count
            try:
                out.write(opts.formatter.format(record))
            except BrokenPipeError:
                sys.stderr.write("Unable to write to standard out, closing consumer.\n")
                break
            except Exception as exc:
                if not opts.skip_on_error:
                    raise
                sys.stderr.write(f"ERROR Error processing message, skipping this message: {exc}\n")
            if opts.max_messages < 0 or count < opts.max_messages:
                if not pending:
                    out.flush()
        out.flush()
    finally:
        _seek_back(consumer, pending)
    return count


def _seek_back(consumer: KafkaConsumer, pending: list[ConsumerRecord]) -> None:
    from kafka import TopicPartition

    first: dict[TopicPartition, int] = {}
    for r in pending:
        first.setdefault(TopicPartition(r.topic, r.partition), r.offset)
    for tp, offset in first.items():
        try:
            consumer.seek(tp, offset)
        except Exception:  # noqa: BLE001,S110 - a partition no longer assigned: nothing to seek
            pass


def run(args: list[str], consumer_factory: Callable[[dict[str, str]], KafkaConsumer] = make_consumer, out: BinaryIO | None = None) -> int:
    out = out or sys.stdout.buffer
    p = build_parser()
    o = p.parse_or_usage(args)
    opts = Options(p, o, args)
    consumer = None
    status = 0
    try:
        consumer = consumer_factory(opts.consumer_props)
        start(consumer, opts)
        consume(consumer, opts, out)
    except KeyboardInterrupt:
        pass
    except Exception as exc:  # noqa: BLE001 - the tool's top level: printed as Kafka's tool prints it
        sys.stderr.write("ERROR Unknown error when running consumer:  "
                         f"(org.apache.kafka.tools.consumer.ConsoleConsumer)\n{type(exc).__name__}: {exc}\n")
        status = 1
    finally:
        if consumer is not None:
            try:
                consumer.close()
            except Exception:  # noqa: BLE001,S110 - closing after the outcome, which stands
                pass
        sys.stderr.write(f"Processed a total of {opts.processed} messages\n")
        sys.stderr.flush()
        if opts.systest_events and Stop.requested:
            sys.stdout.write("shutdown_complete\n")
    return status


def _on_signal(signum: int, frame: FrameType | None) -> None:
    Stop.requested = True


def main(argv: list[str] | None = None) -> int:
    signal.signal(signal.SIGTERM, _on_signal)
    signal.signal(signal.SIGINT, _on_signal)
    return tool_main(run, argv)


if __name__ == "__main__":
    sys.exit(main())
