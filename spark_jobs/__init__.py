"""PySpark jobs over Spark's stock Kafka source and sink (spark-sql-kafka-0-10).

Each job runs as `python -m kafpy.spark_jobs.<name> --bootstrap-servers ... [--checkpoint ...]`:
- `sensor_alerts`: oil-rig readings -> alerts over thresholds and per-rig window aggregates;
- `pageview_counts`: clickstream -> page views per user and event-time window;
- `batch_export`: a per-partition offset range of a topic -> Parquet (batch read).
`generate` produces their input (`sensor`, `pageviews`; batch_export reads either topic) and
`session` finds the connector jars and builds the local SparkSession. pyspark is imported
only when a job starts Spark, so `--help` and argument errors cost no JVM.
"""
