"""API keys have one name: ``ApiKey`` (``kafpy.protocol.api_keys``). Every handler is
registered under one, every authorization rule is keyed by one, and no module declares an API
key of its own as a bare number."""
import ast
import re
from pathlib import Path

import pytest

from kafpy.broker.apis import ApiRegistry
from kafpy.broker.authorization import RULES
from kafpy.broker.handler import Handler
from kafpy.protocol.api_keys import API_KEYS, ApiKey
from tests.support.floors import FLOORS as PROJECT_FLOORS

REPO = Path(__file__).resolve().parents[2]
FLOORS = (*PROJECT_FLOORS, "bench")


def _upper_snake(camel: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", camel).upper()


def test_api_key_names_every_api_the_generated_messages_know():
    assert {int(k) for k in ApiKey} == set(API_KEYS)
    for key, spec in API_KEYS.items():
        assert ApiKey(key).name == _upper_snake(spec.name), spec.name


def test_every_registered_handler_is_keyed_by_an_api_key():
    registry = ApiRegistry.load(zk_mode=True)
    assert registry.by_key
    for key, handler in registry.by_key.items():
        assert isinstance(handler.api_key, ApiKey), handler
        assert key == handler.api_key
        # dispatch looks up the int read from the request header: the table's keys are ints
        assert type(key) is int


def test_a_handler_registered_under_a_bare_number_is_refused():
    async def func(ctx, req):
        return None

    with pytest.raises(TypeError, match="not an ApiKey"):
        ApiRegistry([Handler(18, 0, 3, func)])


def test_every_authorization_rule_is_keyed_by_an_api_key():
    assert RULES
    assert all(isinstance(k, ApiKey) for k in RULES)


def _int_constants(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant):
        return type(node.value) is int
    if isinstance(node, ast.Tuple):
        return all(_int_constants(e) for e in node.elts)
    return False


def _names(target: ast.AST) -> list[str]:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, ast.Tuple):
        return [n for e in target.elts for n in _names(e)]
    return []


def test_no_module_declares_an_api_key_as_a_number():
    """No module-level ``FETCH_KEY = 1`` or ``PRODUCE = 0``: a name ending in ``_KEY``, or an
    API's own name, bound to an int at module level is a second vocabulary."""
    api_names = {k.name for k in ApiKey}
    offenders = []
    for floor in FLOORS:
        for path in (REPO / floor).rglob("*.py"):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for stmt in tree.body:
                if not isinstance(stmt, ast.Assign) or not _int_constants(stmt.value):
                    continue
                for name in (n for t in stmt.targets for n in _names(t)):
                    if name.endswith("_KEY") or name in api_names:
                        offenders.append(f"{path.relative_to(REPO)}:{stmt.lineno} {name}")
    assert offenders == []
