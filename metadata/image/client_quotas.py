"""Client quotas by entity, as Kafka's ``ClientQuotasImage`` / ``ClientQuotasDelta``.

An entity is a set of (entity type, name) pairs (``user``, ``client-id``, ``ip``); a name of
None is the default entity of that type. ``ClientQuotaRecord`` sets a key, or removes it when
its ``remove`` flag is set; an entity left with no keys is dropped."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from kafpy.metadata.image.maps import frozen, merged
from kafpy.metadata.image.writer import ApiMessageAndVersion, with_version
from kafpy.protocol.messages import ClientQuotaRecord

# an entity: (entity type, entity name or None for the default), sorted by type
ClientQuotaEntity = tuple[tuple[str, str | None], ...]


def entity_of(record: ClientQuotaRecord) -> ClientQuotaEntity:
    return tuple(sorted((e.entity_type, e.entity_name) for e in record.entity))


@dataclass(frozen=True)
class ClientQuotasImage:
    """Entity -> quota key -> value."""

    entities: Mapping[ClientQuotaEntity, Mapping[str, float]]

    def is_empty(self) -> bool:
        return not self.entities

    def quotas(self, entity: ClientQuotaEntity) -> Mapping[str, float]:
        return self.entities.get(entity, frozen({}))

    def records(self) -> list[ApiMessageAndVersion]:
        out: list[ApiMessageAndVersion] = []
        for entity in sorted(self.entities, key=_sort_key):
            quotas = self.entities[entity]
            for key in sorted(quotas):
                out.append(with_version(ClientQuotaRecord(
                    entity=[ClientQuotaRecord.EntityData(entity_type=t, entity_name=n)
                            for t, n in entity],
                    key=key, value=quotas[key], remove=False)))
        return out


def _sort_key(entity: ClientQuotaEntity) -> list[tuple[str, bool, str]]:
    return [(t, n is not None, n or "") for t, n in entity]


EMPTY_CLIENT_QUOTAS = ClientQuotasImage(frozen({}))


class ClientQuotasDelta:
    """Quota changes on top of ``image``: entity -> key -> new value (None: removed)."""

    def __init__(self, image: ClientQuotasImage) -> None:
        self.image = image
        self.changes: dict[ClientQuotaEntity, dict[str, float | None]] = {}

    def replay(self, record: ClientQuotaRecord) -> None:
        self.changes.setdefault(entity_of(record), {})[record.key] = (
            None if record.remove else record.value)

    def apply(self) -> ClientQuotasImage:
        if not self.changes:
            return self.image
        entities: dict[ClientQuotaEntity, Mapping[str, float] | None] = {}
        for entity, changes in self.changes.items():
            quotas = merged(self.image.quotas(entity), changes)
            entities[entity] = quotas if quotas else None
        return ClientQuotasImage(merged(self.image.entities, entities))
