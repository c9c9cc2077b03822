"""Data contracts: a schema version's ``metadata`` and ``ruleSet``, merged as Confluent's
registry merges them.

Who may call: ``service`` (registration, lookup, config) and ``rest`` (``/subjects/{s}/metadata``).
A version's metadata is ``{"tags": {path: [tag]}, "properties": {k: v}, "sensitive": [k]}``
and its rule set ``{"migrationRules": [...], "domainRules": [...], "encodingRules": [...]}``;
both are kept as sent (rules are run by clients, never by the registry). On registration the
version takes the request's metadata, or when the request has none the previous version's,
merged over the config's ``defaultMetadata`` and under its ``overrideMetadata`` (the same for
rule sets), as Confluent's ``maybeSetMetadataRuleSet`` does; the merged values are part of
the schema's identity, so a schema registered with other rules is a new version.
"""
from __future__ import annotations

from typing import TypeVar

from kafpy.protocol.json_value import JsonArray, JsonObject
from kafpy.registry.errors import RegistryErrorCode, RestError

CONFIG_FIELDS = ("normalize", "compatibilityGroup", "defaultMetadata", "overrideMetadata",
                 "defaultRuleSet", "overrideRuleSet")
RULE_LISTS = ("migrationRules", "domainRules", "encodingRules")
CONFLUENT_VERSION = "confluent:version"


def checked(value: object, what: str) -> dict | None:
    """``value`` if it is an object (or absent); else 42201, as Confluent's JSON binding refuses it."""
    if value is None or isinstance(value, dict):
        return value
    raise RestError(RegistryErrorCode.INVALID_SCHEMA, f"Invalid schema: {what} must be an object")


def _merge_maps(old: JsonObject | None, new: JsonObject | None) -> JsonObject | None:
    if not old:
        return new
    if not new:
        return old
    return {**old, **new}


def _merge_sets(old: list[str] | None, new: list[str] | None) -> list[str] | None:
    if not old:
        return new
    if not new:
        return old
    return sorted(set(old) | set(new))


def merge_metadata(old: dict | None, new: dict | None) -> dict | None:
    """Confluent's ``Metadata.mergeMetadata``: ``new``'s tags and properties over ``old``'s,
    sensitive names united."""
    if old is None:
        return new
    if new is None:
        return old
    out = {"tags": _merge_maps(old.get("tags"), new.get("tags")),
           "properties": _merge_maps(old.get("properties"), new.get("properties")),
           "sensitive": _merge_sets(old.get("sensitive"), new.get("sensitive"))}
    return {k: v for k, v in out.items() if v is not None}


def _merge_rules(old: JsonArray | None, new: JsonArray | None) -> JsonArray | None:
    if not old:
        return new
    if not new:
        return old
    names = {r.get("name") for r in new if isinstance(r, dict)}
    return [r for r in old if not (isinstance(r, dict) and r.get("name") in names)] + list(new)


def merge_rule_sets(old: dict | None, new: dict | None) -> dict | None:
    """Confluent's ``RuleSet.mergeRuleSets``: per list, ``new``'s rules replace ``old``'s of the
    same name and follow the others."""
    if old is None:
        return new
    if new is None:
        return old
    out: JsonObject = {}
    for key in RULE_LISTS:
        merged = _merge_rules(old.get(key), new.get(key))
        if merged is not None:
            out[key] = merged
    enable_at = new.get("enableAt", old.get("enableAt"))
    if enable_at is not None:
        out["enableAt"] = enable_at
    return out


def effective(config: dict, metadata: dict | None, rule_set: dict | None, previous_metadata: dict | None,
              previous_rule_set: dict | None, new_version: int) -> tuple[dict | None, dict | None]:
    """The metadata and rule set a new version is stored with (see the module docstring); a
    ``confluent:version`` property already there is set to the new version."""
    specific_md = metadata if metadata is not None else previous_metadata
    specific_rs = rule_set if rule_set is not None else previous_rule_set
    md = merge_metadata(merge_metadata(config.get("defaultMetadata"), specific_md), config.get("overrideMetadata"))
    rs = merge_rule_sets(merge_rule_sets(config.get("defaultRuleSet"), specific_rs), config.get("overrideRuleSet"))
    if md is not None and CONFLUENT_VERSION in (md.get("properties") or {}):
        md = {**md, "properties": {**md["properties"], CONFLUENT_VERSION: str(new_version)}}
    return md, rs


def has_properties(metadata: dict | None, wanted: dict[str, str]) -> bool:
    """Whether ``metadata``'s properties hold every wanted key with its value."""
    props = (metadata or {}).get("properties") or {}
    return all(props.get(k) == v for k, v in wanted.items())


def updated_config(old: dict | None, request: dict, level: str | None) -> dict:
    """Confluent's ``ConfigValue.update``: the fields the request names replace the old ones
    (a null removes one), the others stay."""
    out = dict(old or {})
    if level is not None:
        out["compatibilityLevel"] = level
    for key in CONFIG_FIELDS:
        if key in request:
            if request[key] is None:
                out.pop(key, None)
            else:
                out[key] = request[key]
    return out


T = TypeVar("T")


def same_group(config: dict, metadata: dict | None, versions: list[T]) -> list[T]:
    """The ``versions`` a new schema with ``metadata`` is checked against: with the config's
    ``compatibilityGroup`` naming a metadata property, only those whose property has the
    same value (missing on both sides counts as the same), so a subject can hold
    incompatible lineages (e.g. one per ``major``), as Confluent's registry does."""
    group = config.get("compatibilityGroup")
    if not isinstance(group, str) or not group:
        return versions
    value = ((metadata or {}).get("properties") or {}).get(group)
    return [v for v in versions if ((getattr(v, "metadata", None) or {}).get("properties") or {}).get(group) == value]
