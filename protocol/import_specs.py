"""Import Apache Kafka's JSON message specs into the repository's own schema form.

Run once per Kafka upgrade: ``python -m kafpy.protocol.import_specs DIR``, where ``DIR`` holds
Kafka's specs as ``message/*.json`` (clients' messages), ``group-coordinator/*.json`` and
``transaction-coordinator/*.json`` (the records of ``__consumer_offsets`` and
``__transaction_state``). Then ``python -m kafpy.protocol.generate`` rewrites
``protocol/messages.py`` from ``protocol/schema/``.

What is kept: every request/response whose request lists the ``zkBroker`` or ``broker``
listener, the request/response headers, the consumer protocol subscription/assignment
data and every coordinator record; of each, only the facts the project implements (API
key, kind, valid/flexible versions, unstable latest version, field names, types, versions,
tags, tagged/nullable/flexible versions, defaults, map keys, nested and common structs).
Prose (``about``), comments, listeners, deprecations and entity types are dropped.
The specs are Apache Kafka's (Apache License 2.0).

Ahead of the imported specs, the schema carries ApiVersions v5 (KIP-1242, Kafka 4.2+:
``ClusterId``, ``NodeId``), which Java 4.2+ clients open every connection with; an
import from older specs drops it, so check the diff of ``ApiVersions*.json``.

Who may call it: a developer, by hand. It never reads a default location: ``DIR`` is
required, and the schema files are rewritten as a whole (stale ones removed).
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import sys
from pathlib import Path

SCHEMA_DIR = Path(__file__).resolve().parent / "schema"

# Every listener's APIs: the broker's, and the controller's (KRaft: Vote, BrokerRegistration, ...)
LISTENERS = {"zkBroker", "broker", "controller"}
EXTRA_DATA = ("ConsumerProtocolSubscription", "ConsumerProtocolAssignment",
              # KRaft's control records in __cluster_metadata (Kafka's raft module)
              "KRaftVersionRecord", "LeaderChangeMessage", "SnapshotHeaderRecord",
              "SnapshotFooterRecord", "VotersRecord")
COORDINATOR_DIRS = ("group-coordinator", "transaction-coordinator", "share-coordinator")
MESSAGE_KEYS = ("name", "type", "apiKey", "validVersions", "flexibleVersions", "latestVersionUnstable")
FIELD_KEYS = (
    "name", "type", "versions", "taggedVersions", "tag", "nullableVersions", "flexibleVersions",
    "default", "mapKey",
)


def strip_comments(text: str) -> str:
    """Remove ``//`` line comments outside of JSON strings (Kafka's specs carry them)."""
    out: list[str] = []
    i, n = 0, len(text)
    in_string = False
    while i < n:
        c = text[i]
        if in_string:
            out.append(c)
            if c == "\\" and i + 1 < n:
                out.append(text[i + 1])
                i += 2
                continue
            if c == '"':
                in_string = False
        elif c == '"':
            in_string = True
            out.append(c)
        elif c == "/" and text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        else:
            out.append(c)
        i += 1
    return "".join(out)


def load_kafka_spec(path: Path) -> dict:
    return json.loads(strip_comments(path.read_text(encoding="utf-8")))


def select_specs(root: Path) -> list[dict]:
    """The Kafka specs under ``root`` that the project implements, sorted by name."""
    msg_dir = root / "message"
    if not msg_dir.is_dir():
        raise FileNotFoundError(f"no message/ directory under {root}")
    specs: dict[str, dict] = {}
    requests: dict[int, dict] = {}
    responses: dict[int, dict] = {}
    for path in sorted(msg_dir.glob("*.json")):
        spec = load_kafka_spec(path)
        kind = spec.get("type")
        if kind == "request":
            requests[spec["apiKey"]] = spec
        elif kind == "response":
            responses[spec["apiKey"]] = spec
        elif kind == "header" or (kind == "data" and spec["name"] in EXTRA_DATA):
            specs[spec["name"]] = spec
    for key, req in requests.items():
        if LISTENERS & set(req.get("listeners", [])):
            specs[req["name"]] = req
            specs[responses[key]["name"]] = responses[key]
    for sub in COORDINATOR_DIRS:
        for path in sorted((root / sub).glob("*.json")):
            spec = to_key_version_form(load_kafka_spec(path))
            specs[spec["name"]] = spec
    for path in sorted((root / "metadata").glob("*.json")):
        spec = load_kafka_spec(path)          # KRaft's metadata records: type "metadata"
        specs[spec["name"]] = spec
    return [specs[k] for k in sorted(specs)]


def to_key_version_form(spec: dict) -> dict:
    """Kafka 4.x writes a coordinator record's spec as ``coordinator-key``/``coordinator-value``
    with the record type in ``apiKey``; the schema keeps Kafka 3.x's form, where a key is
    ``data`` whose only version is the record type (the int16 written before the key), and a
    value is ``data`` with its own versions. Specs already in that form pass unchanged."""
    kind = spec.get("type")
    if kind not in ("coordinator-key", "coordinator-value"):
        return spec
    out = {k: v for k, v in spec.items() if k != "apiKey"}
    out["type"] = "data"
    if kind == "coordinator-key":
        record_type = str(spec["apiKey"])
        out["validVersions"] = record_type
        out["fields"] = [dict(f, versions=record_type) if f.get("versions") == "0" else f
                         for f in spec.get("fields", [])]
    return out


def _facts(obj: dict, keys: tuple[str, ...]) -> dict:
    out = {k: obj[k] for k in keys if k in obj}
    if "fields" in obj:
        out["fields"] = [_facts(f, FIELD_KEYS) for f in obj["fields"]]
    return out


def schema_of(spec: dict) -> dict:
    """One Kafka spec reduced to the facts kept in ``protocol/schema/``."""
    out = _facts(spec, MESSAGE_KEYS)
    out.setdefault("fields", [])
    if spec.get("commonStructs"):
        out["commonStructs"] = [_facts(s, ("name", "versions")) for s in spec["commonStructs"]]
    return out


def dumps(schema: dict) -> str:
    """JSON text with one line per field, so a Kafka upgrade reads as a small diff."""
    lines: list[str] = []

    def emit(obj: dict, indent: str, trailer: str) -> None:
        flat = {k: v for k, v in obj.items() if k not in ("fields", "commonStructs")}
        nested = [(k, obj[k]) for k in ("fields", "commonStructs") if k in obj]
        if not nested:
            lines.append(indent + json.dumps(flat) + trailer)
            return
        lines.append(indent + json.dumps(flat)[:-1] + ",")
        for j, (key, items) in enumerate(nested):
            closing = "}" + trailer if j == len(nested) - 1 else ","
            if not items:
                lines.append(f'{indent} "{key}": []{closing}')
                continue
            lines.append(f'{indent} "{key}": [')
            for i, item in enumerate(items):
                emit(item, indent + "  ", "" if i == len(items) - 1 else ",")
            lines.append(f"{indent} ]{closing}")

    emit(schema, "", "")
    return "\n".join(lines) + "\n"


def write_schemas(specs: list[dict], out_dir: Path = SCHEMA_DIR, only: list[str] | None = None) -> list[Path]:
    """Write one ``<Name>.json`` per spec, removing schema files no longer selected; with
    ``only`` (shell patterns of names), write just the specs matching them and remove nothing."""
    if only:
        specs = [s for s in specs if any(fnmatch.fnmatchcase(s["name"], pat) for pat in only)]
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for spec in specs:
        path = out_dir / f"{spec['name']}.json"
        path.write_text(dumps(schema_of(spec)), encoding="utf-8")
        written.append(path)
    for stale in (set() if only else set(out_dir.glob("*.json")) - set(written)):
        stale.unlink()
    return written


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m kafpy.protocol.import_specs", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("spec_dir", type=Path, help="Kafka's specs: message/, group-coordinator/, ...")
    ap.add_argument("--out", type=Path, default=SCHEMA_DIR, help="schema directory to rewrite")
    ap.add_argument("--only", nargs="+", metavar="PATTERN",
                    help="import just the specs whose names match these shell patterns (e.g. 'Share*')")
    args = ap.parse_args(argv)
    written = write_schemas(select_specs(args.spec_dir), args.out, args.only)
    print(f"wrote {len(written)} schemas to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
