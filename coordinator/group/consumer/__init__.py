"""Consumer-protocol groups of Kafka 4 (KIP-848): ConsumerGroupHeartbeat and ConsumerGroupDescribe."""
