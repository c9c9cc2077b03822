"""release_startup_memory hands freed heap back: what compiling a large module left behind
(as compiling protocol/messages.py does without a bytecode cache) leaves the resident set."""
from __future__ import annotations

from pathlib import Path

from kafpy.broker.startup_memory import release_startup_memory


def _rss_kb() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def test_the_heap_a_compile_freed_goes_back_to_the_system() -> None:
    source = "\n".join(f"def f{i}(a, b=({i}, 'x{i}')):\n    return [a, b, {{'k': {i}}}]" for i in range(5_000))
    code = compile(source, "<generated>", "exec")   # the AST, tens of MB, is freed on return
    assert code.co_consts
    before = _rss_kb()
    assert release_startup_memory()
    after = _rss_kb()
    assert before - after > 10_000, (before, after)
