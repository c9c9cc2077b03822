"""ProtobufCompiler: a big schema is compiled in a worker process by ``prepare`` and
``compiled`` then answers without compiling on the caller's thread; refusals are kept
too; small schemas compile in place."""
from __future__ import annotations

import asyncio

import pytest

from kafpy.registry import protobuf_compiler
from kafpy.registry.protobuf_compiler import ProtobufCompiler
from kafpy.registry.protobuf_schema import ProtobufError


def big_schema(fields: int = 400) -> str:
    body = "\n".join(f"  string field_number_{i} = {i};" for i in range(1, fields))
    return f'syntax = "proto3";\npackage p;\nmessage M {{\n{body}\n}}\n'


def no_compiling_here(text, deps):
    raise AssertionError("compiled on the caller's thread")


def test_prepare_compiles_in_a_worker_and_compiled_answers_from_it(monkeypatch):
    compiler = ProtobufCompiler(max_concurrent=1, off_loop_bytes=4096)
    text = big_schema()
    assert len(text) > 4096
    try:
        asyncio.run(compiler.prepare(text, {}))
        monkeypatch.setattr(protobuf_compiler, "canonicalize", no_compiling_here)
        printed, fd = compiler.compiled(text, {})
        assert "message M" in printed and fd.message_type[0].name == "M" and len(fd.message_type[0].field) == 399
    finally:
        compiler.close()


def test_a_refusal_is_kept_and_raised(monkeypatch):
    compiler = ProtobufCompiler(max_concurrent=1, off_loop_bytes=4096)
    text = big_schema().replace("string field_number_7", "nosuchtype field_number_7")
    try:
        asyncio.run(compiler.prepare(text, {}))
        monkeypatch.setattr(protobuf_compiler, "canonicalize", no_compiling_here)
        with pytest.raises(ProtobufError):
            compiler.compiled(text, {})
    finally:
        compiler.close()


def test_concurrent_prepares_of_one_schema_compile_it_once(monkeypatch):
    compiler = ProtobufCompiler(max_concurrent=1, off_loop_bytes=4096)
    text = big_schema()

    async def both() -> None:
        await asyncio.gather(compiler.prepare(text, {}), compiler.prepare(text, {}))
    try:
        asyncio.run(both())
        assert len(compiler._done) == 1
    finally:
        compiler.close()


def test_a_small_schema_compiles_in_place_and_is_not_kept():
    compiler = ProtobufCompiler(off_loop_bytes=1 << 20)
    text = 'syntax = "proto3";\nmessage S { string a = 1; }\n'
    asyncio.run(compiler.prepare(text, {}))
    assert compiler._pool is None
    printed, fd = compiler.compiled(text, {})
    assert fd.message_type[0].name == "S" and not compiler._done
