"""The consumer group protocol of Kafka 4 (KIP-848): ConsumerGroupHeartbeat and
ConsumerGroupDescribe, a state machine with the clock passed in.

Who calls it: the broker glue (broker/handlers/consumer_group.py) for requests; the
classic GroupCoordinator (GroupCoordinatorService builds both and attaches this one as
`classic.consumer`; this side sees it as a ClassicCoordinatorView) for loading and
unloading `__consumer_offsets` partitions, timers (`poll`), shutdown, and the offset
APIs, which validate a consumer group member's epoch here (`validate_offset_commit`,
`validate_offset_fetch`). One thread (the event loop), so nothing locks.

The group lives beside the classic groups: `classic.consumer_groups` maps its id to a
ConsumerGroup (consumer_group.py), whose committed offsets the classic OffsetManager
reads and writes like any group's. Partition ownership of the coordinator, its
loading state and the `__consumer_offsets` log are the classic coordinator's.

A heartbeat may change the group; every change is written to `__consumer_offsets` as
one batch in Kafka 4.4's records (consumer_records.py) and the heartbeat is answered
when that batch is committed. The in-memory state moves at once (the next heartbeat
sees it) and is not rolled back when the write fails: the member is answered with
the coordinator error, finds the coordinator again and rejoins from a state the new
coordinator rebuilt from the log.

Topics are read through `topics` (a TopicsView); a member's subscription is its topic names
plus the topics its regular expression fully matches (RE2, as Kafka's RE2/J:
protocol/user_regex.py; what RE2 cannot compile is INVALID_REGULAR_EXPRESSION) among those the
heartbeat's principal may DESCRIBE (`topic_authorized`, with an authorizer: KAFKA-18813). The
group keeps each subscribed expression resolved (`ConsumerGroup.resolved_regexes`, written as
Kafka 4.4's ConsumerGroupRegularExpression records): resolved when a member first brings it,
again when the topics or the ACLs (`acl_version`) changed since, tombstoned once no member uses
it. Kafka resolves them off the heartbeat path, at most every 10 s; here on the heartbeat (one
pass over the topic names, only when they changed), so a topic created or deleted is followed
at the next heartbeat. Each heartbeat compares a hash of the subscribed topics (ids and
partition counts) with the one the group epoch was computed at: a topic created, deleted or
grown bumps the epoch."""
from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass, field
from typing import Callable, Iterable, Mapping, TypeVar

from kafpy.protocol import messages
from kafpy.protocol.codec import encode_data
from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.user_regex import InvalidUserRegex, UserRegex, compile_user_regex

from kafpy.coordinator.group.consumer import records as consumer_records
from kafpy.coordinator.group.consumer.assignors import MemberSubscription, PartitionAssignor, assignors_from_config
from kafpy.coordinator.group.consumer.config import ConsumerGroupConfig
from kafpy.coordinator.group.consumer.migration import ClassicMembers
from kafpy.coordinator.group.consumer.group import (
    ConsumerGroupHeartbeat, JOIN_EPOCH, LEAVE_EPOCH, STATIC_LEAVE_EPOCH, Assignment, ConsumerGroup, ConsumerGroupMember,
    ConsumerGroupState, MemberState, ResolvedRegex, copy_assignment)
from kafpy.coordinator.group.classic.group import ClassicGroup
from kafpy.coordinator.group.consumer.topics import TopicMeta, TopicsView, metadata_hash
from kafpy.coordinator.group.consumer.validation import invalid_heartbeat_reason, unsupported_assignor_message
from kafpy.coordinator.group.classic.view import ClassicCoordinatorView
from kafpy.coordinator.group.member_checks import epoch_error, instance_error, unreleased_instance_error
from kafpy.coordinator.group.modern import ModernGroupCoordinator, ModernMember
from kafpy.coordinator.group.records import encode_offset_commit_key
from kafpy.coordinator.group.offsets_log import Completion
from kafpy.coordinator.group.results import GroupSummary, HeartbeatResult, MemberSummary
from kafpy.coordinator.result import CoordinatorResult

log = logging.getLogger("kafka.coordinator.group.GroupMetadataManager")
TopicPartitionT = TypeVar("TopicPartitionT")  # a record's or a classic protocol's TopicPartition class


@dataclass
class DescribedMember:
    member: ConsumerGroupMember
    target: Assignment


@dataclass
class DescribedConsumerGroup:
    group_id: str
    error: int = ErrorCode.NONE
    message: str | None = None
    state: str = ConsumerGroupState.DEAD.value
    group_epoch: int = 0
    assignment_epoch: int = 0
    assignor: str = ""
    members: list[DescribedMember] = field(default_factory=list)


def _error(error: ErrorCode, message: str | None = None, member_id: str | None = None,
           epoch: int = 0) -> HeartbeatResult:
    return HeartbeatResult(error, message, member_id, epoch)


class ConsumerGroupCoordinator(ClassicMembers, ModernGroupCoordinator[ConsumerGroup, ConsumerGroupMember]):
    """All consumer-protocol groups of the `__consumer_offsets` partitions the attached
    classic coordinator owns (with classic members of such groups: consumer_migration.py;
    the plumbing shared with share and Streams groups: modern_group.py)."""

    RECORDS_NAME = "consumer group records"
    COMMITS_FROM_V9 = True

    def __init__(self, classic: ClassicCoordinatorView, config: ConsumerGroupConfig, topics: TopicsView,
                 member_id_factory: Callable[[], str] | None = None,
                 group_configs: Callable[[str], Mapping[str, str]] | None = None) -> None:
        """`group_configs(group_id)`: the group's overrides (`consumer.session.timeout.ms`,
        `consumer.heartbeat.interval.ms`, set with kafka-configs --entity-type groups)."""
        self.classic = classic
        self.config = config
        self.topics = topics
        self._group_configs = group_configs or (lambda _gid: {})
        self.assignors: dict[str, PartitionAssignor] = {
            a.name: a for a in assignors_from_config(config.assignors)}
        self.default_assignor = next(iter(self.assignors))
        self.groups: dict[str, ConsumerGroup] = classic.consumer_groups
        self._new_member_id = member_id_factory or (lambda: uuid.uuid4().hex[:22])
        self._wakeups: list[int] = []
        self._topic_names: frozenset[str] | None = None
        self._topic_authorized: Callable[[str], bool] | None = None
        self._acl_version = 0
        self._regex_acl_versions: dict[tuple[str, str], int] = {}   # (group, regex) -> ACL version resolved at
        self._topics_version = 0
        self._downgraded: list[ClassicGroup] = []

    # ================================================================ ConsumerGroupHeartbeat
    def heartbeat(self, group_id: str, member_id: str, member_epoch: int, *,
                  instance_id: str | None = None, rack_id: str | None = None,
                  rebalance_timeout_ms: int = -1, subscribed_topic_names: list[str] | None = None,
                  subscribed_topic_regex: str | None = None, server_assignor: str | None = None,
                  owned: Assignment | None = None, client_id: str = "", client_host: str = "",
                  api_version: int = 1, now_ms: int,
                  topic_authorized: Callable[[str], bool] | None = None, acl_version: int = 0) -> Completion:
        """A future resolved with a HeartbeatResult once the group's changes are written.
        `topic_authorized(name)`: may the sender DESCRIBE the topic (None: no authorizer);
        a regular expression resolved on this heartbeat matches only those topics, and is
        resolved again once `acl_version` (moved by every ACL change) moved."""
        request = ConsumerGroupHeartbeat(
            group_id, member_id, member_epoch, now_ms, instance_id, rack_id, rebalance_timeout_ms,
            subscribed_topic_names, subscribed_topic_regex, server_assignor, owned, client_id,
            client_host, api_version)
        self._topic_authorized, self._acl_version = topic_authorized, acl_version
        try:
            outcome = self._heartbeat(request)
        finally:
            self._topic_authorized = None
        answered = self._answer_heartbeat(group_id, outcome, now_ms)
        if isinstance(outcome, CoordinatorResult) and outcome.records:
            # classic metadata of groups this heartbeat downgraded, after their tombstones
            self._store_downgraded(now_ms)
        return answered

    def _heartbeat(self, request: ConsumerGroupHeartbeat) -> HeartbeatResult | CoordinatorResult[HeartbeatResult]:
        """What the heartbeat answers (a bare HeartbeatResult: refused, nothing to write)
        and the records it writes; the group's state has moved already."""
        group_id, member_id, member_epoch = request.group_id, request.member_id, request.member_epoch
        instance_id, rack_id, now_ms = request.instance_id, request.rack_id, request.now_ms
        rebalance_timeout_ms, owned = request.rebalance_timeout_ms, request.owned
        names, regex = request.subscribed_topic_names, request.subscribed_topic_regex
        server_assignor, api_version = request.server_assignor, request.api_version
        client_id, client_host = request.client_id, request.client_host
        reason = invalid_heartbeat_reason(group_id, member_id, member_epoch, instance_id, rack_id,
                                          rebalance_timeout_ms, names, regex, owned, api_version)
        if reason is not None:
            log.info("ConsumerGroupHeartbeat of %s in group %s refused: %s", member_id,
                     group_id, reason)
            return _error(ErrorCode.INVALID_REQUEST, reason)
        err = self.classic.validate_group_status(group_id, "ConsumerGroupHeartbeat")
        if err is not None:
            return _error(err, None, member_id or None, member_epoch)
        unsupported = unsupported_assignor_message(server_assignor, self.assignors)
        if unsupported is not None:
            return _error(ErrorCode.UNSUPPORTED_ASSIGNOR, unsupported)
        if regex and self._pattern(regex) is None:
            return _error(ErrorCode.INVALID_REGULAR_EXPRESSION,
                          f"SubscribedTopicRegex `{regex}` is not a valid regular expression.")
        if group_id in self.classic.share_groups:
            return _error(ErrorCode.GROUP_ID_NOT_FOUND, f"Group {group_id} is not a consumer group.")
        group = self.groups.get(group_id)
        if member_epoch in (LEAVE_EPOCH, STATIC_LEAVE_EPOCH):
            return self._leave(group, group_id, member_id, member_epoch, instance_id, now_ms)
        records: list = []
        if group is None:
            classic = self.classic.groups.get(group_id)
            if member_epoch != JOIN_EPOCH:
                # Kafka's getOrMaybeCreateConsumerGroup without createIfNotExists
                return _error(ErrorCode.GROUP_ID_NOT_FOUND,
                              f"Group {group_id} is not a consumer group." if classic is not None
                              else f"Consumer group {group_id} not found.")
            if classic is not None and classic.members:
                # online upgrade of a live classic group (migration policy permitting)
                group = self._upgrade(classic, now_ms, records)
                if group is None:
                    return _error(ErrorCode.GROUP_ID_NOT_FOUND,
                                  f"Group {group_id} is not a consumer group.")
            else:
                group = self._create_group(group_id, classic)
        member = group.members.get(member_id) if member_id else None
        if member_epoch == JOIN_EPOCH:
            # an upgrade done above is written even when this member is refused
            if member is None and len(group.members) >= self.config.max_size:
                return CoordinatorResult(_error(ErrorCode.GROUP_MAX_SIZE_REACHED,
                                                f"The consumer group has reached its maximum capacity "
                                                f"of {self.config.max_size} members."), records)
            if not member_id:
                member_id = self._new_member_id()
            joined = self._join(group, member, member_id, instance_id, records)
            if isinstance(joined, HeartbeatResult):
                return CoordinatorResult(joined, records)
            member = joined
        else:
            if member is None:
                return _error(ErrorCode.UNKNOWN_MEMBER_ID,
                              f"Member {member_id} is not a member of group {group_id}.")
            fenced = self._check_epoch(member, member_epoch, owned)
            if fenced is not None:
                return fenced
        before = member.metadata_key()
        subscription_before = (tuple(member.subscribed_topic_names),
                               member.subscribed_topic_regex, member.server_assignor)
        member.client_id, member.client_host = client_id, client_host
        if instance_id is not None:
            member.instance_id = instance_id
        if rack_id is not None:
            member.rack_id = rack_id
        if rebalance_timeout_ms != -1:
            member.rebalance_timeout_ms = rebalance_timeout_ms
        # Both may be given (the member subscribes to their union); an empty regex
        # clears a regex subscription.
        if names is not None:
            member.subscribed_topic_names = list(names)
        if regex is not None:
            member.subscribed_topic_regex = regex or None
        if server_assignor is not None or member_epoch == JOIN_EPOCH:
            member.server_assignor = server_assignor
        bump = False
        self._refresh_regexes(group, records, now_ms)
        if member.metadata_key() != before or member_epoch == JOIN_EPOCH:
            records.append(consumer_records.member_metadata(group.group_id, member))
            bump = (member.member_id not in group.target or subscription_before != (
                tuple(member.subscribed_topic_names), member.subscribed_topic_regex,
                member.server_assignor))
        subscribed = self._subscribed_topics(group)
        topics_hash = metadata_hash(subscribed, self.topics.partition_racks)
        if bump or topics_hash != group.metadata_hash:
            group.group_epoch += 1
            group.metadata_hash = topics_hash
            records.append(consumer_records.group_metadata(group.group_id, group.group_epoch, topics_hash))
        if group.group_epoch > group.assignment_epoch:
            self._compute_target(group, subscribed, records, now_ms)
        sent_before = member.last_sent
        self._reconcile(group, member, owned, records, now_ms)
        self._schedule_session(member, now_ms, group.group_id)
        full = owned is not None or member_epoch == JOIN_EPOCH
        assignment = None
        if full or sent_before is None or member.assigned != sent_before:
            assignment = copy_assignment(member.assigned)
            member.last_sent = assignment
        return CoordinatorResult(HeartbeatResult(ErrorCode.NONE, None, member.member_id, member.member_epoch,
                                                 self._heartbeat_interval(group.group_id), assignment),
                                 records)

    def _create_group(self, group_id: str, classic: ClassicGroup | None) -> ConsumerGroup:
        """A new consumer group; the committed offsets of an empty classic group of the
        same id (a simple consumer's, or one whose members all left) come along."""
        group = ConsumerGroup(group_id)
        if classic is not None:
            group.offsets = classic.offsets
            group.pending_offset_commits = classic.pending_offset_commits
            group.pending_txn_offsets = classic.pending_txn_offsets
            del self.classic.groups[group_id]
        self.groups[group_id] = group
        return group

    def _join(self, group: ConsumerGroup, member: ConsumerGroupMember | None, member_id: str,
              instance_id: str | None, records: list) -> ConsumerGroupMember | HeartbeatResult:
        """A member (re)joining at epoch 0. A static member taking its instance id back
        inherits the previous member's epoch and assignment (no rebalance); a dynamic
        member rejoining under its id starts over with its partitions revoked."""
        if instance_id is not None:
            old_id = group.static_members.get(instance_id)
            if old_id is not None:
                old = group.members[old_id]
                if old.member_epoch != STATIC_LEAVE_EPOCH:   # live, even under this id
                    return unreleased_instance_error(member_id, instance_id, old_id)
                target = group.target.pop(old_id, {})
                assigned = copy_assignment(old.assigned)
                group.remove_member(old_id)
                records.extend(consumer_records.member_tombstones(group.group_id, old_id))
                new = ConsumerGroupMember(member_id, instance_id,
                                          member_epoch=old.previous_member_epoch,
                                          previous_member_epoch=old.previous_member_epoch,
                                          state=MemberState.STABLE,
                                          assigned=assigned,
                                          assignment_epochs=dict(old.assignment_epochs))
                new.stamp_assignment_epochs()
                new.subscribed_topic_names = list(old.subscribed_topic_names)
                new.subscribed_topic_regex = old.subscribed_topic_regex
                new.rebalance_timeout_ms, new.server_assignor = old.rebalance_timeout_ms, old.server_assignor
                new.rack_id = old.rack_id
                group.add_member(new)
                group.target[member_id] = target
                records.append(consumer_records.target_member(group.group_id, member_id, target))
                records.append(consumer_records.current_assignment(group.group_id, new))
                return new
        if member is not None:
            # A dynamic member rejoining with epoch 0 lost its partitions (Kafka fences
            # it and lets it start again).
            group.set_member_assignment(member, {}, {})
            member.assignment_epochs = {}
            member.member_epoch = member.previous_member_epoch = 0
            member.state = MemberState.STABLE
            member.last_sent = None
            return member
        member = ConsumerGroupMember(member_id, instance_id)
        group.add_member(member)
        return member

    @staticmethod
    def _check_epoch(member: ConsumerGroupMember, epoch: int, owned: Assignment | None
                     ) -> HeartbeatResult | None:
        """Kafka's throwIfMemberEpochIsInvalid (member_checks.epoch_error)."""
        return epoch_error("consumer", member.member_epoch, member.previous_member_epoch, epoch,
                           owned is not None and all(ps <= member.assigned.get(t, set())
                                                     for t, ps in owned.items()))

    def _leave(self, group: ConsumerGroup | None, group_id: str, member_id: str, epoch: int,
               instance_id: str | None, now_ms: int) -> HeartbeatResult | CoordinatorResult[HeartbeatResult]:
        if group is None:
            return _error(ErrorCode.GROUP_ID_NOT_FOUND,
                          f"Group {group_id} is not a consumer group." if group_id in self.classic.groups
                          else f"Group {group_id} not found.")
        if instance_id is None:
            member = group.members.get(member_id)
            if member is None or member.uses_classic_protocol:
                return _error(ErrorCode.UNKNOWN_MEMBER_ID,
                              f"Member {member_id} is not a member of group {group_id}.")
        else:
            fenced = instance_error(group_id, group.static_members, member_id, instance_id)
            if fenced is not None:              # unknown, or the live owner stays
                return fenced
            member = group.members.get(member_id)
            if member is None:
                return _error(ErrorCode.UNKNOWN_MEMBER_ID, f"Instance id {instance_id} is unknown.")
        records: list = []
        if epoch == STATIC_LEAVE_EPOCH:
            # a static member going away for a while keeps what it was assigned until its
            # session expires or its instance comes back; what it was giving up goes at
            # once to the member waiting for it (Kafka: epochs reset to 0)
            member.previous_member_epoch = member.member_epoch
            member.member_epoch = STATIC_LEAVE_EPOCH
            group.set_member_assignment(member, member.assigned, {})
            member.revocation_deadline = None
            member.assignment_epochs = dict.fromkeys(member.assignment_epochs, 0)
            member.stamp_assignment_epochs()
            records.append(consumer_records.current_assignment(group.group_id, member))
        else:
            self._remove_member(group, member, records)
            self._maybe_downgrade(group, now_ms, records)
        return CoordinatorResult(HeartbeatResult(ErrorCode.NONE, None, member_id, epoch, 0, None), records)

    def _remove_member(self, group: ConsumerGroup, member: ConsumerGroupMember, records: list) -> None:
        group.remove_member(member.member_id)
        records.extend(consumer_records.member_tombstones(group.group_id, member.member_id))
        regex = member.subscribed_topic_regex
        if regex in group.resolved_regexes and regex not in group.subscribed_regexes():
            del group.resolved_regexes[regex]
            records.append(consumer_records.regular_expression_tombstone(group.group_id, regex))
        # the hash of what the remaining members subscribe to, so that their next
        # heartbeat finds it current and does not bump the epoch again
        group.group_epoch += 1
        group.metadata_hash = metadata_hash(self._subscribed_topics(group), self.topics.partition_racks)
        records.append(consumer_records.group_metadata(group.group_id, group.group_epoch, group.metadata_hash))

    # ================================================================ assignment
    @staticmethod
    def _pattern(regex: str) -> UserRegex | None:
        try:
            return compile_user_regex(regex)
        except InvalidUserRegex:
            return None

    def _current_topic_names(self) -> tuple[frozenset[str], int]:
        """The names of the non-internal topics and a version that moves whenever
        they change (Kafka resolves against a metadata image and its offset)."""
        names = frozenset(t.name for t in self.topics.all_topics() if not t.internal)
        if names != self._topic_names:
            self._topic_names = names
            self._topics_version += 1
        return names, self._topics_version

    def _refresh_regexes(self, group: ConsumerGroup, records: list, now_ms: int) -> None:
        """Keep the group's resolved regular expressions current (Kafka's
        maybeUpdateRegularExpressions and handleRegularExpressionsResult): tombstone
        the ones no member uses, resolve new ones, and resolve the others again when
        the topics changed; a record is written when an expression is new or matches
        other topics than before (a change of the matched topics moves the group's
        metadata hash, hence its epoch)."""
        used = group.subscribed_regexes()
        for regex in [r for r in group.resolved_regexes if r not in used]:
            del group.resolved_regexes[regex]
            self._regex_acl_versions.pop((group.group_id, regex), None)
            records.append(consumer_records.regular_expression_tombstone(group.group_id, regex))
        if not used:
            return
        names, version = self._current_topic_names()
        for regex in sorted(used):
            old, acl_key = group.resolved_regexes.get(regex), (group.group_id, regex)
            filtered = self._topic_authorized is not None
            if old is not None and old.version == version and (
                    not filtered or self._regex_acl_versions.get(acl_key) == self._acl_version):
                continue
            if filtered:
                self._regex_acl_versions[acl_key] = self._acl_version
            pattern = self._pattern(regex)
            topics = pattern.matching(names) if pattern else frozenset()
            if self._topic_authorized is not None:
                topics = frozenset(filter(self._topic_authorized, topics))
            resolved = ResolvedRegex(topics, version, now_ms)
            if old is not None and old.topics == topics:
                # the same topics: only the version moves, nothing to write
                resolved = ResolvedRegex(topics, version, old.timestamp_ms)
            else:
                records.append(consumer_records.regular_expression(group.group_id, regex, resolved))
            group.resolved_regexes[regex] = resolved

    def _member_topics(self, group: ConsumerGroup, member: ConsumerGroupMember) -> set[str]:
        """The topic names `member` subscribes to: its names and what its expression
        resolved to."""
        names = set(member.subscribed_topic_names)
        if member.subscribed_topic_regex is not None:
            resolved = group.resolved_regexes.get(member.subscribed_topic_regex)
            if resolved is not None:
                names.update(resolved.topics)
        return names

    def subscribed_topic_names(self, group: ConsumerGroup) -> set[str]:
        """Every topic name some member of `group` subscribes to (OffsetDelete and
        offset expiry spare these)."""
        out: set[str] = set()
        for m in group.members.values():
            out |= self._member_topics(group, m)
        return out

    def _subscribed_topics(self, group: ConsumerGroup) -> dict[str, TopicMeta]:
        out: dict[str, TopicMeta] = {}
        for m in group.members.values():
            for name in self._member_topics(group, m):
                if name not in out:
                    meta = self.topics.topic(name)
                    if meta is not None:
                        out[name] = meta
        return out

    def _compute_target(self, group: ConsumerGroup, subscribed: dict[str, TopicMeta],
                        records: list, now_ms: int) -> None:
        assignor = self.assignors.get(group.preferred_assignor(self.default_assignor),
                                      self.assignors[self.default_assignor])
        members = [MemberSubscription(m.member_id, frozenset(
            subscribed[n].topic_id for n in self._member_topics(group, m) if n in subscribed),
            m.rack_id, m.instance_id)
            for m in group.members.values()]
        partitions = {t.topic_id: t.num_partitions for t in subscribed.values()}
        racks = None
        if any(m.rack_id for m in members):
            racks = {t: self.topics.partition_racks(t) for t in partitions}
        target = assignor.assign(members, partitions, group.target, racks)
        for mid, a in target.items():
            if group.target.get(mid) != a:
                records.append(consumer_records.target_member(group.group_id, mid, a))
        group.target = target
        group.assignment_epoch = group.group_epoch
        records.append(consumer_records.target_metadata(group.group_id, group.assignment_epoch, now_ms))

    def _reconcile(self, group: ConsumerGroup, member: ConsumerGroupMember,
                   owned: Assignment | None, records: list, now_ms: int) -> None:
        """Move the member towards its target (Kafka's CurrentAssignmentBuilder): first
        revoke what it must give up (it stays at its epoch until it reports them gone),
        then take the new epoch with the partitions nobody else holds; the others
        follow on later heartbeats as their owners release them."""
        if member.member_epoch == STATIC_LEAVE_EPOCH:
            return
        target = group.target.get(member.member_id, {})
        epoch = group.assignment_epoch
        if member.state == MemberState.UNREVOKED_PARTITIONS:
            still_owned = owned is None or any(
                ps & member.pending_revocation.get(t, set()) for t, ps in owned.items())
            if still_owned:
                return
        elif member.state == MemberState.STABLE and member.member_epoch == epoch:
            return
        keep: Assignment = {}
        revoke: Assignment = {}
        for t, ps in member.assigned.items():
            wanted = target.get(t, set())
            if ps & wanted:
                keep[t] = ps & wanted
            if ps - wanted:
                revoke[t] = ps - wanted
        changed_from = (member.member_epoch, member.previous_member_epoch, member.state,
                        copy_assignment(member.assigned), copy_assignment(member.pending_revocation))
        if revoke:
            group.set_member_assignment(member, keep, revoke)
            member.state = MemberState.UNREVOKED_PARTITIONS
            member.revocation_deadline = self._wake(now_ms + max(member.rebalance_timeout_ms, 0))
        else:
            unreleased = False
            for t, ps in target.items():
                for p in ps:
                    if p in keep.get(t, set()):
                        continue
                    holder = group.owner(t, p)
                    if holder is None or holder == member.member_id:
                        keep.setdefault(t, set()).add(p)
                    else:
                        unreleased = True
            group.set_member_assignment(member, keep, {})
            if member.member_epoch != epoch:
                member.previous_member_epoch, member.member_epoch = member.member_epoch, epoch
            member.state = MemberState.UNRELEASED_PARTITIONS if unreleased else MemberState.STABLE
            member.revocation_deadline = None
        member.stamp_assignment_epochs()
        now = (member.member_epoch, member.previous_member_epoch, member.state,
               member.assigned, member.pending_revocation)
        if now != changed_from:
            records.append(consumer_records.current_assignment(group.group_id, member))

    # ================================================================ timers
    def _heartbeat_interval(self, group_id: str) -> int:
        return self._override(group_id, "consumer.heartbeat.interval.ms",
                              self.config.heartbeat_interval_ms)

    def _session_timeout(self, member: ConsumerGroupMember, group_id: str | None = None) -> int:
        if member.uses_classic_protocol:
            return member.classic_session_timeout_ms
        return self._override(group_id, "consumer.session.timeout.ms", self.config.session_timeout_ms)

    def _schedule_session(self, member: ConsumerGroupMember, now_ms: int,
                          group_id: str | None = None) -> None:
        member.session_deadline = self._wake(now_ms + self._session_timeout(member, group_id))

    def poll(self, now_ms: int) -> None:
        """Remove members whose session expired or who did not revoke in time."""
        if not self._take_due(now_ms):
            return
        for group in list(self.groups.values()):
            records: list = []
            for member in list(group.members.values()):
                expired = member.session_deadline is not None and member.session_deadline <= now_ms
                late = (member.state == MemberState.UNREVOKED_PARTITIONS
                        and member.revocation_deadline is not None
                        and member.revocation_deadline <= now_ms)
                # a classic member that did not rejoin, or sync, within its rebalance timeout
                no_join = member.classic_join_deadline is not None and member.classic_join_deadline <= now_ms
                no_sync = member.classic_sync_deadline is not None and member.classic_sync_deadline <= now_ms
                if expired or late or no_join or no_sync:
                    log.info("[GroupCoordinator] Member %s in group %s has %s; removing it.",
                             member.member_id, group.group_id,
                             "expired its session" if expired else "not revoked in time" if late
                             else "not rejoined within the rebalance timeout" if no_join
                             else "not synced within the rebalance timeout")
                    self._remove_member(group, member, records)
                    if not member.uses_classic_protocol and group.group_id in self.groups:
                        self._maybe_downgrade(group, now_ms, records)
            if records:
                self._append(group.group_id, records, now_ms)
                self._store_downgraded(now_ms)

    # ================================================================ describe, list, delete
    def describe(self, group_id: str) -> DescribedConsumerGroup:
        err = self.classic.validate_group_status(group_id, "ConsumerGroupDescribe")
        if err is not None:
            return DescribedConsumerGroup(group_id, err)
        group = self.groups.get(group_id)
        if group is None or group.deleted:
            if group_id in self.classic.groups:
                return DescribedConsumerGroup(group_id, ErrorCode.GROUP_ID_NOT_FOUND,
                                              f"Group {group_id} is not a consumer group.")
            return DescribedConsumerGroup(group_id, ErrorCode.GROUP_ID_NOT_FOUND,
                                          f"Group {group_id} not found.")
        return DescribedConsumerGroup(
            group_id, ErrorCode.NONE, None, group.state.value, group.group_epoch,
            group.assignment_epoch, group.preferred_assignor(self.default_assignor),
            [DescribedMember(m, group.target.get(m.member_id, {})) for m in group.members.values()])

    def describe_as_classic(self, group_id: str) -> GroupSummary:
        """DescribeGroups of a consumer group, as Kafka answers it: protocol type
        "consumer", the assignor as protocol, each member's subscription and assignment
        in the classic consumer protocol's encodings (v3 / v0)."""
        group = self.groups[group_id]

        def named(a: Assignment, cls: Callable[..., TopicPartitionT]) -> list[TopicPartitionT]:
            out = []
            for t, ps in sorted(a.items()):
                meta = self.topics.topic_by_id(t)
                if meta is not None:
                    out.append(cls(topic=meta.name, partitions=sorted(ps)))
            return out

        members = []
        for m in group.members.values():
            sub = messages.ConsumerProtocolSubscription(topics=sorted(self._member_topics(group, m)), user_data=None,
                    owned_partitions=named(m.assigned, messages.ConsumerProtocolSubscription.TopicPartition),
                    generation_id=m.member_epoch, rack_id=m.rack_id)
            asg = messages.ConsumerProtocolAssignment(assigned_partitions=named(m.assigned, messages.ConsumerProtocolAssignment.TopicPartition), user_data=None)
            members.append(MemberSummary(m.member_id, m.instance_id, m.client_id, m.client_host,
                                         (3).to_bytes(2, "big") + encode_data(sub, 3),
                                         (0).to_bytes(2, "big") + encode_data(asg, 0)))
        return GroupSummary(group_id, ErrorCode.NONE, group.state.value, "consumer",
                            group.preferred_assignor(self.default_assignor), members)

    def delete_group(self, group: ConsumerGroup, now_ms: int) -> ErrorCode:
        """DeleteGroups of a consumer group: only an empty one, with its offsets."""
        if group.members:
            return ErrorCode.NON_EMPTY_GROUP
        group.deleted = True
        del self.groups[group.group_id]
        records: list = list(consumer_records.group_tombstones(group.group_id, group.resolved_regexes))
        records[:0] = [(encode_offset_commit_key(group.group_id, t, p), None)
                       for t, p in {**group.offsets, **group.pending_offset_commits}]
        self._append(group.group_id, records, now_ms)
        return ErrorCode.NONE

    def release_empty_group(self, group_id: str, now_ms: int) -> bool:
        """A classic member joins: an empty consumer group gives way to a classic group
        that keeps its committed offsets (its records are tombstoned). False when the
        group has members."""
        group = self.groups[group_id]
        if group.members:
            return False
        del self.groups[group_id]
        classic = ClassicGroup(group_id, now_ms)
        classic.offsets, classic.pending_offset_commits = group.offsets, group.pending_offset_commits
        classic.pending_txn_offsets = group.pending_txn_offsets
        self.classic.groups[group_id] = classic
        self._append(group_id, consumer_records.group_tombstones(group_id, group.resolved_regexes), now_ms)
        return True

    # ================================================================ offsets
    def _stale_epoch_error(self, member: ModernMember) -> ErrorCode:
        """Kafka's ConsumerGroup.validateOffsetCommit: a classic member's wrong
        generation is ILLEGAL_GENERATION (the offset checks are modern_group.py's)."""
        return (ErrorCode.ILLEGAL_GENERATION
                if isinstance(member, ConsumerGroupMember) and member.uses_classic_protocol
                else ErrorCode.STALE_MEMBER_EPOCH)

    def commit_partition_errors(self, group: ConsumerGroup, member_id: str, member_epoch: int,
                                partitions: Iterable[tuple[str, int]]) -> dict[tuple[str, int], ErrorCode]:
        """Kafka 4.4's assignment-epoch validator (KIP-1251): a commit at an epoch older
        than the member's is taken for a partition it holds since that epoch or earlier;
        the others are STALE_MEMBER_EPOCH (ILLEGAL_GENERATION for a classic member)."""
        member = group.members.get(member_id)
        if member is None or member_epoch >= member.member_epoch:
            return {}
        errors: dict[tuple[str, int], ErrorCode] = {}
        for name, p in partitions:
            meta = self.topics.topic(name)
            since = None if meta is None else member.assignment_epochs.get((meta.topic_id, p))
            if since is None or member_epoch < since:
                errors[(name, p)] = self._stale_epoch_error(member)
        return errors

    # ================================================================ partitions
    RECORDS, KEY_VERSIONS = consumer_records, consumer_records.CONSUMER_KEY_VERSIONS
    GROUP, MEMBER = ConsumerGroup, ConsumerGroupMember

    def _attach_member(self, group: ConsumerGroup, member: ConsumerGroupMember) -> None:
        group.add_member(member)

    def _replay_current_assignment(self, m: ConsumerGroupMember, v: object) -> None:
        assert isinstance(v, messages.ConsumerGroupCurrentMemberAssignmentValue)  # the kind's value
        (m.member_epoch, m.previous_member_epoch, m.state, m.assigned,
         m.pending_revocation, m.assignment_epochs) = consumer_records.current_assignment_of(v)

    def _replay_group_record(self, g: ConsumerGroup, kind: int, key: str | None, v: object) -> None:
        if kind == consumer_records.REGULAR_EXPRESSION:
            assert key is not None  # the record's key is the regular expression
            if v is None:
                g.resolved_regexes.pop(key, None)
            else:
                assert isinstance(v, messages.ConsumerGroupRegularExpressionValue)  # the kind's value
                g.resolved_regexes[key] = consumer_records.resolved_regex_of(v)
                self._topics_version = max(self._topics_version, v.version)

    def load_partition(self, partition: int, now_ms: int) -> int:
        """Replay the consumer group records of `partition`; the classic coordinator
        has loaded the same partition's offsets already (into classic groups, moved
        here for the ids that turn out to be consumer groups)."""
        groups = self._replay(partition, now_ms)
        for gid, g in groups.items():
            if g.group_epoch == 0 and not g.members:
                continue
            self._adopt_offsets(g)
            self.groups[gid] = g
        return len(groups)
