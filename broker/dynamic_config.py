"""Which broker configs may change on a running broker, and the checks a change must pass
before it is stored (Kafka's ``DynamicBrokerConfig.validate`` and its reconfigurables'
``validateReconfiguration``).

A dynamic name is either a key of ``BROKER_CONFIGS`` marked ``dynamic`` (Kafka 4.4's
dynamic configs; those kafpy does not act on are in ``stored_dynamic_configs``) or a
listener's TLS store setting, ``listener.name.<listener>.ssl.keystore.location`` and the
others of ``RECONFIGURABLE_SSL_CONFIGS``. As in Kafka, the stores change only per listener
and per broker (every broker has its own certificate), so do the SASL, TLS and listener
settings of ``PER_BROKER_CONFIGS``, thread counts (the pools and the log
cleaner's) move by at most a factor of two at a time, and a new keystore must load before it is accepted.

Who may call it: the AlterConfigs / IncrementalAlterConfigs handlers, on the broker that
received the request, before the change goes to ZooKeeper (or the metadata file).
"""
from __future__ import annotations

from typing import Mapping

from kafpy.broker.config import BROKER_CONFIGS, LISTENER_PREFIX, ConfigDef, ConfigError, KafkaConfig
from kafpy.broker.security.ssl_reconfig import RECONFIGURABLE_SSL_CONFIGS
from kafpy.broker.stored_dynamic_configs import PER_BROKER_CONFIGS

__all__ = ["listener_key", "config_def", "validate_broker_update", "to_persistent", "THREAD_POOL_CONFIGS"]

# Kafka's DynamicThreadPool and the socket server's num.network.threads. Only the replica
# fetchers are a pool in kafpy (asyncio serves requests); the others are accepted, checked
# and reported as Kafka does, and change nothing.
THREAD_POOL_CONFIGS = ("num.io.threads", "num.network.threads", "num.replica.fetchers",
                       "num.recovery.threads.per.data.dir", "background.threads")


def listener_key(name: str) -> tuple[str, str] | None:
    """(listener, setting) of a listener-prefixed TLS store setting, else None."""
    if not name.startswith(LISTENER_PREFIX):
        return None
    listener, _, key = name[len(LISTENER_PREFIX):].partition(".")
    if listener and key in RECONFIGURABLE_SSL_CONFIGS:
        return listener, key
    return None


def config_def(name: str) -> ConfigDef | None:
    """The definition a broker config name is typed and checked by (a prefixed store
    setting by its broker-wide key), or None for a name Kafka does not know."""
    prefixed = listener_key(name)
    return BROKER_CONFIGS.get(prefixed[1] if prefixed else name)


def validate_broker_update(cfg: KafkaConfig, new: Mapping[str, str], per_broker: bool) -> None:
    """Raises ConfigError (the handler answers INVALID_REQUEST) when Kafka would refuse
    ``new``, the broker's (``per_broker``) or the cluster default's dynamic configs after
    the change."""
    unprefixed = sorted(k for k in new if k in RECONFIGURABLE_SSL_CONFIGS)
    if unprefixed:
        raise ConfigError("These security configs can be dynamically updated only per-listener using the "
                          f"listener prefix: [{', '.join(unprefixed)}]")
    stores = sorted(k for k in new if listener_key(k))
    own = sorted(k for k in new if listener_key(k) or k in PER_BROKER_CONFIGS)
    if own and not per_broker:
        raise ConfigError("Cannot update these configs at default cluster level, broker id must be specified: "
                          f"[{', '.join(own)}]")
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
            raise ConfigError(f"Invalid dynamic configuration: listener {listener} is not a TLS listener of "
                              f"broker {cfg.broker_id}")

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
