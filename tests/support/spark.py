"""Ending a test's SparkSession together with its JVM.

PySpark keeps the gateway JVM it launched after ``SparkSession.stop()``, until the Python
process exits; in a pytest worker that outlives every test that used it, and the suite's
survivors check (tests/support/survivors.py) rightly names it. The gateway JVM exits when
its stdin closes (Spark's PythonGatewayServer reads it to notice a dead driver).
"""
from __future__ import annotations

import os
import subprocess
from collections.abc import MutableMapping
from typing import Any

#: The driver JVM of every Spark the suite starts (its session, the jobs it runs from the
#: command line, the docs' example) compiles with C1 alone: the suite's jobs read a few
#: hundred records, and C2 spent more CPU on Spark's own code than it saved
#: (tests/integration/spark/test_kafka_source.py: the Spark JVM 46.9 -> 19.2 CPU-s).
LIGHT_DRIVER_SUBMIT_ARGS = "--driver-java-options -XX:TieredStopAtLevel=1 pyspark-shell"


def light_spark_driver(environ: MutableMapping[str, str] = os.environ) -> bool:
    """Set PYSPARK_SUBMIT_ARGS (what pyspark passes spark-submit when it launches the driver
    JVM) to LIGHT_DRIVER_SUBMIT_ARGS, unless the environment already chose some. Returns
    whether it was set."""
    if environ.get("PYSPARK_SUBMIT_ARGS"):
        return False
    environ["PYSPARK_SUBMIT_ARGS"] = LIGHT_DRIVER_SUBMIT_ARGS
    return True


def stop_spark(spark: Any) -> None:
    """Stops ``spark`` and ends the gateway JVM this process launched for it."""
    from pyspark import SparkContext

    gateway = SparkContext._gateway
    spark.stop()
    if gateway is None:
        return
    gateway.shutdown()
    proc = getattr(gateway, "proc", None)
    if proc is not None:
        if proc.stdin is not None:
            proc.stdin.close()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
    SparkContext._gateway = None
    SparkContext._jvm = None
