"""``python -m kafpy.broker server.properties [--override key=value ...]``: run one broker until
SIGTERM or SIGINT, then shut down cleanly (stop accepting, answer requests in flight, flush
logs, write clean-shutdown markers)."""
from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import sys
from typing import Any, Callable, Coroutine, Protocol

from kafpy.broker.config import ConfigError, KafkaConfig
from kafpy.broker.startup_memory import release_startup_memory

USAGE = "kafka-server-start.sh [-daemon] server.properties [--override property=value]*"


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="kafka-server-start.sh", usage=USAGE,
                                description="Start a kafpy broker (Apache Kafka wire protocol).")
    p.add_argument("config", nargs="?", help="server.properties file (Kafka's names and defaults)")
    p.add_argument("--override", action="append", default=[], metavar="property=value",
                   help="optional property that overrides the value set in server.properties")
    p.add_argument("--log-level", default=None, help="root log level (default INFO, or KAFPY_LOG_LEVEL)")
    return p.parse_args(argv)


def raise_open_file_limit() -> tuple[int, int]:
    """Raise the soft limit on open files to the hard one, as servers do (every partition
    holds a segment's files open); returns (soft before, soft after) for the log."""
    import resource
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and soft < hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            return soft, hard
        except (ValueError, OSError):
            pass
    return soft, soft


def setup_logging(level: str | None) -> None:
    """The root level (``--log-level``, else KAFPY_LOG_LEVEL, else INFO), and per-logger
    levels from KAFPY_LOG_LEVELS, ``name=LEVEL`` pairs separated by commas (as log4j's
    ``log4j.logger.<name>=LEVEL`` lines: e.g. ``kafka.server.ReplicaManager=DEBUG``)."""
    import os
    lvl = (level or os.environ.get("KAFPY_LOG_LEVEL") or "INFO").upper()
    logging.basicConfig(level=getattr(logging, lvl, logging.INFO), stream=sys.stdout,
                        format="[%(asctime)s] %(levelname)s %(message)s (%(name)s)")
    for pair in filter(None, (p.strip() for p in os.environ.get("KAFPY_LOG_LEVELS", "").split(","))):
        name, _, value = pair.partition("=")
        if isinstance(logging.getLevelName(value.strip().upper()), int):
            logging.getLogger(name.strip()).setLevel(value.strip().upper())
    # identical warnings repeated within a minute: logged once, then counted (flushed by run)
    from kafpy.metrics.log_rate_limit import install
    global _repeated_warnings
    _repeated_warnings = install()


_repeated_warnings = None


async def start_unless_stopped(start: Coroutine[object, object, None], stop: asyncio.Event) -> bool:
    """Run a node's start-up until it ends (True; a failure raises) or SIGTERM/SIGINT sets
    ``stop`` first (False): the start-up is cancelled where it waits, and the caller shuts
    down what had started. A KRaft broker may wait a minute to register
    (``initial.broker.registration.timeout.ms``); a signal ends Kafka's JVM then too, through
    its shutdown hook, instead of after the start-up."""
    loop = asyncio.get_running_loop()
    starting = loop.create_task(start)
    signalled = loop.create_task(stop.wait())
    await asyncio.wait({starting, signalled}, return_when=asyncio.FIRST_COMPLETED)
    if starting.done():
        signalled.cancel()
        starting.result()
        return True
    logging.getLogger("kafka.server.KafkaServer").info("Stopped during start-up; shutting down what started")
    starting.cancel()
    outcome = (await asyncio.gather(starting, return_exceptions=True))[0]
    if isinstance(outcome, Exception):
        logging.getLogger("kafka.server.KafkaServer").warning("The start-up failed as it stopped: %s", outcome)
    return False


async def run(config: KafkaConfig) -> int:
    """Serve until a signal; 1 when startup failed (as Kafka, after stopping what started)."""
    loop = asyncio.get_running_loop()
    if config.process_roles == {"controller"}:
        return await run_controller(config)
    if config.process_roles == {"broker", "controller"}:
        return await run_combined(config)
    from kafpy.broker.broker import Broker
    broker: Broker
    kraft_raft_task: Callable[[], asyncio.Task[None] | None] = lambda: None
    if config.process_roles == {"broker"}:
        from kafpy.broker.kraft_broker import KRaftBroker  # imported only here: start time
        broker = kraft = KRaftBroker(config, loop)
        kraft_raft_task = lambda: kraft.raft_task  # noqa: E731 - read once started
    else:
        broker = Broker(config, loop)
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    flusher = loop.create_task(_repeated_warnings.run()) if _repeated_warnings is not None else None
    try:
        started = await start_unless_stopped(broker.start(), stop)
    except Exception:
        logging.getLogger("kafka.server.KafkaServer").error(
            "Fatal error during KafkaServer startup. Prepare to shutdown", exc_info=True)
        await broker.shutdown()
        return 1
    if not started:
        await broker.shutdown()
        return 0
    release_startup_memory()
    # a KRaft broker also stops when its raft client fails (as Kafka's raft IO thread ends the node)
    raft_task = kraft_raft_task()
    waiters: list[asyncio.Future[Any]] = [loop.create_task(stop.wait())]
    if raft_task is not None:
        waiters.append(raft_task)
    await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
    failed = raft_task is not None and raft_task.done() and not raft_task.cancelled() \
        and raft_task.exception() is not None
    await broker.shutdown()
    if flusher is not None:
        flusher.cancel()
        _repeated_warnings.flush()
    return 1 if failed else 0


class _RaftNode(Protocol):
    """A KRaft node ``run_controller`` / ``run_combined`` serve until a signal."""

    @property
    def raft_task(self) -> asyncio.Task[None] | None: ...

    @property
    def fault(self) -> BaseException | None: ...

    async def start(self) -> None: ...

    async def shutdown(self) -> None: ...


async def _serve_raft_node(server: _RaftNode, startup: str, flush_warnings: bool) -> int:
    """Start ``server``; serve until SIGTERM/SIGINT or the raft client fails; shut down. 1 when
    start-up failed or the raft client or a controller fault ended it (Kafka's fatal fault
    handler), else 0."""
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    flusher = (loop.create_task(_repeated_warnings.run())
               if flush_warnings and _repeated_warnings is not None else None)
    try:
        started = await start_unless_stopped(server.start(), stop)
    except Exception as e:
        logging.getLogger("kafka.server.KafkaRaftServer").error(
            "Fatal error during %s startup. Prepare to shutdown: %s", startup, e, exc_info=True)
        await server.shutdown()
        return 1
    if not started:
        await server.shutdown()
        return 0
    release_startup_memory()
    raft_task = server.raft_task
    waiters: list[asyncio.Future[Any]] = [loop.create_task(stop.wait())]
    if raft_task is not None:
        waiters.append(raft_task)
    await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
    failed = raft_task is not None and raft_task.done() and not raft_task.cancelled() \
        and raft_task.exception() is not None or server.fault is not None
    await server.shutdown()
    if flusher is not None:
        flusher.cancel()
        if _repeated_warnings is not None:
            _repeated_warnings.flush()
    return 1 if failed else 0


async def run_controller(config: KafkaConfig) -> int:
    """A ``process.roles=controller`` node: the raft quorum on its controller listeners."""
    from kafpy.broker.controller_server import ControllerServer
    return await _serve_raft_node(ControllerServer(config), "controller", flush_warnings=False)


async def run_combined(config: KafkaConfig) -> int:
    """A ``process.roles=broker,controller`` node: controller and broker over one raft client;
    stops on a signal or when the raft client fails (1, as Kafka's fatal fault handler)."""
    from kafpy.broker.kraft_server import KafkaRaftServer
    return await _serve_raft_node(KafkaRaftServer(config, asyncio.get_running_loop()), "KafkaServer",
                                  flush_warnings=True)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    setup_logging(args.log_level)
    if args.config is None:
        print("USAGE: " + USAGE, file=sys.stderr)
        return 1
    try:
        config = KafkaConfig.from_file(args.config, args.override)
    except (ConfigError, OSError) as e:
        logging.getLogger("kafka.Kafka").error("Exiting Kafka due to fatal exception: %s", e)
        return 1
    logging.getLogger("kafka.server.KafkaConfig").info(config.banner())
    before, after = raise_open_file_limit()
    logging.getLogger("kafka.server.KafkaServer").info(
        "Open file limit: soft %d (was %d)", after, before)
    try:
        import uvloop
        return uvloop.run(run(config))
    except KeyboardInterrupt:
        return 0


if __name__ == "__main__":
    sys.exit(main())
