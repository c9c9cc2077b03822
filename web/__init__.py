"""The broker's HTTP stack: one aiohttp server on the broker's event loop, listening where
``kafpy.http.listeners`` says, that other components mount routes on (the Prometheus
endpoint, the status page, the Schema Registry and the REST Proxy).

Nothing here is imported by a broker whose ``kafpy.http.listeners`` is empty: aiohttp and
prometheus_client cost ~150 ms of start time and ~15 MB, paid only when the listener is on.
"""
