"""Avro's schema-resolution rules: can a reader schema read what a writer schema wrote?

The rules are those of the Avro specification's "Schema Resolution" section, as Avro's
``SchemaCompatibility`` applies them (and Confluent's ``AvroCompatibilityChecker`` on top):
unions are resolved branch by branch, named types match by unqualified name (Avro's
``schemaNameEquals``: a namespace change is accepted) or the reader's aliases,
numeric and string/bytes promotions are allowed, a reader field missing from the writer needs
a default, enum symbols the writer may send must be known to a reader without a default.

Schemas are taken as fastavro parses them (``fastavro.parse_schema``): names fully qualified,
a named type defined once and referred to by its name afterwards. Recursive schemas terminate
because a (reader, writer) pair under check is assumed compatible while it is being checked.
"""
from __future__ import annotations

from typing import Any

PRIMITIVES = {"null", "boolean", "int", "long", "float", "double", "bytes", "string"}
NAMED = {"record", "error", "enum", "fixed"}
# writer type -> reader types that can read it, besides itself
PROMOTIONS = {
    "int": {"long", "float", "double"},
    "long": {"float", "double"},
    "float": {"double"},
    "string": {"bytes"},
    "bytes": {"string"},
}

Schema = Any


def named_types(schema: Schema, into: dict[str, dict] | None = None) -> dict[str, dict]:
    """Every named type defined in ``schema``, by full name."""
    names = {} if into is None else into
    if isinstance(schema, list):
        for branch in schema:
            named_types(branch, names)
    elif isinstance(schema, dict):
        kind = schema.get("type")
        if kind in NAMED and "name" in schema:
            names[schema["name"]] = schema
        if kind in ("record", "error"):
            for f in schema.get("fields", []):
                named_types(f["type"], names)
        elif kind == "array":
            named_types(schema["items"], names)
        elif kind == "map":
            named_types(schema["values"], names)
        elif isinstance(kind, (dict, list)):
            named_types(kind, names)
    return names


class _Resolver:
    """One check of a reader against a writer; keeps both name tables and the pairs in
    progress (for recursive types) and collects the reasons found incompatible."""

    def __init__(self, reader: Schema, writer: Schema, extra_names: dict[str, dict] | None = None) -> None:
        self.reader_names = named_types(reader, dict(extra_names or {}))
        self.writer_names = named_types(writer, dict(extra_names or {}))
        self.in_progress: set[tuple[int, int]] = set()
        self.messages: list[str] = []

    def resolve(self, schema: Schema, names: dict[str, dict]) -> Schema:
        while True:
            if isinstance(schema, str) and schema not in PRIMITIVES and schema in names:
                schema = names[schema]
            elif isinstance(schema, dict) and not isinstance(schema.get("type"), str):
                schema = schema["type"]
            elif isinstance(schema, dict) and schema.get("type") in PRIMITIVES and "logicalType" not in schema:
                return schema["type"]
            else:
                return schema

    @staticmethod
    def kind(schema: Schema) -> str:
        if isinstance(schema, list):
            return "union"
        if isinstance(schema, str):
            return schema
        return schema["type"]

    def compatible(self, reader: Schema, writer: Schema, path: str) -> bool:
        reader = self.resolve(reader, self.reader_names)
        writer = self.resolve(writer, self.writer_names)
        rk, wk = self.kind(reader), self.kind(writer)
        if wk == "union":
            ok = True
            for i, branch in enumerate(writer):
                ok = self.compatible(reader, branch, f"{path}/{i}") and ok
            return ok
        if rk == "union":
            for branch in reader:
                trial = _Resolver.__new__(_Resolver)
                trial.reader_names, trial.writer_names = self.reader_names, self.writer_names
                trial.in_progress, trial.messages = set(self.in_progress), []
                if trial.compatible(branch, writer, path):
                    return True
            return self.fail(path, f"reader union lacking writer type: {wk.upper()}")
        if rk != wk:
            if wk in PROMOTIONS and rk in PROMOTIONS[wk]:
                return True
            return self.fail(path, f"reader type: {rk.upper()} not compatible with writer type: {wk.upper()}")
        if rk in PRIMITIVES:
            return True
        key = (id(reader), id(writer))
        if key in self.in_progress:
            return True
        self.in_progress.add(key)
        if rk in NAMED and not self.names_match(reader, writer):
            return self.fail(f"{path}/name", f"expected: {writer['name']}")
        if rk == "fixed":
            if reader["size"] != writer["size"]:
                return self.fail(f"{path}/size", f"expected: {writer['size']}, found: {reader['size']}")
            return True
        if rk == "enum":
            if "default" in reader:
                return True
            missing = [s for s in writer["symbols"] if s not in reader["symbols"]]
            if missing:
                return self.fail(f"{path}/symbols", f"reader is missing writer's enum symbols: {missing}")
            return True
        if rk == "array":
            return self.compatible(reader["items"], writer["items"], f"{path}/items")
        if rk == "map":
            return self.compatible(reader["values"], writer["values"], f"{path}/values")
        # records
        ok = True
        writer_fields = {f["name"]: f for f in writer["fields"]}
        for i, field in enumerate(reader["fields"]):
            wf = writer_fields.get(field["name"])
            if wf is None:
                for alias in field.get("aliases", []):
                    wf = writer_fields.get(alias)
                    if wf is not None:
                        break
            if wf is None:
                if "default" not in field:
                    ok = self.fail(f"{path}/fields/{i}",
                                   f"reader field '{field['name']}' has no default value and is missing from the writer") and ok
                continue
            ok = self.compatible(field["type"], wf["type"], f"{path}/fields/{i}/type") and ok
        return ok

    @staticmethod
    def names_match(reader: dict, writer: dict) -> bool:
        """Avro's ``SchemaCompatibility.schemaNameEquals``: the unqualified names are equal
        (a namespace may change), or a reader's alias names the writer."""
        short = writer["name"].rsplit(".", 1)[-1]
        if reader["name"].rsplit(".", 1)[-1] == short:
            return True
        aliases = set(reader.get("aliases", []))
        return writer["name"] in aliases or short in aliases

    def fail(self, path: str, message: str) -> bool:
        self.messages.append(f"{message}, path: '{path or '/'}'")
        return False


def reader_writer_incompatibilities(reader: Schema, writer: Schema,
                                    extra_names: dict[str, dict] | None = None) -> list[str]:
    """Why ``reader`` cannot read data written with ``writer`` (empty when it can).
    ``extra_names`` are named types defined by schema references."""
    resolver = _Resolver(reader, writer, extra_names)
    resolver.compatible(reader, writer, "")
    return resolver.messages
