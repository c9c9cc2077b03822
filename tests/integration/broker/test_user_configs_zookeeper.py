"""ZooKeeper mode: a user's SCRAM credentials and its quotas share one znode,
``/config/users/<user>``. A quota set through one broker right after a credential was set
through another keeps the credential: the broker reads the znode before changing it, as
Kafka's AdminZkClient does, instead of its own copy, which hears of the other broker's change
only from ``/config/changes`` a moment later. (It dropped the credential once, in the
migration tests, when Apache's kafka-configs ran the two changes back to back.)"""
from __future__ import annotations

import json

from kazoo.client import KazooClient

from kafpy.broker.security.scram import salted_password
from kafpy.protocol import messages as M
from kafpy.protocol.errors import ErrorCode
from tests.integration.raft.quorum_support import call

USERS = [f"user-{i}" for i in range(8)]


def test_a_quota_set_through_another_broker_keeps_the_users_scram_credential(zookeeper, broker_factory):
    a = broker_factory(zookeeper=zookeeper, overrides={"broker.id": 0})
    b = broker_factory(zookeeper=zookeeper, overrides={"broker.id": 1})
    S = M.AlterUserScramCredentialsRequest
    Q = M.AlterClientQuotasRequest
    salt = b"0123456789abcdef"
    for user in USERS:
        scram = call(a.port, S(deletions=[], upsertions=[S.ScramCredentialUpsertion(
            name=user, mechanism=1, iterations=4096, salt=salt,
            salted_password=salted_password("SCRAM-SHA-256", f"{user}-secret", salt, 4096))]),
            M.AlterUserScramCredentialsResponse, 0)
        assert [r.error_code for r in scram.results] == [ErrorCode.NONE]
        quota = call(b.port, Q(entries=[Q.EntryData(
            entity=[Q.EntityData(entity_type="user", entity_name=user)],
            ops=[Q.OpData(key="producer_byte_rate", value=1048576.0, remove=False)])],
            validate_only=False), M.AlterClientQuotasResponse, 1)
        assert [e.error_code for e in quota.entries] == [ErrorCode.NONE]
    zk = KazooClient(hosts=zookeeper.connect_string)
    zk.start()
    try:
        stored = {user: json.loads(zk.get(f"/config/users/{user}")[0])["config"] for user in USERS}
    finally:
        zk.stop()
        zk.close()
    for user, config in stored.items():
        assert "SCRAM-SHA-256" in config and config.get("producer_byte_rate") == "1048576", (user, config)
