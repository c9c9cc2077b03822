"""KRaft's consensus layer, as Kafka's ``raft`` module: the quorum's state machine (Vote with
pre-vote, BeginQuorumEpoch, EndQuorumEpoch, Fetch-based replication and the high watermark on
a majority of voters), the replicated ``__cluster_metadata-0`` log and its snapshots, and the
``quorum-state`` file. It knows nothing of what the records mean: that is ``metadata/``.

Floor: above ``storage`` (the log is a partition log in Kafka's segmented format), below
``metadata``."""
