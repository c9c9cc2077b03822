"""kafka-console-producer: one record per line of standard input, with the flags and
defaults of Apache Kafka's ConsoleProducer (3.9): acks=-1, linger.ms=1000,
request.timeout.ms=1500, retries=3, client.id=console-producer, the LineMessageReader
properties (parse.key, key.separator, parse.headers, ...), and a ">" prompt only when
standard input and output are a terminal.
"""
from __future__ import annotations

import re
import signal
import sys
from dataclasses import dataclass, field
from types import FrameType
from typing import TYPE_CHECKING, Callable, Iterator, TextIO

from kafpy.broker.properties import load_properties
from kafpy.scripts._cli import (tool_main, OptionParser, OptionSet,
                          parse_key_value_args)
from kafpy.scripts._clients import java_props_to_kwargs

if TYPE_CHECKING:
    from kafka import KafkaProducer


class ReaderError(Exception):
    """Kafka's KafkaException from the line reader (bad line or bad reader settings)."""


@dataclass
class LineReader:
    """Turns lines into (key, value, headers) as Kafka's LineMessageReader does."""

    parse_key: bool = False
    key_separator: str = "\t"
    parse_headers: bool = False
    headers_delimiter: str = "\t"
    headers_separator: str = ","
    headers_key_separator: str = ":"
    ignore_error: bool = False
    null_marker: str | None = None
    line_number: int = field(default=0)

    @classmethod
    def from_props(cls, props: dict[str, str]) -> "LineReader":
        r = cls()
        truth = lambda k: props[k].strip().lower() == "true"  # noqa: E731
        if "parse.key" in props:
            r.parse_key = truth("parse.key")
        if "key.separator" in props:
            r.key_separator = props["key.separator"]
        if "parse.headers" in props:
            r.parse_headers = truth("parse.headers")
        if "headers.delimiter" in props:
            r.headers_delimiter = props["headers.delimiter"]
        if "headers.separator" in props:
            r.headers_separator = props["headers.separator"]
        if "headers.key.separator" in props:
            r.headers_key_separator = props["headers.key.separator"]
        if "ignore.error" in props:
            r.ignore_error = truth("ignore.error")
        if r.headers_delimiter == r.headers_separator:
            raise ReaderError("headers.delimiter and headers.separator may not be equal")
        if r.headers_delimiter == r.headers_key_separator:
            raise ReaderError("headers.delimiter and headers.key.separator may not be equal")
        if r.headers_separator == r.headers_key_separator:
            raise ReaderError("headers.separator and headers.key.separator may not be equal")
        if "null.marker" in props:
            r.null_marker = props["null.marker"]
        for name, value in (("key.separator", r.key_separator),
                            ("headers.separator", r.headers_separator),
                            ("headers.delimiter", r.headers_delimiter),
                            ("headers.key.separator", r.headers_key_separator)):
            if value == r.null_marker:
                raise ReaderError(f"null.marker and {name} may not be equal")
        return r

    def _field(self, enabled: bool, line: str, start: int, sep: str, what: str) -> str | None:
        if not enabled:
            return None
        idx = line.find(sep, start)
        if idx == -1:
            if self.ignore_error:
                return None
            raise ReaderError(f"No {what} found on line number {self.line_number}: '{line}'")
        return line[start:idx]

    def _nullable(self, s: str | None) -> bytes | None:
        if s is None or s == self.null_marker:
            return None
        return s.encode("utf-8")

    def parse(self, line: str) -> tuple[bytes | None, bytes | None, list[tuple[str, bytes | None]]]:
        self.line_number += 1
        headers = self._field(self.parse_headers, line, 0, self.headers_delimiter, "headers delimiter")
        h_off = 0 if headers is None else len(headers) + len(self.headers_delimiter)
        key = self._field(self.parse_key, line, h_off, self.key_separator, "key separator")
        k_off = 0 if key is None else len(key) + len(self.key_separator)
        value = line[h_off + k_off:]
        out_headers: list[tuple[str, bytes | None]] = []
        if headers is not None and headers != self.null_marker:
            for pair in re.split(re.escape(self.headers_separator), headers):
                i = pair.find(self.headers_key_separator)
                if i == -1:
                    if self.ignore_error:
                        out_headers.append((pair, None))
                        continue
                    raise ReaderError(f"No header key separator found in pair '{pair}' on line "
                                      f"number {self.line_number}")
                hkey = pair[:i]
                if hkey == self.null_marker:
                    raise ReaderError("Header keys should not be equal to the null marker "
                                      f"'{self.null_marker}' as they can't be null")
                hval = pair[i + len(self.headers_key_separator):]
                out_headers.append((hkey, None if hval == self.null_marker else hval.encode("utf-8")))
        return self._nullable(key), self._nullable(value), out_headers


def build_parser() -> OptionParser:
    p = OptionParser()
    p.accepts("topic", "REQUIRED: The topic id to produce messages to.", arg="required",
              described_as="topic")
    p.accepts("broker-list", "DEPRECATED, use --bootstrap-server instead; ignored if "
              "--bootstrap-server is specified.  The broker list string in the form "
              "HOST1:PORT1,HOST2:PORT2.", arg="required", described_as="broker-list")
    p.accepts("bootstrap-server", "REQUIRED unless --broker-list(deprecated) is specified. The "
              "server(s) to connect to. The broker list string in the form "
              "HOST1:PORT1,HOST2:PORT2.", arg="required", described_as="server to connect to")
    p.accepts("sync", "If set message send requests to the brokers are synchronously, one at "
              "a time as they arrive.")
    p.accepts("compression-codec", "The compression codec: either 'none', 'gzip', 'snappy', "
              "'lz4', or 'zstd'. If specified without value, then it defaults to 'gzip'",
              arg="optional", described_as="compression-codec")
    p.accepts("batch-size", "Number of messages to send in a single batch if they are not "
              "being sent synchronously. please note that this option will be replaced if "
              "max-partition-memory-bytes is also set", arg="required", described_as="size",
              type=int, default=16384)
    p.accepts("message-send-max-retries", "Brokers can fail receiving the message for "
              "multiple reasons, and being unavailable transiently is just one of them. This "
              "property specifies the number of retries before the producer give up and drop "
              "this message. This is the option to control `retries` in producer configs.",
              arg="required", type=int, default=3)
    p.accepts("retry-backoff-ms", "Before each retry, the producer refreshes the metadata of "
              "relevant topics. Since leader election takes a bit of time, this property "
              "specifies the amount of time that the producer waits before refreshing the "
              "metadata. This is the option to control `retry.backoff.ms` in producer configs.",
              arg="required", type=int, type_name="Long", default=100)
    p.accepts("timeout", "If set and the producer is running in asynchronous mode, this gives "
              "the maximum amount of time a message will queue awaiting sufficient batch "
              "size. The value is given in ms. This is the option to control `linger.ms` in "
              "producer configs.", arg="required", described_as="timeout_ms", type=int,
              type_name="Long", default=1000)
    p.accepts("request-required-acks", "The required `acks` of the producer requests",
              arg="required", described_as="request required acks", default="-1")
    p.accepts("request-timeout-ms", "The ack timeout of the producer requests. Value must be "
              "non-negative and non-zero.", arg="required", described_as="request timeout ms",
              type=int, default=1500)
    p.accepts("metadata-expiry-ms", "The period of time in milliseconds after which we force a "
              "refresh of metadata even if we haven't seen any leadership changes. This is the "
              "option to control `metadata.max.age.ms` in producer configs.", arg="required",
              described_as="metadata expiration interval", type=int, type_name="Long",
              default=300000)
    p.accepts("max-block-ms", "The max time that the producer will block for during a send "
              "request.", arg="required", described_as="max block on send", type=int,
              type_name="Long", default=60000)
    p.accepts("max-memory-bytes", "The total memory used by the producer to buffer records "
              "waiting to be sent to the server. This is the option to control `buffer.memory` "
              "in producer configs.", arg="required", described_as="total memory in bytes",
              type=int, type_name="Long", default=33554432)
    p.accepts("max-partition-memory-bytes", "The buffer size allocated for a partition. When "
              "records are received which are smaller than this size the producer will attempt "
              "to optimistically group them together until this size is reached. This is the "
              "option to control `batch.size` in producer configs.", arg="required",
              described_as="memory in bytes per partition", type=int, default=16384)
    p.accepts("line-reader", "The class name of the class to use for reading lines from "
              "standard in. By default each line is read as a separate message.",
              arg="required", described_as="reader_class",
              default="kafka.tools.ConsoleProducer$LineMessageReader")
    p.accepts("socket-buffer-size", "The size of the tcp RECV size. This is the option to "
              "control `send.buffer.bytes` in producer configs.", arg="required",
              described_as="size", type=int, default=102400)
    p.accepts("property", "A mechanism to pass user-defined properties in the form key=value "
              "to the message reader. This allows custom configuration for a user-defined "
              "message reader.\nDefault properties include:\n parse.key=false\n "
              "parse.headers=false\n ignore.error=false\n key.separator=\\t\n "
              "headers.delimiter=\\t\n headers.separator=,\n headers.key.separator=:\n "
              "null.marker=   When set, any fields (key, value and headers) equal to this "
              "will be replaced by null\nDefault parsing pattern when:\n parse.headers=true "
              "and parse.key=true:\n  \"h1:v1,h2:v2...\\tkey\\tvalue\"\n parse.key=true:\n  "
              "\"key\\tvalue\"\n parse.headers=true:\n  \"h1:v1,h2:v2...\\tvalue\"",
              arg="required", described_as="prop")
    p.accepts("reader-config", "Config properties file for the message reader. Note that "
              "[property] takes precedence over this config.", arg="required",
              described_as="config file")
    p.accepts("producer-property", "A mechanism to pass user-defined properties in the form "
              "key=value to the producer. ", arg="required", described_as="producer_prop")
    p.accepts("producer.config", "Producer config properties file. Note that "
              "[producer-property] takes precedence over this config.", arg="required",
              described_as="config file")
    return p


_HOSTPORT = re.compile(r"^\s*(\[[0-9a-fA-F:.]*\]|[^:\s]+):\d+\s*$")

# Producer properties Kafka's ConsoleProducer sets from its own options (Java names).
_OPTION_PROPS = [
    ("linger.ms", "timeout"), ("acks", "request-required-acks"),
    ("request.timeout.ms", "request-timeout-ms"), ("retries", "message-send-max-retries"),
    ("retry.backoff.ms", "retry-backoff-ms"), ("send.buffer.bytes", "socket-buffer-size"),
    ("buffer.memory", "max-memory-bytes"), ("batch.size", "batch-size"),
    ("batch.size", "max-partition-memory-bytes"),
    ("metadata.max.age.ms", "metadata-expiry-ms"), ("max.block.ms", "max-block-ms"),
]


def check_args(p: OptionParser, o: OptionSet, args: list[str]) -> str:
    """Validate as ConsoleProducerOptions does; returns the bootstrap list."""
    p.maybe_help_or_version(o, args, "This tool helps to read data from standard input and "
                            "publish it to Kafka.")
    p.check_required(o, "topic")
    if o.has("bootstrap-server"):
        servers = o.value_of("bootstrap-server")
    else:
        p.check_required(o, "broker-list")
        servers = o.value_of("broker-list")
    if not servers or not all(_HOSTPORT.match(s) for s in servers.split(",")):
        p.usage_and_exit("Please provide valid host:port like host1:9091,host2:9092\n ")
    return servers


def compression_codec(o: OptionSet) -> str:
    if o.has("compression-codec"):
        value = o.value_of("compression-codec")
        return value if value else "gzip"
    return "none"


def producer_props(o: OptionSet, bootstrap: str) -> dict[str, str]:
    """The producer's Java properties, with Kafka's precedence: --producer.config, then
    --producer-property, then tool options (these only fill what is unset unless given)."""
    props: dict[str, str] = {}
    if o.has("producer.config"):
        props.update(load_properties(o.value_of("producer.config")))
    props.update(parse_key_value_args(o.values_of("producer-property")))
    props["bootstrap.servers"] = bootstrap
    props["compression.type"] = compression_codec(o)
    props.setdefault("client.id", "console-producer")
    for key, opt in _OPTION_PROPS:
        if o.has(opt) or key not in props:
            props[key] = str(o.value_of(opt))
    return props


def reader_props(o: OptionSet) -> dict[str, str]:
    props: dict[str, str] = {}
    if o.has("reader-config"):
        props.update(load_properties(o.value_of("reader-config")))
    props["topic"] = o.value_of("topic")
    props.update(parse_key_value_args(o.values_of("property")))
    return props


def read_lines(stream: TextIO, prompt: bool, out: TextIO) -> Iterator[str]:
    while True:
        if prompt:
            out.write(">")
            out.flush()
        line = stream.readline()
        if not line:
            return
        if line.endswith("\n"):
            line = line[:-1]
            if line.endswith("\r"):
                line = line[:-1]
        elif line.endswith("\r"):
            line = line[:-1]
        yield line


def make_producer(props: dict[str, str]) -> KafkaProducer:
    from kafka import KafkaProducer

    kwargs = java_props_to_kwargs(props, KafkaProducer.DEFAULT_CONFIG)
    return KafkaProducer(**kwargs)


def run(args: list[str], producer_factory: Callable[[dict[str, str]], KafkaProducer] = make_producer, stdin: TextIO | None = None,
        out: TextIO | None = None) -> int:
    stdin = stdin or sys.stdin
    out = out or sys.stdout
    p = build_parser()
    o = p.parse_or_usage(args)
    bootstrap = check_args(p, o, args)
    topic = o.value_of("topic")
    try:
        reader = LineReader.from_props(reader_props(o))
    except ReaderError as e:
        sys.stderr.write(f"org.apache.kafka.common.KafkaException: {e}\n")
        return 1
    producer = producer_factory(producer_props(o, bootstrap))
    prompt = stdin.isatty() and out.isatty()
    sync = o.has("sync")
    status = 0
    try:
        for line in read_lines(stdin, prompt, out):
            key, value, headers = reader.parse(line)
            future = producer.send(topic, value=value, key=key, headers=headers or None)
            if sync:
                future.get()
            else:
                future.add_errback(_log_send_error, topic, key, value)
    except ReaderError as e:
        sys.stderr.write(f"org.apache.kafka.common.KafkaException: {e}\n")
        status = 1
    except KeyboardInterrupt:
        pass
    except BrokenPipeError:
        raise
    except Exception as e:  # noqa: BLE001 - the tool's top level: printed, exit status 1
        sys.stderr.write(f"{type(e).__name__}: {e}\n")
        status = 1
    finally:
        try:
            producer.flush()
            producer.close()
        except Exception as e:  # noqa: BLE001 - the broker went away: report, keep the exit status
            sys.stderr.write(f"{type(e).__name__}: {e}\n")
            status = status or 1
    return status


def _log_send_error(exc: BaseException, topic: str, key: bytes | None, value: bytes | None) -> None:
    key_text = "null" if key is None else f"{len(key)} bytes"
    value_text = "null" if value is None else f"{len(value)} bytes"
    sys.stderr.write(f"ERROR Error when sending message to topic {topic} with key: {key_text}, "
                     f"value: {value_text} with error: {exc} "
                     "(org.apache.kafka.clients.producer.internals.ErrorLoggingCallback)\n")


def _terminate(signum: int, frame: FrameType | None) -> None:  # SIGTERM: leave the read loop, then flush and close
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    signal.signal(signal.SIGTERM, _terminate)
    try:
        return tool_main(run, argv)
    except KeyboardInterrupt:
        return 0


if __name__ == "__main__":
    sys.exit(main())
