"""Page views per user and event-time window from a clickstream topic.

Input: one JSON object per record value,
    {"user_id": "u007", "page": "/cart", "timestamp": "2015-01-01 00:03:12", ...}
(`timestamp` as "yyyy-MM-dd HH:mm:ss" or ISO 8601; records without user_id or a parseable
timestamp are dropped).

Output: one row per (user, window) once the watermark passes the window's end (append mode):
`user_id, window_start, window_end, views, distinct_pages`, to Parquet files under
`--output-dir` (exactly-once across restarts: the file sink's commit log sits beside the
data) and, with `--output-topic`, as JSON to Kafka (key = user_id).
The watermark is the newest event time seen (up to the previous micro-batch) minus
`--watermark`; a view whose window ended at or before it arrives too late: that window was
already emitted, and the view is dropped. Later views for windows still open are counted.
"""
from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Sequence

from kafpy.spark_jobs import session

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession
    from pyspark.sql.streaming import StreamingQuery
    from pyspark.sql.types import StructType

DEFAULT_INPUT_TOPIC = "clickstream"
TIMESTAMP_FORMAT = "yyyy-MM-dd HH:mm:ss"


def view_schema() -> StructType:
    from pyspark.sql.types import StringType, StructField, StructType
    return StructType([StructField(name, StringType()) for name in
                       ("user_id", "session_id", "page", "referrer", "timestamp")])


def parse_views(raw: DataFrame) -> DataFrame:
    from pyspark.sql import functions as F

    v = F.from_json(F.col("value").cast("string"), view_schema()).alias("v")
    parsed = raw.select(v)
    ts = F.col("v.timestamp")
    event_time = F.coalesce(F.try_to_timestamp(ts, F.lit(TIMESTAMP_FORMAT)),
                            F.try_to_timestamp(ts))
    return (parsed.select(F.col("v.user_id").alias("user_id"), F.col("v.page").alias("page"),
                          event_time.alias("event_time"))
            .where(F.col("user_id").isNotNull() & F.col("event_time").isNotNull()))


def counts(views: DataFrame, window: str, watermark: str) -> DataFrame:
    from pyspark.sql import functions as F

    return (views.withWatermark("event_time", watermark)
            .groupBy(F.window("event_time", window).alias("window"), F.col("user_id"))
            .agg(F.count(F.lit(1)).alias("views"),
                 F.size(F.collect_set("page")).alias("distinct_pages"))
            .select("user_id", F.col("window.start").alias("window_start"),
                    F.col("window.end").alias("window_end"), "views", "distinct_pages"))


def read_stream(spark: SparkSession, args: argparse.Namespace) -> DataFrame:
    reader = (spark.readStream.format("kafka")
              .option("kafka.bootstrap.servers", args.bootstrap_servers)
              .option("subscribe", args.input_topic)
              .option("startingOffsets", args.starting_offsets)
              .option("failOnDataLoss", str(args.fail_on_data_loss).lower()))
    if args.max_offsets_per_trigger:
        reader = reader.option("maxOffsetsPerTrigger", str(args.max_offsets_per_trigger))
    for key, value in session.kafka_options(args.kafka_option).items():
        reader = reader.option(key, value)
    return reader.load()


def start_queries(spark: SparkSession, args: argparse.Namespace) -> list[StreamingQuery]:
    from pyspark.sql import functions as F

    cp = args.checkpoint.rstrip("/")
    # a runtime SQL setting, so it also applies to a session the caller built; a restart
    # keeps the value its checkpoint recorded
    spark.conf.set("spark.sql.shuffle.partitions", str(args.shuffle_partitions))
    # streaming queries run without adaptive execution anyway; saying so up front spares
    # a warning per query start
    spark.conf.set("spark.sql.adaptive.enabled", "false")
    queries: list[StreamingQuery] = []
    if args.output_dir:
        rows = counts(parse_views(read_stream(spark, args)), args.window, args.watermark)
        writer = (rows.writeStream.format(args.file_format).queryName("pageview_counts_files")
                  .outputMode("append").option("path", args.output_dir)
                  .option("checkpointLocation", f"{cp}/files"))
        queries.append(session.apply_trigger(writer, args.trigger).start())
    if args.output_topic:
        rows = counts(parse_views(read_stream(spark, args)), args.window, args.watermark)
        out = rows.select(F.col("user_id").alias("key"),
                          F.to_json(F.struct(*[F.col(c) for c in rows.columns]),
                                    {"timestampFormat": TIMESTAMP_FORMAT}).alias("value"))
        writer = (out.writeStream.format("kafka").queryName("pageview_counts_kafka")
                  .outputMode("append")
                  .option("kafka.bootstrap.servers", args.bootstrap_servers)
                  .option("topic", args.output_topic)
                  .option("checkpointLocation", f"{cp}/kafka"))
        for key, value in session.kafka_options(args.kafka_option).items():
            if key.startswith("kafka."):
                writer = writer.option(key, value)
        queries.append(session.apply_trigger(writer, args.trigger).start())
    return queries


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m kafpy.spark_jobs.pageview_counts",
        description="Count page views per user and event-time window from a clickstream "
                    "topic; late views beyond the watermark are dropped.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    session.add_common_arguments(p)
    p.add_argument("--input-topic", default=DEFAULT_INPUT_TOPIC, help="clickstream topic")
    p.add_argument("--output-dir", default=None,
                   help="directory of the file sink (exactly-once across restarts)")
    p.add_argument("--output-topic", default=None,
                   help="also write the counts as JSON to this Kafka topic")
    p.add_argument("--file-format", default="parquet", choices=["parquet", "json"])
    p.add_argument("--window", default="5 minutes", help="tumbling event-time window length")
    p.add_argument("--watermark", default="10 minutes",
                   help="how late (behind the newest event time) a view may arrive")
    p.add_argument("--starting-offsets", default="earliest",
                   help="earliest, latest or Spark's per-partition JSON (new checkpoint only)")
    p.add_argument("--max-offsets-per-trigger", type=int, default=None,
                   help="cap on records read per micro-batch")
    p.add_argument("--fail-on-data-loss", default=True,
                   type=lambda s: s.lower() in ("1", "true", "yes"),
                   help="fail when records were deleted before being read (true/false)")
    session.add_trigger_arguments(p)
    return p


def main(argv: Sequence[str] | None = None, spark: SparkSession | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not args.output_dir and not args.output_topic:
        parser.error("give --output-dir and/or --output-topic")
    if spark is None:
        spark = session.build_session("pageview_counts", master=args.master,
                                      shuffle_partitions=args.shuffle_partitions,
                                      log_level=args.log_level)
    session.run_queries(spark, start_queries(spark, args), args.timeout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
