"""The table-walking interpreter and the compiled codec produce and read the same bytes."""

from __future__ import annotations

import pytest

from kafpy.protocol import codec
from kafpy.protocol import messages as M
from kafpy.protocol._interpreter import INTERPRETER

from .samples import all_api_versions, sample


@pytest.mark.parametrize("nulls", [False, True])
def test_same_bytes_for_every_api_version(nulls: bool) -> None:
    for api_key, version in all_api_versions():
        spec = M.API_KEYS[api_key]
        for cls in (spec.request_class, spec.response_class):
            obj = sample(cls, version, nulls=nulls)
            out: list = []
            codec.encoder_for(cls, version)(obj, out, [])
            compiled = b"".join(out)
            assert INTERPRETER.encode(obj, version) == compiled, (cls.NAME, version)
            assert INTERPRETER.decode(cls, version, compiled) == obj, (cls.NAME, version)
