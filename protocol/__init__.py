"""Kafka's wire protocol, sans-IO: bytes in, typed messages out, and back.

- ``kafpy.protocol.messages``: generated message classes (``python -m kafpy.protocol.generate``).
- ``kafpy.protocol.codec``: request/response encoding and decoding.
- ``kafpy.protocol.framing``: the 4-byte size prefix and an incremental frame reader.
- ``kafpy.protocol.errors``: Kafka's error codes and the exceptions raised on bad input.
- ``kafpy.protocol.records`` / ``kafpy.protocol.compression``: record batches.

Nothing is imported here, so ``import kafpy.protocol.errors`` stays cheap.
"""
