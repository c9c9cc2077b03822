"""Kafka's coordinators, grouped as Kafka groups them: `group` (classic, consumer, share and
Streams groups with their offsets in `__consumer_offsets`), `share_state` (the share
coordinator's `__share_group_state`), `transaction` (`__transaction_state`); `runtime`, what
their services share on a running broker (timer, loads, FindCoordinator and the internal
topic's creation); `result`, the one write path (a pure method's CoordinatorResult,
written and answered by a CoordinatorWriter); `record_types`, the one table of their
record types."""

if not __name__.startswith("kafpy."):
    # Reached as a bare top-level name (the checkout on sys.path): refuse, or every module below
    # would load a second time beside its kafpy.* self.
    raise ImportError(f"import kafpy.{__name__}, not {__name__}")
