"""Transaction coordinator: transactional ids, their producer ids and epochs, and the
transactions' states in `__transaction_state`."""

from coordinator.transaction.config import TransactionCoordinatorConfig
from coordinator.transaction.coordinator import InitProducerIdResult, TransactionCoordinator
from coordinator.transaction.markers import MarkerChannel, TxnMarker
from coordinator.transaction.state import TransactionMetadata, TxnState

__all__ = ["InitProducerIdResult", "MarkerChannel", "TransactionCoordinator",
           "TransactionCoordinatorConfig", "TransactionMetadata", "TxnMarker", "TxnState"]
