"""The primary assignment of the election (Confluent's JSON, the leader primary when
eligible) and JSON Schema compatibility rules."""
import json

from kafpy.registry.election import Identity, assign
from kafpy.registry.json_compat import incompatibilities


def test_leader_assigns_itself_in_confluents_json():
    members = {"m1": Identity("a", 1), "m2": Identity("b", 2)}
    primary, body = assign("m2", members)
    assert primary == "m2"
    assert json.loads(body) == {"version": 1, "error": 0, "master": "m2",
                                "master_identity": {"version": 1, "host": "b", "port": 2,
                                                    "master_eligibility": True, "scheme": "http"}}


def test_ineligible_leader_picks_an_eligible_member():
    members = {"m1": Identity("a", 1, eligible=False), "m3": Identity("c", 3), "m2": Identity("b", 2)}
    assert assign("m1", members)[0] == "m2"
    assert assign("m1", {"m1": Identity("a", 1, eligible=False)})[0] is None


def obj(props, required=(), closed=False):
    s = {"type": "object", "properties": props, "required": list(required)}
    if closed:
        s["additionalProperties"] = False
    return s


def test_json_rules():
    s = {"type": "string"}
    i = {"type": "integer"}
    n = {"type": "number"}
    assert incompatibilities(n, i) == []                                   # widening
    assert incompatibilities(i, n) != []                                   # narrowing
    assert incompatibilities(obj({"a": s}, ["a"]), obj({"a": s})) != []    # required added
    assert incompatibilities(obj({"a": s}), obj({"a": s}, ["a"])) == []    # required dropped
    assert incompatibilities(obj({"a": s, "b": i}), obj({"a": s}, closed=True)) == []
    assert incompatibilities(obj({"a": s, "b": i}), obj({"a": s})) != []   # open writer may carry b
    assert incompatibilities(obj({"a": s}, closed=True), obj({"a": s, "b": i}, closed=True)) != []
    assert incompatibilities({"enum": ["x", "y"]}, {"enum": ["x"]}) == []
    assert incompatibilities({"enum": ["x"]}, {"enum": ["x", "y"]}) != []
    assert incompatibilities({"type": "string", "maxLength": 5}, {"type": "string", "maxLength": 10}) != []
    assert incompatibilities(True, {"type": "string"}) == []
