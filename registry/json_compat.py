"""JSON Schema compatibility as Confluent's registry decides it: its ``json.diff`` rules.

Who may call: ``schema_types`` (``incompatibilities(reader, writer, named)``). The writer
(the schema data was written with) is Confluent's ``original``, the reader its ``update``:
both are read into typed schemas (``json_model``, as everit reads them) and walked side by
side; every change found is a ``Difference`` of one of Confluent's types at a JSON path, and
the pair is compatible when every difference is one of ``COMPATIBLE`` (Confluent's strict
set). The rules, per kind:

- a different kind is TYPE_CHANGED, unless the writer is ``false`` or the reader empty/true;
  a writer's one-branch ``oneOf``/``anyOf``/``allOf`` is compared as its branch, a reader's
  ``anyOf``/``oneOf`` accepts the writer when one branch does (SUM_TYPE_EXTENDED), a writer's
  ``allOf`` when one branch is accepted by the reader (PRODUCT_TYPE_NARROWED);
- combined against combined: the criterion may only widen (to ``anyOf``, between singletons,
  singleton to ``oneOf``, ``allOf`` to a singleton); branches are paired by a maximum
  matching of compatible pairs, and fewer pairs than the smaller side is
  COMBINED_TYPE_SUBSCHEMAS_CHANGED; more branches widen a sum and narrow a product;
- numbers and strings: bounds may only loosen (a bound added or tightened is incompatible,
  removed or loosened compatible), ``multipleOf`` may only divide the writer's, integer may
  widen to number; a ``pattern`` added or changed is incompatible, removed compatible;
- ``enum`` may only gain values, ``const`` may not change, ``not`` may only narrow what it
  excludes;
- objects: a property added to an open content model must be optional and typed ``{}``
  (any other is OPTIONAL/REQUIRED_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL), a property removed
  from a closed one must have been ``false``; partially open models (``additionalProperties``
  schema, ``patternProperties``, ``unevaluatedProperties``) compare the property against the
  schema that covers it; a property may become optional, or required only with a default;
  ``additionalProperties``/``unevaluatedProperties`` may only open, dependencies may only
  shrink;
- arrays: ``items`` compared as schemas; tuple items (``items`` list, ``prefixItems``) compared
  position by position, extra positions against the other side's content model as for
  properties; ``additionalItems`` may only open; ``uniqueItems`` may only be dropped;
- ``$ref`` is followed (``$defs``, ``definitions``, the registry's references); a pair met
  again inside itself (a recursive schema) is taken as compatible, as Confluent's memo does.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from kafpy.protocol.json_value import JsonValue
from kafpy.registry.json_model import Loader, Schema

if TYPE_CHECKING:
    from decimal import Decimal

resolve = Loader.resolve

COMPATIBLE = frozenset("""
ID_CHANGED DESCRIPTION_CHANGED TITLE_CHANGED DEFAULT_CHANGED SCHEMA_REMOVED TYPE_EXTENDED
MAX_LENGTH_INCREASED MAX_LENGTH_REMOVED MIN_LENGTH_DECREASED MIN_LENGTH_REMOVED PATTERN_REMOVED
MAXIMUM_INCREASED MAXIMUM_REMOVED MINIMUM_DECREASED MINIMUM_REMOVED EXCLUSIVE_MAXIMUM_INCREASED
EXCLUSIVE_MAXIMUM_REMOVED EXCLUSIVE_MINIMUM_DECREASED EXCLUSIVE_MINIMUM_REMOVED MULTIPLE_OF_REDUCED
MULTIPLE_OF_REMOVED REQUIRED_ATTRIBUTE_WITH_DEFAULT_ADDED REQUIRED_ATTRIBUTE_REMOVED DEPENDENCY_ARRAY_NARROWED
DEPENDENCY_ARRAY_REMOVED DEPENDENCY_SCHEMA_REMOVED MAX_PROPERTIES_INCREASED MAX_PROPERTIES_REMOVED
MIN_PROPERTIES_DECREASED MIN_PROPERTIES_REMOVED ADDITIONAL_PROPERTIES_ADDED ADDITIONAL_PROPERTIES_EXTENDED
UNEVALUATED_PROPERTIES_ADDED UNEVALUATED_PROPERTIES_EXTENDED PROPERTY_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL
REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_UNOPEN_CONTENT_MODEL OPTIONAL_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL
PROPERTY_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL PROPERTY_REMOVED_FROM_OPEN_CONTENT_MODEL
PROPERTY_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL PROPERTY_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL
MAX_ITEMS_INCREASED MAX_ITEMS_REMOVED MIN_ITEMS_DECREASED MIN_ITEMS_REMOVED MAX_CONTAINS_INCREASED
MAX_CONTAINS_REMOVED MIN_CONTAINS_DECREASED MIN_CONTAINS_REMOVED UNIQUE_ITEMS_REMOVED ADDITIONAL_ITEMS_ADDED
ADDITIONAL_ITEMS_EXTENDED UNEVALUATED_ITEMS_ADDED UNEVALUATED_ITEMS_EXTENDED
ITEM_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL ITEM_ADDED_TO_CLOSED_CONTENT_MODEL
ITEM_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL ITEM_REMOVED_FROM_OPEN_CONTENT_MODEL
ITEM_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL ITEM_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL
ENUM_ARRAY_EXTENDED COMBINED_TYPE_EXTENDED PRODUCT_TYPE_NARROWED SUM_TYPE_EXTENDED NOT_TYPE_NARROWED
""".split())


@dataclass(frozen=True)
class Difference:
    """One change of Confluent's ``Difference.Type`` at a JSON path ("#/properties/a")."""
    type: str
    path: str

    def __str__(self) -> str:
        return f'{{errorType:"{self.type}", description:"at path \'{self.path}\'"}}'


class Context:
    """Keeps the differences found under one comparison and the path walked to them."""

    def __init__(self, path: tuple[str, ...] = ()) -> None:
        self.path = path
        self.differences: list[Difference] = []

    def sub(self) -> "Context":
        return Context(self.path)

    def add(self, kind: str, attribute: str | None = None) -> None:
        parts = self.path + ((attribute,) if attribute else ())
        self.differences.append(Difference(kind, "#/" + "/".join(parts) if parts else "#"))

    def extend(self, other: "Context") -> None:
        self.differences += other.differences

    def compatible(self) -> bool:
        return all(d.type in COMPATIBLE for d in self.differences)

    def at(self, *parts: str) -> "Scope":
        return Scope(self, parts)


class Scope:
    """``with ctx.at("properties", name):`` walks into a path and back out."""

    def __init__(self, ctx: Context, parts: tuple[str, ...]) -> None:
        self.ctx, self.parts, self.saved = ctx, parts, ctx.path

    def __enter__(self) -> Context:
        self.ctx.path = self.saved + self.parts
        return self.ctx

    def __exit__(self, *exc: object) -> None:
        self.ctx.path = self.saved


class SchemaDiff:
    """One comparison (a writer against a reader); keeps the pairs being compared and
    those compared, so that a recursive pair met again is not walked forever."""

    def __init__(self) -> None:
        self._active: set[tuple[int, int]] = set()
        self._done: dict[tuple[int, int], list[Difference]] = {}

    def compare(self, ctx: Context, original: Schema | None, update: Schema | None) -> None:
        if original is None and update is None:
            return
        if original is None:
            ctx.add("SCHEMA_ADDED")
            return
        if update is None:
            ctx.add("SCHEMA_REMOVED")
            return
        original, update = resolve(original), resolve(update)
        key = (id(original), id(update))
        if key in self._active:
            return   # a recursive pair: compatible unless shown otherwise elsewhere
        done = self._done.get(key)
        if done is None:
            self._active.add(key)
            try:
                inner = Context()
                self._types(inner, original, update)
            finally:
                self._active.discard(key)
            done = self._done[key] = inner.differences
        prefix = "/".join(ctx.path)
        for d in done:
            rest = d.path[1:].lstrip("/")
            path = "/".join(p for p in (prefix, rest) if p)
            ctx.differences.append(Difference(d.type, "#/" + path if path else "#"))

    def _types(self, ctx: Context, original: Schema, update: Schema) -> None:
        if original.kind != "combined" and update.kind == "combined":
            subs = update.attrs["subschemas"]
            if len(subs) == 1:
                if self._try(ctx, original, subs[0]):
                    return
            elif update.attrs["criterion"] in ("anyOf", "oneOf"):
                for sub in subs:
                    if self._try(ctx, original, sub, "SUM_TYPE_EXTENDED"):
                        return
        elif original.kind == "combined" and update.kind != "combined":
            subs = original.attrs["subschemas"]
            if len(subs) == 1:
                if self._try(ctx, subs[0], update):
                    return
            elif original.attrs["criterion"] == "allOf":
                for sub in subs:
                    if self._try(ctx, sub, update, "PRODUCT_TYPE_NARROWED"):
                        return
        if original.kind != update.kind:
            if original.kind == "false" or update.kind in ("empty", "true"):
                return
            if original.connect_type == "bytes" and update.connect_type == "bytes":
                return   # Confluent lets Connect's bytes types (decimals) change representation
            ctx.add("TYPE_CHANGED")
            return
        for attr, change in (("id", "ID_CHANGED"), ("title", "TITLE_CHANGED"),
                             ("description", "DESCRIPTION_CHANGED"), ("default", "DEFAULT_CHANGED")):
            if getattr(original, attr) != getattr(update, attr):
                ctx.add(change)
        compare = KINDS.get(original.kind)
        if compare is not None:
            compare(self, ctx, original, update)

    def _try(self, ctx: Context, original: Schema, update: Schema, also: str | None = None) -> bool:
        sub = ctx.sub()
        self.compare(sub, original, update)
        if not sub.compatible():
            return False
        ctx.extend(sub)
        if also:
            ctx.add(also)
        return True


# ---------------------------------------------------------------- bounds
def _bound(ctx: Context, name: str, old: int | float | None, new: int | float | None, prefix: str) -> None:
    """``prefix``_ADDED / _REMOVED / _INCREASED / _DECREASED for one numeric keyword."""
    if old == new:
        return
    if old is None:
        ctx.add(f"{prefix}_ADDED", name)
    elif new is None:
        ctx.add(f"{prefix}_REMOVED", name)
    elif old < new:
        ctx.add(f"{prefix}_INCREASED", name)
    elif old > new:
        ctx.add(f"{prefix}_DECREASED", name)


def _string(diff: SchemaDiff, ctx: Context, original: Schema, update: Schema) -> None:
    _bound(ctx, "maxLength", original.get("maxLength"), update.get("maxLength"), "MAX_LENGTH")
    _bound(ctx, "minLength", original.get("minLength"), update.get("minLength"), "MIN_LENGTH")
    old, new = original.get("pattern"), update.get("pattern")
    if old is None and new is not None:
        ctx.add("PATTERN_ADDED", "pattern")
    elif old is not None and new is None:
        ctx.add("PATTERN_REMOVED", "pattern")
    elif old != new:
        ctx.add("PATTERN_CHANGED", "pattern")


def _number(diff: SchemaDiff, ctx: Context, original: Schema, update: Schema) -> None:
    _bound(ctx, "maximum", original.get("maximum"), update.get("maximum"), "MAXIMUM")
    _bound(ctx, "minimum", original.get("minimum"), update.get("minimum"), "MINIMUM")
    _bound(ctx, "exclusiveMaximum", original.get("exclusiveMaximum"), update.get("exclusiveMaximum"),
           "EXCLUSIVE_MAXIMUM")
    _bound(ctx, "exclusiveMinimum", original.get("exclusiveMinimum"), update.get("exclusiveMinimum"),
           "EXCLUSIVE_MINIMUM")
    old, new = _decimal(original.get("multipleOf")), _decimal(update.get("multipleOf"))
    if old != new:
        if old is None:
            ctx.add("MULTIPLE_OF_ADDED", "multipleOf")
        elif new is None:
            ctx.add("MULTIPLE_OF_REMOVED", "multipleOf")
        elif old != 0 and new % old == 0:
            ctx.add("MULTIPLE_OF_EXPANDED", "multipleOf")
        elif new != 0 and old % new == 0:
            ctx.add("MULTIPLE_OF_REDUCED", "multipleOf")
        else:
            ctx.add("MULTIPLE_OF_CHANGED", "multipleOf")
    if original.get("integer") != update.get("integer"):
        ctx.add("TYPE_EXTENDED" if original.get("integer") else "TYPE_NARROWED")


def _decimal(value: int | float | None) -> Decimal | None:
    from decimal import Decimal
    return None if value is None else Decimal(str(value))


def _enum(diff: SchemaDiff, ctx: Context, original: Schema, update: Schema) -> None:
    old, new = set(original.get("values")), set(update.get("values"))
    if old != new:
        ctx.add("ENUM_ARRAY_EXTENDED" if new >= old else "ENUM_ARRAY_NARROWED" if new <= old
                else "ENUM_ARRAY_CHANGED", "enum")


def _const(diff: SchemaDiff, ctx: Context, original: Schema, update: Schema) -> None:
    if original.get("value") != update.get("value"):
        ctx.add("ENUM_ARRAY_CHANGED", "const")


def _not(diff: SchemaDiff, ctx: Context, original: Schema, update: Schema) -> None:
    """What the reader excludes must be excluded by the writer: compared the other way."""
    with ctx.at("not"):
        sub = ctx.sub()
        diff.compare(sub, update.get("schema"), original.get("schema"))
        ctx.add("NOT_TYPE_NARROWED" if sub.compatible() else "NOT_TYPE_EXTENDED")


def _combined(diff: SchemaDiff, ctx: Context, original: Schema, update: Schema) -> None:
    old_c, new_c = original.get("criterion"), update.get("criterion")
    olds, news = _distinct(original.get("subschemas")), _distinct(update.get("subschemas"))
    if old_c != new_c:
        single_old, single_new = len(original.get("subschemas")) == 1, len(update.get("subschemas")) == 1
        if (new_c == "anyOf" or (single_old and single_new) or (single_old and new_c == "oneOf")
                or (single_new and old_c == "allOf")):
            ctx.add("COMBINED_TYPE_EXTENDED")
        else:
            ctx.add("COMBINED_TYPE_CHANGED")
            return
    if len(olds) < len(news):
        ctx.add("PRODUCT_TYPE_EXTENDED" if new_c == "allOf" else "SUM_TYPE_EXTENDED")
    elif len(olds) > len(news):
        ctx.add("SUM_TYPE_NARROWED" if old_c in ("anyOf", "oneOf") else "PRODUCT_TYPE_NARROWED")
    edges: dict[int, dict[int, list[Difference]]] = {}
    for i, old in enumerate(olds):
        with ctx.at(f"{old_c}/{i}"):
            for j, new in enumerate(news):
                sub = ctx.sub()
                diff.compare(sub, old, new)
                if sub.compatible():
                    edges.setdefault(i, {})[j] = sub.differences
    matching = _maximum_matching(edges)
    for i, j in sorted(matching.items()):
        ctx.differences += edges[i][j]
    if len(matching) < min(len(olds), len(news)):
        ctx.add("COMBINED_TYPE_SUBSCHEMAS_CHANGED")


def _distinct(schemas: list[Schema]) -> list[Schema]:
    """Branches without repeats (Confluent keeps them in a set of schemas)."""
    from kafpy.registry.json_model import canonical
    seen: dict[str, Schema] = {}
    for s in schemas:
        seen.setdefault(canonical(_fingerprint(s, 0)), s)
    return list(seen.values())


def _fingerprint(s: Schema, depth: int) -> object:
    if depth > 8:
        return s.kind
    def fp(v: object) -> object:
        if isinstance(v, Schema):
            return _fingerprint(v, depth + 1)
        if isinstance(v, dict):
            return {str(k): fp(x) for k, x in v.items() if k not in ("doc", "loader")}
        if isinstance(v, (list, tuple)):
            return [fp(x) for x in v]
        if isinstance(v, set):
            return sorted(str(x) for x in v)
        return v
    return [s.kind, fp(s.attrs), s.title, s.description, s.id, s.default]


def _maximum_matching(edges: dict[int, dict[int, list[Difference]]]) -> dict[int, int]:
    """A maximum bipartite matching (augmenting paths): left index -> right index."""
    right_of: dict[int, int] = {}

    def augment(i: int, seen: set[int]) -> bool:
        for j in edges.get(i, {}):
            if j in seen:
                continue
            seen.add(j)
            if j not in right_of or augment(right_of[j], seen):
                right_of[j] = i
                return True
        return False
    for i in edges:
        augment(i, set())
    return {i: j for j, i in right_of.items()}


# ---------------------------------------------------------------- objects
def _open(schema: Schema, extra_key: str = "pattern_properties") -> bool:
    if not schema.get("permits_additional") or schema.get("additional") is not None:
        return False
    if schema.get(extra_key):
        return False
    uneval = schema.get("unevaluated")
    return uneval is None or uneval.kind in ("empty", "true")


def _partial(schema: Schema, name: str | None = None) -> Schema | None:
    """The schema a partially open content model gives an undeclared property or item."""
    import re
    for pattern, sub in schema.get("pattern_properties") or []:
        if name is not None and re.search(pattern, name):
            return sub
    if schema.get("additional") is not None:
        return schema.get("additional")
    if schema.get("permits_additional"):
        uneval = schema.get("unevaluated")
        if uneval is not None and uneval.kind not in ("false", "empty", "true"):
            return uneval
    return None


def _covered(diff: SchemaDiff, ctx: Context, old: Schema, new: Schema, what: str, verb: str) -> None:
    sub = ctx.sub()
    diff.compare(sub, old, new)
    ctx.extend(sub)
    ctx.add(f"{what}_{verb}_{'IS' if sub.compatible() else 'NOT'}_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL")


def _object(diff: SchemaDiff, ctx: Context, original: Schema, update: Schema) -> None:
    old_props, new_props = original.get("properties"), update.get("properties")
    old_req, new_req = original.get("required"), update.get("required")
    for name in old_props:
        if name in new_props:
            with ctx.at("required", name):
                if name in old_req and name not in new_req:
                    ctx.add("REQUIRED_ATTRIBUTE_REMOVED")
                elif name not in old_req and name in new_req:
                    ctx.add("REQUIRED_ATTRIBUTE_WITH_DEFAULT_ADDED" if new_props[name].has_default
                            else "REQUIRED_ATTRIBUTE_ADDED")
    for name in sorted(set(old_props) | set(new_props)):
        with ctx.at("properties", name):
            old, new = old_props.get(name), new_props.get(name)
            if new is None:
                partial = _partial(update, name)
                if _open(update):
                    ctx.add("PROPERTY_REMOVED_FROM_OPEN_CONTENT_MODEL")
                elif partial is not None:
                    _covered(diff, ctx, old, partial, "PROPERTY", "REMOVED")
                else:
                    ctx.add("PROPERTY_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL"
                            if resolve(old).kind == "false" else "PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL")
            elif old is None:
                if _open(original):
                    if resolve(new).kind in ("empty", "true"):
                        ctx.add("PROPERTY_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL")
                    elif name in new_req:
                        ctx.add("REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_OPEN_CONTENT_MODEL" if new.has_default
                                else "REQUIRED_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL")
                    else:
                        ctx.add("OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL")
                else:
                    partial = _partial(original, name)
                    if partial is not None:
                        _covered(diff, ctx, partial, new, "PROPERTY", "ADDED")
                    if name in new_req:
                        ctx.add("REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_UNOPEN_CONTENT_MODEL" if new.has_default
                                else "REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL")
                    else:
                        ctx.add("OPTIONAL_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL")
            else:
                diff.compare(ctx, old, new)
    _dependencies(diff, ctx, original, update)
    with ctx.at("additionalProperties"):
        _additional(diff, ctx, original, update, "ADDITIONAL_PROPERTIES")
    _unevaluated(diff, ctx, original, update, "unevaluatedProperties", "UNEVALUATED_PROPERTIES")
    _bound(ctx, "maxProperties", original.get("max_properties"), update.get("max_properties"), "MAX_PROPERTIES")
    _bound(ctx, "minProperties", original.get("min_properties"), update.get("min_properties"), "MIN_PROPERTIES")


def _dependencies(diff: SchemaDiff, ctx: Context, original: Schema, update: Schema) -> None:
    old_deps, new_deps = original.get("property_dependencies"), update.get("property_dependencies")
    for key in sorted(set(old_deps) | set(new_deps)):
        with ctx.at("dependencies", key):
            old, new = old_deps.get(key), new_deps.get(key)
            if new is None:
                ctx.add("DEPENDENCY_ARRAY_REMOVED")
            elif old is None:
                ctx.add("DEPENDENCY_ARRAY_ADDED")
            elif old != new:
                ctx.add("DEPENDENCY_ARRAY_EXTENDED" if new >= old else "DEPENDENCY_ARRAY_NARROWED" if new <= old
                        else "DEPENDENCY_ARRAY_CHANGED")
    old_s, new_s = original.get("schema_dependencies"), update.get("schema_dependencies")
    for key in sorted(set(old_s) | set(new_s)):
        with ctx.at("dependencies", key):
            if key not in new_s:
                ctx.add("DEPENDENCY_SCHEMA_REMOVED")
            elif key not in old_s:
                ctx.add("DEPENDENCY_SCHEMA_ADDED")
            else:
                diff.compare(ctx, old_s[key], new_s[key])


def _additional(diff: SchemaDiff, ctx: Context, original: Schema, update: Schema, prefix: str) -> None:
    """``additionalProperties`` / ``additionalItems``: permitted or not, then their schemas."""
    if original.get("permits_additional") != update.get("permits_additional"):
        ctx.add(f"{prefix}_ADDED" if update.get("permits_additional") else f"{prefix}_REMOVED")
    elif original.get("additional") is None and update.get("additional") is not None:
        ctx.add(f"{prefix}_NARROWED")
    elif update.get("additional") is None and original.get("additional") is not None:
        ctx.add(f"{prefix}_EXTENDED")
    else:
        diff.compare(ctx, original.get("additional"), update.get("additional"))


def _unevaluated(diff: SchemaDiff, ctx: Context, original: Schema, update: Schema, key: str, prefix: str) -> None:
    old, new = original.get("unevaluated"), update.get("unevaluated")
    if old is None and new is None:
        return
    kind = lambda s: resolve(s).kind   # noqa: E731
    empty = ("empty", "true")
    with ctx.at(key):
        if old is None:
            ctx.add(f"{prefix}_REMOVED" if kind(new) == "false" else f"{prefix}_NARROWED")
        elif new is None:
            ctx.add(f"{prefix}_ADDED" if kind(old) == "false" else f"{prefix}_EXTENDED")
        elif kind(old) == "false" and kind(new) != "false":
            ctx.add(f"{prefix}_ADDED")
        elif kind(old) != "false" and kind(new) == "false":
            ctx.add(f"{prefix}_REMOVED")
        elif kind(old) in empty and kind(new) not in empty:
            ctx.add(f"{prefix}_NARROWED")
        elif kind(old) not in empty and kind(new) in empty:
            ctx.add(f"{prefix}_EXTENDED")
        else:
            diff.compare(ctx, old, new)


# ---------------------------------------------------------------- arrays
def _array(diff: SchemaDiff, ctx: Context, original: Schema, update: Schema) -> None:
    with ctx.at("items"):
        diff.compare(ctx, original.get("all_items"), update.get("all_items"))
    _tuple_items(diff, ctx, original, update)
    with ctx.at("additionalItems"):
        _additional(diff, ctx, original, update, "ADDITIONAL_ITEMS")
    _unevaluated(diff, ctx, original, update, "unevaluatedItems", "UNEVALUATED_ITEMS")
    _bound(ctx, "maxItems", original.get("max_items"), update.get("max_items"), "MAX_ITEMS")
    _bound(ctx, "minItems", original.get("min_items"), update.get("min_items"), "MIN_ITEMS")
    if original.get("unique") != update.get("unique"):
        ctx.add("UNIQUE_ITEMS_REMOVED" if original.get("unique") else "UNIQUE_ITEMS_ADDED", "uniqueItems")
    _bound(ctx, "maxContains", original.get("max_contains"), update.get("max_contains"), "MAX_CONTAINS")
    _bound(ctx, "minContains", original.get("min_contains"), update.get("min_contains"), "MIN_CONTAINS")


def _tuple_items(diff: SchemaDiff, ctx: Context, original: Schema, update: Schema) -> None:
    olds, news = original.get("item_schemas") or [], update.get("item_schemas") or []
    for index in range(max(len(olds), len(news))):
        with ctx.at(f"items/{index}"):
            if index < len(olds) and index < len(news):
                diff.compare(ctx, olds[index], news[index])
            elif index < len(olds):
                partial = _partial(update)
                if _open(update):
                    ctx.add("ITEM_REMOVED_FROM_OPEN_CONTENT_MODEL")
                elif partial is not None:
                    _covered(diff, ctx, olds[index], partial, "ITEM", "REMOVED")
                else:
                    ctx.add("ITEM_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL"
                            if resolve(olds[index]).kind == "false" else "ITEM_REMOVED_FROM_CLOSED_CONTENT_MODEL")
            else:
                partial = _partial(original)
                if _open(original):
                    ctx.add("ITEM_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL"
                            if resolve(news[index]).kind in ("empty", "true")
                            else "ITEM_ADDED_TO_OPEN_CONTENT_MODEL")
                elif partial is not None:
                    _covered(diff, ctx, partial, news[index], "ITEM", "ADDED")
                else:
                    ctx.add("ITEM_ADDED_TO_CLOSED_CONTENT_MODEL")


KINDS: dict[str, Callable[[SchemaDiff, Context, Schema, Schema], None]] = {
    "string": _string, "number": _number, "enum": _enum, "const": _const, "not": _not,
    "combined": _combined, "object": _object, "array": _array,
}


def differences(reader: JsonValue, writer: JsonValue, reader_named: dict[str, JsonValue] | None = None,
                writer_named: dict[str, JsonValue] | None = None) -> list[Difference]:
    """Every difference from ``writer`` (Confluent's original) to ``reader`` (its update);
    each side's ``$ref`` to a reference resolves among that side's referenced documents."""
    diff = SchemaDiff()
    ctx = Context()
    diff.compare(ctx, Loader(writer_named).load(writer, writer), Loader(reader_named).load(reader, reader))
    return ctx.differences


def incompatibilities(reader: JsonValue, writer: JsonValue, reader_named: dict[str, JsonValue] | None = None,
                      writer_named: dict[str, JsonValue] | None = None) -> list[str]:
    """Why documents valid under ``writer`` may be invalid under ``reader`` (empty if none):
    the differences outside Confluent's compatible set, as its messages name them."""
    try:
        found = differences(reader, writer, reader_named, writer_named)
    except (ValueError, RecursionError) as e:
        return [f"Cannot compare the schemas: {e}"]
    return [str(d) for d in found if d.type not in COMPATIBLE]

