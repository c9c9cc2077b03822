"""Kafka API keys by name (``ApiKey.PRODUCE == 0``), generated with the messages."""

from kafpy.protocol.messages import API_KEYS, ApiKey, ApiSpec

__all__ = ["ApiKey", "API_KEYS", "ApiSpec"]
