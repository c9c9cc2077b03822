"""protocol.json_value: the narrowing helpers say what shape was expected."""
import json

import pytest

from kafpy.protocol.json_value import as_array, as_object


def test_objects_and_arrays_narrow_and_wrong_shapes_are_named():
    doc = json.loads('{"a": [1, {"b": null}]}')
    assert as_array(as_object(doc)["a"]) == [1, {"b": None}]
    with pytest.raises(ValueError, match="subject must be a JSON object, not list"):
        as_object([1], "subject")
    with pytest.raises(ValueError, match="value must be a JSON array, not str"):
        as_array("x")
