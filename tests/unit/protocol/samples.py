"""Builds message instances with representative values for every field of a version."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from kafpy.protocol import messages as M

_INTS = {
    "int8": -7,
    "int16": -300,
    "uint16": 65000,
    "int32": -70000,
    "uint32": 4000000000,
    "int64": -(2**40) - 3,
}


def _in(rng: tuple[int, int] | None, v: int) -> bool:
    return rng is not None and rng[0] <= v <= rng[1]


def owner(cls: type) -> type:
    return getattr(M, cls.__qualname__.split(".")[0])


def present(f: M.Field, version: int) -> bool:
    return _in(f.versions, version) or _in(f.tagged, version)


def scalar(ftype: str, name: str, salt: int) -> Any:
    if ftype in _INTS:
        v = _INTS[ftype]
        return v + salt if ftype.startswith("int") else v - salt
    if ftype == "float64":
        return 1.5 + salt
    if ftype == "bool":
        return True
    if ftype == "string":
        return f"{name}-é{salt}"
    if ftype == "uuid":
        return bytes(range(salt, salt + 16))
    if ftype == "bytes":
        return bytes([salt, 1, 2, 3])
    if ftype == "records":
        return b"RECORDS" * (salt + 1)
    raise KeyError(ftype)


def sample(cls: type[M.Struct], version: int, *, nulls: bool = False, salt: int = 1, depth: int = 0) -> Any:
    """An instance of ``cls`` with a non-default value in every field valid at ``version``.

    With ``nulls=True``, fields nullable at ``version`` are None instead.
    """
    obj = cls()
    for f in cls.FIELDS:
        if not present(f, version):
            continue
        if nulls and _in(f.nullable, version):
            setattr(obj, f.name, None)
            continue
        t = f.type
        if t.startswith("[]"):
            elem = t[2:]
            if elem in _INTS or elem in ("float64", "bool", "string", "uuid", "bytes", "records"):
                value = [scalar(elem, f.name, salt + i) for i in range(2)]
            else:
                sub = getattr(owner(cls), elem)
                count = 2 if depth < 3 else 0
                value = [sample(sub, version, nulls=nulls, salt=salt + i + 1, depth=depth + 1) for i in range(count)]
        elif t in _INTS or t in ("float64", "bool", "string", "uuid", "bytes", "records"):
            value = scalar(t, f.name, salt)
        else:
            value = sample(getattr(owner(cls), t), version, nulls=nulls, salt=salt + 1, depth=depth + 1)
        setattr(obj, f.name, value)
    return obj


def all_api_versions() -> list[tuple[int, int]]:
    return [
        (key, v)
        for key, spec in sorted(M.API_KEYS.items())
        for v in range(spec.min_version, spec.max_version + 1)
    ]


def data_messages() -> list[tuple[type[M.Message], int]]:
    return [
        (cls, v)
        for name, cls in sorted(M.MESSAGES.items())
        if cls.KIND == "data"
        for v in range(cls.VALID_VERSIONS[0], cls.VALID_VERSIONS[1] + 1)
    ]


_HRANGES = {
    "int8": (-(2**7), 2**7 - 1), "int16": (-(2**15), 2**15 - 1), "uint16": (0, 2**16 - 1),
    "int32": (-(2**31), 2**31 - 1), "uint32": (0, 2**32 - 1), "int64": (-(2**63), 2**63 - 1),
}


def _scalar(t: str) -> st.SearchStrategy:
    if t in _HRANGES:
        lo, hi = _HRANGES[t]
        return st.integers(lo, hi)
    if t == "float64":
        return st.floats(allow_nan=False)
    if t == "bool":
        return st.booleans()
    if t == "string":
        return st.text(max_size=20)
    if t == "uuid":
        return st.binary(min_size=16, max_size=16)
    return st.binary(max_size=40)  # bytes, records


def _value(cls: type, f: M.Field, version: int, depth: int) -> st.SearchStrategy:
    t = f.type
    if t.startswith("[]"):
        elem = t[2:]
        if elem in _HRANGES or elem in ("float64", "bool", "string", "uuid", "bytes", "records"):
            inner = _scalar(elem)
        else:
            inner = strategy(getattr(owner(cls), elem), version, depth + 1)
        base = st.lists(inner, max_size=3 if depth < 2 else 0)
    elif t in _HRANGES or t in ("float64", "bool", "string", "uuid", "bytes", "records"):
        base = _scalar(t)
    else:
        base = strategy(getattr(owner(cls), t), version, depth + 1)
    if _in(f.nullable, version):
        return st.one_of(st.none(), base)
    return base


def strategy(cls: type[M.Struct], version: int, depth: int = 0) -> st.SearchStrategy:
    """Hypothesis strategy for instances of ``cls`` with random values valid at ``version``."""
    fields = [f for f in cls.FIELDS if present(f, version)]
    return st.fixed_dictionaries({f.name: _value(cls, f, version, depth) for f in fields}).map(
        lambda kw: cls(**kw)
    )
