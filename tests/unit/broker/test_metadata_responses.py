"""Metadata answered from cached, already encoded topic entries: the frame is byte for byte
the codec's encoding of the same response, at every version, and follows metadata changes."""
from __future__ import annotations

import asyncio

import pytest

from kafpy.broker.handlers.metadata import handle_metadata
from kafpy.broker.metadata_responses import EncodedMetadataResponse
from kafpy.protocol import codec
from kafpy.protocol.messages import MetadataRequest, MetadataResponse
from tests.unit.broker.helpers import LocalBroker, call

M = MetadataRequest


@pytest.fixture
def broker(tmp_path):
    loop = asyncio.new_event_loop()
    b = LocalBroker(str(tmp_path), loop, **{"auto.create.topics.enable": "false"})
    yield b
    b.close()
    loop.close()


def frame_of(resp: EncodedMetadataResponse, version: int) -> bytes:
    return b"".join(resp.encode_chunks(version, 42))


def plain(resp: EncodedMetadataResponse) -> MetadataResponse:
    return MetadataResponse(**{name: getattr(resp, name) for name in MetadataResponse.__slots__})


@pytest.mark.parametrize("version", range(0, 13))
def test_the_frame_is_the_codecs_encoding(broker, version):
    broker.create_topic("a", 3)
    broker.create_topic("b", 1)
    for topics in (None, [M.MetadataRequestTopic(name="b"), M.MetadataRequestTopic(name="missing"),
                          M.MetadataRequestTopic(name="a")]):
        if topics is None and version == 0:
            topics = []
        resp = call(broker, handle_metadata, 3, version, M(topics=topics))
        assert isinstance(resp, EncodedMetadataResponse)
        assert frame_of(resp, version) == codec.encode_response(3, version, 42, plain(resp))
        corr, decoded = codec.decode_response(3, version, frame_of(resp, version)[4:])
        assert corr == 42 and [t.name for t in decoded.topics] == [t.name for t in resp.topics]


def test_entries_follow_metadata_changes(broker):
    broker.create_topic("a", 2)
    first = call(broker, handle_metadata, 3, 12, M(topics=None))
    again = call(broker, handle_metadata, 3, 12, M(topics=None))
    assert again.topics[0] is first.topics[0]  # cached, not rebuilt
    broker.create_topic("b", 1)
    after = call(broker, handle_metadata, 3, 12, M(topics=None))
    assert [t.name for t in after.topics] == ["a", "b"] and after.topics[0] is first.topics[0]
    broker.loop.run_until_complete(broker.controller.delete_topic("a"))
    gone = call(broker, handle_metadata, 3, 12, M(topics=None))
    assert [t.name for t in gone.topics] == ["b"]
    assert frame_of(gone, 12) == codec.encode_response(3, 12, 42, plain(gone))
    # a changed partition (a new TopicInfo) is answered anew
    info = broker.metadata.topic("b")
    import dataclasses
    moved = dataclasses.replace(info, partitions={0: dataclasses.replace(info.partitions[0], leader_epoch=7)})
    broker.metadata.update(topics=[moved])
    one = call(broker, handle_metadata, 3, 12, M(topics=[M.MetadataRequestTopic(name="b")]))
    assert one.topics[0].partitions[0].leader_epoch == 7
    assert frame_of(one, 12) == codec.encode_response(3, 12, 42, plain(one))


def test_a_broker_without_the_requests_listener_is_left_out(broker):
    """Kafka's metadata cache answers on the request's listener: a live broker that lacks it
    is not listed (never another listener's port), and a partition it leads says
    LISTENER_NOT_FOUND with no leader."""
    import dataclasses

    from kafpy.replication.metadata_cache import BrokerInfo
    broker.create_topic("t", 1)
    me = broker.metadata.local_broker
    local = dataclasses.replace(me, endpoints={"PLAINTEXT": (me.host, me.port)})
    other = BrokerInfo(7, "127.0.0.1", 19007, None, {"INTERNAL": ("127.0.0.1", 19007)})
    info = broker.metadata.topic("t")
    led_by_other = dataclasses.replace(info, partitions={0: dataclasses.replace(info.partitions[0], leader=7)})
    broker.metadata.update(brokers=[local, other], topics=[led_by_other])
    resp = call(broker, handle_metadata, 3, 12, M(topics=None))
    assert [b.node_id for b in resp.brokers] == [me.node_id]
    [part] = resp.topics[0].partitions
    assert (part.error_code, part.leader_id) == (72, -1)   # LISTENER_NOT_FOUND
    assert frame_of(resp, 12) == codec.encode_response(3, 12, 42, plain(resp))
