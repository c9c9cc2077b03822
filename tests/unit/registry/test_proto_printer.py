"""``proto_printer``: the ``.proto`` text of a descriptor compiles (protoc in process, as the
registry compiles) back to the same descriptor, and printing is a fixed point; the registry
stores that text for either form of a Protobuf schema and gives the descriptor back only for
``format=serialized``."""
import asyncio
import base64
import json

import pytest
from google.protobuf import descriptor_pb2

from kafpy.registry.proto_printer import default_json_name, to_proto_text
from kafpy.registry.protobuf_schema import compile_proto, compile_with_imports
from kafpy.registry.service import SchemaRegistry
from kafpy.registry.state import RegistryState

PROTO3 = '''syntax = "proto3";
package shop.v1;
import "google/protobuf/timestamp.proto";
option java_package = "com.example.shop";
option java_multiple_files = true;

enum Status { option allow_alias = true; UNKNOWN = 0; PAID = 1; SETTLED = 1; SHIPPED = 2 [deprecated = true]; }

message Order {
  string id = 1;
  repeated string tags = 2 [deprecated = true];
  map<string, int64> counts = 3;
  map<int32, Line> lines_by_no = 4;
  google.protobuf.Timestamp at = 5;
  optional double discount = 6;
  oneof payment { string card = 7; Wallet wallet = 8; }
  Status status = 9;
  bytes blob = 10 [json_name = "payload"];
  repeated int32 sizes = 11 [packed = false];
  message Line { string sku = 1; uint32 qty = 2; Kind kind = 3; enum Kind { ITEM = 0; FEE = 1; } }
  message Wallet { string provider = 1; Line.Kind kind = 2; }
  reserved 20, 30 to 40, 100 to max;
  reserved "legacy", "old";
}

service Orders { rpc Place(Order) returns (Order); rpc Watch(stream Order) returns (stream Order); }
'''

PROTO2 = '''syntax = "proto2";
package legacy;
message Account {
  required int64 id = 1;
  optional string name = 2 [default = "a \\"quoted\\" n\\303\\251me"];
  optional int32 level = 3 [default = -7];
  optional float ratio = 4 [default = inf];
  optional bytes magic = 5 [default = "\\001\\377"];
  optional Kind kind = 6 [default = ADMIN];
  repeated sint32 deltas = 7 [packed = true];
  enum Kind { USER = 1; ADMIN = 2; }
  extensions 100 to 199;
  extensions 1000 to max;
}
extend Account { optional string note = 100; }
'''

EDITION = '''edition = "2023";
package ed;
option features.field_presence = IMPLICIT;
message Meter {
  string id = 1;
  int32 reading = 2 [features.field_presence = EXPLICIT];
  int64 serial = 3 [features.field_presence = LEGACY_REQUIRED];
  repeated int32 samples = 4 [features.repeated_field_encoding = EXPANDED];
}
'''


OPTIONS = '''syntax = "proto3";
package meta;
import "google/protobuf/descriptor.proto";
extend google.protobuf.FieldOptions { string pii = 50001; }
extend google.protobuf.MessageOptions { int32 retention_days = 50002; }
'''


def _normalized(fd):
    """``fd`` without what printing does not keep: the file name, default json_names."""
    fd = descriptor_pb2.FileDescriptorProto.FromString(fd.SerializeToString())
    fd.name = "x.proto"

    def clear(msgs):
        for m in msgs:
            for f in list(m.field) + list(m.extension):
                if f.json_name == default_json_name(f.name):
                    f.ClearField("json_name")
            clear(m.nested_type)
    clear(fd.message_type)
    for f in fd.extension:
        if f.json_name == default_json_name(f.name):
            f.ClearField("json_name")
    return fd


@pytest.mark.parametrize("source", [PROTO3, PROTO2, EDITION, OPTIONS], ids=["proto3", "proto2", "edition2023", "extend"])
def test_printed_text_compiles_to_the_same_descriptor(source):
    original = compile_proto(source, {})
    printed = to_proto_text(original)
    again = compile_proto(printed, {})
    assert _normalized(again) == _normalized(original), printed
    assert to_proto_text(again) == printed


USES_OPTIONS = '''syntax = "proto3";
package app;
import "meta/options.proto";
message Customer {
  option (meta.retention_days) = 30;
  string email = 1 [(meta.pii) = "email", deprecated = true];
}
'''


def test_custom_options_declared_in_an_import_are_kept():
    deps = {"meta/options.proto": OPTIONS}
    fd, imports = compile_with_imports(USES_OPTIONS, deps)
    printed = to_proto_text(fd, imports)
    assert "  option (.meta.retention_days) = 30;" in printed.splitlines()
    assert '  string email = 1 [deprecated = true, (.meta.pii) = "email"];' in printed.splitlines()
    again, _ = compile_with_imports(printed, deps)
    assert _normalized(again) == _normalized(fd)
    sent = base64.b64encode(fd.SerializeToString()).decode()
    assert to_proto_text(*compile_with_imports(sent, deps)) == printed


def test_printed_text_reads_as_proto_source():
    printed = to_proto_text(compile_proto(PROTO3, {}))
    assert printed.startswith('syntax = "proto3";\npackage shop.v1;\n\nimport "google/protobuf/timestamp.proto";\n')
    for line in ("  map<string, int64> counts = 3;", "  map<int32, .shop.v1.Order.Line> lines_by_no = 4;",
                 "  optional double discount = 6;", "  oneof payment {", "    string card = 7;",
                 '  bytes blob = 10 [json_name = "payload"];', "  reserved 20, 30 to 40, 100 to max;",
                 "  rpc Watch(stream .shop.v1.Order) returns (stream .shop.v1.Order);",
                 "  SHIPPED = 2 [deprecated = true];", 'option java_package = "com.example.shop";'):
        assert line in printed.splitlines(), (line, printed)
    assert "CountsEntry" not in printed and "_discount" not in printed


def test_a_generated_modules_descriptor_prints_like_its_source():
    """What confluent-kafka's serializer sends: the generated module's descriptor (no json_name,
    another file name) prints as the text protoc's own descriptor of the source prints."""
    from google.protobuf import timestamp_pb2
    sent = descriptor_pb2.FileDescriptorProto.FromString(timestamp_pb2.DESCRIPTOR.serialized_pb)
    assert to_proto_text(sent) == to_proto_text(compile_proto(to_proto_text(sent), {}))


def run(coro):
    return asyncio.new_event_loop().run_until_complete(coro)


class _Log:
    def __init__(self):
        self.state, self.records = RegistryState(), []

    async def write(self, batch):
        for key, value in batch:
            self.records.append((key, value))
            self.state.apply(len(self.records) - 1, key, value)


def test_either_form_is_stored_as_proto_text_under_one_id():
    log = _Log()
    sr = SchemaRegistry(log.state, log.write)
    fd = compile_proto(PROTO3, {})
    as_text = {"schemaType": "PROTOBUF", "schema": PROTO3}
    as_descriptor = {"schemaType": "PROTOBUF", "schema": base64.b64encode(fd.SerializeToString()).decode()}
    first = run(sr.register("orders-value", as_descriptor))
    assert run(sr.register("orders-value", as_text)) == first
    assert run(sr.register("other-value", as_text)) == first
    assert len(log.records) == 2
    stored = json.loads(log.records[0][1])
    assert stored["schema"] == to_proto_text(fd) and stored["schemaType"] == "PROTOBUF"
    assert sr.lookup("orders-value", as_text).id == first
    sv = sr.schema_by_id(first)
    assert sr.schema_text(sv, None) == stored["schema"]
    served = descriptor_pb2.FileDescriptorProto.FromString(base64.b64decode(sr.schema_text(sv, "serialized")))
    assert _normalized(served) == _normalized(fd)


def test_a_descriptor_protoc_refuses_is_invalid():
    from kafpy.registry.errors import RestError
    log = _Log()
    sr = SchemaRegistry(log.state, log.write)
    fd = compile_proto(PROTO3, {})
    fd.message_type[0].field[0].type_name = ".nowhere.Missing"
    fd.message_type[0].field[0].type = descriptor_pb2.FieldDescriptorProto.TYPE_MESSAGE
    body = {"schemaType": "PROTOBUF", "schema": base64.b64encode(fd.SerializeToString()).decode()}
    with pytest.raises(RestError) as e:
        run(sr.register("s", body))
    assert e.value.code == 42201 and not log.records


def test_a_descriptor_an_earlier_kafpy_stored_is_the_same_schema():
    """``_schemas`` written before schemas were stored as text holds base64 descriptors: the
    same schema registered again (either form) keeps its id and version."""
    from kafpy.registry import records
    from kafpy.registry.records import SchemaValue
    log = _Log()
    sr = SchemaRegistry(log.state, log.write)
    old = base64.b64encode(compile_proto(PROTO3, {}).SerializeToString()).decode()
    run(log.write([(records.schema_key("old-value", 1), SchemaValue("old-value", 1, 7, old, "PROTOBUF").to_bytes())]))
    assert run(sr.register("old-value", {"schemaType": "PROTOBUF", "schema": PROTO3})) == 7
    assert run(sr.register("new-value", {"schemaType": "PROTOBUF", "schema": PROTO3})) == 7
    assert sr.lookup("old-value", {"schemaType": "PROTOBUF", "schema": old}).version == 1
    assert len(log.records) == 2
