"""Kafka 4.4's checks of a dynamic change that touches a broker's listeners: the listener
set (``listeners``), their security protocols (``listener.security.protocol.map``), and
the settings of each existing listener (``listener.name.<l>.*``).

Kafka builds the new broker config first (every listener needs a security protocol), and
then, when a listener, TLS or SASL setting changed (``LISTENER_RECONFIGURABLE``, its
DynamicListenerConfig.RECONFIGURABLE_CONFIGS), DynamicListenerConfig.validateReconfiguration
checks that the advertised listeners stay listeners, that an existing listener keeps its
protocol and the prefixed settings it started with (all but the stores, connection limits
and network threads), and that the advertised listeners do not change (a KRaft broker registers them
once). kafpy answers with Kafka's messages. A change that passes is stored; kafpy's socket
server keeps the listeners it started with, so a new listener set takes effect at restart
(README, "Dynamic broker configs").

Who calls it: ``kafpy.broker.dynamic_config.validate_broker_update``, before a change is
stored. Pure: reads the broker's config, changes nothing.
"""
from __future__ import annotations

from kafpy.broker.config import ConfigError, KafkaConfig
from kafpy.broker.endpoint import LISTENER_PREFIX, Listener, parse_listener
from kafpy.broker.security.ssl_reconfig import RECONFIGURABLE_SSL_CONFIGS

__all__ = ["LISTENER_RECONFIGURABLE", "validate_listeners"]

LISTENER_RECONFIGURABLE = frozenset({
    "listener.security.protocol.map", "listeners", "max.connection.creation.rate", "max.connections",
    "num.network.threads", "principal.builder.class", "sasl.enabled.mechanisms", "sasl.jaas.config",
    "sasl.kerberos.kinit.cmd", "sasl.kerberos.min.time.before.relogin", "sasl.kerberos.principal.to.local.rules",
    "sasl.kerberos.service.name", "sasl.kerberos.ticket.renew.jitter", "sasl.kerberos.ticket.renew.window.factor",
    "sasl.login.refresh.buffer.seconds", "sasl.login.refresh.min.period.seconds",
    "sasl.login.refresh.window.factor", "sasl.login.refresh.window.jitter", "sasl.mechanism.inter.broker.protocol",
    "ssl.cipher.suites", "ssl.client.auth", "ssl.enabled.protocols", "ssl.endpoint.identification.algorithm",
    "ssl.engine.factory.class", "ssl.key.password", "ssl.keymanager.algorithm", "ssl.keystore.location",
    "ssl.keystore.password", "ssl.keystore.type", "ssl.protocol", "ssl.provider",
    "ssl.secure.random.implementation", "ssl.trustmanager.algorithm", "ssl.truststore.location",
    "ssl.truststore.password", "ssl.truststore.type",
})
# what an existing listener's prefixed settings may change (the TLS stores, the socket
# server's connection limits, the acceptor's network threads)
_MUTABLE_PER_LISTENER = frozenset(RECONFIGURABLE_SSL_CONFIGS) | {
    "max.connections", "max.connection.creation.rate", "num.network.threads"}
_DEFAULT_MAP = "PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL"


def _wrapped(message: str) -> ConfigError:
    """Kafka's reconfigurable refusal as AlterConfigs answers it (a ConfigException
    wrapped in "Invalid dynamic configuration")."""
    return ConfigError(f"Invalid value org.apache.kafka.common.config.ConfigException: {message} "
                       "for configuration Invalid dynamic configuration")


def _entries(raw: str | None) -> list[str]:
    return [p.strip() for p in (raw or "").split(",") if p.strip()]


def _listeners(props: dict[str, str]) -> tuple[list[str], list[Listener]]:
    raw = _entries(props.get("listeners", "PLAINTEXT://:9092"))
    try:
        return raw, [parse_listener(s) for s in raw]
    except ValueError as e:
        raise ConfigError(f"Invalid value {props.get('listeners')} for configuration listeners: {e}") from None


def _protocols(props: dict[str, str]) -> dict[str, str]:
    out = {}
    for entry in _entries(props.get("listener.security.protocol.map", _DEFAULT_MAP)):
        name, sep, protocol = entry.partition(":")
        if not sep:
            raise ConfigError(f"Invalid value {props['listener.security.protocol.map']} for configuration "
                              "listener.security.protocol.map: Map entry should be of form <key><delimiter><value>")
        out[name.strip().upper()] = protocol.strip().upper()
    return out


def _fixed_settings(props: dict[str, str], listener: str) -> dict[str, str]:
    prefix = f"{LISTENER_PREFIX}{listener.lower()}."
    return {k[len(prefix):]: v for k, v in props.items()
            if k.startswith(prefix) and k[len(prefix):] not in _MUTABLE_PER_LISTENER}


def validate_listeners(cfg: KafkaConfig, new: dict[str, str], per_broker: bool) -> None:
    """Raises ConfigError as Kafka 4.4 refuses ``new`` (the broker's own dynamic configs
    when ``per_broker``, else the cluster default's) for the listeners it leaves."""
    before = {**cfg.originals, **cfg.dynamic}
    layers = (cfg.dynamic_default, new) if per_broker else (new, cfg.dynamic_broker)
    after = {**cfg.originals, **layers[0], **layers[1]}
    if after == before:
        return
    raw, listeners = _listeners(after)
    protocols = _protocols(after)
    for listener in listeners:
        if listener.name not in protocols:
            raise ConfigError(f"Error creating broker listeners from '[{', '.join(raw)}]': "
                              f"No security protocol defined for listener {listener.name}")
    changed = {k for k in before.keys() | after.keys() if before.get(k) != after.get(k)}
    if not changed & LISTENER_RECONFIGURABLE:
        return
    old_protocols = _protocols(before)
    names = {li.name for li in listeners}
    advertised = cfg.advertised_listeners if "advertised.listeners" in cfg.originals else listeners
    if not {li.name for li in advertised} <= names:
        raise _wrapped(f"Advertised listeners '{', '.join(map(str, advertised))}' must be a subset of "
                       f"listeners '{', '.join(raw)}'")
    for listener in cfg.listeners:
        if listener.name not in names:
            continue
        # against the settings the broker started with: Kafka reads the old ones with
        # originalsWithPrefix(prefix, true), which its live config does not override, so
        # a prefixed setting stored earlier counts as a change every time
        if _fixed_settings(after, listener.name) != _fixed_settings(cfg.originals, listener.name):
            raise _wrapped(f"Configs cannot be updated dynamically for existing listener "
                           f"ListenerName({listener.name}), restart broker or create a new listener for update")
        if old_protocols.get(listener.name) != protocols.get(listener.name):
            raise _wrapped(f"Security protocol cannot be updated for existing listener ListenerName({listener.name})")
    if cfg.inter_broker_listener_name not in {li.name for li in advertised}:
        raise _wrapped("Advertised listener must be specified for inter-broker listener "
                       f"ListenerName({cfg.inter_broker_listener_name})")
    if {(li.name, li.host, li.port) for li in advertised} != {(li.name, li.host, li.port)
                                                              for li in cfg.advertised_listeners}:
        raise _wrapped("Advertised listeners cannot be altered when using a Raft-based metadata quorum.")
