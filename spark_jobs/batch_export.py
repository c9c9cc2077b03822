"""Export a range of a topic to Parquet with a batch `spark.read.format("kafka")`.

The range is Spark's per-partition offsets JSON, built from `--partition P:START:END`
options (START/END are offsets; `earliest` and `latest` also work), or given whole with
`--starting-offsets` / `--ending-offsets` (`earliest`, `latest`, or JSON such as
`{"clicks":{"0":10,"1":-2}}`, where -2 means earliest and -1 latest). START is included,
END is not. Rows keep the Kafka coordinates (`topic, partition, offset, timestamp,
timestampType`), the key and value (as UTF-8 strings unless `--binary`) and, with
`--include-headers`, the record headers. A batch read keeps no checkpoint: the offsets on
the command line are the whole state.
"""
from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Sequence

from kafpy.spark_jobs import session

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

SPECIAL = {"earliest": -2, "latest": -1}


def parse_partition_spec(spec: str) -> tuple[int, int, int]:
    """`"3:100:200"` -> (3, 100, 200); `earliest`/`latest` become -2/-1."""
    parts = spec.split(":")
    if len(parts) != 3:
        raise argparse.ArgumentTypeError(f"expected PARTITION:START:END, got {spec!r}")

    def offset(text: str) -> int:
        text = text.strip().lower()
        if text in SPECIAL:
            return SPECIAL[text]
        value = int(text)
        if value < 0:
            raise argparse.ArgumentTypeError(f"negative offset in {spec!r}")
        return value

    try:
        return int(parts[0]), offset(parts[1]), offset(parts[2])
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"bad partition range {spec!r}: {exc}") from None


def offsets_json(topic: str, ranges: Sequence[tuple[int, int, int]]) -> tuple[str, str]:
    """Spark's startingOffsets / endingOffsets JSON for per-partition ranges of one topic."""
    if len({p for p, _, _ in ranges}) != len(ranges):
        raise ValueError("a partition is given more than once")
    for p, start, end in ranges:
        if start == -1:
            raise ValueError(f"partition {p}: a batch range cannot start at latest")
        if end == -2:
            raise ValueError(f"partition {p}: a batch range cannot end at earliest")
        if start >= 0 and end >= 0 and end < start:
            raise ValueError(f"partition {p}: end {end} is before start {start}")
    starting = {topic: {str(p): s for p, s, _ in sorted(ranges)}}
    ending = {topic: {str(p): e for p, _, e in sorted(ranges)}}
    return json.dumps(starting), json.dumps(ending)


def read_range(spark: SparkSession, args: argparse.Namespace) -> DataFrame:
    from pyspark.sql import functions as F

    if args.partition:
        starting, ending = offsets_json(args.topic, args.partition)
    else:
        starting, ending = args.starting_offsets, args.ending_offsets
    reader = (spark.read.format("kafka")
              .option("kafka.bootstrap.servers", args.bootstrap_servers)
              .option("startingOffsets", starting).option("endingOffsets", ending)
              .option("failOnDataLoss", str(args.fail_on_data_loss).lower())
              .option("includeHeaders", str(args.include_headers).lower()))
    if args.partition:
        reader = reader.option("assign", json.dumps(
            {args.topic: sorted(p for p, _, _ in args.partition)}))
    else:
        reader = reader.option("subscribe", args.topic)
    if args.min_partitions:
        reader = reader.option("minPartitions", str(args.min_partitions))
    for key, value in session.kafka_options(args.kafka_option).items():
        reader = reader.option(key, value)
    df = reader.load()
    if not args.binary:
        df = (df.withColumn("key", F.col("key").cast("string"))
              .withColumn("value", F.col("value").cast("string")))
    return df


def export(spark: SparkSession, args: argparse.Namespace) -> int:
    """Write the range; returns the number of rows written."""
    df = read_range(spark, args).cache()
    try:
        rows = df.count()
        writer = df.write.mode(args.mode)
        if args.partition_by_kafka_partition:
            writer = writer.partitionBy("partition")
        writer.format(args.file_format).save(args.output_dir)
    finally:
        df.unpersist()
    return rows


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m kafpy.spark_jobs.batch_export",
        description="Write a range of a Kafka topic (per-partition start/end offsets) to "
                    "Parquet with a batch read.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    session.add_common_arguments(p, checkpoint_required=False)
    p.add_argument("--topic", required=True, help="topic to export")
    p.add_argument("--output-dir", required=True, help="where the files go")
    p.add_argument("--partition", action="append", type=parse_partition_spec, default=[],
                   metavar="P:START:END",
                   help="export offsets START (incl.) to END (excl.) of partition P; "
                        "repeat per partition; START/END may be earliest/latest")
    p.add_argument("--starting-offsets", default="earliest",
                   help="without --partition: earliest or Spark's JSON per partition")
    p.add_argument("--ending-offsets", default="latest",
                   help="without --partition: latest or Spark's JSON per partition")
    p.add_argument("--include-headers", action="store_true", help="keep record headers")
    p.add_argument("--binary", action="store_true",
                   help="keep key and value as bytes (default: UTF-8 strings)")
    p.add_argument("--min-partitions", type=int, default=None,
                   help="split the read into at least this many Spark tasks")
    p.add_argument("--mode", default="errorifexists",
                   choices=["errorifexists", "overwrite", "append", "ignore"],
                   help="what to do when --output-dir already has data")
    p.add_argument("--file-format", default="parquet", choices=["parquet", "json"])
    p.add_argument("--partition-by-kafka-partition", action="store_true",
                   help="lay files out as partition=<n>/ directories")
    p.add_argument("--fail-on-data-loss", default=True,
                   type=lambda s: s.lower() in ("1", "true", "yes"),
                   help="fail when part of the range was deleted (true/false)")
    return p


def main(argv: Sequence[str] | None = None, spark: SparkSession | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.partition:
        try:
            offsets_json(args.topic, args.partition)
        except ValueError as exc:
            parser.error(str(exc))
    if spark is None:
        spark = session.build_session("batch_export", master=args.master,
                                      shuffle_partitions=args.shuffle_partitions,
                                      log_level=args.log_level)
    rows = export(spark, args)
    print(f"exported {rows} records of {args.topic} to {args.output_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
