"""Share partitions (KIP-932) on a partition's leader: each (share group, partition)'s
delivery state (SharePartition), the manager that loads, persists and serves them
(SharePartitionManager), and the share sessions of ShareFetch/ShareAcknowledge
(ShareSessionCache)."""
