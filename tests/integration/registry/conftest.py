from __future__ import annotations

from typing import Iterator

import pytest

from tests.support.registry_server import AppServer, RegistryServer


@pytest.fixture
def registry(broker) -> Iterator[AppServer]:
    """A Schema Registry on one fresh kafpy broker (``.url``, ``.bootstrap``)."""
    server = RegistryServer(broker.bootstrap).start()
    try:
        yield server
    finally:
        server.stop()
