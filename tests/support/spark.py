"""Ending a test's SparkSession together with its JVM.

PySpark keeps the gateway JVM it launched after ``SparkSession.stop()``, until the Python
process exits; in a pytest worker that outlives every test that used it, and the suite's
survivors check (tests/support/survivors.py) rightly names it. The gateway JVM exits when
its stdin closes (Spark's PythonGatewayServer reads it to notice a dead driver).
"""
from __future__ import annotations

import subprocess
from typing import Any


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
