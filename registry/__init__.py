"""The Schema Registry: Confluent's REST API over a compacted ``_schemas`` topic.

The registry is a *client* of the cluster, as Confluent's is: it reads and writes ``_schemas``
through a Kafka client (aiokafka), never through the broker's in-process services, so it runs
the same inside a broker (mounted on the broker's HTTP stack) or beside one, and nothing in
``kafpy.broker`` imports it except the one place that mounts it.

Modules:
- ``errors``: Confluent's error codes and HTTP statuses;
- ``avro_compat``: Avro's schema-resolution rules (reader/writer compatibility);
- ``json_model``: JSON Schema documents read into typed schemas, as everit reads them;
- ``json_compat``: Confluent's JSON Schema diff over them (``Difference`` types, verdicts);
- ``protobuf_diff``: Confluent's Protobuf diff over descriptors (imports included);
- ``schema_types``: one provider per schema type (parse, canonical form, compatibility);
- ``contracts``: data contracts (metadata, rule sets) merged as Confluent merges them;
- ``records``: the ``_schemas`` key/value JSON of Confluent's KafkaStore;
- ``state``: the registry's state, a pure function of the ``_schemas`` records read;
- ``service``: the operations (register, look up, delete...) checked before anything is written;
- ``kafka_store``: reading and writing ``_schemas`` with aiokafka;
- ``rest``: the aiohttp routes.
"""
