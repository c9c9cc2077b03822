"""Feature flags (KIP-584): what this broker supports and what the cluster finalized.

Kafka 4.x clients read both from ApiVersions (v3+ tagged fields) to decide what to use;
`kafka-features.sh describe` prints them. A feature's finalized level is one number per
cluster (Kafka sends it as min = max level); a level of 0 means "off" and is not listed.

Where the finalized levels live: on the ZooKeeper cluster in the `/feature` znode, as
Kafka's ZooKeeper mode kept them (`{"features": {name: {"min_version_level": l,
"max_version_level": l}}, "version": 2, "status": 1}`; its znode version is the
features epoch), created with the defaults by the first broker that finds it missing and
watched by every broker; on a standalone broker in its `cluster-metadata.json` (the
controller's state file), with an epoch counted there.

Who calls it: the broker builds one store at startup (`StandaloneFeatures` or
`ZkFeatures`) and hands it to the handlers as `services.features`; ApiVersions reads
`current()`; UpdateFeatures calls `update()`. Event loop thread only.
"""
from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Awaitable, Callable, Mapping

from kazoo.exceptions import NodeExistsError

from kafpy.protocol.api_keys import ApiKey
from kafpy.protocol.errors import ErrorCode, KafkaError
from kafpy.replication import zk_data as zd
from kafpy.replication.zk_ops import SessionState

if TYPE_CHECKING:
    from kafpy.replication.zk_client import KafkaZkClient

log = logging.getLogger("kafka.server.FinalizedFeatureCache")

GROUP_VERSION = "group.version"
TRANSACTION_VERSION = "transaction.version"
SHARE_VERSION = "share.version"
STREAMS_VERSION = "streams.version"

#: name -> (min, max) level this broker implements. group.version 1 is the consumer group
#: protocol (KIP-848: ConsumerGroupHeartbeat/Describe); transaction.version 2 is KIP-890
#: part 2 (Produce v12 adds partitions, EndTxn v5 bumps the epoch at every end): clients
#: use it only where it is finalized. share.version 1-2 is share groups (KIP-932), as
#: Kafka 4.4's ShareVersion SV_1/SV_2; streams.version 1 is Streams groups (KIP-1071). A
#: feature whose maximum is 0 is not advertised, as Kafka leaves out what it cannot enable.
SUPPORTED_FEATURES: dict[str, tuple[int, int]] = {
    GROUP_VERSION: (0, 1),
    TRANSACTION_VERSION: (0, 2),
    SHARE_VERSION: (0, 2),
    STREAMS_VERSION: (0, 1),      # 1: Streams groups (KIP-1071), as Kafka 4.4
}

#: What a new cluster starts with (Kafka 4.4 finalizes the latest production levels).
DEFAULT_FINALIZED: dict[str, int] = {GROUP_VERSION: 1, TRANSACTION_VERSION: 2, SHARE_VERSION: 2,
                                     STREAMS_VERSION: 1}

#: APIs a feature level gates: served and advertised only from that level on.
GATED_APIS: dict[int, tuple[str, int]] = {
    ApiKey.CONSUMER_GROUP_HEARTBEAT: (GROUP_VERSION, 1),
    ApiKey.CONSUMER_GROUP_DESCRIBE: (GROUP_VERSION, 1),
    **{k: (SHARE_VERSION, 1) for k in (
        ApiKey.SHARE_GROUP_HEARTBEAT, ApiKey.SHARE_GROUP_DESCRIBE, ApiKey.SHARE_FETCH,
        ApiKey.SHARE_ACKNOWLEDGE, ApiKey.DESCRIBE_SHARE_GROUP_OFFSETS,
        ApiKey.ALTER_SHARE_GROUP_OFFSETS, ApiKey.DELETE_SHARE_GROUP_OFFSETS)},
    ApiKey.STREAMS_GROUP_HEARTBEAT: (STREAMS_VERSION, 1),
    ApiKey.STREAMS_GROUP_DESCRIBE: (STREAMS_VERSION, 1),
}


class FeatureUpdateError(KafkaError):
    """An UpdateFeatures entry refused; `error_code` is Kafka's (INVALID_UPDATE_VERSION)."""

    def __init__(self, error_code: int, message: str) -> None:
        super().__init__(message)
        self.error_code = ErrorCode.of_known(error_code)


@dataclass(frozen=True)
class FinalizedFeatures:
    """The cluster's finalized levels (levels above 0 only) and their epoch (-1: none yet)."""

    levels: Mapping[str, int] = field(default_factory=dict)
    epoch: int = -1

    def level(self, name: str) -> int:
        return int(self.levels.get(name, 0))

    def enables(self, api_key: int) -> bool:
        gate = GATED_APIS.get(api_key)
        return gate is None or self.level(gate[0]) >= gate[1]


def supported_features() -> dict[str, tuple[int, int]]:
    """What ApiVersions lists as supported (features whose maximum level is above 0)."""
    return {k: v for k, v in SUPPORTED_FEATURES.items() if v[1] > 0}


def validate_level(name: str, level: int) -> str | None:
    """Why `name` cannot be finalized at `level` (None when it can)."""
    supported = SUPPORTED_FEATURES.get(name)
    if supported is None:
        return f"Feature {name} is not supported by this broker"
    if not supported[0] <= level <= supported[1]:
        return (f"Feature {name} level {level} is outside the supported range "
                f"[{supported[0]}, {supported[1]}]")
    return None


def _clean(levels: Mapping[str, int]) -> dict[str, int]:
    return {k: int(v) for k, v in sorted(levels.items()) if int(v) > 0}


class StandaloneFeatures:
    """Finalized features of a standalone broker, kept in its metadata file through
    `persist(levels, epoch)` (the StandaloneController's writer)."""

    def __init__(self, levels: Mapping[str, int] | None, epoch: int,
                 persist: Callable[[dict[str, int], int], Awaitable[None]]) -> None:
        if levels is None:          # a broker whose metadata predates features
            levels, epoch = DEFAULT_FINALIZED, max(epoch, 0)
        self._current = FinalizedFeatures(_clean(levels), epoch)
        self._persist = persist

    def current(self) -> FinalizedFeatures:
        return self._current

    async def update(self, changes: Mapping[str, int], validate_only: bool = False) -> None:
        """Set each feature's level (0 removes it); all checked before any is applied."""
        for name, level in changes.items():
            reason = validate_level(name, level)
            if reason is not None:
                raise FeatureUpdateError(95, reason)   # INVALID_UPDATE_VERSION
        if validate_only:
            return
        levels = dict(self._current.levels)
        levels.update(changes)
        new = FinalizedFeatures(_clean(levels), self._current.epoch + 1)
        await self._persist(dict(new.levels), new.epoch)
        self._current = new


class ZkFeatures:
    """Finalized features in ZooKeeper's `/feature`, read at start and again whenever
    its watch fires. `zk` is the broker's KafkaZkClient.

    A ZooKeeper watch lives as long as the session that set it: when the session expires,
    kazoo fires the watch once (the read it triggers fails with SessionExpiredError) and
    the new session has none. So `/feature` is read again, and the watch armed again, on
    every new session (Kafka's FinalizedFeatureChangeListener re-registers its handler on
    session re-initialization the same way).

    `/feature` is created empty, as Kafka 3.9's controller creates it, and holds only the
    levels an operator set (`kafka-features upgrade/downgrade`, a level 0 kept explicitly):
    Apache Kafka 3.9 brokers read it too and halt on any feature they do not support
    (FeatureCacheUpdateException), so a mixed cluster must not find `group.version` there
    unless someone put it there. Where `/feature` is silent, kafpy's defaults
    (`DEFAULT_FINALIZED`) are the effective levels its brokers serve and advertise.

    Clients must be able to use what is advertised on every broker: transaction version
    2 changes what a transactional client sends to every leader and coordinator, so its
    default is capped by what every registered broker supports (`/brokers/ids/<id>`
    lists the features a kafpy broker supports; Apache Kafka 3.9's ZooKeeper brokers
    list none). Next to Apache 3.9 brokers the default is then version 0. An operator's
    level in `/feature` is used as set, and `update` refuses one a registered broker does
    not support, as Kafka's controller does (such a broker would halt on reading it)."""

    PATH = "/feature"
    #: defaults capped by the brokers' registrations (see the class docstring)
    CAPPED_DEFAULTS = (TRANSACTION_VERSION, SHARE_VERSION, STREAMS_VERSION)

    def __init__(self, zk: KafkaZkClient) -> None:   # tests pass a fake
        self._zk = zk
        self._current = FinalizedFeatures({}, -1)
        self._refreshing: asyncio.Task | None = None
        self._again = False
        self._stored: dict[str, int] | None = None   # None: /feature absent or disabled
        self._epoch = -1
        self._caps: dict[str, int] = {}

    def current(self) -> FinalizedFeatures:
        return self._current

    async def start(self) -> None:
        """Read `/feature`, creating it with the defaults when no broker has yet."""
        data, _ = await self._zk.get_data(self.PATH)
        if data is None:
            try:
                await self._zk.conditional_set_or_create(self.PATH, _znode({}), None)
            except NodeExistsError:
                pass
        self._zk.add_session_listener(self._on_session_state)
        await self._refresh()

    def close(self) -> None:
        """Stop following `/feature` (the broker's shutdown)."""
        self._zk.remove_session_listener(self._on_session_state)
        if self._refreshing is not None:
            self._refreshing.cancel()

    def _on_session_state(self, state: SessionState) -> None:
        if state is SessionState.NEW_SESSION:
            log.info("New ZooKeeper session: reading %s and watching it again", self.PATH)
            self._schedule_refresh()

    def _on_change(self, _event: object) -> None:
        self._schedule_refresh()

    def _schedule_refresh(self) -> None:
        """One read at a time; a change seen meanwhile is read once the current one ends
        (an older read must not land after a newer one)."""
        if self._refreshing is not None and not self._refreshing.done():
            self._again = True
            return
        self._refreshing = asyncio.get_running_loop().create_task(self._refresh_logged())

    async def _refresh_logged(self) -> None:
        while True:
            self._again = False
            try:
                await self._refresh()
            except asyncio.CancelledError:
                raise
            except Exception as e:  # noqa: BLE001 - the next session or event reads again
                log.info("Reading %s failed (%s); it is read again on the next session",
                         self.PATH, type(e).__name__)
            if not self._again:
                return

    def _on_brokers_change(self, _event: object) -> None:
        asyncio.get_running_loop().create_task(self._refresh_brokers())

    async def _refresh_brokers(self) -> None:
        """Cap the defaults by what each registered broker says it supports."""
        ids = await self._zk.get_children(zd.BROKER_IDS_PATH, watch=self._on_brokers_change)
        if not ids:
            await self._zk.exists(zd.BROKER_IDS_PATH, watch=self._on_brokers_change)
        caps: dict[str, int] = {}
        for broker_id in ids:
            data, _ = await self._zk.get_data(zd.broker_path(int(broker_id)))
            if data is None:
                continue                    # gone meanwhile
            try:
                supported = zd.BrokerRegistration.decode(int(broker_id), data).features
            except Exception:  # noqa: BLE001 - unreadable: a broker that supports nothing
                supported = {}
            for name in SUPPORTED_FEATURES:
                top = int((supported.get(name) or {}).get("max_version", 0))
                caps[name] = min(caps.get(name, top), top)
        if caps != self._caps:
            log.info("Brokers registered support at most %s", caps)
        self._caps = caps
        self._publish()

    def _publish(self) -> None:
        if self._stored is None:
            return
        defaults = {n: min(lv, self._caps.get(n, lv)) if n in self.CAPPED_DEFAULTS else lv
                    for n, lv in DEFAULT_FINALIZED.items()}
        self._current = FinalizedFeatures(_clean({**defaults, **self._stored}), self._epoch)

    async def _refresh(self) -> None:
        await self._refresh_brokers()   # a new session needs its watch again too
        data, stat = await self._zk.get_data(self.PATH, watch=self._on_change)
        if data is None or stat is None:
            self._stored = None
            self._current = FinalizedFeatures({}, -1)
            await self._zk.exists(self.PATH, watch=self._on_change)
            return
        try:
            znode = zd.FeatureZNode.decode(data)
        except Exception as e:  # noqa: BLE001 - a foreign znode must not stop the broker
            log.warning("unreadable %s znode: %s", self.PATH, e)
            return
        if znode.status != zd.FEATURE_STATUS_ENABLED:
            self._stored = None
            self._current = FinalizedFeatures({}, stat.version)
            return
        self._stored = {name: int(v.get("max_version_level", 0))
                        for name, v in znode.features.items()}
        self._epoch = stat.version
        self._publish()
        log.info("Updated finalized features to %s (epoch %d)", dict(self._current.levels),
                 stat.version)

    async def update(self, changes: Mapping[str, int], validate_only: bool = False) -> None:
        """Set the levels in `/feature` at the version read (a concurrent writer makes
        this fail with BadVersionError: the caller answers and the client retries)."""
        for name, level in changes.items():
            reason = validate_level(name, level)
            if reason is None and level > self._caps.get(name, level):
                reason = (f"Feature {name} level {level} is not supported by every registered "
                          f"broker (at most {self._caps[name]})")
            if reason is not None:
                raise FeatureUpdateError(95, reason)
        if validate_only:
            return
        data, stat = await self._zk.get_data(self.PATH)
        levels = {}
        if data is not None:
            levels = {n: int(v.get("max_version_level", 0))
                      for n, v in zd.FeatureZNode.decode(data).features.items()}
        levels.update(changes)
        await self._zk.conditional_set_or_create(self.PATH, _znode(levels),
                                                 None if stat is None else stat.version)
        await self._refresh()


def _znode(levels: Mapping[str, int]) -> bytes:
    # every level set explicitly is kept, 0 too: absent means kafpy's default (ZkFeatures)
    return zd.FeatureZNode({n: {"min_version_level": int(lv), "max_version_level": int(lv)}
                            for n, lv in sorted(levels.items())}).encode()


class KRaftFeatures:
    """A KRaft broker's finalized features: those of the last metadata image it published
    (metadata.version included), with the image's offset as their epoch, as Kafka's
    ``KRaftMetadataCache.features()``, and the ranges it ``supported`` (what it registers
    with: metadata.version and kraft.version too, which ApiVersions lists as Kafka's KRaft
    broker does). Changed only by the metadata publisher (``publish``); UpdateFeatures is
    forwarded to the controller."""

    def __init__(self, supported: Mapping[str, tuple[int, int]] | None = None) -> None:
        self._current = FinalizedFeatures({}, -1)
        self.supported: dict[str, tuple[int, int]] = dict(supported if supported is not None
                                                          else supported_features())

    def current(self) -> FinalizedFeatures:
        return self._current

    def publish(self, levels: Mapping[str, int], epoch: int) -> None:
        self._current = FinalizedFeatures(_clean(levels), epoch)

    async def update(self, changes: Mapping[str, int], validate_only: bool = False) -> None:
        """Never called: a KRaft broker forwards UpdateFeatures to the controller."""
        raise FeatureUpdateError(ErrorCode.INVALID_REQUEST, "UpdateFeatures goes to the KRaft controller")
