"""Errors have one base: every exception that carries a Kafka ``error_code`` derives from
``kafpy.protocol.errors.KafkaError`` and its code is an ``ErrorCode``; nothing reads a code
with ``getattr(e, "error_code")``."""
import ast
import importlib
import inspect
import pkgutil
from pathlib import Path

import pytest

from kafpy.protocol.errors import ErrorCode, KafkaError, error_code_for
from tests.support.floors import FLOORS

REPO = Path(__file__).resolve().parents[2]


def _project_exceptions() -> list[type]:
    found: list[type] = []
    for floor in FLOORS:
        pkg = importlib.import_module(f"kafpy.{floor}")
        for info in pkgutil.walk_packages(pkg.__path__, f"kafpy.{floor}."):
            if info.name.endswith("__main__"):
                continue
            try:
                mod = importlib.import_module(info.name)
            except ImportError:  # a module needing an optional runtime (pyspark) not loaded here
                continue
            for cls in vars(mod).values():
                if (inspect.isclass(cls) and issubclass(cls, BaseException) and cls.__module__ == mod.__name__
                        and cls not in found):
                    found.append(cls)
    return found


def _carries_error_code(cls: type) -> bool:
    return "error_code" in vars(cls) or "self.error_code" in inspect.getsource(cls)


def test_every_exception_with_an_error_code_is_a_kafka_error():
    classes = _project_exceptions()
    carrying = [c for c in classes if _carries_error_code(c)]
    assert len(carrying) > 20  # protocol, storage, partition, topic, network... errors were found
    assert [f"{c.__module__}.{c.__qualname__}" for c in carrying if not issubclass(c, KafkaError)] == []


def test_fixed_codes_are_error_codes():
    for cls in _project_exceptions():
        if issubclass(cls, KafkaError):
            assert isinstance(cls.error_code, ErrorCode), cls


def _exception_names(func: ast.AST) -> set[str]:
    """Names that hold an exception in ``func``: ``except ... as e`` and parameters annotated
    as an exception."""
    names = {n.name for n in ast.walk(func) if isinstance(n, ast.ExceptHandler) and n.name}
    if isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
        for a in func.args.args + func.args.kwonlyargs:
            if a.annotation is not None and "Exception" in ast.unparse(a.annotation):
                names.add(a.arg)
    return names


def test_nothing_reads_an_exceptions_error_code_with_getattr():
    """``isinstance(e, KafkaError)`` / ``e.error_code`` or ``error_code_for(e)``, not
    ``getattr(e, "error_code", ...)`` (a response's optional field may still be read so)."""
    offenders = []
    for floor in FLOORS + ("kafpy", "bench"):
        for path in (REPO / floor).rglob("*.py"):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for func in ast.walk(tree):
                if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
                    continue
                held = _exception_names(func)
                for call in ast.walk(func):
                    if (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "getattr"
                            and len(call.args) >= 2 and isinstance(call.args[0], ast.Name)
                            and call.args[0].id in held and isinstance(call.args[1], ast.Constant)
                            and call.args[1].value == "error_code"):
                        offenders.append(f"{path.relative_to(REPO)}:{call.lineno}")
    assert offenders == []


@pytest.mark.parametrize("make, code", [
    ("kafpy.storage.errors:OffsetOutOfRangeError", ErrorCode.OFFSET_OUT_OF_RANGE),
    ("kafpy.protocol.errors:CorruptRecord", ErrorCode.CORRUPT_MESSAGE),
    ("kafpy.protocol.topics:InvalidTopicName", ErrorCode.INVALID_TOPIC_EXCEPTION),
    ("kafpy.replication.broker_connection:RequestTimedOut", ErrorCode.REQUEST_TIMED_OUT),
])
def test_error_code_for_reads_the_kafka_error(make, code):
    module, name = make.split(":")
    cls = getattr(importlib.import_module(module), name)
    assert error_code_for(cls("x")) == code
    assert error_code_for(RuntimeError("a bug")) == ErrorCode.UNKNOWN_SERVER_ERROR


def test_codes_given_per_instance_become_error_codes():
    from kafpy.replication.metadata_cache import TopicError
    from kafpy.replication.leader_endpoint import LeaderEndPointError
    from kafpy.replication.partition import PartitionError

    assert TopicError(3, "gone").error_code is ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
    assert PartitionError(ErrorCode.NOT_LEADER_OR_FOLLOWER, "no").error_code is ErrorCode.NOT_LEADER_OR_FOLLOWER
    assert LeaderEndPointError(74).error_code is ErrorCode.FENCED_LEADER_EPOCH
    # a code a newer leader sends that this version does not name: Kafka's Errors.forCode
    assert LeaderEndPointError(30000).error_code is ErrorCode.UNKNOWN_SERVER_ERROR
