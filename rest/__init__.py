"""The REST Proxy: Confluent's v2 and v3 HTTP APIs over the cluster.

Like the Schema Registry it is a client of the cluster (aiokafka producers, consumers and an
admin client on the caller's loop), so ``kafpy.broker`` depends on it only where it mounts
the routes. Embedded Avro and JSON Schema formats go through a Schema Registry by URL
(``registry_client``), in the same process or not.

Modules: ``errors`` (content types, Confluent's error codes), ``registry_client``,
``formats`` (the embedded formats' encoding), ``consumers`` (v2 consumer instances),
``v2`` and ``v3`` (the routes), ``app`` (put together).
"""
