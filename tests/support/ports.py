"""Free loopback TCP ports for test servers: kafpy._ports (shared with kafpy.embedded and the
pytest plugin, which draw from the same per-worker slices)."""
from kafpy._ports import LOOPBACK, free_port, free_ports, port_is_open

__all__ = ["LOOPBACK", "free_port", "free_ports", "port_is_open"]
