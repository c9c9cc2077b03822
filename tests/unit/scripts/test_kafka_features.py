"""kafka-features' command line and output, without a cluster: the texts are Apache Kafka
4.4's FeatureCommand's (the integration tests compare them with the Java tool's)."""
from __future__ import annotations

import io

import pytest

from kafpy.protocol import messages
from kafpy.scripts import kafka_features as kf

A = messages.ApiVersionsResponse


def _run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = kf.run(argv, out, err)
    return code, out.getvalue(), err.getvalue()


def test_describe_lines_sorted_by_feature_with_release_names() -> None:
    resp = A(supported_features=[A.SupportedFeatureKey(name="metadata.version", min_version=7, max_version=33),
                                 A.SupportedFeatureKey(name="kraft.version", min_version=0, max_version=1)],
             finalized_features=[A.FinalizedFeatureKey(name="metadata.version", max_version_level=33,
                                                       min_version_level=33)],
             finalized_features_epoch=12)
    assert kf.format_describe(resp) == (
        "Feature: kraft.version                             SupportedMinVersion: 0                "
        "SupportedMaxVersion: 1                FinalizedVersionLevel: 0                Epoch: 12\n"
        "Feature: metadata.version                          SupportedMinVersion: 3.3-IV3          "
        "SupportedMaxVersion: 4.4-IV2          FinalizedVersionLevel: 4.4-IV2          Epoch: 12\n")
    assert kf.level_to_string("metadata.version", 99) == "UNKNOWN 99"


def test_release_version_plans_every_production_feature() -> None:
    out = io.StringIO()
    up = kf.plan_updates({"release_version": "3.9"}, kf.UPGRADE, out)
    assert up == {"metadata.version": 21, "kraft.version": 1}  # no request to upgrade a feature to 0
    down = kf.plan_updates({"release_version": "3.9"}, kf.SAFE_DOWNGRADE, out)
    assert down["group.version"] == 0 and down["metadata.version"] == 21
    with pytest.raises(kf.TerseFailure, match="Can not specify `release-version` with other feature flags."):
        kf.plan_updates({"release_version": "3.9", "feature": ["a=1"]}, kf.UPGRADE, out)
    with pytest.raises(kf.TerseFailure, match=r"^Unknown metadata.version 2.8. Supported metadata.version are 3.3-IV3, "):
        kf.plan_updates({"release_version": "2.8"}, kf.UPGRADE, out)


def test_feature_arguments_as_feature_command_parses_them() -> None:
    out = io.StringIO()
    assert kf.plan_updates({"metadata": "3.9", "feature": ["group.version = 1"]}, kf.UPGRADE, out) == {
        "metadata.version": 21, "group.version": 1}
    assert out.getvalue() == " `metadata` flag is deprecated and may be removed in a future release.\n"
    with pytest.raises(kf.TerseFailure, match="equals sign not found"):
        kf.plan_updates({"feature": ["x"]}, kf.UPGRADE, out)
    with pytest.raises(kf.TerseFailure, match="unable to parse y as a short"):
        kf.plan_updates({"feature": ["x=y"]}, kf.UPGRADE, out)
    with pytest.raises(kf.TerseFailure, match="Feature x was specified more than once."):
        kf.plan_updates({"feature": ["x=1", "x=2"]}, kf.UPGRADE, out)


def test_update_report_sorted_with_failures_counted() -> None:
    text, failures = kf.report_updates("upgrade", {"b": 2, "a": 1},
                                       {"b": None, "a": "Invalid update version 1 for feature a."}, dry_run=False)
    assert text == "Could not upgrade a to 1. Invalid update version 1 for feature a.\nb was upgraded to 2.\n"
    assert failures == 1
    text, _ = kf.report_updates("disable", {"a": 0}, {"a": None}, dry_run=True)
    assert text == "a can be disabled.\n"
    text, _ = kf.report_updates("downgrade", {"a": 0}, {"a": "no"}, dry_run=True)
    assert text == "Can not downgrade a to 0. no\n"


def test_offline_commands() -> None:
    code, out, _ = _run(["--bootstrap-server", "localhost:1", "version-mapping", "--release-version", "3.9"])
    assert code == 0 and out.splitlines()[:2] == ["metadata.version=21 (3.9)", "kraft.version=1"]
    code, _, err = _run(["--bootstrap-server", "localhost:1", "version-mapping", "--release-version", "2.0"])
    assert (code, err[:64]) == (1, "Unknown metadata.version '2.0'. Supported metadata.version are: ")
    code, out, _ = _run(["--bootstrap-server", "localhost:1", "feature-dependencies",
                         "--feature", "eligible.leader.replicas.version=1", "--feature", "metadata.version=21"])
    assert out == ("eligible.leader.replicas.version=1 requires:\n    metadata.version=23 (4.0-IV1)\n"
                   "metadata.version=21 (3.9-IV0) has no dependencies.\n")
    assert _run(["--bootstrap-server", "x:1", "feature-dependencies", "--feature", "nope=1"])[2] == (
        "Unknown feature: nope\n")


def test_nothing_to_update_is_refused_before_any_request() -> None:
    assert _run(["--bootstrap-server", "localhost:1", "disable"]) == (
        1, "", "You must specify at least one feature to disable\n")


def test_command_line_errors() -> None:
    assert _run(["describe"]) == (1, "", "Command line error: You must specify either --bootstrap-controller "
                                         "or --bootstrap-server.. Type --help for help.")
    assert _run(["version-mapping"])[0] == 0  # the offline commands need no bootstrap
    assert _run(["--bootstrap-server", "a:1", "describe", "--node-id", "-1"])[2] == (
        "Invalid node id -1: must be non-negative.\n")
    assert _run(["--bootstrap-server", "a:1", "frob"])[2].startswith("Command line error: invalid choice: 'frob'")
    assert _run(["--bootstrap-server", "a:1", "feature-dependencies"])[2] == (
        "Command line error: argument --feature is required. Type --help for help.")
