"""The metadata image, as Kafka's ``org.apache.kafka.image`` package: immutable images of the
cluster's metadata (features, brokers and controllers, topics and partitions, configs, client
quotas, producer ids, ACLs, SCRAM credentials, delegation tokens), the ``MetadataDelta`` that
replays metadata records onto an image, and the records an image writes back into a snapshot.

Pure and socket-free: the input is the generated record messages of
``kafpy.protocol.messages`` (KIND ``metadata``), never bytes."""
