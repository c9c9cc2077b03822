"""Client quota entities as Kafka names and stores them, and which quota applies to a
connection.

An entity is a user, a client id, or a (user, client id) pair; either part may be the
default entity ``<default>``. ZooKeeper (and the standalone metadata file) keep an
entity's configs at ``/config/users/<user>``, ``/config/clients/<client-id>`` and
``/config/users/<user>/clients/<client-id>`` with both names sanitized (URL-encoded, as
Kafka's ``Sanitizer`` does), so a name with ``/`` cannot reach another path.

Pure functions and values; nothing on disk. Who may call it: the quota managers, the
quota handlers and the admin managers that store the configs.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from urllib.parse import quote, unquote

DEFAULT = "<default>"
"""The default entity's name in paths (Kafka's ``ConfigEntityName.Default``)."""

USERS = "users"
CLIENTS = "clients"
"""Config entity types (the first path segment under ``/config``)."""

USER_TYPE = "user"
CLIENT_ID_TYPE = "client-id"
IP_TYPE = "ip"
"""Entity types of DescribeClientQuotas / AlterClientQuotas (``ClientQuotaEntity``)."""

PRODUCER_BYTE_RATE = "producer_byte_rate"
CONSUMER_BYTE_RATE = "consumer_byte_rate"
REQUEST_PERCENTAGE = "request_percentage"
CONTROLLER_MUTATION_RATE = "controller_mutation_rate"
QUOTA_KEYS: dict[str, str] = {
    PRODUCER_BYTE_RATE: "long", CONSUMER_BYTE_RATE: "long",
    REQUEST_PERCENTAGE: "double", CONTROLLER_MUTATION_RATE: "double",
}
"""The quota keys of user and client entities with their ConfigDef types (QuotaConfigs)."""


def sanitize(name: str) -> str:
    """Kafka's ``Sanitizer.sanitize``: Java's URLEncoder with ``*`` and space percent-encoded
    (only letters, digits and ``.-_`` stay as they are)."""
    return quote(name, safe="-_.").replace("~", "%7E")


def desanitize(name: str) -> str:
    return unquote(name)


@dataclass(frozen=True, slots=True)
class QuotaEntity:
    """A quota entity: ``user`` / ``client_id`` are unsanitized names, ``DEFAULT`` for the
    default entity, None when the entity has no such part."""

    user: str | None = None
    client_id: str | None = None

    def config_path(self) -> tuple[str, str]:
        """(entity type, entity name) under /config, names sanitized: ``("users",
        "alice/clients/c1")`` for a pair, as Kafka's AdminZkClient writes it."""
        if self.user is not None:
            name = _path_name(self.user)
            if self.client_id is not None:
                name += f"/{CLIENTS}/{_path_name(self.client_id)}"
            return USERS, name
        if self.client_id is not None:
            return CLIENTS, _path_name(self.client_id)
        raise ValueError("an empty quota entity has no path")

    @classmethod
    def from_config_path(cls, entity_type: str, entity_name: str) -> "QuotaEntity":
        """The entity stored at ``/config/<entity_type>/<entity_name>``; ValueError for a path
        that is not a user or client entity."""
        if entity_type == CLIENTS and "/" not in entity_name:
            return cls(None, _unpath_name(entity_name))
        if entity_type == USERS:
            user, sep, rest = entity_name.partition("/")
            if not sep:
                return cls(_unpath_name(user), None)
            kind, _, client = rest.partition("/")
            if kind == CLIENTS and client and "/" not in client:
                return cls(_unpath_name(user), _unpath_name(client))
        raise ValueError(f"not a client quota entity: {entity_type}/{entity_name}")

    def components(self) -> list[tuple[str, str | None]]:
        """(entity type, name or None for the default) as the quota APIs carry them."""
        out: list[tuple[str, str | None]] = []
        if self.user is not None:
            out.append((USER_TYPE, None if self.user == DEFAULT else self.user))
        if self.client_id is not None:
            out.append((CLIENT_ID_TYPE, None if self.client_id == DEFAULT else self.client_id))
        return out


def _path_name(name: str) -> str:
    return DEFAULT if name == DEFAULT else sanitize(name)


def _unpath_name(name: str) -> str:
    return DEFAULT if name == DEFAULT else desanitize(name)


def quota_values(configs: dict[str, str]) -> dict[str, float]:
    """The quota keys of an entity's configs as numbers (other keys, such as SCRAM
    credentials stored in the same user entity, are left out; unparsable values too)."""
    out = {}
    for key in QUOTA_KEYS:
        text = configs.get(key)
        if text is None:
            continue
        try:
            value = float(text)
        except ValueError:
            continue
        if math.isfinite(value):
            out[key] = value
    return out


def format_quota_value(key: str, value: float) -> str:
    """How Kafka writes a quota value into the entity config: an integer for the long keys
    (ValueError when the value is not one), the double's text otherwise."""
    if QUOTA_KEYS[key] == "long":
        as_int = int(value + 1e-6) if value >= 0 else int(value - 1e-6)
        if abs(as_int - value) > 1e-6:
            raise ValueError(f"Configuration {key} must be a Long value")
        return str(as_int)
    return repr(float(value))


# Which levels have quotas configured (Kafka's QuotaTypes), to pick the metric tags.
CLIENT_ID_LEVEL = 1
USER_LEVEL = 2
USER_CLIENT_ID_LEVEL = 4


def entity_level(entity: QuotaEntity) -> int:
    if entity.user is not None:
        return USER_CLIENT_ID_LEVEL if entity.client_id is not None else USER_LEVEL
    return CLIENT_ID_LEVEL


def resolve(overrides: dict[QuotaEntity, float], levels: int, user: str,
            client_id: str) -> tuple[tuple[str, str], float | None]:
    """Which usage a request counts against and its limit, as Kafka's DefaultQuotaCallback
    decides: the (user, client-id) metric tags (a part is "" when the quota is shared by
    every value of it) and the limit of the most specific entity configured, in the order
    users/<u>/clients/<c>, users/<u>/clients/<default>, users/<u>, users/<default>/clients/<c>,
    users/<default>/clients/<default>, users/<default>, clients/<c>, clients/<default>.
    None: no quota applies."""
    if levels in (0, CLIENT_ID_LEVEL):
        tags = ("", client_id)
    elif levels == USER_LEVEL:
        tags = (user, "")
    elif levels == USER_CLIENT_ID_LEVEL:
        tags = (user, client_id)
    else:
        tags = ("", client_id)
        for entity, entity_tags in (
                (QuotaEntity(user, client_id), (user, client_id)),
                (QuotaEntity(user, DEFAULT), (user, client_id)),
                (QuotaEntity(user, None), (user, "")),
                (QuotaEntity(DEFAULT, client_id), (user, client_id)),
                (QuotaEntity(DEFAULT, DEFAULT), (user, client_id)),
                (QuotaEntity(DEFAULT, None), (user, ""))):
            if entity in overrides:
                tags = entity_tags
                break
    return tags, limit_for_tags(overrides, *tags)


def limit_for_tags(overrides: dict[QuotaEntity, float], user: str, client_id: str) -> float | None:
    """Kafka's ``DefaultQuotaCallback.quotaLimit`` for metric tags (user, client-id)."""
    get = overrides.get
    if user and client_id:
        for e in (QuotaEntity(user, client_id), QuotaEntity(user, DEFAULT), QuotaEntity(DEFAULT, client_id),
                  QuotaEntity(DEFAULT, DEFAULT)):
            if e in overrides:
                return get(e)
        return None
    if user:
        for e in (QuotaEntity(user, None), QuotaEntity(DEFAULT, None)):
            if e in overrides:
                return get(e)
        return None
    if client_id:
        for e in (QuotaEntity(None, client_id), QuotaEntity(None, DEFAULT)):
            if e in overrides:
                return get(e)
    return None
