"""Changes on top of a ``MetadataImage``, as Kafka's ``MetadataDelta``.

Who calls it: the metadata loader replays each record of the log (or of a snapshot) into a
delta and, at a batch or transaction boundary, calls ``apply`` to publish a new image; a
broker reads the delta (``local_changes``, ``deleted_topics``) to act on what changed.
Records are the generated message objects (KIND ``metadata``), dispatched by their API_KEY
(the metadata record type). Each part of the image gets its own delta on first use, so an
image part no record touched is shared as is by the next image."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import cast

from kafpy.metadata.image.acls import AclsDelta
from kafpy.metadata.image.client_quotas import ClientQuotasDelta
from kafpy.metadata.image.cluster import ClusterDelta
from kafpy.metadata.image.configs import ConfigurationsDelta
from kafpy.metadata.image.delegation_tokens import DelegationTokenDelta
from kafpy.metadata.image.errors import MetadataReplayError
from kafpy.metadata.image.features import FeaturesDelta
from kafpy.metadata.image.metadata_image import MetadataImage
from kafpy.metadata.image.partition import PartitionRegistration
from kafpy.metadata.image.producer_ids import ProducerIdsDelta
from kafpy.metadata.image.provenance import MetadataProvenance
from kafpy.metadata.image.scram import ScramDelta
from kafpy.metadata.image.topics import LocalReplicaChanges, TopicsDelta
from kafpy.protocol import messages as M
from kafpy.protocol.messages import Message


class MetadataDelta:
    """The image it started from and a delta per part of the image that changed."""

    def __init__(self, image: MetadataImage) -> None:
        self.image = image
        self.features_delta: FeaturesDelta | None = None
        self.cluster_delta: ClusterDelta | None = None
        self.topics_delta: TopicsDelta | None = None
        self.configs_delta: ConfigurationsDelta | None = None
        self.client_quotas_delta: ClientQuotasDelta | None = None
        self.producer_ids_delta: ProducerIdsDelta | None = None
        self.acls_delta: AclsDelta | None = None
        self.scram_delta: ScramDelta | None = None
        self.delegation_token_delta: DelegationTokenDelta | None = None

    # -- the part deltas, created on first use ----------------------------------------------

    def features(self) -> FeaturesDelta:
        if self.features_delta is None:
            self.features_delta = FeaturesDelta(self.image.features)
        return self.features_delta

    def cluster(self) -> ClusterDelta:
        if self.cluster_delta is None:
            self.cluster_delta = ClusterDelta(self.image.cluster)
        return self.cluster_delta

    def topics(self) -> TopicsDelta:
        if self.topics_delta is None:
            self.topics_delta = TopicsDelta(self.image.topics)
        return self.topics_delta

    def configs(self) -> ConfigurationsDelta:
        if self.configs_delta is None:
            self.configs_delta = ConfigurationsDelta(self.image.configs)
        return self.configs_delta

    def client_quotas(self) -> ClientQuotasDelta:
        if self.client_quotas_delta is None:
            self.client_quotas_delta = ClientQuotasDelta(self.image.client_quotas)
        return self.client_quotas_delta

    def producer_ids(self) -> ProducerIdsDelta:
        if self.producer_ids_delta is None:
            self.producer_ids_delta = ProducerIdsDelta(self.image.producer_ids)
        return self.producer_ids_delta

    def acls(self) -> AclsDelta:
        if self.acls_delta is None:
            self.acls_delta = AclsDelta(self.image.acls)
        return self.acls_delta

    def scram(self) -> ScramDelta:
        if self.scram_delta is None:
            self.scram_delta = ScramDelta(self.image.scram)
        return self.scram_delta

    def delegation_tokens(self) -> DelegationTokenDelta:
        if self.delegation_token_delta is None:
            self.delegation_token_delta = DelegationTokenDelta(self.image.delegation_tokens)
        return self.delegation_token_delta

    # -- replay -----------------------------------------------------------------------------

    def replay(self, record: Message) -> None:
        """Apply one metadata record. Raises ``MetadataReplayError`` for a record that is not
        a metadata record or that refers to something the image does not hold."""
        handler = _HANDLERS.get(record.API_KEY) if record.KIND == "metadata" else None
        if handler is None:
            raise MetadataReplayError(f"Unknown metadata record type {type(record).__name__}")
        handler(self, record)

    def replay_all(self, records: Iterable[Message]) -> None:
        for record in records:
            self.replay(record)

    def _remove_topic(self, record: M.RemoveTopicRecord) -> None:
        name = self.topics().replay_remove_topic(record)
        self.configs().delete_topic_configs(name)

    # -- what changed ----------------------------------------------------------------------

    def local_changes(self, broker_id: int) -> LocalReplicaChanges:
        """The replicas ``broker_id`` must create, lead, follow or delete (Kafka's
        ``TopicsDelta.localChanges``)."""
        if self.topics_delta is None:
            return LocalReplicaChanges()
        return self.topics_delta.local_changes(broker_id)

    def deleted_topics(self) -> dict[bytes, str]:
        """Topic id -> name of the topics this delta deletes."""
        if self.topics_delta is None:
            return {}
        return {i: self.image.topics.topics_by_id[i].name
                for i in self.topics_delta.deleted_topic_ids}

    def created_topics(self) -> dict[str, bytes]:
        """Name -> topic id of the topics this delta creates."""
        return {} if self.topics_delta is None else dict(self.topics_delta.created_topics)

    def changed_partitions(self) -> list[tuple[str, bytes, int, PartitionRegistration]]:
        """(topic name, topic id, partition id, new registration) of every partition this
        delta creates or changes."""
        if self.topics_delta is None:
            return []
        return [(t.name, t.id, p, reg) for t, p, reg in self.topics_delta.changed_partitions()]

    def apply(self, provenance: MetadataProvenance) -> MetadataImage:
        """The new image: every part with a delta replaced, every other part shared."""
        i = self.image
        return MetadataImage(
            provenance=provenance,
            features=i.features if self.features_delta is None else self.features_delta.apply(),
            cluster=i.cluster if self.cluster_delta is None else self.cluster_delta.apply(),
            topics=i.topics if self.topics_delta is None else self.topics_delta.apply(),
            configs=i.configs if self.configs_delta is None else self.configs_delta.apply(),
            client_quotas=(i.client_quotas if self.client_quotas_delta is None
                           else self.client_quotas_delta.apply()),
            producer_ids=(i.producer_ids if self.producer_ids_delta is None
                          else self.producer_ids_delta.apply()),
            acls=i.acls if self.acls_delta is None else self.acls_delta.apply(),
            scram=i.scram if self.scram_delta is None else self.scram_delta.apply(),
            delegation_tokens=(i.delegation_tokens if self.delegation_token_delta is None
                               else self.delegation_token_delta.apply()))


def _nothing(delta: MetadataDelta, record: Message) -> None:
    """NoOpRecord only moves the offset; the transaction markers are the loader's business
    (it publishes no image inside a transaction); Kafka 4 keeps no ZooKeeper migration
    state, so ZkMigrationStateRecord changes nothing."""


# the metadata record type (API_KEY) -> how it is applied; casts are safe: dispatched by key
_HANDLERS: dict[int | None, Callable[[MetadataDelta, Message], None]] = {
    M.RegisterBrokerRecord.API_KEY:
        lambda d, r: d.cluster().replay_register_broker(cast(M.RegisterBrokerRecord, r)),
    M.UnregisterBrokerRecord.API_KEY:
        lambda d, r: d.cluster().replay_unregister_broker(cast(M.UnregisterBrokerRecord, r)),
    M.TopicRecord.API_KEY: lambda d, r: d.topics().replay_topic(cast(M.TopicRecord, r)),
    M.PartitionRecord.API_KEY:
        lambda d, r: d.topics().replay_partition(cast(M.PartitionRecord, r)),
    M.ConfigRecord.API_KEY: lambda d, r: d.configs().replay(cast(M.ConfigRecord, r)),
    M.PartitionChangeRecord.API_KEY:
        lambda d, r: d.topics().replay_partition_change(cast(M.PartitionChangeRecord, r)),
    M.FenceBrokerRecord.API_KEY:
        lambda d, r: d.cluster().replay_fence_broker(cast(M.FenceBrokerRecord, r)),
    M.UnfenceBrokerRecord.API_KEY:
        lambda d, r: d.cluster().replay_unfence_broker(cast(M.UnfenceBrokerRecord, r)),
    M.RemoveTopicRecord.API_KEY: lambda d, r: d._remove_topic(cast(M.RemoveTopicRecord, r)),
    M.DelegationTokenRecord.API_KEY:
        lambda d, r: d.delegation_tokens().replay(cast(M.DelegationTokenRecord, r)),
    M.UserScramCredentialRecord.API_KEY:
        lambda d, r: d.scram().replay(cast(M.UserScramCredentialRecord, r)),
    M.FeatureLevelRecord.API_KEY: lambda d, r: d.features().replay(cast(M.FeatureLevelRecord, r)),
    M.ClientQuotaRecord.API_KEY:
        lambda d, r: d.client_quotas().replay(cast(M.ClientQuotaRecord, r)),
    M.ProducerIdsRecord.API_KEY:
        lambda d, r: d.producer_ids().replay(cast(M.ProducerIdsRecord, r)),
    M.BrokerRegistrationChangeRecord.API_KEY:
        lambda d, r: d.cluster().replay_broker_registration_change(
            cast(M.BrokerRegistrationChangeRecord, r)),
    M.AccessControlEntryRecord.API_KEY:
        lambda d, r: d.acls().replay(cast(M.AccessControlEntryRecord, r)),
    M.RemoveAccessControlEntryRecord.API_KEY:
        lambda d, r: d.acls().replay_remove(cast(M.RemoveAccessControlEntryRecord, r)),
    M.NoOpRecord.API_KEY: _nothing,
    M.ZkMigrationStateRecord.API_KEY: _nothing,
    M.RemoveUserScramCredentialRecord.API_KEY:
        lambda d, r: d.scram().replay_remove(cast(M.RemoveUserScramCredentialRecord, r)),
    M.BeginTransactionRecord.API_KEY: _nothing,
    M.EndTransactionRecord.API_KEY: _nothing,
    M.AbortTransactionRecord.API_KEY: _nothing,
    M.RemoveDelegationTokenRecord.API_KEY:
        lambda d, r: d.delegation_tokens().replay_remove(cast(M.RemoveDelegationTokenRecord, r)),
    M.RegisterControllerRecord.API_KEY:
        lambda d, r: d.cluster().replay_register_controller(cast(M.RegisterControllerRecord, r)),
    M.ClearElrRecord.API_KEY: lambda d, r: d.topics().replay_clear_elr(cast(M.ClearElrRecord, r)),
    M.UnregisterControllerRecord.API_KEY:
        lambda d, r: d.cluster().replay_unregister_controller(
            cast(M.UnregisterControllerRecord, r)),
}
