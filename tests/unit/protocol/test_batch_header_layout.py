"""The v2 batch header is declared once, in ``kafpy.protocol.batch_header``: its byte offsets,
field indexes and structs agree with each other and with ``RecordBatchHeader``, and no other
module declares the layout again or reads a header tuple by a bare number."""
import ast
import struct
from pathlib import Path

from kafpy.protocol import batch_header as bh
from kafpy.protocol.records import HEADER_STRUCT, RecordBatchHeader, build_batch, parse_header
from tests.support.floors import FLOORS

REPO = Path(__file__).resolve().parents[3]
FIELDS = RecordBatchHeader._fields


def test_field_indexes_follow_record_batch_header():
    for i, name in enumerate(FIELDS):
        assert getattr(bh, f"{name.upper()}_FIELD") == i


def test_byte_offsets_follow_the_format():
    pos = 0
    for i, name in enumerate(FIELDS):
        assert getattr(bh, f"{name.upper()}_OFFSET") == pos, name
        pos += struct.calcsize(">" + bh.HEADER_FORMAT[1 + i])
    assert pos == bh.BATCH_HEADER_SIZE == bh.RECORDS_OFFSET == HEADER_STRUCT.size
    assert bh.OFFSET_AND_LENGTH.size == bh.LOG_OVERHEAD
    assert bh.PREFIX_THROUGH_EPOCH.size == bh.MAGIC_OFFSET
    assert bh.PREFIX_THROUGH_LAST_OFFSET_DELTA.size == bh.BASE_TIMESTAMP_OFFSET


def test_tuples_and_named_headers_agree():
    batch = build_batch([(b"k", b"v")] * 3, base_offset=7, producer_id=42, producer_epoch=3, base_sequence=5,
                        base_timestamp=1000)
    named = parse_header(batch)
    raw = HEADER_STRUCT.unpack_from(batch, 0)
    assert tuple(named) == raw
    assert raw[bh.BASE_OFFSET_FIELD] == named.base_offset == 7
    assert raw[bh.LAST_OFFSET_DELTA_FIELD] == 2 and raw[bh.RECORDS_COUNT_FIELD] == 3
    assert bh.PREFIX_THROUGH_LAST_OFFSET_DELTA.unpack_from(batch, 0) == raw[:bh.LAST_OFFSET_DELTA_FIELD + 1]
    assert bh.PRODUCER_ID_AND_EPOCH.unpack_from(batch, bh.PRODUCER_ID_OFFSET) == (42, 3)
    assert batch[bh.ATTRIBUTES_LOW_BYTE_OFFSET] == named.attributes & 0xFF


def _python_files() -> list[Path]:
    out = []
    for floor in FLOORS:
        out += [p for p in (REPO / floor).rglob("*.py") if p.name != "messages.py"]
    return out


def test_no_other_module_declares_the_header_layout():
    """A struct format holding the header's leading fields (``>qi``, ``>qii``, ``>qiib...``)
    belongs to batch_header.py; other modules import its structs."""
    offenders = []
    for path in _python_files():
        if path == REPO / "protocol" / "batch_header.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", None)) == "Struct"
                    and node.args and isinstance(node.args[0], ast.Constant)
                    and isinstance(node.args[0].value, str) and node.args[0].value.startswith(">qii")):
                offenders.append(f"{path.relative_to(REPO)}:{node.lineno} {node.args[0].value}")
    assert offenders == []


def test_header_tuples_are_read_by_field_name():
    """No ``h[8]``: a header tuple (``h``, ``header``, ``prefix``) is indexed by the field
    constants (``h[MAX_TIMESTAMP_FIELD]``)."""
    offenders = []
    for path in _python_files():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name)
                    and node.value.id in ("h", "header", "hdr", "prefix")
                    and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, int)):
                offenders.append(f"{path.relative_to(REPO)}:{node.lineno}")
    assert offenders == []
