"""Kafka's coordinators, grouped as Kafka groups them: `group` (classic, consumer, share and
Streams groups with their offsets in `__consumer_offsets`), `share_state` (the share
coordinator's `__share_group_state`), `transaction` (`__transaction_state`), and `runtime`,
what they share on a running broker."""
