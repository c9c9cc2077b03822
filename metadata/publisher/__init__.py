"""What a KRaft node does with each metadata image it loads besides serving it (Kafka's
``org.apache.kafka.image.publisher``): deciding when to write a snapshot of it and writing
it."""
