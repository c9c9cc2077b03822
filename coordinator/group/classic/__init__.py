"""The classic group protocol: JoinGroup, SyncGroup, Heartbeat, LeaveGroup (Kafka's `classic` groups)."""
