"""kafka-consumer-groups, in the parts of Kafka's org.apache.kafka.tools.consumer.group:
options, the shared service, and one module per action family (describe, delete,
reset-offsets). The entry point is scripts.kafka_consumer_groups."""
