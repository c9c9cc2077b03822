"""Online migration of a live group between the classic and the consumer protocols
(KIP-848, `group.consumer.migration.policy=bidirectional`) while a producer runs: three
classic members (cooperative-sticky) are replaced one at a time by consumer-protocol
members, then back. Members `a` and `c` are confluent-kafka (librdkafka) consumers,
member `b` a Java 4.4 KafkaConsumer (MigrationMember.java, compiled by the test). Every
record is consumed at least once, and no partition is owned by two members at once, as
the members' own assignment and revocation callbacks report it."""
from __future__ import annotations

import subprocess
import threading
import time
from pathlib import Path
from typing import cast

from confluent_kafka import Consumer, Producer
from confluent_kafka.admin import AdminClient, NewTopic

from tests.integration.coordinator.helpers import wait_until
from tests.integration.coordinator.test_consumer_protocol import CONSUMER_GROUP_BROKER
from tests.support.kafka_dist import classpath, compile_java, java_executable

TOPIC, GROUP, PARTITIONS = "migrating", "migrating-group", 6


class Ownership:
    """Who owns which partition, from the members' callbacks, each stamped with the time it
    ran (CLOCK_MONOTONIC: Python's monotonic_ns and the JVM's nanoTime on Linux). The Java
    member's callbacks reach this process through a pipe, later than they ran, so overlaps
    are found by replaying the callbacks in the order they ran, not in the order they came."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.owner: dict[int, str] = {}   # as the callbacks came: what the waits look at
        self.events: list[tuple[int, str, str, list[int]]] = []   # (ran at ns, kind, member, partitions)

    def assigned(self, member: str, partitions: list[int], at_ns: int | None = None) -> None:
        with self.lock:
            self.events.append((time.monotonic_ns() if at_ns is None else at_ns, "assigned", member, partitions))
            for p in partitions:
                self.owner[p] = member

    def revoked(self, member: str, partitions: list[int], at_ns: int | None = None) -> None:
        with self.lock:
            self.events.append((time.monotonic_ns() if at_ns is None else at_ns, "revoked", member, partitions))
            for p in partitions:
                if self.owner.get(p) == member:
                    del self.owner[p]

    @property
    def overlaps(self) -> list[str]:
        """Each partition assigned while another member still owned it, in the order the
        callbacks ran."""
        found: list[str] = []
        owner: dict[int, str] = {}
        with self.lock:
            events = sorted(self.events, key=lambda e: e[0])
        for _at, kind, member, partitions in events:
            for p in partitions:
                holder = owner.get(p)
                if kind == "assigned":
                    if holder is not None and holder != member:
                        found.append(f"{member} got {p} owned by {holder}")
                    owner[p] = member
                elif holder == member:
                    del owner[p]
        return found

    def of(self, member: str) -> set[int]:
        with self.lock:
            return {p for p, m in self.owner.items() if m == member}


class Member(threading.Thread):
    def __init__(self, name: str, bootstrap: str, protocol: str, ownership: Ownership,
                 seen: set[bytes]) -> None:
        super().__init__(daemon=True)
        self.name_, self.protocol, self.ownership, self.seen = name, protocol, ownership, seen
        conf = {"bootstrap.servers": bootstrap, "group.id": GROUP, "auto.offset.reset": "earliest",
                "client.id": name, "auto.commit.interval.ms": 200,
                "error_cb": lambda e: self.errors.append(str(e)) if e.fatal() else None}
        if protocol == "consumer":
            conf["group.protocol"] = "consumer"
        else:
            conf.update({"partition.assignment.strategy": "cooperative-sticky",
                         "session.timeout.ms": 10000, "heartbeat.interval.ms": 500})
        self.consumer = Consumer(conf)
        self.stop = threading.Event()
        self.errors: list[str] = []

    def run(self) -> None:
        c = self.consumer
        def numbers(ps) -> list[int]:
            return [tp.partition for tp in ps]
        c.subscribe([TOPIC], on_assign=lambda _c, ps: self.ownership.assigned(self.name_, numbers(ps)),
                    on_revoke=lambda _c, ps: self.ownership.revoked(self.name_, numbers(ps)),
                    on_lost=lambda _c, ps: self.ownership.revoked(self.name_, numbers(ps)))
        try:
            while not self.stop.is_set():
                msg = c.poll(0.2)
                if msg is None:
                    continue
                if (err := msg.error()) is not None:
                    if err.fatal():
                        self.errors.append(str(msg.error()))
                        return
                    continue
                self.seen.add(cast(bytes, msg.value()))   # the test's records all have values
        finally:
            c.close()   # commits and revokes (the callback runs) before leaving

    def halt(self) -> None:
        self.stop.set()
        self.join(60)
        assert not self.is_alive(), f"{self.name_} did not stop"


class JavaMember:
    """A Java 4.4 KafkaConsumer member (MigrationMember.java) in its own JVM; its
    listener's and polls' report lines, read by a thread, feed the same Ownership and
    seen set as the confluent-kafka members."""

    SOURCE = Path(__file__).with_name("MigrationMember.java")

    def __init__(self, name: str, bootstrap: str, protocol: str, ownership: Ownership,
                 seen: set[bytes]) -> None:
        self.name_, self.protocol, self.ownership, self.seen = name, protocol, ownership, seen
        self.errors: list[str] = []
        self.closed = False
        self.read = 0
        classes = compile_java(self.SOURCE, "4")
        self.proc = subprocess.Popen(
            [java_executable(), "-Xmx192m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
             "-cp", f"{classes}:{classpath('4')}", "MigrationMember", bootstrap, GROUP, TOPIC,
             protocol, name],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
            bufsize=1, start_new_session=True)
        self.reader = threading.Thread(target=self._read, daemon=True)

    def start(self) -> None:
        self.reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None, "started with stdout=PIPE"
        for line in self.proc.stdout:
            kind, _, rest = line.rstrip("\n").partition(" ")
            if kind in ("assigned", "revoked", "lost"):   # "<kind> <nanoTime> <p,p,...>"
                at, _, listed = rest.partition(" ")
                partitions = [int(p) for p in listed.split(",") if p]
                if kind == "assigned":
                    self.ownership.assigned(self.name_, partitions, int(at))
                else:
                    self.ownership.revoked(self.name_, partitions, int(at))
            elif kind == "records":
                values = rest.split()
                self.seen.update(v.encode() for v in values)
                self.read += len(values)
            elif kind == "error":
                self.errors.append(rest)
            elif kind == "closed":
                self.closed = True

    def halt(self) -> None:
        assert self.proc.stdin is not None, "started with stdin=PIPE"
        try:
            self.proc.stdin.write("stop\n")
            self.proc.stdin.close()
            self.proc.wait(60)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait(10)
        self.reader.join(10)
        assert self.closed, f"{self.name_} (Java) did not close: exit {self.proc.returncode}"


def _member(name: str, bootstrap: str, protocol: str, ownership: Ownership, seen: set[bytes]):
    kind = JavaMember if name == "b" else Member
    return kind(name, bootstrap, protocol, ownership, seen)


def _group_state(admin: AdminClient) -> str:
    try:
        (d,) = admin.describe_consumer_groups([GROUP])[GROUP].result(10),
        return str(d.state).split(".")[-1]
    except Exception as e:  # noqa: BLE001 - coordinator moving or group gone
        return f"error: {e}"


def test_members_move_to_the_consumer_protocol_and_back_one_at_a_time(broker_factory):
    b = broker_factory({**CONSUMER_GROUP_BROKER, "group.initial.rebalance.delay.ms": 0})
    admin = AdminClient({"bootstrap.servers": b.bootstrap})
    admin.create_topics([NewTopic(TOPIC, PARTITIONS, 1)])[TOPIC].result(60)
    produced: list[bytes] = []
    stop_producing = threading.Event()

    def produce() -> None:
        p = Producer({"bootstrap.servers": b.bootstrap, "linger.ms": 5})
        i = 0
        while not stop_producing.is_set():
            value = b"m%d" % i
            p.produce(TOPIC, value=value, partition=i % PARTITIONS)
            produced.append(value)
            i += 1
            p.poll(0)
            time.sleep(0.005)
        assert p.flush(30) == 0

    producer = threading.Thread(target=produce, daemon=True)
    producer.start()
    ownership, seen = Ownership(), set()
    members = {n: _member(n, b.bootstrap, "classic", ownership, seen) for n in ("a", "b", "c")}
    for m in members.values():
        m.start()

    def settled(protocol_names: dict[str, str]) -> bool:
        owned = [ownership.of(n) for n in protocol_names]
        return (all(owned) and sum(len(o) for o in owned) == PARTITIONS
                and _group_state(admin).lower() == "stable")

    wait_until(lambda: settled({n: "classic" for n in members}), 90, "three classic members share the topic")
    for protocol in ("consumer", "classic"):
        for name in ("a", "b", "c"):
            if name == "b":
                # the Java member read its share before it goes
                wait_until(lambda: members["b"].read > 0, 60, "the Java member reading")
            members[name].halt()
            members[name] = _member(name, b.bootstrap, protocol, ownership, seen)
            members[name].start()
            try:
                wait_until(lambda: settled({n: "" for n in members}), 120,
                           f"member {name} back with the {protocol} protocol and the group stable")
            except AssertionError as e:
                raise AssertionError(f"{e}: owners {ownership.owner}, state {_group_state(admin)}, "
                                     f"errors {[m.errors for m in members.values()]}") from None
    stop_producing.set()
    producer.join(60)
    wait_until(lambda: seen >= set(produced), 90, "every produced record consumed")
    for m in members.values():
        m.halt()
    errors = [e for m in members.values() for e in m.errors]
    assert not errors, errors
    assert not ownership.overlaps, ownership.overlaps[:5]
