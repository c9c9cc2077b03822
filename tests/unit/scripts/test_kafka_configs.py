"""kafka-configs: argument checks, --add-config parsing, describe/alter output."""
import io

import pytest

from kafpy.scripts import kafka_configs as kc

ENTRIES = {
    "cleanup.policy": {"value": "compact", "config_source": "DYNAMIC_TOPIC_CONFIG",
                       "is_sensitive": False,
                       "synonyms": [{"name": "cleanup.policy", "value": "compact",
                                     "source": "DYNAMIC_TOPIC_CONFIG"},
                                    {"name": "log.cleanup.policy", "value": "delete",
                                     "source": "DEFAULT_CONFIG"}]},
    "segment.bytes": {"value": "1073741824", "config_source": "STATIC_BROKER_CONFIG",
                      "is_sensitive": False, "synonyms": []},
}


class Recorder:
    def __init__(self, entries):
        self.entries = entries
        self.described = []
        self.altered = []

    def describe(self, admin, rtype, name, synonyms):
        self.described.append((rtype, name, synonyms))
        return self.entries

    def alter(self, admin, rtype, name, to_add, to_delete, existing):
        self.altered.append((rtype, name, to_add, to_delete, existing))


class Admin:
    def list_topics(self):
        return ["b", "a"]

    def describe_cluster(self):
        return {"brokers": [{"broker_id": 1}, {"broker_id": 0}]}

    def close(self):
        pass


def run(args, rec):
    out = io.StringIO()
    orig = kc.ConfigService.__init__

    def init(self, admin, out=None, describe_fn=None, alter_fn=None):
        orig(self, admin, out, rec.describe, rec.alter)
    kc.ConfigService.__init__ = init
    try:
        code = kc.run(["--bootstrap-server", "h:1"] + args, admin_factory=lambda b, c: Admin(), out=out)
    finally:
        kc.ConfigService.__init__ = orig
    return code, out.getvalue()


def test_describe_dynamic_topic_configs():
    rec = Recorder(ENTRIES)
    code, out = run(["--describe", "--entity-type", "topics", "--entity-name", "my-topic"], rec)
    assert code == 0
    assert out == ("Dynamic configs for topic my-topic are:\n"
                   "  cleanup.policy=compact sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:"
                   "cleanup.policy=compact, DEFAULT_CONFIG:log.cleanup.policy=delete}\n")
    assert rec.described == [("TOPIC", "my-topic", True)]


def test_describe_all_and_shortcut_flag():
    code, out = run(["--describe", "--topic", "t", "--all"], Recorder(ENTRIES))
    assert out.splitlines()[0] == "All configs for topic t are:"
    assert out.splitlines()[2] == "  segment.bytes=1073741824 sensitive=false synonyms={}"


def test_describe_every_broker_and_the_default():
    code, out = run(["--describe", "--entity-type", "brokers"], Recorder({}))
    assert out == ("Dynamic configs for broker 1 are:\nDynamic configs for broker 0 are:\n"
                   "Default configs for brokers in the cluster are:\n")


def test_alter_topic():
    rec = Recorder(ENTRIES)
    code, out = run(["--alter", "--entity-type", "topics", "--entity-name", "t", "--add-config",
                     "retention.ms=1000,cleanup.policy=[compact,delete]",
                     "--delete-config", "cleanup.policy"], rec)
    assert (code, out) == (0, "Completed updating config for topic t.\n")
    assert rec.altered == [("TOPIC", "t", {"retention.ms": "1000", "cleanup.policy": "compact,delete"},
                            ["cleanup.policy"], {"cleanup.policy": "compact"})]


def test_alter_broker_default():
    rec = Recorder({})
    code, out = run(["--alter", "--entity-type", "brokers", "--entity-default", "--add-config",
                     "log.cleaner.threads=2"], rec)
    assert out == "Completed updating default config for brokers in the cluster.\n"
    assert rec.altered[0][:2] == ("BROKER", "")


def test_deleting_an_unset_config_fails(capsys):
    code, _ = run(["--alter", "--topic", "t", "--delete-config", "nope"], Recorder(ENTRIES))
    assert code == 1 and capsys.readouterr().err == "Invalid config(s): nope\n"


@pytest.mark.parametrize("args, message", [
    (["--describe", "--entity-type", "foo"], "Invalid entity type foo, the entity type must be one "
     "of topics, clients, users, brokers, ips, broker-loggers, client-metrics with a "
     "--bootstrap-server or --bootstrap-controller argument"),
    (["--describe"], "At least one entity type must be specified"),
    (["--alter", "--entity-type", "topics"], "an entity name must be specified with --alter of topics"),
    (["--alter", "--entity-type", "topics", "--entity-name", "t"],
     "At least one of --add-config, --add-config-file, or --delete-config must be specified with --alter"),
    (["--describe", "--entity-type", "brokers", "--entity-name", "x"],
     "The entity name for brokers must be a valid integer broker id, but it is: x"),
])
def test_argument_errors(args, message, capsys):
    assert run(args, Recorder({}))[0] == 1
    assert capsys.readouterr().err == message + "\n"


def test_add_config_parsing():
    assert kc.parse_add_config("a=1, b = [x,y],c=") == {"a": "1", "b": "x,y", "c": ""}
    with pytest.raises(kc.CommandError, match="all configs to be added must be in the format"):
        kc.parse_add_config("novalue")
