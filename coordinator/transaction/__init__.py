"""Transaction coordinator: transactional ids, their producer ids and epochs, and the
transactions' states in `__transaction_state`."""

from kafpy.coordinator.transaction.config import TransactionCoordinatorConfig
from kafpy.coordinator.transaction.coordinator import (EndTxnResult, InitProducerIdResult,
                                                     TransactionCoordinator)
from kafpy.coordinator.transaction.markers import MarkerChannel, TxnMarker
from kafpy.coordinator.transaction.state import TransactionMetadata, TxnState

__all__ = ["EndTxnResult", "InitProducerIdResult", "MarkerChannel", "TransactionCoordinator",
           "TransactionCoordinatorConfig", "TransactionMetadata", "TxnMarker", "TxnState"]
