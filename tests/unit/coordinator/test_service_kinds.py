"""GroupCoordinatorService builds and owns one coordinator per group kind, hands the
others to the classic one (loads, timers, ListGroups), and the handlers reach each kind
by name behind its feature gate (broker/handlers/modern_group.py)."""
from __future__ import annotations

import asyncio
from types import SimpleNamespace

from kafpy.coordinator.group import GroupCoordinatorConfig
from kafpy.coordinator.group.consumer.config import ConsumerGroupConfig
from kafpy.coordinator.group.consumer.coordinator import ConsumerGroupCoordinator
from kafpy.coordinator.group.service import GroupCoordinatorService
from kafpy.coordinator.group.share.config import ShareGroupConfig
from kafpy.coordinator.group.share.coordinator import ShareGroupCoordinator
from kafpy.coordinator.group.streams.config import StreamsGroupConfig
from kafpy.coordinator.group.streams.coordinator import StreamsGroupCoordinator

from kafpy.broker.features import GROUP_VERSION, SHARE_VERSION, STREAMS_VERSION
from kafpy.broker.handlers.modern_group import consumer_coordinator, share_coordinator, streams_coordinator


class _Metadata:
    def topic(self, name: str) -> None:
        return None

    def brokers(self) -> list[object]:
        return []


async def _no_topic() -> None:
    return None


def _service(loop: asyncio.AbstractEventLoop, **kinds: object) -> GroupCoordinatorService:
    return GroupCoordinatorService(GroupCoordinatorConfig(), SimpleNamespace(), _Metadata(), _no_topic,  # type: ignore[arg-type]  # stand-ins
                                   loop, **kinds)  # type: ignore[arg-type]


class _Levels:
    def __init__(self, levels: dict[str, int]) -> None:
        self.levels = levels

    def current(self) -> "_Levels":
        return self

    def level(self, feature: str) -> int:
        return self.levels.get(feature, 0)


def _ctx(service: GroupCoordinatorService, levels: dict[str, int] | None) -> SimpleNamespace:
    features = None if levels is None else _Levels(levels)
    return SimpleNamespace(services=SimpleNamespace(group_coordinator=service, features=features))


def test_the_service_owns_a_typed_coordinator_per_configured_kind() -> None:
    async def main() -> None:
        svc = _service(asyncio.get_running_loop(), consumer_config=ConsumerGroupConfig(),
                       share_config=ShareGroupConfig(), streams_config=StreamsGroupConfig())
        assert svc.coordinator is svc.classic
        assert isinstance(svc.consumer, ConsumerGroupCoordinator)
        assert isinstance(svc.share, ShareGroupCoordinator)
        assert isinstance(svc.streams, StreamsGroupCoordinator)
        # the classic coordinator hands them its partitions' loads, timers and group APIs
        assert (svc.classic.consumer, svc.classic.share, svc.classic.streams) == (
            svc.consumer, svc.share, svc.streams)
        assert svc.consumer.classic is svc.share.classic is svc.streams.classic is svc.classic
        # one write path for every kind
        assert svc.consumer.classic.writer is svc.classic.writer
    asyncio.run(main())


def test_a_kind_without_config_is_not_built() -> None:
    async def main() -> None:
        svc = _service(asyncio.get_running_loop(), consumer_config=ConsumerGroupConfig())
        assert svc.share is None and svc.streams is None
        assert svc.classic.share is None and svc.classic.streams is None
        assert svc.classic.consumer is svc.consumer
    asyncio.run(main())


def test_handlers_reach_each_kind_by_name_behind_its_feature() -> None:
    async def main() -> None:
        svc = _service(asyncio.get_running_loop(), consumer_config=ConsumerGroupConfig(),
                       share_config=ShareGroupConfig(), streams_config=StreamsGroupConfig())
        on = _ctx(svc, {GROUP_VERSION: 1, SHARE_VERSION: 1, STREAMS_VERSION: 1})
        assert consumer_coordinator(on) is svc.consumer          # type: ignore[arg-type]
        assert share_coordinator(on) is svc.share                # type: ignore[arg-type]
        assert streams_coordinator(on) is svc.streams            # type: ignore[arg-type]
        off = _ctx(svc, {GROUP_VERSION: 1})
        assert consumer_coordinator(off) is svc.consumer         # type: ignore[arg-type]
        assert share_coordinator(off) is None                    # type: ignore[arg-type]
        assert streams_coordinator(off) is None                  # type: ignore[arg-type]
        unfinalized = _ctx(svc, None)
        assert streams_coordinator(unfinalized) is svc.streams   # type: ignore[arg-type]
        no_groups = SimpleNamespace(services=SimpleNamespace(group_coordinator=None, features=None))
        assert consumer_coordinator(no_groups) is None           # type: ignore[arg-type]
    asyncio.run(main())
