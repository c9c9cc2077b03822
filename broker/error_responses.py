"""The response that answers a request whose handler failed, as Kafka's
``AbstractRequest.getErrorResponse`` builds it.

Who may call it: the socket server (``kafpy.broker.server``) when a handler raises anything but
``CloseConnection``. Kafka hand-writes ``getErrorResponse`` in every request class; the
rule they all follow is the same, so it is built here from the generated schemas instead:

- every ``error_code`` (``partition_error_code``) of the response carries the error (the top-level one when the
  response has one, and each entry's);
- the entries that answer for parts of the request (topics, partitions, groups, resources,
  transactional ids, coordinator keys) mirror the request's: each response array whose
  elements carry an error code is paired with the request array at the same level whose
  elements share an identifying field (``name``, ``topic_id``, ``partition_index``,
  ``group_id``, ...; an array of plain strings or ints pairs with the one identifying
  field of that type), and those fields are copied;
- every other field keeps its schema default; ``error_message`` stays empty (Kafka does
  not put an unknown error's message on the wire), records are empty.

A Produce with acks=0 has no response; Kafka closes the connection then, and so do we
(``error_response`` returns None).
"""
from __future__ import annotations

from typing import Iterable

from kafpy.protocol import codec
from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.api_keys import ApiKey
from kafpy.protocol.message_base import Field, Message, Struct

# Fields that name what an entry answers for, copied from the request's entry; the names
# of one group are the same fact (a Fetch request's ``partition`` is its response's
# ``partition_index``).
_KEY_GROUPS = (
    ("name", "topic", "topic_name"), ("partition_index", "partition", "index", "partition_id"),
    ("topic_id",), ("group_id",), ("transactional_id",), ("key",), ("resource_type",),
    ("resource_name",),
)
KEY_ALIASES = {name: group for group in _KEY_GROUPS for name in group}
KEY_FIELDS = frozenset(KEY_ALIASES)
ERROR_FIELDS = frozenset({"error_code", "partition_error_code"})
_PRIMITIVES = frozenset({"string", "int8", "int16", "int32", "int64", "uuid"})


def error_response(api_key: int, version: int, request: Message | None, error: ErrorCode) -> Message | None:
    """The response to ``request`` (``api_key`` at ``version``) with ``error`` in every
    error field, or None when Kafka would close the connection instead."""
    if api_key == ApiKey.PRODUCE and getattr(request, "acks", 1) == 0:
        return None
    cls = codec.response_class(api_key, version)
    response = _mirror(cls, cls, version, request, error)
    assert isinstance(response, Message)
    return response


def _present(fields: Iterable[Field], version: int) -> list[Field]:
    out = []
    for f in fields:
        v = f.versions
        if v is None or v[0] <= version <= v[1]:
            out.append(f)
    return out


def _struct_class(top: type[Message], type_name: str) -> type[Struct] | None:
    name = type_name[2:] if type_name.startswith("[]") else type_name
    return getattr(top, name, None)


def _carries_errors(top: type[Message], cls: type[Struct], version: int,
                    seen: frozenset[type[Struct]] = frozenset()) -> bool:
    """True when instances of ``cls`` hold an error code, themselves or in a nested array."""
    if cls in seen:
        return False
    for f in _present(cls.FIELDS, version):
        if f.name in ERROR_FIELDS:
            return True
        if f.type.startswith("[]"):
            sub = _struct_class(top, f.type)
            if sub is not None and _carries_errors(top, sub, version, seen | {cls}):
                return True
    return False


def _mirror(top: type[Message], cls: type[Struct], version: int, req: Struct | None, error: ErrorCode) -> Struct:
    """An instance of ``cls`` answering ``req`` (the matching request struct, or None)."""
    obj = cls()
    fields = _present(cls.FIELDS, version)
    req_fields = _present(type(req).FIELDS, version) if req is not None else []
    req_by_name = {f.name: f for f in req_fields}
    used: set[str] = set()
    for f in fields:
        if f.name in ERROR_FIELDS:
            setattr(obj, f.name, int(error))
        elif f.type == "records":
            setattr(obj, f.name, b"")
        elif f.name in KEY_FIELDS:
            for alias in KEY_ALIASES[f.name]:
                rf = req_by_name.get(alias)
                if rf is not None and rf.type == f.type:
                    setattr(obj, f.name, getattr(req, alias))
                    break
    for f in fields:
        if not f.type.startswith("[]"):
            continue
        sub = _struct_class(top, f.type)
        if sub is None or not _carries_errors(top, sub, version):
            continue
        source = _pair(top, sub, f.name, req_fields, used, version)
        if source is None:
            continue
        used.add(source.name)
        items = getattr(req, source.name) or []
        if source.type[2:] in _PRIMITIVES:
            key = _key_fields(sub, version, source.type[2:])[0]
            entries = []
            for value in items:
                entry = _mirror(top, sub, version, None, error)
                setattr(entry, key, value)
                entries.append(entry)
        else:
            entries = [_mirror(top, sub, version, item, error) for item in items]
        setattr(obj, f.name, entries)
    return obj


def _key_fields(cls: type[Struct], version: int, of_type: str | None = None) -> list[str]:
    return [f.name for f in _present(cls.FIELDS, version)
            if f.name in KEY_FIELDS and (of_type is None or f.type == of_type)]


def _pair(top: type[Message], sub: type[Struct], name: str, req_fields: list[Field], used: set[str],
          version: int) -> Field | None:
    """The request array whose entries the response array ``name`` (of ``sub``) answers:
    the same name first, else the first one sharing an identifying field."""
    keys = {KEY_ALIASES[k][0] for k in _key_fields(sub, version)}
    if not keys:
        return None

    def matches(rf: Field) -> bool:
        if not rf.type.startswith("[]") or rf.name in used:
            return False
        elem = rf.type[2:]
        if elem in _PRIMITIVES:
            return len(_key_fields(sub, version, elem)) == 1
        rcls = getattr(top_request(top), elem, None)
        if rcls is None:
            return False
        return bool(keys & {KEY_ALIASES[k][0] for k in _key_fields(rcls, version)})

    for rf in req_fields:
        if rf.name == name and matches(rf):
            return rf
    for rf in req_fields:
        if matches(rf):
            return rf
    return None


def top_request(response_cls: type[Message]) -> type[Message]:
    """The request class of the API ``response_cls`` answers."""
    assert response_cls.API_KEY is not None
    return codec.SPECS[response_cls.API_KEY].request_class
