"""The broker's HTTP stack: one aiohttp server on the broker's event loop, listening where
``kafpy.http.listeners`` says, that other components mount routes on (the Prometheus
endpoint and status page now; the Schema Registry and REST Proxy later).

Nothing here is imported by a broker whose ``kafpy.http.listeners`` is empty: aiohttp and
prometheus_client cost ~150 ms of start time and ~15 MB, paid only when the listener is on.
"""

if not __name__.startswith("kafpy."):
    # Reached as a bare top-level name (the checkout on sys.path): refuse, or every module below
    # would load a second time beside its kafpy.* self.
    raise ImportError(f"import kafpy.{__name__}, not {__name__}")
