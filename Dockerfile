# A kafpy broker image: `docker build -t kafpy .`, then
#   docker run -p 9092:9092 kafpy                                  # one standalone broker
#   docker run kafpy config/server-1.properties --override k=v     # any properties file / overrides
# docker-compose.yml runs the seeds' Lab 2 with it: ZooKeeper and three brokers.
FROM python:3.11-slim

WORKDIR /opt/kafpy
# Only what `pip install .` and the start scripts need (.dockerignore keeps the rest out).
COPY pyproject.toml README.md ./
COPY kafpy ./kafpy
COPY metrics ./metrics
COPY web ./web
COPY broker ./broker
COPY coordinator ./coordinator
COPY protocol ./protocol
COPY raft ./raft
COPY metadata ./metadata
COPY registry ./registry
COPY replication ./replication
COPY rest ./rest
COPY scripts ./scripts
COPY spark_jobs ./spark_jobs
COPY storage ./storage
COPY config ./config
RUN pip install --no-cache-dir . && mkdir -p logs

EXPOSE 9092 9093 9094
# Relative log.dirs (./logs/kafka-N in config/server-N.properties) land under /opt/kafpy/logs.
# The script execs the broker, so `docker stop` (SIGTERM) is a clean, controlled shutdown.
ENTRYPOINT ["scripts/kafka-server-start.sh"]
CMD ["config/server.properties"]
