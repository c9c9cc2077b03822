"""`python -m tests.integration.coordinator.txn_broker <args>`: our broker for the
transaction coordinator's tests. Where the partition side's WriteTxnMarkers
(broker/txn_markers.py) is not in the tree yet, a stand-in appends the markers on this
broker's partitions and answers WriteTxnMarkers from other brokers, so commits and aborts
complete; with it in the tree, it is used."""
from __future__ import annotations

import runpy
import sys
import types

from protocol.errors import ErrorCode
from protocol.messages import WriteTxnMarkersResponse as R
from protocol.records import CONTROL_ABORT, CONTROL_COMMIT, build_control_batch


async def _write_txn_markers(services, req) -> R:
    rm, out = services.replica_manager, []
    for m in req.markers:
        topics = []
        for t in m.topics:
            results = []
            for index in t.partition_indexes:
                part, error = rm.get_partition(t.name, index), ErrorCode.NONE
                if part is None:
                    error = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
                else:
                    batch = build_control_batch(CONTROL_COMMIT if m.transaction_result else CONTROL_ABORT,
                                                producer_id=m.producer_id, producer_epoch=m.producer_epoch,
                                                coordinator_epoch=m.coordinator_epoch)
                    info = part.append_records_to_leader(batch, origin="coordinator", required_acks=-1)
                    error = await rm.wait_for_commit(part, info.last_offset + 1, 30_000)
                results.append(R.WritableTxnMarkerPartitionResult(partition_index=index, error_code=error))
            topics.append(R.WritableTxnMarkerTopicResult(name=t.name, partitions=results))
        out.append(R.WritableTxnMarkerResult(producer_id=m.producer_id, topics=topics))
    return R(markers=out)


async def _handle_write_txn_markers(ctx, req) -> R:
    return await _write_txn_markers(ctx.services, req)


try:
    import broker.txn_markers  # noqa: F401
except ModuleNotFoundError:
    from broker import apis
    from broker.handler import Handler
    stand_in = types.ModuleType("broker.txn_markers")
    stand_in.write_txn_markers = _write_txn_markers
    stand_in.HANDLERS = [Handler(27, 0, 1, _handle_write_txn_markers)]
    sys.modules["broker.txn_markers"] = stand_in
    if "broker.txn_markers" not in apis.HANDLER_MODULES:
        apis.HANDLER_MODULES.append("broker.txn_markers")

if __name__ == "__main__":
    runpy.run_module("broker", run_name="__main__", alter_sys=True)
