"""kafka-storage's command line and SCRAM records, without a JVM."""

from __future__ import annotations

import io

import pytest

from kafpy.protocol.messages import UserScramCredentialRecord
from kafpy.broker.security.scram import credential_from_salted_password, salted_password
from kafpy.scripts.kafka_storage import UsageError, justify, parse_args, run, scram_record, TerseFailure


def test_justify_like_argparse4j() -> None:
    assert justify("kafka-storage: error: argument --no-initial-controllers/-N: not allowed with argument "
                   "--standalone/-s") == ("kafka-storage: error:  argument  --no-initial-controllers/-N:  not  "
                                          "allowed\nwith argument --standalone/-s")
    # argparse4j breaks a line after a hyphen, as Java's BreakIterator allows
    assert justify("kafka-storage: error: ambiguous option: --c could match --cluster-id, --config") == (
        "kafka-storage: error: ambiguous option:  --c  could  match --cluster-id, --\nconfig")


def test_parse() -> None:
    cmd, opts = parse_args(["format", "-c", "x", "--cluster-id=y", "-f", "a=1", "--feature", "b=2", "-g"],
                           io.StringIO())
    assert cmd == "format" and opts == {"config": "x", "cluster_id": "y", "feature": ["a=1", "b=2"],
                                        "ignore_formatted": True}
    with pytest.raises(UsageError, match="argument --cluster-id/-t is required"):
        parse_args(["format", "-c", "x"], io.StringIO())
    with pytest.raises(UsageError, match="expected one argument"):
        parse_args(["info", "-c"], io.StringIO())
    with pytest.raises(UsageError, match="unrecognized arguments: '--nope'"):
        parse_args(["info", "--nope"], io.StringIO())


def test_exit_codes() -> None:
    out, err = io.StringIO(), io.StringIO()
    assert run([], out, err) == 1 and err.getvalue().endswith("kafka-storage: error: too few arguments\n")
    assert run(["--help"], out, io.StringIO()) == 0 and "The Kafka storage tool." in out.getvalue()
    err = io.StringIO()
    assert run(["version-mapping", "-r", "1.0"], io.StringIO(), err) == 1
    assert err.getvalue().startswith("Unknown metadata.version '1.0'. Supported metadata.version are: 3.3-IV3")


def test_scram_record_is_a_working_credential() -> None:
    rec = scram_record("SCRAM-SHA-512=[name=bob,iterations=8192,password=secret]").message
    assert isinstance(rec, UserScramCredentialRecord) and rec.name == "bob" and rec.mechanism == 2 and rec.iterations == 8192
    assert len(rec.salt) >= 20 and rec.salt.decode().isalnum()
    expected = credential_from_salted_password("SCRAM-SHA-512", salted_password("SCRAM-SHA-512", "secret", rec.salt,
                                                                                   8192), rec.salt, 8192)
    assert (rec.stored_key, rec.server_key) == (expected.stored_key, expected.server_key)
    given = scram_record('SCRAM-SHA-256=[name=alice,salt="N3E=",saltedpassword="YCE="]').message
    assert isinstance(given, UserScramCredentialRecord) and given.salt == b"7q" and given.iterations == 4096


@pytest.mark.parametrize("arg, message", [
    ("bogus", "Failed to find equals sign in SCRAM argument 'bogus'"),
    ("SCRAM-SHA-1=[name=a,password=b]", "mechanism SCRAM-SHA-1 is not supported"),
    ("SCRAM-SHA-256=name=a", "start with \\["),
    ("SCRAM-SHA-256=[name=a,password=b", "end with \\]"),
    ("SCRAM-SHA-256=[password=b]", "You must supply 'name'"),
    ("SCRAM-SHA-256=[name=a,saltedpassword=YCE=]", "You must supply 'salt' with 'saltedpassword'"),
    ("SCRAM-SHA-256=[name=a,password=b,iterations=10]", "must be >= 4096"),
    ("SCRAM-SHA-256=[name=a,password=b,colour=red]", "Unknown SCRAM configurations: colour"),
])
def test_bad_scram(arg: str, message: str) -> None:
    with pytest.raises(TerseFailure, match=message):
        scram_record(arg)
