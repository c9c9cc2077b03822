"""The metadata writer that admin requests go to, as one interface for both modes.

Standalone, the broker is its own controller (``kafpy.broker.controller.StandaloneController``);
in ZooKeeper mode any broker's ``kafpy.replication.zk_admin.ZkAdminManager`` writes to
ZooKeeper (topic changes only on the cluster's controller). Handlers and the coordinators see
only this Protocol (``BrokerServices.controller``), so neither mode's class is named by them.
Who may call it: request handlers, the broker at start (internal topics, entity configs).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from kafpy.broker.quotas.entity_configs import EntityConfigs
    from kafpy.replication.metadata_cache import TopicInfo


class AdminController(Protocol):
    """Topic, config and producer-id changes, each answered once it is in effect (errors as
    ``TopicError`` or the mode's own Kafka error); ``entity_configs`` holds the user and
    client configs the broker's quotas and SCRAM credentials follow."""

    entity_configs: "EntityConfigs"

    async def create_topic(self, name: str, partitions: int, replication_factor: int, configs: dict[str, str],
                           assignments: dict[int, list[int]] | None = None,
                           validate_only: bool = False) -> "TopicInfo": ...

    async def auto_create_topic(self, name: str, partitions: int, replication_factor: int,
                                configs: dict[str, str]) -> "TopicInfo": ...

    async def delete_topic(self, name: str) -> "TopicInfo": ...

    async def create_partitions(self, name: str, total: int, validate_only: bool = False) -> "TopicInfo": ...

    async def alter_topic_config(self, name: str, configs: dict[str, str]) -> None: ...

    async def alter_broker_configs(self, configs: dict[str, str], entity_name: str | None = None) -> None: ...

    async def alter_entity_configs(self, entity_type: str, entity_name: str, configs: dict[str, str]) -> None: ...

    async def fetch_entity_configs(self, entity_type: str, entity_name: str) -> dict[str, str]: ...

    async def next_producer_id(self) -> int: ...

    async def ensure_offsets_topic(self) -> None: ...

    async def ensure_transaction_state_topic(self) -> None: ...

    async def ensure_share_group_state_topic(self) -> None: ...
