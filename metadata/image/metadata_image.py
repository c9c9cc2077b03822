"""The whole metadata image, as Kafka's ``MetadataImage``, and the lookups brokers need.

Who calls it: a KRaft node's metadata loader (which replays the log through a
``MetadataDelta`` and publishes each new image), the broker's request handlers (Metadata,
DescribeConfigs, DescribeAcls, ...) and the replica manager (through
``MetadataDelta.local_changes``). An image is immutable and shared freely between threads
and versions."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from kafpy.metadata.image.acls import EMPTY_ACLS, AclsImage
from kafpy.metadata.image.client_quotas import EMPTY_CLIENT_QUOTAS, ClientQuotasImage
from kafpy.metadata.image.cluster import EMPTY_CLUSTER, BrokerRegistration, ClusterImage, Endpoint
from kafpy.metadata.image.configs import EMPTY_CONFIGS, ConfigurationsImage
from kafpy.metadata.image.delegation_tokens import EMPTY_DELEGATION_TOKENS, DelegationTokenImage
from kafpy.metadata.image.features import EMPTY_FEATURES, FeaturesImage
from kafpy.metadata.image.partition import PartitionRegistration
from kafpy.metadata.image.producer_ids import EMPTY_PRODUCER_IDS, ProducerIdsImage
from kafpy.metadata.image.provenance import EMPTY_PROVENANCE, MetadataProvenance
from kafpy.metadata.image.scram import EMPTY_SCRAM, ScramImage
from kafpy.metadata.image.topics import EMPTY_TOPICS, TopicImage, TopicsImage
from kafpy.metadata.image.writer import ApiMessageAndVersion


@dataclass(frozen=True)
class MetadataImage:
    """Every part of the cluster's metadata as of ``provenance``."""

    provenance: MetadataProvenance
    features: FeaturesImage
    cluster: ClusterImage
    topics: TopicsImage
    configs: ConfigurationsImage
    client_quotas: ClientQuotasImage
    producer_ids: ProducerIdsImage
    acls: AclsImage
    scram: ScramImage
    delegation_tokens: DelegationTokenImage

    def is_empty(self) -> bool:
        return all(part.is_empty() for part in (
            self.features, self.cluster, self.topics, self.configs, self.client_quotas,
            self.producer_ids, self.acls, self.scram, self.delegation_tokens))

    @property
    def highest_offset_and_epoch(self) -> tuple[int, int]:
        return (self.provenance.last_contained_offset, self.provenance.last_contained_epoch)

    def records(self) -> list[ApiMessageAndVersion]:
        """The records a snapshot of this image holds, in Kafka's order (features first, so a
        reader knows the metadata.version before the rest; then cluster, topics, configs,
        client quotas, producer ids, ACLs, SCRAM, delegation tokens). Replaying them onto an
        empty image gives an image equal to this one but for the provenance."""
        out: list[ApiMessageAndVersion] = []
        for chunk in self.record_chunks():
            out += chunk
        return out

    def record_chunks(self) -> Iterator[list[ApiMessageAndVersion]]:
        """``records()`` a piece at a time (each part's records, the topics' one topic at a
        time), so a snapshot writer can encode a large image in steps between which its
        event loop runs."""
        yield self.features.records()
        yield self.cluster.records()
        for name in sorted(self.topics.topics_by_name):
            yield self.topics.topics_by_name[name].records()
        for part in (self.configs, self.client_quotas, self.producer_ids, self.acls, self.scram,
                     self.delegation_tokens):
            yield part.records()

    # -- lookups brokers need ------------------------------------------------------------

    def topic(self, name: str) -> TopicImage | None:
        return self.topics.get_topic_by_name(name)

    def topic_by_id(self, topic_id: bytes) -> TopicImage | None:
        return self.topics.get_topic(topic_id)

    def partition(self, topic: str, partition: int) -> PartitionRegistration | None:
        found = self.topics.get_topic_by_name(topic)
        return None if found is None else found.partitions.get(partition)

    def partitions_led_by(self, broker_id: int) -> Iterator[tuple[TopicImage, int, PartitionRegistration]]:
        """(topic, partition id, registration) of every partition ``broker_id`` leads."""
        for topic in self.topics.topics_by_id.values():
            for partition_id, partition in topic.partitions.items():
                if partition.leader == broker_id:
                    yield topic, partition_id, partition

    def partitions_on(self, broker_id: int) -> Iterator[tuple[TopicImage, int, PartitionRegistration]]:
        """(topic, partition id, registration) of every partition with a replica on
        ``broker_id``."""
        for topic in self.topics.topics_by_id.values():
            for partition_id, partition in topic.partitions.items():
                if broker_id in partition.replicas:
                    yield topic, partition_id, partition

    def live_brokers(self) -> list[BrokerRegistration]:
        """Registered, unfenced brokers by id (the brokers Metadata answers with)."""
        return self.cluster.unfenced_brokers()

    def live_broker_endpoints(self, listener: str) -> dict[int, Endpoint]:
        """Broker id -> its endpoint on ``listener``, for the unfenced brokers that have it."""
        out: dict[int, Endpoint] = {}
        for broker in self.cluster.unfenced_brokers():
            endpoint = broker.listener(listener)
            if endpoint is not None:
                out[broker.id] = endpoint
        return out

    def finalized_features(self) -> dict[str, int]:
        """Finalized feature levels, metadata.version included."""
        return self.features.all_levels()

    def topic_config(self, topic: str) -> dict[str, str]:
        """The topic's dynamic configs only; merging with broker and default values is the
        caller's, as each caller (DescribeConfigs, the log manager) needs its own view."""
        return dict(self.configs.topic_config(topic))


EMPTY_IMAGE = MetadataImage(
    provenance=EMPTY_PROVENANCE, features=EMPTY_FEATURES, cluster=EMPTY_CLUSTER,
    topics=EMPTY_TOPICS, configs=EMPTY_CONFIGS, client_quotas=EMPTY_CLIENT_QUOTAS,
    producer_ids=EMPTY_PRODUCER_IDS, acls=EMPTY_ACLS, scram=EMPTY_SCRAM,
    delegation_tokens=EMPTY_DELEGATION_TOKENS)
