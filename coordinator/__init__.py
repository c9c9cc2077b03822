"""Kafka's coordinators, grouped as Kafka groups them: `group` (classic, consumer, share and
Streams groups with their offsets in `__consumer_offsets`), `share_state` (the share
coordinator's `__share_group_state`), `transaction` (`__transaction_state`); `runtime`, what
their services share on a running broker (timer, loads, FindCoordinator and the internal
topic's creation); `result`, the one write path (a pure method's CoordinatorResult,
written and answered by a CoordinatorWriter); `record_types`, the one table of their
record types."""
