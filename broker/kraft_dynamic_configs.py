"""The parts of a KRaft metadata image that reconfigure the broker itself (Kafka's
``DynamicConfigPublisher``, ``DynamicClientQuotaPublisher`` and ``ScramPublisher``): the dynamic
broker configs (the cluster-wide default and this broker's own, layered by
``KafkaConfig.set_dynamic``), the client quotas of users and client ids, written into the
broker's ``EntityConfigs`` under the names ZooKeeper mode uses (``users/alice/clients/c1``),
whose listeners (``ClientQuotas``) apply them, and the SCRAM credentials SASL/SCRAM logins are
checked against (``ImageUserConfigs``).

Images share the parts no record touched, so a part that is the same object as in the last
image is skipped at once. IP quotas (connection rates) are not applied yet.

Who calls it: ``KRaftBroker``, with each image its publisher applied. Nothing on disk.
"""
from __future__ import annotations

from typing import Callable, Iterable, Mapping

from kafpy.metadata.image.client_quotas import ClientQuotasImage
from kafpy.metadata.image.metadata_image import MetadataImage
from kafpy.metadata.image.scram import EMPTY_SCRAM, ScramImage, ScramMechanism

from kafpy.broker.quotas.entity import CLIENT_ID_TYPE, DEFAULT, USER_TYPE, QuotaEntity
from kafpy.broker.quotas.entity_configs import EntityConfigs
from kafpy.broker.security.scram import ScramCredential

MECHANISMS = {"SCRAM-SHA-256": ScramMechanism.SCRAM_SHA_256, "SCRAM-SHA-512": ScramMechanism.SCRAM_SHA_512}


class ImageUserConfigs:
    """The broker's ``UserConfigs`` in KRaft mode: the SCRAM credentials of the last image
    (``scram``, replaced by the publisher). Changes go through AlterUserScramCredentials,
    which the broker forwards to the controller, never through here."""

    def __init__(self) -> None:
        self.scram: ScramImage = EMPTY_SCRAM

    def credential(self, user: str, mechanism: str) -> ScramCredential | None:
        known = MECHANISMS.get(mechanism)
        data = self.scram.credential(known, user) if known is not None else None
        return None if data is None else ScramCredential(data.salt, data.stored_key, data.server_key,
                                                          data.iterations)

    async def refresh(self, user: str) -> None:
        return None

    async def users(self) -> list[str]:
        return sorted({u for users in self.scram.mechanisms.values() for u in users})

    async def scram_configs(self, user: str) -> dict[str, ScramCredential]:
        return {name: c for name in MECHANISMS if (c := self.credential(user, name)) is not None}

    async def alter(self, user: str, upserts: dict[str, ScramCredential], deletions: Iterable[str]) -> None:
        raise RuntimeError("a KRaft broker forwards AlterUserScramCredentials to the controller")


def _text(value: float) -> str:
    """A quota as ZooKeeper mode stores it: an integral rate without a fraction."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def quota_entity_configs(image: ClientQuotasImage) -> dict[tuple[str, str], dict[str, str]]:
    """(entity type, sanitized entity name) -> quota configs, for user and client-id entities."""
    out: dict[tuple[str, str], dict[str, str]] = {}
    for entity, quotas in image.entities.items():
        parts = dict(entity)
        if set(parts) - {USER_TYPE, CLIENT_ID_TYPE}:
            continue  # an ip entity
        user = parts.get(USER_TYPE, "") if USER_TYPE in parts else None
        client = parts.get(CLIENT_ID_TYPE, "") if CLIENT_ID_TYPE in parts else None
        quota_entity = QuotaEntity(user=DEFAULT if USER_TYPE in parts and user is None else user,
                                   client_id=DEFAULT if CLIENT_ID_TYPE in parts and client is None else client)
        out[quota_entity.config_path()] = {k: _text(v) for k, v in quotas.items()}
    return out


class DynamicConfigPublisher:
    """Keeps the last image it applied."""

    def __init__(self, broker_id: int, entity_configs: EntityConfigs,
                 set_dynamic: Callable[[dict[str, str], dict[str, str]], None],
                 user_configs: ImageUserConfigs | None = None) -> None:
        self.broker_id = broker_id
        self.entity_configs = entity_configs
        self.set_dynamic = set_dynamic
        self.user_configs = user_configs
        self.image: MetadataImage | None = None

    def publish(self, image: MetadataImage) -> None:
        previous, self.image = self.image, image
        if self.user_configs is not None:
            self.user_configs.scram = image.scram
        if previous is None or image.configs is not previous.configs:
            self._broker_configs(previous, image)
        if previous is None or image.client_quotas is not previous.client_quotas:
            before = quota_entity_configs(previous.client_quotas) if previous is not None else {}
            after = quota_entity_configs(image.client_quotas)
            for key in sorted(set(before) | set(after)):
                if before.get(key) != after.get(key):
                    self.entity_configs.set(key[0], key[1], after.get(key, {}))

    def _broker_configs(self, previous: MetadataImage | None, image: MetadataImage) -> None:
        def layers(img: MetadataImage) -> tuple[Mapping[str, str], Mapping[str, str]]:
            return img.configs.broker_config(None), img.configs.broker_config(self.broker_id)
        now = layers(image)
        if previous is not None and tuple(map(dict, layers(previous))) == tuple(map(dict, now)):
            return
        if previous is None and not any(now):
            return
        self.set_dynamic(dict(now[0]), dict(now[1]))
