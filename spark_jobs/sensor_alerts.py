"""Oil-rig sensor alerts: readings over thresholds to a `warnings` topic, per-rig windows to
another topic, through Spark's stock Kafka source and sink.

Input (one JSON object per Kafka record value, as the rigs send it):
    {"event_ID": 122, "hcid": 63, "timestamp": "2015-01-01 00:00:02", "production": 47,
     "sensor_readings": {"pressure": 107, "temperature": 30, "oil_percentage": 18},
     "injection_vol": 15367}
`injection_vol` may also sit inside `sensor_readings`. Records that are not such JSON, or
lack `event_ID`, `hcid` or a parseable `timestamp`, are dropped.

Queries (each keeps its own directory under `--checkpoint`):
- `alerts`: every reading with a value over a threshold, to `--alerts-topic` (key = hcid,
  value = JSON with the reading and the list of `exceeded` sensors). Stateless.
- `rig-stats`: per rig and event-time window (`--window`, sliding with `--slide`), counts,
  averages and maxima, emitted once the watermark (`--watermark` behind the newest event time
  seen) passes the window's end; later readings for a closed window are dropped.
- With `--alerts-dir` / `--stats-dir`, the same rows also go to Parquet file sinks, whose
  commit log makes a restart from the checkpoint exactly-once.
"""
from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

from kafpy.spark_jobs import session

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession
    from pyspark.sql.streaming import DataStreamWriter, StreamingQuery
    from pyspark.sql.types import StructType

DEFAULT_INPUT_TOPIC = "sensor"
DEFAULT_ALERTS_TOPIC = "warnings"
DEFAULT_STATS_TOPIC = "rig-stats"
TIMESTAMP_FORMAT = "yyyy-MM-dd HH:mm:ss"
SENSORS = ("pressure", "temperature", "oil_percentage", "injection_vol")


@dataclass(frozen=True)
class Thresholds:
    """Upper limits per sensor; None disables a sensor's check."""

    pressure: float | None = 120.0
    temperature: float | None = 100.0
    oil_percentage: float | None = None
    injection_vol: float | None = None

    def active(self) -> dict[str, float]:
        return {name: getattr(self, name) for name in SENSORS
                if getattr(self, name) is not None}

    def exceeded(self, reading: dict[str, float | None]) -> list[str]:
        """Which sensors of a plain reading dict are over their limit (the job's rule, in
        Python, for generators and tests)."""
        return [name for name, limit in self.active().items()
                if (value := reading.get(name)) is not None and value > limit]


def reading_schema() -> StructType:
    from pyspark.sql.types import (DoubleType, LongType, StringType, StructField,
                                   StructType)
    readings = StructType([StructField(name, DoubleType()) for name in SENSORS])
    return StructType([
        StructField("event_ID", LongType()),
        StructField("hcid", LongType()),
        StructField("timestamp", StringType()),
        StructField("production", DoubleType()),
        StructField("sensor_readings", readings),
        StructField("injection_vol", DoubleType()),
    ])


def parse_readings(raw: DataFrame) -> DataFrame:
    """Kafka source rows -> one row per valid reading: event_ID, hcid, event_time, production,
    pressure, temperature, oil_percentage, injection_vol, kafka_partition, kafka_offset."""
    from pyspark.sql import functions as F

    parsed = raw.select(
        F.from_json(F.col("value").cast("string"), reading_schema()).alias("r"),
        F.col("partition").alias("kafka_partition"), F.col("offset").alias("kafka_offset"))
    r = F.col("r")
    event_time = F.coalesce(F.try_to_timestamp(r["timestamp"], F.lit(TIMESTAMP_FORMAT)),
                            F.try_to_timestamp(r["timestamp"]))
    return parsed.select(
        r["event_ID"].alias("event_ID"),
        r["hcid"].alias("hcid"),
        event_time.alias("event_time"),
        r["production"].alias("production"),
        r["sensor_readings"]["pressure"].alias("pressure"),
        r["sensor_readings"]["temperature"].alias("temperature"),
        r["sensor_readings"]["oil_percentage"].alias("oil_percentage"),
        F.coalesce(r["injection_vol"], r["sensor_readings"]["injection_vol"]).alias(
            "injection_vol"),
        "kafka_partition", "kafka_offset",
    ).where(F.col("event_ID").isNotNull() & F.col("hcid").isNotNull()
            & F.col("event_time").isNotNull())


def alerts(readings: DataFrame, thresholds: Thresholds) -> DataFrame:
    """Readings with at least one sensor over its threshold, plus `exceeded` (sensor names)."""
    from pyspark.sql import functions as F

    checks = [F.when(F.col(name) > F.lit(limit), F.lit(name))
              for name, limit in thresholds.active().items()]
    if not checks:
        raise ValueError("no threshold set: every sensor check is disabled")
    exceeded = F.filter(F.array(*checks), lambda x: x.isNotNull())
    return (readings.withColumn("exceeded", exceeded)
            .where(F.size("exceeded") > 0))


def rig_stats(readings: DataFrame, window: str, watermark: str, slide: str | None = None) -> DataFrame:
    """Per rig and event-time window aggregates; append mode emits a window once closed."""
    from pyspark.sql import functions as F

    w = (F.window("event_time", window, slide) if slide
         else F.window("event_time", window))
    return (readings.withWatermark("event_time", watermark)
            .groupBy(w.alias("window"), F.col("hcid"))
            .agg(F.count(F.lit(1)).alias("readings"),
                 F.sum("production").alias("production"),
                 F.avg("pressure").alias("avg_pressure"),
                 F.max("pressure").alias("max_pressure"),
                 F.avg("temperature").alias("avg_temperature"),
                 F.max("temperature").alias("max_temperature"),
                 F.avg("oil_percentage").alias("avg_oil_percentage"),
                 F.sum("injection_vol").alias("injection_vol"))
            .select(F.col("hcid"), F.col("window.start").alias("window_start"),
                    F.col("window.end").alias("window_end"), "readings", "production",
                    "avg_pressure", "max_pressure", "avg_temperature", "max_temperature",
                    "avg_oil_percentage", "injection_vol"))


def to_kafka_rows(df: DataFrame, key_column: str = "hcid") -> DataFrame:
    """key = the column as a string, value = the row as JSON (timestamps as the input's)."""
    from pyspark.sql import functions as F

    return df.select(F.col(key_column).cast("string").alias("key"),
                     F.to_json(F.struct(*[F.col(c) for c in df.columns]),
                               {"timestampFormat": TIMESTAMP_FORMAT}).alias("value"))


def read_stream(spark: SparkSession, args: argparse.Namespace, topic: str) -> DataFrame:
    reader = (spark.readStream.format("kafka")
              .option("kafka.bootstrap.servers", args.bootstrap_servers)
              .option("subscribe", topic)
              .option("startingOffsets", args.starting_offsets)
              .option("failOnDataLoss", str(args.fail_on_data_loss).lower()))
    if args.max_offsets_per_trigger:
        reader = reader.option("maxOffsetsPerTrigger", str(args.max_offsets_per_trigger))
    for key, value in session.kafka_options(args.kafka_option).items():
        reader = reader.option(key, value)
    return reader.load()


def kafka_writer(df: DataFrame, args: argparse.Namespace, topic: str, checkpoint: str, name: str,
                 mode: str) -> DataStreamWriter:
    writer = (df.writeStream.format("kafka").queryName(name).outputMode(mode)
              .option("kafka.bootstrap.servers", args.bootstrap_servers)
              .option("topic", topic).option("checkpointLocation", checkpoint))
    for key, value in session.kafka_options(args.kafka_option).items():
        if key.startswith("kafka."):
            writer = writer.option(key, value)
    return session.apply_trigger(writer, args.trigger)


def file_writer(df: DataFrame, args: argparse.Namespace, path: str, checkpoint: str, name: str
                ) -> DataStreamWriter:
    writer = (df.writeStream.format(args.file_format).queryName(name).outputMode("append")
              .option("path", path).option("checkpointLocation", checkpoint))
    return session.apply_trigger(writer, args.trigger)


def thresholds_from(args: argparse.Namespace) -> Thresholds:
    def limit(value: float | None) -> float | None:
        return None if value is None or value < 0 else value
    return Thresholds(pressure=limit(args.max_pressure),
                      temperature=limit(args.max_temperature),
                      oil_percentage=limit(args.max_oil_percentage),
                      injection_vol=limit(args.max_injection_vol))


def start_queries(spark: SparkSession, args: argparse.Namespace) -> list[StreamingQuery]:
    """Start the job's streaming queries on `spark`; returns them (callers wait or stop)."""
    cp = args.checkpoint.rstrip("/")
    # a runtime SQL setting, so it also applies to a session the caller built; a restart
    # keeps the value its checkpoint recorded
    spark.conf.set("spark.sql.shuffle.partitions", str(args.shuffle_partitions))
    # streaming queries run without adaptive execution anyway; saying so up front spares
    # a warning per query start
    spark.conf.set("spark.sql.adaptive.enabled", "false")
    thresholds = thresholds_from(args)
    queries: list[StreamingQuery] = []

    alert_rows = alerts(parse_readings(read_stream(spark, args, args.input_topic)), thresholds)
    alert_cols = ["event_ID", "hcid", "event_time", "exceeded", "production", *SENSORS]
    queries.append(kafka_writer(to_kafka_rows(alert_rows.select(*alert_cols)), args,
                                args.alerts_topic, f"{cp}/alerts", "sensor_alerts", "append")
                   .start())
    stats = rig_stats(parse_readings(read_stream(spark, args, args.input_topic)),
                      args.window, args.watermark, args.slide)
    queries.append(kafka_writer(to_kafka_rows(stats), args, args.stats_topic,
                                f"{cp}/rig-stats", "sensor_rig_stats", "append").start())
    if args.alerts_dir:
        rows = alerts(parse_readings(read_stream(spark, args, args.input_topic)), thresholds)
        queries.append(file_writer(rows.select(*alert_cols, "kafka_partition", "kafka_offset"),
                                   args, args.alerts_dir, f"{cp}/alerts-files",
                                   "sensor_alert_files").start())
    if args.stats_dir:
        rows = rig_stats(parse_readings(read_stream(spark, args, args.input_topic)),
                         args.window, args.watermark, args.slide)
        queries.append(file_writer(rows, args, args.stats_dir, f"{cp}/stats-files",
                                   "sensor_stat_files").start())
    return queries


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m kafpy.spark_jobs.sensor_alerts",
        description="Read oil-rig sensor readings (JSON) from Kafka; write readings over a "
                    "threshold to an alerts topic and per-rig event-time window aggregates "
                    "to a stats topic (and optionally both to Parquet).",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    session.add_common_arguments(p)
    p.add_argument("--input-topic", default=DEFAULT_INPUT_TOPIC,
                   help="topic the rigs' readings arrive on")
    p.add_argument("--alerts-topic", default=DEFAULT_ALERTS_TOPIC,
                   help="topic alerts are written to (key = hcid, value = JSON)")
    p.add_argument("--stats-topic", default=DEFAULT_STATS_TOPIC,
                   help="topic per-rig window aggregates are written to")
    p.add_argument("--max-pressure", type=float, default=Thresholds.pressure,
                   help="alert when pressure is above this (negative: no check)")
    p.add_argument("--max-temperature", type=float, default=Thresholds.temperature,
                   help="alert when temperature is above this (negative: no check)")
    p.add_argument("--max-oil-percentage", type=float, default=-1,
                   help="alert when oil_percentage is above this (negative: no check)")
    p.add_argument("--max-injection-vol", type=float, default=-1,
                   help="alert when injection_vol is above this (negative: no check)")
    p.add_argument("--window", default="1 minute", help="event-time window length")
    p.add_argument("--slide", default=None,
                   help="window slide (default: tumbling windows, slide = length)")
    p.add_argument("--watermark", default="30 seconds",
                   help="how far behind the newest event time a reading may arrive and "
                        "still count; a window is emitted once the watermark passes its end")
    p.add_argument("--starting-offsets", default="earliest",
                   help="where a new checkpoint starts: earliest, latest or Spark's JSON "
                        "per partition; a restart resumes from the checkpoint")
    p.add_argument("--max-offsets-per-trigger", type=int, default=None,
                   help="cap on records read per micro-batch")
    p.add_argument("--fail-on-data-loss", default=True,
                   type=lambda s: s.lower() in ("1", "true", "yes"),
                   help="fail when records were deleted before being read (true/false)")
    p.add_argument("--alerts-dir", default=None, help="also write alerts to files here")
    p.add_argument("--stats-dir", default=None, help="also write window aggregates here")
    p.add_argument("--file-format", default="parquet", choices=["parquet", "json"],
                   help="format of the file sinks")
    session.add_trigger_arguments(p)
    return p


def main(argv: Sequence[str] | None = None, spark: SparkSession | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not thresholds_from(args).active():  # before paying for a JVM
        parser.error("every threshold is disabled")
    if spark is None:
        spark = session.build_session("sensor_alerts", master=args.master,
                                      shuffle_partitions=args.shuffle_partitions,
                                      log_level=args.log_level)
    session.run_queries(spark, start_queries(spark, args), args.timeout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
