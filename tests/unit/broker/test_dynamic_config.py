"""Dynamic broker configs Kafka reconfigures without a restart: which names may change, the
checks before a change is stored (stores per listener and per broker, cleaner threads by at
most a factor of two, a keystore that loads), what DescribeConfigs reports, and a TLS
listener handing new connections the new certificate (handshakes over memory BIOs)."""
from __future__ import annotations

import datetime
import ssl
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from kafpy.protocol.messages import DescribeConfigsRequest, IncrementalAlterConfigsRequest
from kafpy.broker.config import ConfigDef, ConfigError, KafkaConfig
from kafpy.broker.dynamic_config import config_def, listener_key, validate_broker_update
from kafpy.broker.handlers.configs import handle_describe_configs, handle_incremental_alter_configs
from kafpy.broker.security.ssl_reconfig import ReconfigurableServerSsl
from tests.unit.broker.test_configs import broker  # noqa: F401 - the fixture
from tests.unit.broker.helpers import call

BROKER = 4
INVALID_REQUEST = 42
D = DescribeConfigsRequest
I = IncrementalAlterConfigsRequest


def _keystore(d: Path, cn: str) -> Path:
    """A self-signed EC certificate for ``cn`` with its key, as one PEM file."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=1))
            .not_valid_after(now + datetime.timedelta(days=1)).sign(key, hashes.SHA256()))
    path = d / f"{cn}.pem"
    path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                       serialization.NoEncryption()) + cert.public_bytes(serialization.Encoding.PEM))
    return path


def _config(**props: str) -> KafkaConfig:
    return KafkaConfig({"listeners": "PLAINTEXT://:0,SSL://:0", "broker.id": "1", **props})


def _peer_subject(server_ctx: ssl.SSLContext) -> str:
    """The subject common name a client sees in a handshake with ``server_ctx``."""
    client_ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    client_ctx.check_hostname, client_ctx.verify_mode = False, ssl.CERT_NONE
    c_in, c_out, s_in, s_out = ssl.MemoryBIO(), ssl.MemoryBIO(), ssl.MemoryBIO(), ssl.MemoryBIO()
    client = client_ctx.wrap_bio(c_in, c_out)
    server = server_ctx.wrap_bio(s_in, s_out, server_side=True)
    for _ in range(10):
        done = 0
        for side in (client, server):
            try:
                side.do_handshake()
                done += 1
            except ssl.SSLWantReadError:
                pass
        s_in.write(c_out.read())
        c_in.write(s_out.read())
        if done == 2:
            break
    der = client.getpeercert(binary_form=True)
    assert der is not None
    cert = x509.load_der_x509_certificate(der)
    name = cert.subject.get_attributes_for_oid(NameOID.COMMON_NAME)[0].value
    assert isinstance(name, str)
    return name


def defined(name: str) -> ConfigDef:
    d = config_def(name)
    assert d is not None, f"{name} is not a broker setting"
    return d


def test_dynamic_names() -> None:
    assert listener_key("listener.name.ssl.ssl.keystore.location") == ("ssl", "ssl.keystore.location")
    assert listener_key("listener.name.ssl.ssl.client.auth") is None        # not a store setting
    assert listener_key("ssl.keystore.location") is None
    assert defined("listener.name.internal.ssl.truststore.password").sensitive
    assert defined("num.replica.fetchers").dynamic and defined("log.cleaner.threads").dynamic
    assert defined("ssl.keystore.location").dynamic            # reported read_only=false, as Kafka
    assert not defined("socket.request.max.bytes").dynamic
    assert config_def("listener.name.x.no.such") is None


def test_stores_change_per_listener_and_per_broker_only(tmp_path: Path) -> None:
    old, new = _keystore(tmp_path, "old-broker"), _keystore(tmp_path, "new-broker")
    cfg = _config(**{"ssl.keystore.type": "PEM", "ssl.keystore.location": str(old)})
    with pytest.raises(ConfigError, match="only per-listener using the listener prefix: \\[ssl.keystore.location\\]"):
        validate_broker_update(cfg, {"ssl.keystore.location": str(new)}, per_broker=True)
    key = "listener.name.ssl.ssl.keystore.location"
    with pytest.raises(ConfigError, match="broker id must be specified"):
        validate_broker_update(cfg, {key: str(new)}, per_broker=False)
    with pytest.raises(ConfigError, match="Validation of dynamic config update of SSLFactory failed"):
        validate_broker_update(cfg, {key: str(tmp_path / "missing.pem")}, per_broker=True)
    # no TLS on the listener to reconfigure: stored unchecked, as Kafka 4.4 stores it
    validate_broker_update(cfg, {"listener.name.plaintext.ssl.keystore.location": str(tmp_path / "no.pem")},
                           per_broker=True)
    validate_broker_update(cfg, {key: str(new)}, per_broker=True)


def test_values_are_refused_with_kafkas_messages() -> None:
    cfg = _config()
    for name, raw, message in [
            ("max.connections", "abc", "Invalid value abc for configuration max.connections: Not a number of type INT"),
            ("listener.name.plaintext.max.connections", " -5 ",
             "Invalid value -5 for configuration max.connections: Value must be at least 0"),
            ("log.preallocate", "yes",
             "Invalid value yes for configuration log.preallocate: Expected value to be either true or false"),
            ("sasl.kerberos.ticket.renew.jitter", "x",
             "Invalid value x for configuration sasl.kerberos.ticket.renew.jitter: Not a number of type DOUBLE"),
            ("ssl.client.auth", "bogus", "Invalid value bogus for configuration ssl.client.auth: String must be "
                                         "one of: required, requested, none"),
            ("log.cleanup.policy", "delete,bogus",
             "Invalid value bogus for configuration log.cleanup.policy: String must be one of: compact, delete"),
            ("max.decompressed.message.bytes", "2147483640", "Invalid value 2147483640 for configuration "
             "max.decompressed.message.bytes: Value must be no more than 2147483639")]:
        with pytest.raises(ConfigError) as refused:
            validate_broker_update(cfg, {name: raw}, per_broker=True)
        assert str(refused.value) == message
    with pytest.raises(ConfigError, match=r"^Cannot update these configs dynamically: \[auto.create.topics.enable\]$"):
        validate_broker_update(cfg, {"auto.create.topics.enable": "false"}, per_broker=True)
    # names Kafka 4.4 does not know (a plugin's, a removed one's, a mechanism's) are stored unchecked
    validate_broker_update(cfg, {"no.such.config": "x", "log.message.timestamp.difference.max.ms": "abc",
                                 "listener.name.plaintext.plain.sasl.jaas.config": "x",
                                 "listener.name.plaintext.auto.create.topics.enable": "false"}, per_broker=True)
    cfg.set_dynamic({}, {"log.message.timestamp.difference.max.ms": "abc"})
    assert cfg["log.message.timestamp.difference.max.ms"] == 9223372036854775807   # and never read


def test_per_broker_names_and_the_cluster_level_listener_ones() -> None:
    cfg = _config()
    for name in ("sasl.enabled.mechanisms", "listeners", "ssl.cipher.suites", "ssl.provider",
                 "listener.name.plaintext.ssl.cipher.suites", "listener.name.plaintext.plain.sasl.jaas.config",
                 "listener.name.plaintext.no.such"):
        value = "PLAINTEXT://:0,SSL://:0" if name == "listeners" else "x"
        validate_broker_update(cfg, {name: value}, per_broker=True)
        with pytest.raises(ConfigError, match=f"^Cannot update these configs at default cluster level, broker id "
                                              f"must be specified: \\[{name}\\]$"):
            validate_broker_update(cfg, {name: value}, per_broker=False)
    for name in ("listener.name.plaintext.max.connections", "listener.name.plaintext.num.network.threads",
                 "listener.name.plaintext.max.connection.creation.rate"):
        validate_broker_update(cfg, {name: "10"}, per_broker=False)


def test_listener_changes_checked_as_kafka_checks_them() -> None:
    cfg = _config(**{"listeners": "PLAINTEXT://127.0.0.1:9092", "advertised.listeners": "PLAINTEXT://127.0.0.1:9092",
                     "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT"})
    wrapped = "Invalid value org.apache.kafka.common.config.ConfigException: {} for configuration Invalid dynamic " \
              "configuration"
    # a new listener with its protocol: taken (advertised listeners unchanged)
    validate_broker_update(cfg, {"listeners": "PLAINTEXT://127.0.0.1:9092,EXTRA://127.0.0.1:9093",
                                 "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,EXTRA:SSL"}, per_broker=True)
    with pytest.raises(ConfigError) as refused:
        validate_broker_update(cfg, {"listeners": "PLAINTEXT://127.0.0.1:9092,EXTRA://127.0.0.1:9093"}, True)
    assert str(refused.value) == ("Error creating broker listeners from '[PLAINTEXT://127.0.0.1:9092, "
                                  "EXTRA://127.0.0.1:9093]': No security protocol defined for listener EXTRA")
    with pytest.raises(ConfigError) as refused:
        validate_broker_update(cfg, {"listener.security.protocol.map": "PLAINTEXT:SSL"}, True)
    assert str(refused.value) == wrapped.format(
        "Security protocol cannot be updated for existing listener ListenerName(PLAINTEXT)")
    # an existing listener's own settings change only with a restart, checked when a
    # listener, TLS or SASL setting changes with them
    validate_broker_update(cfg, {"listener.name.plaintext.ssl.cipher.suites": "x"}, True)
    with pytest.raises(ConfigError) as refused:
        validate_broker_update(cfg, {"listener.name.plaintext.ssl.cipher.suites": "x",
                                     "sasl.enabled.mechanisms": "PLAIN"}, True)
    assert str(refused.value) == wrapped.format(
        "Configs cannot be updated dynamically for existing listener ListenerName(PLAINTEXT), restart broker or "
        "create a new listener for update")
    validate_broker_update(cfg, {"listener.name.plaintext.max.connections": "5", "sasl.enabled.mechanisms": "PLAIN"},
                           True)
    with pytest.raises(ConfigError) as refused:
        validate_broker_update(cfg, {"listeners": "EXTRA://127.0.0.1:9093",
                                     "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,EXTRA:SSL"}, True)
    assert "must be a subset of listeners" in str(refused.value)


def test_thread_pools_move_by_at_most_a_factor_of_two() -> None:
    cfg = _config(**{"num.io.threads": "8"})
    validate_broker_update(cfg, {"num.io.threads": "16", "num.replica.fetchers": "2"}, per_broker=False)
    with pytest.raises(ConfigError, match="num.io.threads=3, value should be at least half the current value 8"):
        validate_broker_update(cfg, {"num.io.threads": "3"}, per_broker=False)
    with pytest.raises(ConfigError, match="^Invalid value 0 for configuration background.threads: Value must be at "
                                          "least 1$"):   # the type's range, checked first as Kafka does
        validate_broker_update(cfg, {"background.threads": "0"}, per_broker=False)


def test_cleaner_threads_move_by_at_most_a_factor_of_two() -> None:
    cfg = _config(**{"log.cleaner.threads": "4"})
    validate_broker_update(cfg, {"log.cleaner.threads": "8"}, per_broker=False)
    validate_broker_update(cfg, {"log.cleaner.threads": "2"}, per_broker=True)
    with pytest.raises(ConfigError, match="more than double the current value 4"):
        validate_broker_update(cfg, {"log.cleaner.threads": "9"}, per_broker=False)
    with pytest.raises(ConfigError, match="less than half the current value 4"):
        validate_broker_update(cfg, {"log.cleaner.threads": "1"}, per_broker=False)
    with pytest.raises(ConfigError, match="at least 1"):
        validate_broker_update(cfg, {"log.cleaner.threads": "0"}, per_broker=False)


def test_new_connections_get_the_reconfigured_certificate(tmp_path: Path) -> None:
    old, new = _keystore(tmp_path, "old-broker"), _keystore(tmp_path, "new-broker")
    cfg = _config(**{"ssl.keystore.type": "PEM", "ssl.keystore.location": str(old)})
    ssl_listener = ReconfigurableServerSsl(lambda k: cfg.listener_config("SSL", k), "SSL")
    assert _peer_subject(ssl_listener.context) == "old-broker"
    assert not ssl_listener.reconfigure(lambda k: cfg.listener_config("SSL", k))      # nothing changed
    cfg.set_dynamic({}, {"listener.name.ssl.ssl.keystore.location": str(new)})
    assert ssl_listener.reconfigure(lambda k: cfg.listener_config("SSL", k))
    # the server keeps the context it started with; handshakes on it now present the new certificate
    assert _peer_subject(ssl_listener.context) == "new-broker"
    cfg.set_dynamic({}, {"listener.name.ssl.ssl.keystore.location": str(tmp_path / "gone.pem")})
    with pytest.raises(ConfigError):
        ssl_listener.reconfigure(lambda k: cfg.listener_config("SSL", k))
    assert _peer_subject(ssl_listener.context) == "new-broker"                        # still in force


def test_alter_and_describe_through_the_handlers(broker) -> None:  # noqa: F811
    def alter(name: str, *ops):
        return call(broker, handle_incremental_alter_configs, 44, 1, I(validate_only=False, resources=[
            I.AlterConfigsResource(resource_type=BROKER, resource_name=name, configs=[
                I.AlterableConfig(name=n, config_operation=0, value=v) for n, v in ops])])).responses[0]

    def describe(keys):
        return {c.name: c for c in call(broker, handle_describe_configs, 32, 4, D(resources=[
            D.DescribeConfigsResource(resource_type=BROKER, resource_name=str(broker.config.broker_id),
                                      configuration_keys=keys)], include_synonyms=True)).results[0].configs}

    names = ["num.replica.fetchers", "log.cleaner.threads", "ssl.keystore.location", "num.io.threads", "log.dirs"]
    got = describe(names)
    assert [got[k].read_only for k in names] == [False, False, False, False, True]
    assert alter("", ("num.replica.fetchers", "2"), ("log.cleaner.threads", "2")).error_code == 0
    assert broker.config["num.replica.fetchers"] == 2 and broker.config["log.cleaner.threads"] == 2
    bad = alter("", ("num.replica.fetchers", "5"))
    assert bad.error_code == INVALID_REQUEST and bad.error_message == (
        "Dynamic thread count update validation failed for num.replica.fetchers=5, value should not be greater "
        "than double the current value 2")
    bad = alter("", ("log.cleaner.threads", "5"))
    assert bad.error_code == INVALID_REQUEST and "more than double" in bad.error_message
    bad = alter("", ("ssl.keystore.location", "/x.pem"))
    assert bad.error_code == INVALID_REQUEST and "listener prefix" in bad.error_message


def test_passwords_are_stored_encrypted_per_broker_only() -> None:
    from kafpy.broker import password_encoder
    from kafpy.broker.dynamic_config import to_persistent
    key = "listener.name.ssl.ssl.keystore.password"
    plain = _config()
    with pytest.raises(ConfigError, match="^Password encoder secret not configured$"):
        to_persistent(plain, {key: "s3cret"}, per_broker=True, encrypt=True)
    assert to_persistent(plain, {key: "s3cret"}, per_broker=True, encrypt=False) == {key: "s3cret"}   # standalone
    cfg = _config(**{"password.encoder.secret": "encoder-secret"})
    with pytest.raises(ConfigError, match="^Password config can be defined only at broker level$"):
        to_persistent(cfg, {key: "s3cret"}, per_broker=False, encrypt=True)
    stored = to_persistent(cfg, {key: "s3cret", "num.io.threads": "8"}, per_broker=True, encrypt=True)
    assert stored["num.io.threads"] == "8" and "s3cret" not in stored[key]
    assert password_encoder.is_encoded(stored[key])
    assert "keyFactoryAlgorithm:PBKDF2WithHmacSHA512" in stored[key] and "passwordLength:6" in stored[key]
    with pytest.raises(password_encoder.PasswordDecodeError):
        password_encoder.decode(stored[key], "another-secret")
    # read back from ZooKeeper: decrypted with the secret, or with the old one after a rotation
    cfg.set_dynamic({}, stored)
    assert cfg.dynamic_broker[key] == "s3cret" and cfg.listener_config("SSL", "ssl.keystore.password") == "s3cret"
    rotated = _config(**{"password.encoder.secret": "new", "password.encoder.old.secret": "encoder-secret"})
    rotated.set_dynamic({}, stored)
    assert rotated.dynamic_broker[key] == "s3cret"
    plain.set_dynamic({}, stored)            # no secret: the password is left out, not used encrypted
    assert key not in plain.dynamic_broker and plain.dynamic_broker["num.io.threads"] == "8"
