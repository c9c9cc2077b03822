"""Kafka's wire protocol, sans-IO: bytes in, typed messages out, and back.

- ``protocol.messages``: generated message classes (``python -m protocol.generate``).
- ``protocol.codec``: request/response encoding and decoding.
- ``protocol.framing``: the 4-byte size prefix and an incremental frame reader.
- ``protocol.errors``: Kafka's error codes and the exceptions raised on bad input.
- ``protocol.records`` / ``protocol.compression``: record batches.

Nothing is imported here, so ``import protocol.errors`` stays cheap.
"""
