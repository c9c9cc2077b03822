"""Kafka's ``Uuid.ZERO_UUID`` is defined once, in ``kafpy.protocol.message_base``; every other
module imports it."""
import re

from kafpy.protocol.message_base import ZERO_UUID
from tests.support.floors import FLOORS, REPO

DEFINITION = re.compile(r"^\s*ZERO_UUID\s*(:[^=]*)?=", re.M)


def test_zero_uuid_is_defined_once() -> None:
    assert ZERO_UUID == bytes(16)
    defined = sorted(str(p.relative_to(REPO)) for floor in FLOORS for p in (REPO / floor).rglob("*.py")
                     if DEFINITION.search(p.read_text(encoding="utf-8")))
    assert defined == ["protocol/message_base.py"]
