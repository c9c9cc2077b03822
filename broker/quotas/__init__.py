"""Client quotas: produce and fetch byte rates and request time per user and client id,
enforced with Kafka's throttling (see ``client_quotas``)."""
from kafpy.broker.quotas.client_quotas import ClientQuotas

__all__ = ["ClientQuotas"]
