"""Confluent's Protobuf diff rules, one row per rule with both verdicts (``backward``: the new
schema reads data written with the old one; ``forward`` the other way), checked under
BACKWARD, FORWARD, FULL and their TRANSITIVE forms through the registry's service; and the
comparisons that cross files: changes inside imported files, a renamed package of an
imported file, well-known imports."""
import pytest

from kafpy.registry.errors import RestError
from kafpy.registry.service import SchemaRegistry
from tests.unit.registry.test_service import MemoryLog, run

P3, P2 = 'syntax = "proto3";\n', 'syntax = "proto2";\n'

# (rule, old, new, backward compatible, forward compatible)
RULES = [
    ("FIELD_ADDED / FIELD_REMOVED", P3 + "message M { string a = 1; }",
     P3 + "message M { string a = 1; int32 b = 2; }", True, True),
    ("PACKAGE_CHANGED", P3 + "package foo; message M { string a = 1; }",
     P3 + "package bar; message M { string a = 1; }", False, False),
    ("REQUIRED_FIELD_ADDED / REMOVED", P2 + "message M { optional string a = 1; }",
     P2 + "message M { optional string a = 1; required int32 b = 2; }", False, False),
    ("a field renumbered is FIELD_REMOVED and FIELD_ADDED", P3 + "message M { string a = 1; }",
     P3 + "message M { string a = 2; }", True, True),
    ("FIELD_NAME_CHANGED", P3 + "message M { string a = 1; }", P3 + "message M { string b = 1; }", True, True),
    ("scalars of one wire group (int32, int64)", P3 + "message M { int32 a = 1; }",
     P3 + "message M { int64 a = 1; }", True, True),
    ("string and bytes", P3 + "message M { string a = 1; }", P3 + "message M { bytes a = 1; }", True, True),
    ("int32 to an enum (ENUM_ADDED)", P3 + "message M { int32 a = 1; }",
     P3 + "message M { E a = 1; } enum E { X = 0; Y = 1; }", True, True),
    ("FIELD_SCALAR_KIND_CHANGED", P3 + "message M { int32 a = 1; }", P3 + "message M { string a = 1; }",
     False, False),
    ("sint32 and int32 are different groups", P3 + "message M { int32 a = 1; }", P3 + "message M { sint32 a = 1; }",
     False, False),
    ("FIELD_KIND_CHANGED", P3 + "message M { int32 a = 1; } message N { int32 x = 1; }",
     P3 + "message M { N a = 1; } message N { int32 x = 1; }", False, False),
    ("ENUM_CONST_CHANGED / ADDED", P3 + "enum E { X = 0; Y = 1; } message M { E e = 1; }",
     P3 + "enum E { X = 0; Z = 1; W = 2; } message M { E e = 1; }", True, True),
    ("ONEOF_ADDED with a field moved in / ONEOF_FIELD_REMOVED", P3 + "message M { int32 a = 1; int32 b = 2; }",
     P3 + "message M { int32 a = 1; oneof o { int32 b = 2; int32 c = 3; } }", True, False),
    ("MULTIPLE_FIELDS_MOVED_TO_ONEOF / ONEOF_FIELD_MOVED_TO_TOP_LEVEL", P3 + "message M { int32 a = 1; int32 b = 2; }",
     P3 + "message M { oneof o { int32 a = 1; int32 b = 2; } }", False, True),
    ("FIELD_MOVED_TO_EXISTING_ONEOF", P3 + "message M { int32 a = 1; oneof o { int32 b = 2; } }",
     P3 + "message M { oneof o { int32 a = 1; int32 b = 2; } }", False, True),
    ("FIELD_NUMERIC_LABEL_CHANGED", P2 + "message M { optional int32 a = 1; }",
     P2 + "message M { repeated int32 a = 1; }", False, False),
    ("FIELD_STRING_OR_BYTES_LABEL_CHANGED", P2 + "message M { optional string a = 1; }",
     P2 + "message M { repeated string a = 1; }", True, True),
    ("MESSAGE_REMOVED / MESSAGE_ADDED", P3 + "message M { int32 a = 1; } message N { int32 b = 1; }",
     P3 + "message M { int32 a = 1; }", False, True),
    ("MESSAGE_MOVED", P3 + "message M { int32 a = 1; } message N { int32 b = 1; }",
     P3 + "message N { int32 b = 1; } message M { int32 a = 1; }", True, True),
    ("a change inside a message a field names", P3 + "message M { N n = 1; } message N { string s = 1; }",
     P3 + "message M { N n = 1; } message N { int32 s = 1; }", False, False),
    ("a nested message's field added", P3 + "message W { message M { int32 a = 1; } M m = 1; }",
     P3 + "message W { message M { int32 a = 1; int32 b = 2; } M m = 1; }", True, True),
    ("map values of one group", P3 + "message M { map<string, int32> m = 1; }",
     P3 + "message M { map<string, int64> m = 1; }", True, True),
    ("map values of different kinds", P3 + "message M { map<string, int32> m = 1; }",
     P3 + "message M { map<string, string> m = 1; }", False, False),
    ("a recursive message compared with itself", P3 + "message T { repeated T children = 1; string v = 2; }",
     P3 + "message T { repeated T children = 1; string v = 2; int32 w = 3; }", True, True),
]
IDS = [r[0] for r in RULES]


def pb(text, refs=None):
    return {"schemaType": "PROTOBUF", "schema": text, "references": refs or []}


def registers(steps, sr=None):
    """Registers each (level, text) in turn on subject "s"; True if the last is accepted."""
    if sr is None:
        log = MemoryLog()
        sr = SchemaRegistry(log.state, log.write)
    for level, text in steps[:-1]:
        run(sr.set_compatibility("s", level))
        run(sr.register("s", pb(text)))
    level, text = steps[-1]
    run(sr.set_compatibility("s", level))
    try:
        run(sr.register("s", pb(text)))
        return True
    except RestError as e:
        assert e.code == 409, e.message
        return False


@pytest.mark.parametrize("rule,old,new,backward,forward", RULES, ids=IDS)
def test_rule_under_every_level(rule, old, new, backward, forward):
    for level, expected in (("BACKWARD", backward), ("FORWARD", forward), ("FULL", backward and forward)):
        assert registers([("NONE", old), (level, new)]) is expected, level
        # a version in between that is compatible with the new one either way does not
        # decide alone under a transitive level: the first version does too
        label = "optional " if new.startswith(P2) else ""
        between = new.replace("message M {", f"message M {{ {label}int32 between_field = 99;", 1)
        if between == new:
            continue
        assert registers([("NONE", old), ("NONE", between), (level, new)]) is True, level
        assert registers([("NONE", old), ("NONE", between), (level + "_TRANSITIVE", new)]) is expected, level


@pytest.fixture
def sr():
    log = MemoryLog()
    return SchemaRegistry(log.state, log.write)


ADDR = P3 + "package pkg; message Address { string city = 1; }"
USER = P3 + 'package app; import "pkg/address.proto"; message User { pkg.Address home = 1; }'


def ref(subject, version, name="pkg/address.proto"):
    return [{"name": name, "subject": subject, "version": version}]


def test_a_change_inside_an_imported_file_is_compared(sr):
    run(sr.register("pkg/address.proto", pb(ADDR)))
    run(sr.set_compatibility("pkg/address.proto", "NONE"))
    run(sr.register("pkg/address.proto", pb(ADDR.replace("string city", "int32 city"))))
    run(sr.register("user", pb(USER, ref("pkg/address.proto", 1))))
    messages = sr.check_compatibility("user", "latest", pb(USER, ref("pkg/address.proto", 2)))
    assert any("FIELD_SCALAR_KIND_CHANGED #/Address/1" in m for m in messages), messages
    assert any("FIELD_NAMED_TYPE_CHANGED #/User/1" in m for m in messages), messages
    with pytest.raises(RestError) as e:
        run(sr.register("user", pb(USER, ref("pkg/address.proto", 2))))
    assert e.value.code == 409
    # a compatible change of the imported message is accepted
    run(sr.register("pkg/address.proto", pb(ADDR.replace("string city = 1;", "string city = 1; string zip = 2;"))))
    assert sr.check_compatibility("user", "latest", pb(USER, ref("pkg/address.proto", 3))) == []


def test_an_imported_files_package_may_be_renamed(sr):
    run(sr.register("pkg/address.proto", pb(ADDR)))
    run(sr.register("other/address.proto", pb(ADDR.replace("package pkg;", "package other;"))))
    run(sr.register("user", pb(USER, ref("pkg/address.proto", 1))))
    moved = USER.replace('"pkg/address.proto"', '"other/address.proto"').replace("pkg.Address", "other.Address")
    assert sr.check_compatibility("user", "latest", pb(moved, ref("other/address.proto", 1, "other/address.proto"))) == []
    renamed = USER.replace("pkg.Address", "pkg.Place")
    run(sr.register("place", pb(ADDR.replace("Address", "Place"))))
    assert sr.check_compatibility("user", "latest", pb(renamed, ref("place", 1)))   # another name: refused


def test_well_known_google_type_imports_resolve(sr):
    text = P3 + 'import "google/type/date.proto"; import "google/protobuf/timestamp.proto"; ' \
                "message Event { google.type.Date day = 1; google.protobuf.Timestamp at = 2; }"
    assert run(sr.register("events", pb(text))) == 1
    assert sr.check_compatibility("events", "latest", pb(text.replace("at = 2;", "at = 2; int32 n = 3;"))) == []
