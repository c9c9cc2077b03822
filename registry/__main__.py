"""Runs a Schema Registry beside a cluster: ``python -m kafpy.registry --bootstrap-server
HOST:PORT --listener http://HOST:PORT [--no-election]``.

With election (the default) every instance started on the cluster joins the group
``schema-registry``; one is primary and the others forward writes to it. The listener's
host is the address other instances forward to, so give a reachable one.
"""
from __future__ import annotations

import argparse
import asyncio
import logging
import signal
from urllib.parse import urlsplit


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="kafpy.registry", description=__doc__.split("\n\n")[0])
    parser.add_argument("--bootstrap-server", required=True)
    parser.add_argument("--listener", default="http://127.0.0.1:8081")
    parser.add_argument("--no-election", action="store_true", help="serve writes here without joining the group")
    parser.add_argument("--session-timeout-ms", type=int, default=10000)
    parser.add_argument("--replication-factor", type=int, default=3)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="[%(asctime)s] %(levelname)s %(message)s (%(name)s)")
    asyncio.run(_serve(args))


async def _serve(args: argparse.Namespace) -> None:
    from aiohttp import web

    from kafpy.registry.app import RegistryApp, standalone_app
    from kafpy.registry.election import Identity
    url = urlsplit(args.listener)
    if url.scheme != "http" or not url.hostname or not url.port:
        raise SystemExit(f"--listener must be http://HOST:PORT, not {args.listener}")
    identity = None if args.no_election else Identity(url.hostname, url.port, "http")
    app = RegistryApp(args.bootstrap_server, identity=identity, replication_factor=args.replication_factor,
                      session_timeout_ms=args.session_timeout_ms)
    runner = web.AppRunner(standalone_app(app), access_log=None, handle_signals=False)
    await runner.setup()
    await web.TCPSite(runner, url.hostname, url.port).start()
    logging.getLogger("kafka.schemaregistry").info("Schema Registry listening on %s", args.listener)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    await runner.cleanup()


if __name__ == "__main__":
    main()
