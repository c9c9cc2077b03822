"""The Streams group protocol of Kafka 4 (KIP-1071): StreamsGroupHeartbeat and
StreamsGroupDescribe, a state machine with the clock passed in.

Who calls it: the broker glue (broker/handlers/streams_group.py) for requests; the
classic GroupCoordinator (GroupCoordinatorService builds both and attaches this one as
`classic.streams`) for loading and
unloading `__consumer_offsets` partitions, timers (`poll`), ListGroups, DeleteGroups
and the offset APIs, which validate a member's epoch here. One thread (the event
loop), so nothing locks. The groups live in `classic.streams_groups`.

A heartbeat may change the group; every change is written to `__consumer_offsets` as
one batch of Kafka 4.4's Streams* records (streams_records.py) and the heartbeat is
answered once it is committed (as consumer_coordinator.py does, and for the same
reasons the in-memory state is not rolled back when the write fails).

The first member brings the topology; the group keeps it with its epoch (a member bringing
another one at that epoch or later is INVALID_REQUEST, as in Kafka 4.4) and checks it
against the cluster's topics on every heartbeat through a hash of the topics it names
(streams_topology.py). Internal topics it needs are handed back to the broker to
create (`HeartbeatResult.topics_to_create`), as Kafka's coordinator hands them to its
AutoTopicCreationManager; until they exist members hear MISSING_INTERNAL_TOPICS and get
no tasks.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Callable, Mapping

from kafpy.protocol import messages
from kafpy.protocol.errors import ErrorCode

from kafpy.coordinator.group.streams import records as streams_records
from kafpy.coordinator.group.consumer.topics import TopicsView, metadata_hash
from kafpy.coordinator.group.classic.view import ClassicCoordinatorView
from kafpy.coordinator.group.member_checks import epoch_error, instance_error, unreleased_instance_error
from kafpy.coordinator.group.modern import GroupMetadataValue, ModernGroupCoordinator, TargetMetadataValue
from kafpy.coordinator.group.offsets_log import Completion
from kafpy.coordinator.group.results import HeartbeatResult
from kafpy.coordinator.result import CoordinatorResult
from kafpy.coordinator.group.records import encode_offset_commit_key
from kafpy.coordinator.group.streams.assignor import NAME as ASSIGNOR_NAME, AssignmentMember, assign
from kafpy.coordinator.group.streams.config import StreamsGroupConfig
from kafpy.coordinator.group.streams.group import (
    StreamsGroupHeartbeat, JOIN_EPOCH, LEAVE_EPOCH, STATIC_LEAVE_EPOCH, MemberState, StreamsGroup, StreamsGroupMember,
    StreamsGroupState, Tasks)
from kafpy.coordinator.group.streams.topology import (
    ASSIGNMENT_DELAYED, SHUTDOWN_APPLICATION, STALE_TOPOLOGY, StreamsTopology, TopicInfo, configure,
    task_partitions, topics_hash_input)

log = logging.getLogger("kafka.coordinator.group.GroupMetadataManager")

_INTERVAL_DELAYED = "Assignment delayed due to the configured assignment interval."
_SHUTDOWN_DETAIL = "A KafkaStreams instance encountered a fatal error and requested a shutdown for the entire application."


@dataclass
class DescribedStreamsGroup:
    group_id: str
    error: int = ErrorCode.NONE
    message: str | None = None
    state: str = StreamsGroupState.DEAD.value
    group_epoch: int = 0
    assignment_epoch: int = 0
    topology: StreamsTopology | None = None
    members: list[tuple[StreamsGroupMember, Tasks]] = field(default_factory=list)


def _error(error: ErrorCode, message: str | None = None) -> HeartbeatResult:
    return HeartbeatResult(error, message)


class StreamsGroupCoordinator(ModernGroupCoordinator[StreamsGroup, StreamsGroupMember]):
    """All Streams groups of the `__consumer_offsets` partitions the attached classic
    coordinator owns (the plumbing shared with consumer and share groups:
    modern_group.py)."""

    RECORDS_NAME = "streams group records"

    def __init__(self, classic: ClassicCoordinatorView, config: StreamsGroupConfig, topics: TopicsView,
                 group_configs: Callable[[str], Mapping[str, str]] | None = None) -> None:
        """`group_configs(group_id)`: the group's overrides (`streams.session.timeout.ms`,
        `streams.heartbeat.interval.ms`, `streams.num.standby.replicas`,
        `streams.initial.rebalance.delay.ms`, `streams.assignment.interval.ms`,
        `streams.acceptable.recovery.lag`, `streams.task.offset.interval.ms`)."""
        self.classic = classic
        self.config = config
        self.topics = topics
        self._group_configs = group_configs or (lambda _gid: {})
        self.groups: dict[str, StreamsGroup] = classic.streams_groups
        self._wakeups: list[int] = []

    # ================================================================ StreamsGroupHeartbeat
    def heartbeat(self, group_id: str, member_id: str, member_epoch: int, *,
                  endpoint_information_epoch: int = -1, instance_id: str | None = None,
                  rack_id: str | None = None, rebalance_timeout_ms: int = -1,
                  topology: StreamsTopology | None = None, owned: Tasks | None = None,
                  process_id: str | None = None, user_endpoint: tuple[str, int] | None = None,
                  client_tags: dict[str, str] | None = None, shutdown_application: bool = False,
                  client_id: str = "", client_host: str = "",
                  task_offsets: dict[tuple[str, int], int] | None = None,
                  task_end_offsets: dict[tuple[str, int], int] | None = None, now_ms: int) -> Completion:
        """A future resolved with a HeartbeatResult once the group's changes are written.
        `task_offsets` / `task_end_offsets`: what the member reports of its tasks' state
        (None: unchanged since its last heartbeat)."""
        request = StreamsGroupHeartbeat(
            group_id, member_id, member_epoch, now_ms, endpoint_information_epoch, instance_id,
            rack_id, rebalance_timeout_ms, topology, owned, process_id, user_endpoint, client_tags,
            shutdown_application, client_id, client_host, task_offsets, task_end_offsets)
        return self._answer_heartbeat(group_id, self._heartbeat(request), now_ms)

    def _failed_heartbeat(self, answer: HeartbeatResult, error: ErrorCode) -> HeartbeatResult:
        """A Streams member hears only the error (Kafka answers no member id or epoch)."""
        return HeartbeatResult(error)

    @staticmethod
    def _validate_request(group_id: str, member_id: str, member_epoch: int,
                          instance_id: str | None, rebalance_timeout_ms: int,
                          topology: StreamsTopology | None, owned: Tasks | None,
                          process_id: str | None) -> str | None:
        """Why the request is INVALID_REQUEST (Kafka's throwIfStreamsGroupHeartbeatRequestIsInvalid)."""
        if not group_id:
            return "GroupId can't be empty."
        if not member_id:
            return "MemberId can't be empty."
        if member_epoch == JOIN_EPOCH:
            if rebalance_timeout_ms == -1:
                return "RebalanceTimeoutMs must be provided in first request."
            if topology is None:
                return "Topology must be non-null when joining."
            if owned is not None and not owned.is_empty():
                return "ActiveTasks, StandbyTasks and WarmupTasks must be empty when (re-)joining."
            if not process_id:
                return "ProcessId can't be null."
        elif member_epoch == STATIC_LEAVE_EPOCH:
            if instance_id is None:
                return "InstanceId can't be null."
        elif member_epoch < STATIC_LEAVE_EPOCH:
            return f"MemberEpoch is {member_epoch}, but must be greater than or equal to -2."
        return None

    def _heartbeat(self, request: StreamsGroupHeartbeat) -> HeartbeatResult | CoordinatorResult[HeartbeatResult]:
        """What the heartbeat answers (a bare HeartbeatResult: refused, nothing to write)
        and the records it writes; the group's state has moved already."""
        r = request
        group_id, member_id, member_epoch, now_ms = r.group_id, r.member_id, r.member_epoch, r.now_ms
        endpoint_epoch, instance_id, rack_id = r.endpoint_information_epoch, r.instance_id, r.rack_id
        rebalance_timeout_ms, topology, owned = r.rebalance_timeout_ms, r.topology, r.owned
        process_id, user_endpoint, client_tags = r.process_id, r.user_endpoint, r.client_tags
        shutdown_application, client_id, client_host = r.shutdown_application, r.client_id, r.client_host
        task_offsets, task_end_offsets = r.task_offsets, r.task_end_offsets
        reason = self._validate_request(group_id, member_id, member_epoch, instance_id,
                                        rebalance_timeout_ms, topology, owned, process_id)
        if reason is not None:
            log.info("StreamsGroupHeartbeat of %s in group %s refused: %s", member_id, group_id,
                     reason)
            return _error(ErrorCode.INVALID_REQUEST, reason)
        err = self.classic.validate_group_status(group_id, "StreamsGroupHeartbeat")
        if err is not None:
            return _error(err)
        group = self.groups.get(group_id)
        if member_epoch in (LEAVE_EPOCH, STATIC_LEAVE_EPOCH):
            return self._leave(group, group_id, member_id, member_epoch, instance_id)
        if (topology is not None and group is not None and group.topology is not None
                and topology.epoch >= group.topology.epoch and topology != group.topology):
            # Kafka 4.4's maybeUpdateTopology: the group keeps the topology it was
            # initialised with (its clients always send epoch 0); a restarted application
            # with another topology fails fast rather than running the old one
            log.info("StreamsGroupHeartbeat of %s in group %s refused: its topology (epoch %d) "
                     "differs from the group's (epoch %d)", member_id, group_id, topology.epoch,
                     group.topology.epoch)
            return _error(ErrorCode.INVALID_REQUEST, "Topology updates are not supported yet.")
        records: list = []
        if group is None:
            if member_epoch != JOIN_EPOCH:
                return _error(ErrorCode.UNKNOWN_MEMBER_ID,
                              f"Member {member_id} is not a member of group {group_id}.")
            if group_id in self.classic.consumer_groups or self._live_classic(group_id):
                return _error(ErrorCode.GROUP_ID_NOT_FOUND,
                              f"Group {group_id} is not a streams group.")
            group = self._create_group(group_id)
        member = group.members.get(member_id)
        new_member = member is None
        if member_epoch == JOIN_EPOCH:
            delay = self._override(group_id, "streams.initial.rebalance.delay.ms",
                                   self.config.initial_rebalance_delay_ms)
            if not group.members and delay > 0:
                # Kafka's initial rebalance delay: a group starting (again) from no
                # members waits for the others before its first assignment
                group.initial_delay_deadline = self._wake(now_ms + delay)
            if member is None and len(group.members) >= self.config.max_size:
                return _error(ErrorCode.GROUP_MAX_SIZE_REACHED,
                              f"The streams group has reached its maximum capacity of "
                              f"{self.config.max_size} members.")
            joined = self._join(group, member, member_id, instance_id, records)
            if isinstance(joined, HeartbeatResult):
                return joined
            member = joined
            # a static member taking its instance back inherits a target: not new
            new_member = new_member and member.member_id not in group.target
        else:
            if instance_id is not None:
                # Kafka 4.4 finds a static member by its instance id
                fenced_instance = instance_error(group_id, group.static_members, member_id,
                                                 instance_id)
                if fenced_instance is not None:
                    return fenced_instance
            if member is None:
                return _error(ErrorCode.UNKNOWN_MEMBER_ID,
                              f"Member {member_id} is not a member of group {group_id}.")
            fenced = self._check_epoch(member, member_epoch, owned)
            if fenced is not None:
                return fenced
        before, process_before = member.metadata_key(), member.process_id
        member.client_id, member.client_host = client_id, client_host
        if instance_id is not None:
            member.instance_id = instance_id
        if rack_id is not None:
            member.rack_id = rack_id
        if rebalance_timeout_ms != -1:
            member.rebalance_timeout_ms = rebalance_timeout_ms
        if process_id is not None:
            member.process_id = process_id
        if user_endpoint is not None:
            member.user_endpoint = user_endpoint
        if client_tags is not None:
            member.client_tags = dict(client_tags)
        if task_offsets is not None:
            member.task_offsets = dict(task_offsets)
        if task_end_offsets is not None:
            member.task_end_offsets = dict(task_end_offsets)
        bump = False
        if topology is not None:
            member.topology_epoch = topology.epoch
            if group.topology is None:
                group.topology = topology
                group.configured = None
                records.append(streams_records.topology(group.group_id, topology))
                bump = True
        if member.metadata_key() != before or new_member:
            records.append(streams_records.member_metadata(group.group_id, member))
            # what the assignor reads: the members and their processes
            bump = bump or new_member or process_before != member.process_id
        if shutdown_application and not group.shutdown_requested:
            group.shutdown_requested = True
            log.info("[GroupCoordinator] Member %s of streams group %s requested the shutdown "
                     "of the application.", member.member_id, group.group_id)
        to_create = self._configure(group, bump, records)
        if group.initial_delay_deadline is not None and now_ms >= group.initial_delay_deadline:
            self._end_initial_delay(group, records, now_ms)
        interval_delayed = False
        if group.group_epoch > group.assignment_epoch:
            if group.initial_delay_deadline is not None:
                self._compute_target(group, records, now_ms, delayed=True)
            elif self._may_compute_target(group, now_ms):
                self._compute_target(group, records, now_ms)
            else:
                interval_delayed = True
        sent_before = member.last_sent
        self._reconcile(group, member, owned, records, now_ms)
        self._schedule_session(member, now_ms, group.group_id)
        tasks = None
        if owned is not None or member_epoch == JOIN_EPOCH or sent_before is None \
                or member.tasks != sent_before:
            tasks = member.tasks.copy()
            member.last_sent = tasks
        partitions_by_endpoint = None
        if endpoint_epoch < group.endpoint_information_epoch:
            partitions_by_endpoint = self._partitions_by_endpoint(group)
        status = self._status(group, member)
        if interval_delayed:
            status.insert(0, (ASSIGNMENT_DELAYED, _INTERVAL_DELAYED))
        return CoordinatorResult(HeartbeatResult(
            ErrorCode.NONE, None, member.member_id, member.member_epoch,
            self._heartbeat_interval(group.group_id), status=status, tasks=tasks,
            endpoint_information_epoch=group.endpoint_information_epoch,
            partitions_by_endpoint=partitions_by_endpoint, topics_to_create=to_create), records)

    def _live_classic(self, group_id: str) -> bool:
        classic = self.classic.groups.get(group_id)
        return classic is not None and bool(classic.members)

    def _create_group(self, group_id: str) -> StreamsGroup:
        """A new Streams group; the committed offsets of an empty classic group of the
        same id come along."""
        group = StreamsGroup(group_id)
        classic = self.classic.groups.pop(group_id, None)
        if classic is not None:
            group.offsets = classic.offsets
            group.pending_offset_commits = classic.pending_offset_commits
            group.pending_txn_offsets = classic.pending_txn_offsets
        self.groups[group_id] = group
        return group

    def _join(self, group: StreamsGroup, member: StreamsGroupMember | None, member_id: str,
              instance_id: str | None, records: list) -> StreamsGroupMember | HeartbeatResult:
        """A member (re)joining at epoch 0; a static member taking its instance id back
        inherits the previous member's epoch and tasks (no rebalance)."""
        if instance_id is not None:
            old_id = group.static_members.get(instance_id)
            if old_id is not None:
                old = group.members[old_id]
                if old.member_epoch != STATIC_LEAVE_EPOCH:   # live, even under this id
                    return unreleased_instance_error(member_id, instance_id, old_id)
                target = group.target.pop(old_id, Tasks())
                tasks = old.tasks.copy()
                group.remove_member(old_id)
                records.extend(streams_records.member_tombstones(group.group_id, old_id))
                new = StreamsGroupMember(member_id, instance_id,
                                         member_epoch=old.previous_member_epoch,
                                         previous_member_epoch=old.previous_member_epoch,
                                         tasks=tasks, process_id=old.process_id,
                                         topology_epoch=old.topology_epoch)
                group.add_member(new)
                group.target[member_id] = target
                records.append(streams_records.target_member(group.group_id, member_id, target))
                records.append(streams_records.current_assignment(group.group_id, new))
                return new
        if member is not None:
            group.set_member_tasks(member, Tasks(), Tasks())
            member.member_epoch = member.previous_member_epoch = 0
            member.state = MemberState.STABLE
            member.last_sent = None
            return member
        member = StreamsGroupMember(member_id, instance_id)
        group.add_member(member)
        return member

    @staticmethod
    def _check_epoch(member: StreamsGroupMember, epoch: int, owned: Tasks | None
                     ) -> HeartbeatResult | None:
        """Kafka's throwIfStreamsGroupMemberEpochIsInvalid (member_checks.epoch_error):
        at the previous epoch the member may own no task it was not given, in any role."""
        return epoch_error("streams", member.member_epoch, member.previous_member_epoch, epoch,
                           owned is not None and all(
                               ps <= getattr(member.tasks, kind).get(s, set())
                               for kind in ("active", "standby", "warmup")
                               for s, ps in getattr(owned, kind).items()))

    def _leave(self, group: StreamsGroup | None, group_id: str, member_id: str, epoch: int,
               instance_id: str | None) -> HeartbeatResult | CoordinatorResult[HeartbeatResult]:
        if group is None:
            return _error(ErrorCode.GROUP_ID_NOT_FOUND, f"Group {group_id} not found.")
        if instance_id is not None:
            fenced = instance_error(group_id, group.static_members, member_id, instance_id)
            if fenced is not None:
                return fenced
        member = group.members.get(member_id)
        if member is None:
            return _error(ErrorCode.UNKNOWN_MEMBER_ID,
                          f"Member {member_id} is not a member of group {group_id}.")
        records: list = []
        if epoch == STATIC_LEAVE_EPOCH:
            # a static member going away for a while keeps its tasks until its session
            # expires or its instance comes back; what it was giving up goes at once to
            # the members waiting for it (Kafka: no tasks pending revocation)
            member.previous_member_epoch = member.member_epoch
            member.member_epoch = STATIC_LEAVE_EPOCH
            group.set_member_tasks(member, member.tasks, Tasks())
            member.revocation_deadline = None
            records.append(streams_records.current_assignment(group.group_id, member))
        else:
            self._remove_member(group, member, records)
        return CoordinatorResult(HeartbeatResult(ErrorCode.NONE, None, member_id, epoch), records)

    def _remove_member(self, group: StreamsGroup, member: StreamsGroupMember, records: list) -> None:
        group.remove_member(member.member_id)
        records.extend(streams_records.member_tombstones(group.group_id, member.member_id))
        group.group_epoch += 1
        group.endpoint_information_epoch += 1
        records.append(streams_records.group_metadata(group.group_id, group.group_epoch, group.metadata_hash,
                                        group.validated_topology_epoch))
        if not group.members:
            group.shutdown_requested = False

    # ================================================================ topology, assignment
    def _configure(self, group: StreamsGroup, bump: bool, records: list) -> list[TopicInfo]:
        """Check the topology against the topics (again when they changed) and bump the
        group epoch when the outcome may differ. Returns internal topics to create."""
        if group.topology is None:
            return []
        topics_hash = metadata_hash(topics_hash_input(group.topology, self.topics))
        if group.configured is None or topics_hash != group.metadata_hash:
            group.configured = configure(group.topology, self.topics)
            if topics_hash != group.metadata_hash:
                bump = True
            if group.configured.ready:
                group.validated_topology_epoch = group.topology.epoch
        if bump:
            group.group_epoch += 1
            group.metadata_hash = topics_hash
            records.append(streams_records.group_metadata(group.group_id, group.group_epoch, topics_hash,
                                            group.validated_topology_epoch))
        return list(group.configured.internal_topics_to_create)

    def _status(self, group: StreamsGroup, member: StreamsGroupMember) -> list[tuple[int, str]]:
        out = []
        if group.initial_delay_deadline is not None:
            out.append((ASSIGNMENT_DELAYED,
                        "Assignment delayed due to the configured initial rebalance delay."))
        if group.shutdown_requested:
            out.append((SHUTDOWN_APPLICATION, _SHUTDOWN_DETAIL))
        if group.topology is not None and member.topology_epoch != group.topology.epoch:
            out.append((STALE_TOPOLOGY, f"The member's topology epoch {member.topology_epoch} "
                        f"is behind the group's topology epoch {group.topology.epoch}."))
        if group.configured is not None and group.configured.status is not None:
            out.append(group.configured.status)
        return out

    def _num_standby_replicas(self, group_id: str) -> int:
        return min(self._override(group_id, "streams.num.standby.replicas",
                                  self.config.num_standby_replicas),
                   self.config.max_standby_replicas)

    def assignment_interval_ms(self, group_id: str) -> int:
        """`streams.assignment.interval.ms` of the group, else the broker's setting."""
        return self._override(group_id, "streams.assignment.interval.ms",
                              self.config.assignment_interval_ms)

    def _may_compute_target(self, group: StreamsGroup, now_ms: int) -> bool:
        """Kafka 4.4's canComputeNextTargetAssignment: a new target at most once per
        assignment interval (the first one, and any with the interval at 0, at once)."""
        interval = self.assignment_interval_ms(group.group_id)
        return (group.assignment_timestamp == 0 or interval == 0
                or now_ms >= group.assignment_timestamp + interval)

    def acceptable_recovery_lag(self, group_id: str) -> int:
        return self._override(group_id, "streams.acceptable.recovery.lag",
                              self.config.acceptable_recovery_lag)

    def task_offset_interval_ms(self, group_id: str) -> int:
        return self._override(group_id, "streams.task.offset.interval.ms",
                              self.config.task_offset_interval_ms)

    def _end_initial_delay(self, group: StreamsGroup, records: list, now_ms: int) -> None:
        """The initial rebalance delay is over: a new group epoch, and its target."""
        group.initial_delay_deadline = None
        if not group.members:
            return
        group.group_epoch += 1
        records.append(streams_records.group_metadata(group.group_id, group.group_epoch, group.metadata_hash,
                                        group.validated_topology_epoch))
        self._compute_target(group, records, now_ms)

    def _compute_target(self, group: StreamsGroup, records: list, now_ms: int,
                        delayed: bool = False) -> None:
        """The target of every member at the group epoch. `delayed` (the initial
        rebalance delay runs): members keep the target they have, new ones get none, so
        that they take an epoch without tasks moving yet."""
        configured = group.configured
        counts = configured.task_counts if configured is not None and configured.ready else {}
        if delayed:
            counts = {}
        stateful = [s.subtopology_id for s in group.topology.subtopologies
                    if s.state_changelog_topics] if group.topology is not None else []
        members = [AssignmentMember(m.member_id, m.process_id or m.member_id)
                   for m in group.members.values()]
        if delayed:
            target = {m.member_id: group.target.get(m.member_id, Tasks()) for m in members}
        else:
            target = assign(members, counts, group.target, stateful,
                            self._num_standby_replicas(group.group_id),
                            {m.member_id: m.task_offsets for m in group.members.values()})
        for mid, t in target.items():
            if group.target.get(mid) != t:
                records.append(streams_records.target_member(group.group_id, mid, t))
        group.target = target
        group.assignment_epoch = group.group_epoch
        group.assignment_timestamp = now_ms
        records.append(streams_records.target_metadata(group.group_id, group.assignment_epoch, now_ms))

    def _reconcile(self, group: StreamsGroup, member: StreamsGroupMember, owned: Tasks | None,
                   records: list, now_ms: int) -> None:
        """Move the member towards its target (Kafka's streams CurrentAssignmentBuilder):
        first revoke what it must give up (it stays at its epoch until it reports them
        gone), then take the new epoch with the active tasks nobody else holds and the
        tasks no other member of its process holds in any role; the others follow on
        later heartbeats as they are released."""
        if member.member_epoch == STATIC_LEAVE_EPOCH:
            return
        target = group.target.get(member.member_id, Tasks())
        epoch = group.assignment_epoch
        if member.state == MemberState.UNREVOKED_TASKS:
            pending = member.pending_revocation
            still = owned is None or any(
                ps & getattr(pending, kind).get(s, set())
                for kind in ("active", "standby", "warmup")
                for s, ps in getattr(owned, kind).items())
            if still:
                return
        elif member.state == MemberState.STABLE and member.member_epoch == epoch:
            return
        keep, revoke = Tasks(), Tasks()
        for kind in ("active", "standby", "warmup"):
            wanted_all = getattr(target, kind)
            for s, ps in getattr(member.tasks, kind).items():
                wanted = wanted_all.get(s, set())
                if ps & wanted:
                    getattr(keep, kind)[s] = ps & wanted
                if ps - wanted:
                    getattr(revoke, kind)[s] = ps - wanted
        changed_from = (member.member_epoch, member.previous_member_epoch, member.state,
                        member.tasks.key(), member.pending_revocation.key())
        if not revoke.is_empty():
            group.set_member_tasks(member, keep, revoke)
            member.state = MemberState.UNREVOKED_TASKS
            member.revocation_deadline = self._wake(now_ms + max(member.rebalance_timeout_ms, 0))
        else:
            unreleased = False
            on_process = group.held_on_process(member)
            for s, ps in target.active.items():
                for p in ps:
                    holder = group.owner(s, p)
                    if (holder is None or holder == member.member_id) and (
                            p in keep.active.get(s, ()) or (s, p) not in on_process):
                        keep.active.setdefault(s, set()).add(p)
                    else:
                        unreleased = True
            # standby and warm-up tasks wait as well while another member of the process
            # holds the task (Kafka 4.4's isUnreleasedStandbyTask / isUnreleasedWarmupTask)
            for kind in ("standby", "warmup"):
                for s, ps in getattr(target, kind).items():
                    for p in ps:
                        if p in getattr(keep, kind).get(s, ()) or (s, p) not in on_process:
                            getattr(keep, kind).setdefault(s, set()).add(p)
                        else:
                            unreleased = True
            group.set_member_tasks(member, keep, Tasks())
            if member.member_epoch != epoch:
                member.previous_member_epoch, member.member_epoch = member.member_epoch, epoch
            member.state = MemberState.UNRELEASED_TASKS if unreleased else MemberState.STABLE
            member.revocation_deadline = None
        now = (member.member_epoch, member.previous_member_epoch, member.state,
               member.tasks.key(), member.pending_revocation.key())
        if now != changed_from:
            if now[3] != changed_from[3]:
                group.endpoint_information_epoch += 1
            records.append(streams_records.current_assignment(group.group_id, member))

    def _partitions_by_endpoint(self, group: StreamsGroup) -> list:
        configured = group.configured
        out = []
        for m in group.members.values():
            if m.user_endpoint is None:
                continue
            active: dict[str, list[int]] = {}
            standby: dict[str, list[int]] = {}
            for dest, tasks in ((active, m.tasks.active), (standby, m.tasks.standby)):
                if configured is None:
                    continue
                for s, ps in sorted(tasks.items()):
                    for t, p in task_partitions(configured, s, sorted(ps)):
                        dest.setdefault(t, []).append(p)
            out.append((m.user_endpoint[0], m.user_endpoint[1], active, standby))
        return out

    # ================================================================ timers
    def _heartbeat_interval(self, group_id: str) -> int:
        return self._override(group_id, "streams.heartbeat.interval.ms",
                              self.config.heartbeat_interval_ms)

    def _schedule_session(self, member: StreamsGroupMember, now_ms: int, group_id: str) -> None:
        timeout = self._override(group_id, "streams.session.timeout.ms",
                                 self.config.session_timeout_ms)
        member.session_deadline = self._wake(now_ms + timeout)

    def poll(self, now_ms: int) -> None:
        """Remove members whose session expired or who did not revoke in time."""
        if not self._take_due(now_ms):
            return
        for group in list(self.groups.values()):
            records: list = []
            if group.initial_delay_deadline is not None and group.initial_delay_deadline <= now_ms:
                # members hear of the delayed first assignment on their next heartbeat
                self._end_initial_delay(group, records, now_ms)
            for member in list(group.members.values()):
                expired = member.session_deadline is not None and member.session_deadline <= now_ms
                late = (member.state == MemberState.UNREVOKED_TASKS
                        and member.revocation_deadline is not None
                        and member.revocation_deadline <= now_ms)
                if expired or late:
                    log.info("[GroupCoordinator] Member %s in streams group %s has %s; removing it.",
                             member.member_id, group.group_id,
                             "expired its session" if expired else "not revoked in time")
                    self._remove_member(group, member, records)
            if records:
                self._append(group.group_id, records, now_ms)

    # ================================================================ describe, list, delete
    def describe(self, group_id: str) -> DescribedStreamsGroup:
        err = self.classic.validate_group_status(group_id, "StreamsGroupDescribe")
        if err is not None:
            return DescribedStreamsGroup(group_id, err)
        group = self.groups.get(group_id)
        if group is None or group.deleted:
            return DescribedStreamsGroup(group_id, ErrorCode.GROUP_ID_NOT_FOUND,
                                         self._missing_group_message(group_id, "streams"))
        return DescribedStreamsGroup(
            group_id, ErrorCode.NONE, None, group.state.value, group.group_epoch,
            group.assignment_epoch, group.topology,
            [(m, group.target.get(m.member_id, Tasks())) for m in group.members.values()])

    @property
    def assignor_name(self) -> str:
        return ASSIGNOR_NAME

    def delete_group(self, group: StreamsGroup, now_ms: int) -> ErrorCode:
        """DeleteGroups of a Streams group: only an empty one, with its offsets."""
        if group.members:
            return ErrorCode.NON_EMPTY_GROUP
        group.deleted = True
        del self.groups[group.group_id]
        records: list = list(streams_records.group_tombstones(group.group_id))
        records[:0] = [(encode_offset_commit_key(group.group_id, t, p), None)
                       for t, p in {**group.offsets, **group.pending_offset_commits}]
        self._append(group.group_id, records, now_ms)
        return ErrorCode.NONE

    @staticmethod
    def subscribed_topic_names(group: StreamsGroup) -> set[str]:
        """The topics the tasks of a group with members read: OffsetDelete refuses them
        and their offsets do not expire (none once the group is empty)."""
        if not group.members or group.topology is None:
            return set()
        return group.topology.source_topic_names()

    # ================================================================ partitions
    RECORDS, KEY_VERSIONS = streams_records, streams_records.STREAMS_KEY_VERSIONS
    GROUP, MEMBER = StreamsGroup, StreamsGroupMember

    def _attach_member(self, group: StreamsGroup, member: StreamsGroupMember) -> None:
        group.add_member(member)

    def _replay_group_metadata(self, g: StreamsGroup, v: GroupMetadataValue) -> None:
        assert isinstance(v, messages.StreamsGroupMetadataValue)  # the kind's value
        g.group_epoch, g.metadata_hash = v.epoch, v.metadata_hash
        g.validated_topology_epoch = v.validated_topology_epoch

    def _replay_target_metadata(self, g: StreamsGroup, v: TargetMetadataValue) -> None:
        assert isinstance(v, messages.StreamsGroupTargetAssignmentMetadataValue)  # the kind's value
        g.assignment_epoch = v.assignment_epoch
        g.assignment_timestamp = v.assignment_timestamp

    def _replay_group_record(self, g: StreamsGroup, kind: int, key: str | None, v: object) -> None:
        if kind == streams_records.TOPOLOGY:
            assert v is None or isinstance(v, messages.StreamsGroupTopologyValue)  # the kind's value
            g.topology = None if v is None else streams_records.topology_of(v)

    def load_partition(self, partition: int, now_ms: int) -> int:
        """Replay the Streams group records of `partition` (the classic coordinator has
        loaded its offsets already, into classic groups moved here by id)."""
        groups = self._replay(partition, now_ms)
        for gid, g in groups.items():
            if g.group_epoch == 0 and not g.members:
                continue
            self._adopt_offsets(g)
            self.groups[gid] = g
        return len(groups)
