"""The KRaft side of a ZooKeeper to KRaft migration (KIP-866, Kafka 3.9's
``org.apache.kafka.metadata.migration``): the migration states the metadata log and the
``/migration`` znode record, and the driver's state machine."""
