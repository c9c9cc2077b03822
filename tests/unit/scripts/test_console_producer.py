"""kafka-console-producer: LineMessageReader parsing, producer settings, the send loop."""
import io

import pytest

from kafpy.scripts import kafka_console_producer as cp
from tests.unit.scripts.fakes import FakeProducer


def reader(**props):
    return cp.LineReader.from_props({k.replace("_", "."): v for k, v in props.items()})


def test_plain_lines_have_no_key():
    assert reader().parse("hello world") == (None, b"hello world", [])


def test_key_and_custom_separator():
    assert reader(parse_key="true").parse("k\tv\tw") == (b"k", b"v\tw", [])
    assert reader(parse_key="true", key_separator=":").parse("k:v") == (b"k", b"v", [])


def test_headers_key_value_and_null_marker():
    r = reader(parse_key="true", parse_headers="true", null_marker="NULL")
    assert r.parse("h1:a,h2:NULL\tNULL\tv") == (None, b"v", [("h1", b"a"), ("h2", None)])


def test_missing_separator_reports_line_number():
    r = reader(parse_key="true")
    r.parse("a\tb")
    with pytest.raises(cp.ReaderError, match="No key separator found on line number 2: 'nokey'"):
        r.parse("nokey")
    assert reader(parse_key="true", ignore_error="true").parse("nokey") == (None, b"nokey", [])


def test_conflicting_separators_rejected():
    with pytest.raises(cp.ReaderError, match="headers.delimiter and headers.separator may not be equal"):
        reader(headers_delimiter=",")


def options(args):
    p = cp.build_parser()
    o = p.parse(args)
    return o, cp.check_args(p, o, args)


def test_producer_defaults_are_kafkas():
    o, servers = options(["--bootstrap-server", "h:9092", "--topic", "t"])
    props = cp.producer_props(o, servers)
    assert props["acks"] == "-1" and props["linger.ms"] == "1000"
    assert props["request.timeout.ms"] == "1500" and props["retries"] == "3"
    assert props["client.id"] == "console-producer" and props["compression.type"] == "none"
    assert props["batch.size"] == "16384"


def test_broker_list_and_property_precedence(tmp_path):
    conf = tmp_path / "p.properties"
    conf.write_text("linger.ms=5\nacks=1\nclient.id=mine\n")
    o, servers = options(["--broker-list", "h:1", "--topic", "t", "--producer.config", str(conf),
                          "--producer-property", "acks=0", "--request-required-acks", "all"])
    props = cp.producer_props(o, servers)
    assert servers == "h:1"
    assert props["linger.ms"] == "5"            # file value kept: --timeout not given
    assert props["acks"] == "all"               # an explicit tool option wins
    assert props["client.id"] == "mine"


def test_producer_config_is_read_with_java_rules(tmp_path):
    """--producer.config goes through the broker's reader: escapes decoded, continuations joined."""
    conf = tmp_path / "p.properties"
    conf.write_bytes(b"client.id=caf\\u00e9\\tx\nsasl.jaas.config=a \\\n    b\n")
    o, servers = options(["--bootstrap-server", "h:1", "--topic", "t", "--producer.config", str(conf)])
    props = cp.producer_props(o, servers)
    assert props["client.id"] == "caf\u00e9\tx"
    assert props["sasl.jaas.config"] == "a b"


def test_bare_compression_codec_means_gzip():
    o, _ = options(["--bootstrap-server", "h:1", "--topic", "t", "--compression-codec"])
    assert cp.compression_codec(o) == "gzip"
    o, _ = options(["--bootstrap-server", "h:1", "--topic", "t", "--compression-codec", "zstd"])
    assert cp.compression_codec(o) == "zstd"


def test_bad_broker_list_is_a_usage_error(capsys):
    with pytest.raises(SystemExit):
        options(["--bootstrap-server", "nohostport", "--topic", "t"])
    assert capsys.readouterr().err.startswith("Please provide valid host:port like host1:9091,host2:9092")


class Pipe(io.StringIO):
    def isatty(self):
        return False


def test_run_sends_each_line_then_flushes_and_closes():
    made = []

    def factory(props):
        made.append(FakeProducer(props))
        return made[0]
    out = io.StringIO()
    code = cp.run(["--bootstrap-server", "h:1", "--topic", "t", "--property", "parse.key=true",
                   "--sync"], producer_factory=factory, stdin=Pipe("a\t1\r\nb\t2\n"), out=out)
    assert code == 0
    assert made[0].sent == [("t", b"a", b"1", None), ("t", b"b", b"2", None)]
    assert made[0].flushed and made[0].closed
    assert out.getvalue() == ""  # no ">" prompt when stdin is not a terminal


def test_run_stops_at_a_bad_line(capsys):
    producers = []
    code = cp.run(["--bootstrap-server", "h:1", "--topic", "t", "--property", "parse.key=true"],
                  producer_factory=lambda p: producers.append(FakeProducer(p)) or producers[0],
                  stdin=Pipe("k\tv\nbad\nk2\tv2\n"), out=io.StringIO())
    assert code == 1
    assert len(producers[0].sent) == 1 and producers[0].closed
    assert "No key separator found on line number 2: 'bad'" in capsys.readouterr().err


def test_prompt_on_terminal():
    class Tty(io.StringIO):
        def isatty(self):
            return True
    out = Tty()
    cp.run(["--bootstrap-server", "h:1", "--topic", "t"], producer_factory=FakeProducer,
           stdin=Tty("x\n"), out=out)
    assert out.getvalue() == ">>"
