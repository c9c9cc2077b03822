from __future__ import annotations

from tests.support.spark import LIGHT_DRIVER_SUBMIT_ARGS, light_spark_driver


def test_light_spark_driver_sets_submit_args_unless_chosen():
    environ: dict[str, str] = {}
    assert light_spark_driver(environ)
    assert environ == {"PYSPARK_SUBMIT_ARGS": LIGHT_DRIVER_SUBMIT_ARGS}
    assert LIGHT_DRIVER_SUBMIT_ARGS.endswith(" pyspark-shell")
    chosen = {"PYSPARK_SUBMIT_ARGS": "--driver-memory 2g pyspark-shell"}
    assert not light_spark_driver(chosen)
    assert chosen == {"PYSPARK_SUBMIT_ARGS": "--driver-memory 2g pyspark-shell"}
