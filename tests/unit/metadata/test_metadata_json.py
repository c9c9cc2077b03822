"""tests/support/metadata_json.py: lines as Apache Kafka 4.4's kafka-dump-log
--cluster-metadata-decoder printed them, turned into record messages."""
from __future__ import annotations

import base64

import pytest

from kafpy.protocol import messages as M
from tests.support.metadata_json import parse_dump

DUMP = """\
Dumping /tmp/k/metadata/__cluster_metadata-0/00000000000000000000.log
Log starting offset: 0
baseOffset: 0 lastOffset: 0 count: 1 baseSequence: -1 lastSequence: -1 producerId: -1 producerEpoch: -1 partitionLeaderEpoch: 1 isTransactional: false isControl: true deleteHorizonMs: OptionalLong.empty position: 0 CreateTime: 1795903045500 size: 91 magic: 2 compresscodec: none crc: 2283303049 isvalid: true
| offset: 0 CreateTime: 1795903045500 keySize: 4 valueSize: 19 sequence: -1 headerKeys: [] LeaderChange: {"version":0,"leaderId":1,"voters":[{"voterId":1}],"grantingVoters":[{"voterId":1}]}
baseOffset: 1 lastOffset: 4 count: 4 baseSequence: -1 lastSequence: -1 producerId: -1 producerEpoch: -1 partitionLeaderEpoch: 2 isTransactional: false isControl: false deleteHorizonMs: OptionalLong.empty position: 91 CreateTime: 1795903046366 size: 330 magic: 2 compresscodec: none crc: 3384964598 isvalid: true
| offset: 1 CreateTime: 1795903046366 keySize: -1 valueSize: 24 sequence: -1 headerKeys: [] payload: {"type":"PARTITION_RECORD","version":2,"data":{"partitionId":0,"topicId":"0jX0xZ0_QWGTz0Hd7o2xKQ","replicas":[1],"isr":[1],"removingReplicas":[],"addingReplicas":[],"leader":1,"leaderEpoch":0,"partitionEpoch":0,"directories":["I_QShKWC7UIxctc3VUKD3Q"]}}
| offset: 2 CreateTime: 1795903046366 keySize: -1 valueSize: 45 sequence: -1 headerKeys: [] payload: {"type":"CLIENT_QUOTA_RECORD","version":0,"data":{"entity":[{"entityType":"client-id","entityName":null}],"key":"producer_byte_rate","value":4096.0,"remove":false}}
| offset: 3 CreateTime: 1795903046366 keySize: -1 valueSize: 107 sequence: -1 headerKeys: [] payload: {"type":"USER_SCRAM_CREDENTIAL_RECORD","version":0,"data":{"name":"alice","mechanism":1,"salt":"MTd3bmZoOG4zOTRjOGhwN3RlMWRoa3pvb3Y=","storedKey":"AAE=","serverKey":"AgM=","iterations":8192}}
| offset: 4 CreateTime: 1795903046366 keySize: -1 valueSize: 23 sequence: -1 headerKeys: [] payload: {"type":"PARTITION_CHANGE_RECORD","version":2,"data":{"partitionId":0,"topicId":"0jX0xZ0_QWGTz0Hd7o2xKQ","isr":[],"leader":-1,"eligibleLeaderReplicas":[1],"lastKnownElr":[1]}}
"""


def test_batches_and_records_from_kafkas_dump():
    control, data = parse_dump(DUMP)
    assert (control.base_offset, control.is_control, control.records) == (0, True, [])
    assert (data.base_offset, data.epoch, data.append_time_ms, data.is_control) == (1, 2, 1795903046366, False)
    assert [offset for offset, _r in data.records] == [1, 2, 3, 4]
    partition, quota, scram, change = (r for _o, r in data.records)
    topic_id = base64.urlsafe_b64decode("0jX0xZ0_QWGTz0Hd7o2xKQ==")
    assert partition == M.PartitionRecord(partition_id=0, topic_id=topic_id, replicas=[1], isr=[1], leader=1,
                                          leader_epoch=0, partition_epoch=0,
                                          directories=[base64.urlsafe_b64decode("I_QShKWC7UIxctc3VUKD3Q==")])
    assert quota == M.ClientQuotaRecord(entity=[M.ClientQuotaRecord.EntityData(entity_type="client-id", entity_name=None)],
                                        key="producer_byte_rate", value=4096.0)
    assert isinstance(scram, M.UserScramCredentialRecord)
    assert (scram.salt, scram.stored_key, scram.server_key) == (b"17wnfh8n394c8hp7te1dhkzoov", b"\x00\x01", b"\x02\x03")
    # fields the dump leaves out keep the record's "no change" defaults
    assert change == M.PartitionChangeRecord(partition_id=0, topic_id=topic_id, isr=[], leader=-1,
                                             eligible_leader_replicas=[1], last_known_elr=[1])
    assert change.replicas is None and change.leader_recovery_state == -1


def test_unknown_types_and_fields_are_refused():
    line = "baseOffset: 0 lastOffset: 0 count: 1 partitionLeaderEpoch: 1 isTransactional: false isControl: false x CreateTime: 5 size: 1\n"
    with pytest.raises(ValueError, match="no metadata record type"):
        parse_dump(line + '| offset: 0 CreateTime: 5 payload: {"type":"VOTE_REQUEST","version":0,"data":{}}\n')
    with pytest.raises(ValueError, match="not in the spec"):
        parse_dump(line + '| offset: 0 CreateTime: 5 payload: {"type":"NO_OP_RECORD","version":0,"data":{"x":1}}\n')
