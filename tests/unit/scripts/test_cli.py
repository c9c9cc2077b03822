"""The jopt-simple-like parser and its help layout."""
import importlib
from pathlib import Path

import pytest

from kafpy.scripts._cli import OptionException, OptionParser, UsageExit, parse_key_value_args


def parser():
    p = OptionParser()
    p.accepts("bootstrap-server", "REQUIRED: The Kafka server to connect to.", arg="required",
              described_as="server to connect to")
    p.accepts("partitions", "The number of partitions.", arg="required",
              described_as="# of partitions", type=int)
    p.accepts("config", "A config.", arg="required", described_as="name=value")
    p.accepts("compression-codec", "The codec.", arg="optional", described_as="compression-codec")
    p.accepts("list", "List all available topics.")
    p.accepts("delete-config", "keys", arg="required", separator=",")
    return p


def test_values_flags_and_repeats():
    o = parser().parse(["--bootstrap-server", "h:1", "--config", "a=1", "--config=b=2", "--list"])
    assert o.value_of("bootstrap-server") == "h:1"
    assert o.values_of("config") == ["a=1", "b=2"]
    assert o.has("list") and not o.has("partitions")


def test_unique_abbreviation_and_typed_value():
    o = parser().parse(["--part", "13", "--boot", "x:9"])
    assert o.value_of("partitions") == 13
    assert o.value_of("bootstrap-server") == "x:9"


def test_unknown_ambiguous_and_missing_argument():
    with pytest.raises(OptionException, match="bogus is not a recognized option"):
        parser().parse(["--bogus"])
    with pytest.raises(OptionException, match="ambiguous"):
        parser().parse(["--co", "x"])
    with pytest.raises(OptionException, match=r"Option \[config\] requires an argument"):
        parser().parse(["--config", "--list"])
    with pytest.raises(OptionException, match="Cannot parse argument 'x' of option partitions") as e:
        parser().parse(["--partitions", "x"])
    assert e.value.conversion


def test_optional_argument_and_separator():
    o = parser().parse(["--compression-codec", "--list"])
    assert o.has("compression-codec") and o.value_of("compression-codec") is None
    assert parser().parse(["--compression-codec", "lz4"]).value_of("compression-codec") == "lz4"
    assert parser().parse(["--delete-config", "a,b"]).values_of("delete-config") == ["a", "b"]


def test_help_layout_matches_jopt_simple():
    lines = parser().format_help().splitlines()
    assert lines[0] == "Option".ljust(41) + "Description".ljust(39)
    assert lines[1] == "------".ljust(41) + "-----------".ljust(39)
    # the two-line option cell of Kafka 3.9's kafka-topics help
    assert "--bootstrap-server <String: server to    REQUIRED: The Kafka server to connect  " in lines
    assert "  connect to>                              to.                                  " in lines
    assert any(l.startswith("--partitions <Integer: # of partitions>  The number") for l in lines)
    assert any(l.startswith("--compression-codec [String:") for l in lines)
    assert all(len(l) == 80 for l in lines)


DATA = Path(__file__).parent / "data"


def _without_options(table: str, names: set[str]) -> list[str]:
    """Drop the rows of the given options (an option row and its continuation lines)."""
    out, skipping = [], False
    for line in table.splitlines():
        if line.startswith("--"):
            skipping = line.split()[0][2:] in names
        elif line[:1] not in (" ", "\t") :
            skipping = False
        if not skipping:
            out.append(line)
    return out


@pytest.mark.parametrize("tool, module, extra", [
    ("topics", "kafka_topics", {"zookeeper"}),
    ("groups", "kafka_consumer_groups", set()),
    ("producer", "kafka_console_producer", set()),
    ("consumer", "kafka_console_consumer", {"formatter-property"}),
])
def test_help_is_kafka_3_9_help(tool, module, extra):
    """Our usage tables equal the ones Kafka 3.9.1's tools print (captured in data/),
    apart from options only we have."""
    mod = importlib.import_module(f"kafpy.scripts.{module}")
    ours = _without_options(mod.build_parser().format_help(), extra)
    theirs = (DATA / f"kafka-3.9.1-{tool}-help.txt").read_text().splitlines()
    assert ours == theirs


def test_usage_and_exit_prints_message_and_table(capsys):
    p = parser()
    with pytest.raises(UsageExit) as e:
        p.check_required(p.parse([]), "bootstrap-server")
    assert e.value.code == 1
    err = capsys.readouterr().err
    assert err.startswith('Missing required argument "[bootstrap-server]"\nOption ')


def test_check_invalid_message(capsys):
    p = parser()
    with pytest.raises(UsageExit):
        p.check_invalid(p.parse(["--config", "a=b", "--list"]), "config", ["list"])
    assert capsys.readouterr().err.startswith('Option "[config]" can\'t be used with option "[list]"')


def test_key_value_args():
    assert parse_key_value_args(["a=1", "b=x=y", "c"]) == {"a": "1", "b": "x=y", "c": ""}
