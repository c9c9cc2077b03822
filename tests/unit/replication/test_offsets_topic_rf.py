"""The replication factor of ``__consumer_offsets`` in a ZooKeeper-mode cluster: the
configured one, refused (never capped) while fewer brokers are alive, as Kafka 3.x does."""
import pytest

from kafpy.replication.metadata_cache import TopicError
from kafpy.protocol.errors import ErrorCode
from kafpy.replication.zk_admin import offsets_topic_replication_factor


def test_enough_live_brokers_give_the_configured_factor():
    assert offsets_topic_replication_factor(3, 3) == 3
    assert offsets_topic_replication_factor(3, 5) == 3
    assert offsets_topic_replication_factor(1, 1) == 1


def test_fewer_live_brokers_refuse_instead_of_capping():
    with pytest.raises(TopicError) as e:
        offsets_topic_replication_factor(3, 2)
    assert e.value.error_code == ErrorCode.INVALID_REPLICATION_FACTOR
    assert "offsets.topic.replication.factor" in str(e.value)
