"""The Schema Registry and REST Proxy mounted together the way the broker's HTTP stack
mounts them (``kafpy.rest.mount.Ecosystem``: routes before the server starts, components
started in the background after): both answer on one listener, the registry joins the
election with the listener's URL, and the proxy's Avro produce goes through it."""
from __future__ import annotations

import json
import uuid

from confluent_kafka.schema_registry import Schema, SchemaRegistryClient

from tests.integration.cluster.harness import wait_until
from tests.integration.rest.test_confluent_examples import call
from tests.support.registry_server import AppServer


def test_one_listener_serves_both(broker):
    holder: dict = {}

    def make():
        from aiohttp import web

        from kafpy.rest.mount import Ecosystem
        eco = Ecosystem(broker.bootstrap, registry=True, rest_proxy=True)
        app = web.Application()
        for method, path, handler in eco.routes():   # what HttpServer.mount does
            app.router.add_route(method, path, handler)

        async def on_startup(_):
            eco.start(server.url)

        async def on_cleanup(_):
            await eco.stop()
        app.on_startup.append(on_startup)
        app.on_cleanup.append(on_cleanup)
        holder["eco"] = eco
        return eco, app
    server = AppServer(make)
    server.start()
    try:
        wait_until(lambda: call(f"{server.url}/subjects", accept="application/vnd.schemaregistry.v1+json")[0] == 200
                   and holder["eco"].registry.elector.is_primary,
                   60, "registry started and primary")
        client = SchemaRegistryClient({"url": server.url})
        assert client.register_schema("mounted-value", Schema('"string"', "AVRO")) == 1
        topic = f"mounted-{uuid.uuid4().hex[:6]}"
        schema = json.dumps({"type": "record", "name": "M", "fields": [{"name": "n", "type": "int"}]})
        status, body = wait_until(lambda: (lambda r: r if r[0] == 200 else None)(
            call(f"{server.url}/topics/{topic}", "POST", {"value_schema": schema, "records": [{"value": {"n": 1}}]},
                 "application/vnd.kafka.avro.v2+json")), 60, "REST Proxy produce")
        assert body["value_schema_id"] == 2
        assert client.get_latest_version(f"{topic}-value").schema_id == 2
    finally:
        server.stop()
