"""KRaft's metadata, as Kafka's ``metadata`` module: the records of ``__cluster_metadata``
(their framing, the control records, ``.checkpoint`` snapshots and ``bootstrap.checkpoint``),
the metadata image each node builds by replaying them, and the quorum controller that writes
them.

Floor: above ``raft`` (which replicates the records without reading them), below
``replication`` (whose brokers apply the image's changes to their partitions)."""
