"""Which broker configs may change on a running broker, and the checks a change must pass
before it is stored (Kafka's ``DynamicBrokerConfig.validate`` and its reconfigurables'
``validateReconfiguration``).

A dynamic name is a key of ``BROKER_CONFIGS`` marked ``dynamic`` (Kafka 4.4's dynamic
configs; those kafpy does not act on are in ``stored_dynamic_configs``), any
``listener.name.<listener>.<setting>`` (checked as its setting), or a name Kafka 4.4 does
not know (stored unchecked, as Kafka stores it). As in Kafka, the TLS stores change only
per listener and per broker (every broker has its own certificate), so do the SASL, TLS and
listener settings of ``PER_BROKER_CONFIGS`` and every listener-prefixed setting but the
connection limits and network threads, thread counts (the pools and the log cleaner's) move
by at most a factor of two at a time, a change to the listeners passes Kafka's listener
checks (``dynamic_listeners``), and a new keystore must load before it is accepted. Values
are refused with Kafka's ConfigDef messages, all as INVALID_REQUEST (Kafka's
ConfigAdminManager answers every ConfigException so).

Who may call it: the AlterConfigs / IncrementalAlterConfigs handlers, on the broker that
received the request, before the change goes to ZooKeeper (or the metadata file).
"""
from __future__ import annotations

from typing import Mapping

from kafpy.broker.config import BROKER_CONFIGS, PARSERS, Check, ConfigDef, ConfigError, KafkaConfig
from kafpy.broker.dynamic_listeners import validate_listeners
from kafpy.broker.endpoint import LISTENER_PREFIX
from kafpy.broker.security.ssl_reconfig import RECONFIGURABLE_SSL_CONFIGS
from kafpy.broker.stored_dynamic_configs import CLUSTER_LEVEL_LISTENER_CONFIGS, NOT_IN_KAFKA_44, PER_BROKER_CONFIGS

__all__ = ["listener_key", "listener_base", "config_def", "check_value", "validate_broker_update", "to_persistent",
           "THREAD_POOL_CONFIGS"]

# Kafka's DynamicThreadPool and the socket server's num.network.threads. Only the replica
# fetchers are a pool in kafpy (asyncio serves requests); the others are accepted, checked
# and reported as Kafka does, and change nothing.
THREAD_POOL_CONFIGS = ("num.io.threads", "num.network.threads", "num.replica.fetchers",
                       "num.recovery.threads.per.data.dir", "background.threads")


# what a listener-prefixed SASL setting may carry its mechanism before
# (listener.name.<l>.plain.sasl.jaas.config: Kafka's LISTENER_MECHANISM_CONFIGS)
_MECHANISM_CONFIGS = ("connections.max.reauth.ms", "sasl.jaas.config", "sasl.login.callback.handler.class",
                      "sasl.login.class", "sasl.server.callback.handler.class")
# Kafka's type names in "Not a number of type INT" (ConfigDef.parseType)
_TYPE_NAMES = {"int": "INT", "long": "LONG", "short": "SHORT", "double": "DOUBLE"}


def listener_base(name: str) -> tuple[str, str] | None:
    """(listener, setting) of any ``listener.name.<listener>.<setting>`` (Kafka's
    LISTENER_CONFIG_REGEX), else None."""
    if not name.startswith(LISTENER_PREFIX):
        return None
    listener, dot, key = name[len(LISTENER_PREFIX):].partition(".")
    return (listener, key) if dot else None


def listener_key(name: str) -> tuple[str, str] | None:
    """(listener, setting) of a listener-prefixed TLS store setting, else None."""
    prefixed = listener_base(name)
    if prefixed and prefixed[0] and prefixed[1] in RECONFIGURABLE_SSL_CONFIGS:
        return prefixed
    return None


def config_def(name: str) -> ConfigDef | None:
    """The definition a broker config name is typed and checked by (a listener-prefixed
    one by its setting's, ``plain.sasl.jaas.config`` as sasl.jaas.config), or None for a
    name Kafka does not know."""
    prefixed = listener_base(name)
    if prefixed is None:
        return BROKER_CONFIGS.get(name)
    key = prefixed[1]
    if key in BROKER_CONFIGS:
        return BROKER_CONFIGS[key]
    mechanism = next((m for m in _MECHANISM_CONFIGS if key.endswith("." + m)), None)
    return BROKER_CONFIGS.get(mechanism) if mechanism else None


def check_value(name: str, raw: str) -> None:
    """Raises ConfigError with Kafka's message (ConfigDef.parse: "Invalid value abc for
    configuration max.connections: Not a number of type INT") when ``raw`` is not a value
    of ``name``'s type and range; a listener-prefixed name is checked as its setting, a
    mechanism-prefixed or unknown one not at all (as DynamicConfig.Broker.validate)."""
    prefixed = listener_base(name)
    key = prefixed[1] if prefixed else name
    d = BROKER_CONFIGS.get(key)
    if d is None or key in NOT_IN_KAFKA_44:
        return
    value = raw.strip()
    try:
        parsed = PARSERS[d.type](value)
    except ValueError:
        reason = ("Expected value to be either true or false" if d.type == "boolean"
                  else f"Not a number of type {_TYPE_NAMES.get(d.type, d.type.upper())}")
        raise ConfigError(f"Invalid value {value} for configuration {d.name}: {reason}") from None
    if d.check is not None and not d.check(parsed):
        if isinstance(parsed, list):   # a list: Kafka's ValidList names the item at fault
            value = next((item for item in parsed if not d.check([item])), value)
        why = d.check.why(parsed) if isinstance(d.check, Check) else None
        raise ConfigError(f"Invalid value {value} for configuration {d.name}" + (f": {why}" if why else ""))


def java_set_order(names: list[str]) -> list[str]:
    """``names`` in the order a Java HashSet of them iterates (String.hashCode, spread, in
    power-of-two buckets), as Kafka's messages list a set of config names."""
    capacity = 16
    while len(names) > capacity * 0.75:
        capacity *= 2

    def bucket(name: str) -> int:
        h = 0
        for ch in name:
            h = (31 * h + ord(ch)) & 0xFFFFFFFF
        return (h ^ (h >> 16)) & (capacity - 1)
    return sorted(names, key=bucket)   # stable: one bucket's names in insertion order


def per_broker_names(names: list[str]) -> list[str]:
    """Of ``names``, those Kafka 4.4 takes only for one broker: PER_BROKER_CONFIGS and
    every listener-prefixed one but the three it keeps at the cluster level."""
    return sorted(k for k in names if k in PER_BROKER_CONFIGS
                  or ((p := listener_base(k)) is not None and p[1] not in CLUSTER_LEVEL_LISTENER_CONFIGS))


def validate_broker_update(cfg: KafkaConfig, new: Mapping[str, str], per_broker: bool) -> None:
    """Raises ConfigError (the handler answers INVALID_REQUEST) when Kafka would refuse
    ``new``, the broker's (``per_broker``) or the cluster default's dynamic configs after
    the change, in the order of Kafka's checks (DynamicBrokerConfig.validateConfigs, then
    the reconfigurables')."""
    static = sorted(k for k in new if k in BROKER_CONFIGS and not BROKER_CONFIGS[k].dynamic
                    and k not in NOT_IN_KAFKA_44)
    if static:
        raise ConfigError(f"Cannot update these configs dynamically: [{', '.join(java_set_order(static))}]")
    unprefixed = sorted(k for k in new if k in RECONFIGURABLE_SSL_CONFIGS)
    if unprefixed:
        raise ConfigError("These security configs can be dynamically updated only per-listener using the "
                          f"listener prefix: [{', '.join(java_set_order(unprefixed))}]")
    for key, raw in new.items():
        check_value(key, raw)
    stores = sorted(k for k in new if listener_key(k))
    own = per_broker_names(list(new))
    if own and not per_broker:
        raise ConfigError("Cannot update these configs at default cluster level, broker id must be specified: "
                          f"[{', '.join(java_set_order(own))}]")
    validate_listeners(cfg, dict(new), per_broker)
    for key in THREAD_POOL_CONFIGS:
        if key in new and int(new[key]) != cfg[key]:
            _check_thread_count(key, new[key], cfg[key])
    if "log.cleaner.threads" in new:
        threads, current = int(new["log.cleaner.threads"]), cfg["log.cleaner.threads"]
        if threads < 1:
            raise ConfigError("Log cleaner threads should be at least 1")
        if threads < current // 2:
            raise ConfigError(f"Log cleaner threads cannot be reduced to less than half the current value {current}")
        if threads > current * 2:
            raise ConfigError(f"Log cleaner threads cannot be increased to more than double the current value "
                              f"{current}")
    _validate_stores(cfg, new, stores)


def _check_thread_count(key: str, raw: str, current: int) -> None:
    """Kafka's DynamicThreadPool rule: a pool grows or shrinks by at most a factor of two."""
    n = int(raw)
    msg = f"Dynamic thread count update validation failed for {key}={raw}"
    if n <= 0:
        raise ConfigError(f"{msg}, value should be at least 1")
    if n < current // 2:
        raise ConfigError(f"{msg}, value should be at least half the current value {current}")
    if n > current * 2:
        raise ConfigError(f"{msg}, value should not be greater than double the current value {current}")


def _validate_stores(cfg: KafkaConfig, new: Mapping[str, str], stores: list[str]) -> None:
    """Each listener whose stores change must be a TLS listener of this broker whose new
    keystore (and truststore) load."""
    from kafpy.broker.security.ssl_factory import server_context
    names = {li.name.lower(): li.name for li in cfg.listeners}
    for listener in sorted({listener_key(k)[0] for k in stores}):   # type: ignore[index]
        name = names.get(listener)
        if name is None or cfg.security_protocol(name) not in ("SSL", "SASL_SSL"):
            continue   # no TLS on it to reconfigure: Kafka stores the settings unchecked

        def get(key: str, listener: str = listener, name: str = name) -> object:   # the settings after the change
            prefixed = f"{LISTENER_PREFIX}{listener}.{key}"
            if prefixed in new:
                return KafkaConfig._parse(BROKER_CONFIGS[key], new[prefixed])
            if key in RECONFIGURABLE_SSL_CONFIGS and prefixed in cfg.originals:
                return KafkaConfig._parse(BROKER_CONFIGS[key], cfg.originals[prefixed])
            if key in RECONFIGURABLE_SSL_CONFIGS:
                return cfg.values.get(key)
            return cfg.listener_config(name, key)
        try:
            server_context(get, name)
        except ConfigError as e:
            raise ConfigError(f"Validation of dynamic config update of SSLFactory failed: {e}") from None


def to_persistent(cfg: KafkaConfig, new: Mapping[str, str], per_broker: bool, encrypt: bool) -> dict[str, str]:
    """What is stored for ``new``: password configs only per broker and, in ZooKeeper
    (``encrypt``), encrypted with password.encoder.secret, as Kafka's ZooKeeper mode keeps
    them (Kafka's toPersistentProps; raises ConfigError with its messages)."""
    from kafpy.broker import password_encoder
    out = dict(new)
    for key, value in new.items():
        d = config_def(key)
        if d is None or d.type != "password":
            continue
        if not per_broker:
            raise ConfigError("Password config can be defined only at broker level")
        if encrypt:
            secret = cfg.values["password.encoder.secret"]
            if not secret:
                raise ConfigError("Password encoder secret not configured")
            out[key] = password_encoder.encode(value, secret, cfg.values["password.encoder.iterations"],
                                               cfg.values["password.encoder.key.length"])
    return out
