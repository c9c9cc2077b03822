from __future__ import annotations

from typing import Iterator

import pytest

from tests.support.registry_server import AppServer, RegistryServer, RestProxyServer


@pytest.fixture
def rest_proxy(broker) -> Iterator[AppServer]:
    """A REST Proxy (``.url``) and a Schema Registry (``.registry_url``) on one kafpy broker."""
    registry = RegistryServer(broker.bootstrap).start()
    proxy = RestProxyServer(broker.bootstrap, schema_registry_url=registry.url).start()
    proxy.registry_url = registry.url
    try:
        yield proxy
    finally:
        proxy.stop()
        registry.stop()
