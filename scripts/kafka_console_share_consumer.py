"""kafka-console-share-consumer: prints the records a share group (KIP-932) delivers to this
member, with the main flags of Apache Kafka 4.4's ConsoleShareConsumer: --topic, --group
(default "console-share-consumer"), --max-messages, --timeout-ms, --reject / --release
(acknowledge every record so instead of accepting it), --property print.key /
key.separator / print.offset / print.partition, "Processed a total of N messages" on
stderr at exit, and a clean leave on SIGINT and SIGTERM.

A member as the Java KafkaShareConsumer is one: ShareGroupHeartbeat to the group
coordinator for the assignment, ShareFetch in a share session to each leader, each
delivered record acknowledged in the next request (implicit acknowledgement), the session
closed and the group left at exit. Records acquired but not printed (past
--max-messages) are released for other members. Sent raw (kafka-python has no share API).
"""
from __future__ import annotations

import base64
import signal
import sys
import time
import uuid
from typing import TextIO

from kafpy.protocol import messages
from kafpy.protocol.api_keys import ApiKey
from kafpy.protocol.batch_header import LOG_OVERHEAD, parse_header
from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.record_decoder import decode_records
from kafpy.scripts._cli import OptionParser, UsageExit, parse_key_value_args, tool_main
from kafpy.scripts._clients import BrokerError
from kafpy.scripts.share_group_client import ShareGroupAdmin

ACCEPT, RELEASE, REJECT = 1, 2, 3


def build_parser() -> OptionParser:
    p = OptionParser()
    p.accepts("bootstrap-server", "REQUIRED: The server(s) to connect to.", arg="required",
              described_as="server to connect to")
    p.accepts("topic", "The topic to consume from.", arg="required", described_as="topic")
    p.accepts("group", "The share group id of the consumer.", arg="required",
              described_as="share group id", default="console-share-consumer")
    p.accepts("max-messages", "The maximum number of messages to consume before exiting. If not "
              "set, consumption is continual.", arg="required", described_as="num_messages",
              type=int, type_name="Integer")
    p.accepts("timeout-ms", "If specified, exit if no message is available for consumption for "
              "the specified interval.", arg="required", described_as="timeout_ms", type=int,
              type_name="Integer")
    p.accepts("reject", "If specified, messages are rejected as they are consumed.")
    p.accepts("release", "If specified, messages are released as they are consumed.")
    p.accepts("property", "The properties to initialize the message formatter: print.key, "
              "print.offset, print.partition, key.separator.", arg="required", described_as="prop")
    p.accepts("formatter-property", "The same as --property.", arg="required", described_as="prop")
    p.accepts("command-property", "Consumer config properties in the form key=value (ignored but "
              "client.id).", arg="required", described_as="consumer_prop")
    p.accepts("consumer-property", "(DEPRECATED) Use --command-property.", arg="required",
              described_as="consumer_prop")
    return p


def _member_id() -> str:
    """A random member id as Kafka's Uuid prints (22 URL-safe base64 characters)."""
    return base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")


class ShareConsumer:
    """One share group member over raw requests; `poll()` returns (partition, offset, key,
    value) of newly acquired records and acknowledges what the previous poll returned."""

    def __init__(self, admin: ShareGroupAdmin, group: str, topic: str, client_id: str,
                 ack_type: int) -> None:
        self.admin, self.group, self.topic, self.ack_type = admin, group, topic, ack_type
        self.client_id = client_id
        self.member_id = _member_id()
        self.epoch = 0
        self.assigned: set[int] = set()
        self.topic_id: bytes | None = None
        self.next_heartbeat = 0.0
        self.interval = 5.0
        self.sessions: dict[int, int] = {}           # leader -> share session epoch
        self.pending: dict[int, list[tuple[int, int, int]]] = {}   # partition -> acks

    # -- membership ---------------------------------------------------------------------
    def heartbeat(self, leaving: bool = False) -> None:
        node_id, _ = self.admin.coordinator(self.group)
        resp = self.admin.node(node_id).send(messages.ShareGroupHeartbeatResponse, ApiKey.SHARE_GROUP_HEARTBEAT, messages.ShareGroupHeartbeatRequest(
            group_id=self.group, member_id=self.member_id, member_epoch=-1 if leaving else self.epoch,
            rack_id=None, subscribed_topic_names=[self.topic] if self.epoch == 0 else None))
        if leaving:
            return
        if resp.error_code == ErrorCode.FENCED_MEMBER_EPOCH or resp.error_code == ErrorCode.UNKNOWN_MEMBER_ID:
            self.epoch, self.assigned = 0, set()
            return
        if resp.error_code != ErrorCode.NONE:
            raise BrokerError(resp.error_code, resp.error_message)
        self.epoch = resp.member_epoch
        self.interval = max(resp.heartbeat_interval_ms, 100) / 1000
        if resp.assignment is not None:
            mine = [tp for tp in resp.assignment.topic_partitions]
            self.assigned = {p for tp in mine for p in tp.partitions}
            if mine:
                self.topic_id = bytes(mine[0].topic_id)

    def _leaders(self) -> dict[int, list[int]]:
        self.admin.metadata = self.admin.bootstrap.send(messages.MetadataResponse, ApiKey.METADATA, messages.MetadataRequest(
            topics=[messages.MetadataRequest.MetadataRequestTopic(name=self.topic)],
            allow_auto_topic_creation=False))
        out: dict[int, list[int]] = {}
        for t in self.admin.metadata.topics:
            for p in t.partitions:
                if p.partition_index in self.assigned or p.partition_index in self.pending:
                    out.setdefault(p.leader_id, []).append(p.partition_index)
        return out

    # -- fetching -----------------------------------------------------------------------
    def poll(self, wait_ms: int) -> list[tuple[int, int, bytes | None, bytes | None]]:
        now = time.monotonic()
        if now >= self.next_heartbeat:
            self.heartbeat()
            self.next_heartbeat = now + self.interval
        if self.topic_id is None or not (self.assigned or self.pending):
            time.sleep(min(wait_ms / 1000, 0.2))
            return []
        out = []
        for leader, partitions in self._leaders().items():
            out += self._fetch(leader, sorted(partitions), wait_ms)
        return out

    def _acks(self, partition: int) -> list:
        return [messages.ShareFetchRequest.AcknowledgementBatch(first_offset=f, last_offset=l, acknowledge_types=[t])
                for f, l, t in self.pending.pop(partition, [])]

    def _fetch(self, leader: int, partitions: list[int], wait_ms: int) -> list:
        assert self.topic_id is not None  # found before the first fetch
        epoch = self.sessions.get(leader, 0)
        req = messages.ShareFetchRequest(group_id=self.group, member_id=self.member_id, share_session_epoch=epoch,
                max_wait_ms=wait_ms, min_bytes=1, max_bytes=52428800, max_records=500, batch_size=500,
                topics=[messages.ShareFetchRequest.FetchTopic(topic_id=self.topic_id, partitions=[
                    messages.ShareFetchRequest.FetchPartition(partition_index=p, acknowledgement_batches=self._acks(p))
                    for p in partitions])], forgotten_topics_data=[])
        resp = self.admin.node(leader).send(messages.ShareFetchResponse, ApiKey.SHARE_FETCH, req)
        if resp.error_code != ErrorCode.NONE:
            self.sessions.pop(leader, None)      # a new session next time
            if resp.error_code in (ErrorCode.SHARE_SESSION_NOT_FOUND, ErrorCode.INVALID_SHARE_SESSION_EPOCH):
                return []
            raise BrokerError(resp.error_code, resp.error_message)
        self.sessions[leader] = epoch + 1
        out = []
        for t in resp.responses:
            for p in t.partitions:
                if p.error_code != ErrorCode.NONE or not p.acquired_records or not p.records:
                    continue
                acquired = [(a.first_offset, a.last_offset) for a in p.acquired_records]
                buf, pos = bytes(p.records), 0
                while pos + LOG_OVERHEAD <= len(buf):
                    header = parse_header(buf, pos)
                    end = pos + LOG_OVERHEAD + header.batch_length
                    if not header.is_control:
                        for r in decode_records(buf, pos, header):
                            offset = header.base_offset + r.offset_delta
                            if any(f <= offset <= l for f, l in acquired):
                                out.append((p.partition_index, offset, r.key, r.value))
                    pos = end
                # every acquired offset is acknowledged (control records' too)
                self.pending.setdefault(p.partition_index, []).extend(
                    (f, l, self.ack_type) for f, l in acquired)
        return out

    def release(self, partition: int, offset: int) -> None:
        """Give back one acquired record not handed to the user (past --max-messages)."""
        acks = self.pending.get(partition, [])
        for i, (f, l, t) in enumerate(acks):
            if f <= offset <= l:
                pieces = [(f, offset - 1, t)] if f < offset else []
                pieces.append((offset, offset, RELEASE))
                if offset < l:
                    pieces.append((offset + 1, l, t))
                acks[i:i + 1] = pieces
                return

    def close(self) -> None:
        """Acknowledge what is pending, close every share session, leave the group."""
        try:
            for leader in set(self._leaders()) | set(self.sessions):
                if leader not in self.sessions:
                    continue
                topics = []
                if self.topic_id is not None and self.pending:
                    topics = [messages.ShareAcknowledgeRequest.AcknowledgeTopic(topic_id=self.topic_id, partitions=[
                        messages.ShareAcknowledgeRequest.AcknowledgePartition(partition_index=p, acknowledgement_batches=[
                            messages.ShareAcknowledgeRequest.AcknowledgementBatch(first_offset=f, last_offset=l, acknowledge_types=[t])
                            for f, l, t in acks])
                        for p, acks in sorted(self.pending.items()) if acks])]
                self.admin.node(leader).send(messages.ShareAcknowledgeResponse, ApiKey.SHARE_ACKNOWLEDGE, messages.ShareAcknowledgeRequest(
                    group_id=self.group, member_id=self.member_id, share_session_epoch=-1, topics=topics))
            self.pending.clear()
        finally:
            if self.epoch > 0:
                self.heartbeat(leaving=True)


class _Stop(Exception):
    pass


def _stop(*_: object) -> None:
    raise _Stop()


def run(args: list[str], out: TextIO | None = None, err: TextIO | None = None) -> int:
    out, err = out or sys.stdout, err or sys.stderr
    p = build_parser()
    o = p.parse_or_usage(args)
    p.maybe_help_or_version(o, args, "This tool helps to read data from Kafka topics using share "
                            "groups and outputs it to standard output.")
    p.check_required(o, "bootstrap-server", "topic")
    if o.has("reject") and o.has("release"):
        p.usage_and_exit("Option reject and release are mutually exclusive.")
    props = parse_key_value_args(o.values_of("property") + o.values_of("formatter-property"))
    consumer_props = parse_key_value_args(o.values_of("command-property") + o.values_of("consumer-property"))
    print_key = props.get("print.key", "false").lower() == "true"
    print_offset = props.get("print.offset", "false").lower() == "true"
    print_partition = props.get("print.partition", "false").lower() == "true"
    key_sep = props.get("key.separator", "\t")
    ack = REJECT if o.has("reject") else RELEASE if o.has("release") else ACCEPT
    limit = o.value_of("max-messages")
    timeout_ms = o.value_of("timeout-ms")
    processed = 0
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, _stop)
    consumer = None
    try:
        with ShareGroupAdmin(o.value_of("bootstrap-server")) as admin:
            consumer = ShareConsumer(admin, o.value_of("group"), o.value_of("topic"),
                                     consumer_props.get("client.id", "console-share-consumer"), ack)
            last = time.monotonic()
            try:
                while limit is None or processed < limit:
                    records = consumer.poll(500)
                    if records:
                        last = time.monotonic()
                    elif timeout_ms is not None and (time.monotonic() - last) * 1000 >= timeout_ms:
                        break
                    for i, (partition, offset, key, value) in enumerate(records):
                        if limit is not None and processed >= limit:
                            consumer.release(partition, offset)
                            continue
                        line = ""
                        if print_partition:
                            line += f"Partition:{partition}\t"
                        if print_offset:
                            line += f"Offset:{offset}\t"
                        if print_key:
                            line += ("null" if key is None else key.decode("utf-8", "replace")) + key_sep
                        line += "null" if value is None else value.decode("utf-8", "replace")
                        out.write(line + "\n")
                        processed += 1
                    out.flush()
            except _Stop:
                pass
            finally:
                for sig in (signal.SIGINT, signal.SIGTERM):
                    signal.signal(sig, signal.SIG_IGN)
                consumer.close()
    except UsageExit:
        raise
    except Exception as e:  # noqa: BLE001 - the tool's last word
        err.write(f"ERROR Error processing message, terminating consumer process:  ({e})\n")
    err.write(f"Processed a total of {processed} messages\n")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Console-script entry point (also ``python -m`` this module)."""
    return tool_main(run, argv)


if __name__ == "__main__":
    sys.exit(main())
