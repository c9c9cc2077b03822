"""kafka-consumer-groups --describe: offsets and lag (the default), --members [--verbose]
and --state, with the columns and messages of Kafka 4.x's ConsumerGroupCommand.

Who may call it: scripts.kafka_consumer_groups.
"""
from __future__ import annotations

import sys
from collections import defaultdict
from typing import TypeVar

from kafpy.scripts.consumer_group.service import MISSING, GroupService, fmt, latest

OptionalT = TypeVar("OptionalT")


def assignment_partitions(member: dict) -> list[tuple[str, int]]:
    """(topic, partition) pairs of a DescribeGroups member's decoded assignment."""
    ma = member.get("member_assignment")
    if not ma:
        return []
    if hasattr(ma, "partitions"):
        return [(tp.topic, tp.partition) for tp in ma.partitions()]
    out: list[tuple[str, int]] = []
    for entry in ma.get("assigned_partitions", []) if isinstance(ma, dict) else []:
        if isinstance(entry, dict):
            out.extend((entry["topic"], p) for p in entry.get("partitions", []))
        else:
            topic, parts = entry
            out.extend((topic, p) for p in parts)
    return out


def _should_print(svc: GroupService, group: str, state: str | None, rows: int | None) -> bool:
    if rows is None:
        svc.print_error(f"The consumer group '{group}' does not exist.")
        return False
    if state == "Dead":
        svc.print_error(f"Consumer group '{group}' does not exist.")
    elif state == "Empty":
        sys.stderr.write(f"\nConsumer group '{group}' has no active members.\n")
    elif state in ("PreparingRebalance", "CompletingRebalance", "Assigning", "Reconciling"):
        sys.stderr.write(f"\nWarning: Consumer group '{group}' is rebalancing.\n")
    return state != "Dead" and rows > 0


def describe(svc: GroupService) -> None:
    groups = svc.group_ids()
    descriptions = svc.admin.describe_groups(groups) if groups else {}
    if svc.o.has("members"):
        _describe_members(svc, descriptions)
    elif svc.o.has("state"):
        _describe_state(svc, descriptions)
    else:
        _describe_offsets(svc, descriptions)


def _describe_offsets(svc: GroupService, descriptions: dict[str, dict]) -> None:
    for group in sorted(descriptions):
        desc = descriptions[group]
        state = desc.get("group_state")
        committed = svc.committed(group) if state != "Dead" else {}
        rows: list[list[object]] = []
        assigned: set[tuple[str, int]] = set()
        members = [m for m in desc.get("members", []) if assignment_partitions(m)]
        members.sort(key=lambda m: -len(assignment_partitions(m)))
        pending: list[tuple[tuple[str, int], str, str, str]] = []
        for m in members:
            tps = sorted(set(assignment_partitions(m)), key=lambda tp: tp[1])
            assigned.update(tps)
            pending.extend((tp, m["member_id"], m.get("client_host") or MISSING,
                            m.get("client_id") or MISSING) for tp in sorted(tps))
        unassigned = sorted(set(committed) - assigned)
        for tp in unassigned:
            pending.append((tp, MISSING, MISSING, MISSING))
        ends = svc.log_offsets([tp for tp, *_ in pending], latest())
        for tp, cid, host, client in pending:
            cur = committed.get(tp)
            end = ends.get(tp)
            lag = end - cur if cur is not None and cur != -1 and end is not None else None
            rows.append([group, tp[0], tp[1], _opt(cur), _opt(end), _opt(lag), cid, host, client])
        if not _should_print(svc, group, state, len(rows)):
            continue
        widths = [max([15] + [len(str(r[i])) for r in rows]) for i in (0, 1, 6, 7)]
        pattern = [widths[0], widths[1], 10, 15, 15, 15, widths[2], widths[3], 0]
        svc.write("\n" + fmt(pattern, ["GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET",
                                       "LOG-END-OFFSET", "LAG", "CONSUMER-ID", "HOST", "CLIENT-ID"]))
        for r in rows:
            svc.write("\n" + fmt(pattern, r))
        svc.write("\n")


def _describe_members(svc: GroupService, descriptions: dict[str, dict]) -> None:
    verbose = svc.o.has("verbose")
    for group in sorted(descriptions):
        desc = descriptions[group]
        members = desc.get("members", [])
        state = desc.get("group_state")
        widths = {"g": 15, "c": 15, "i": 17, "h": 15, "cl": 15}
        with_instance = False
        if _should_print(svc, group, state, len(members)):
            for m in members:
                widths["g"] = max(widths["g"], len(group))
                widths["c"] = max(widths["c"], len(m["member_id"]))
                widths["i"] = max(widths["i"], len(m.get("group_instance_id") or ""))
                widths["h"] = max(widths["h"], len(m.get("client_host") or ""))
                widths["cl"] = max(widths["cl"], len(m.get("client_id") or ""))
                with_instance = with_instance or bool(m.get("group_instance_id"))
        if with_instance:
            pattern = [widths["g"], widths["c"], widths["i"], widths["h"], widths["cl"], 15]
            header = ["GROUP", "CONSUMER-ID", "GROUP-INSTANCE-ID", "HOST", "CLIENT-ID", "#PARTITIONS"]
        else:
            pattern = [widths["g"], widths["c"], widths["h"], widths["cl"], 15]
            header = ["GROUP", "CONSUMER-ID", "HOST", "CLIENT-ID", "#PARTITIONS"]
        svc.write("\n" + fmt(pattern, header) + " " + ("ASSIGNMENT" if verbose else "") + "\n")
        for m in members:
            tps = assignment_partitions(m)
            row = [group, m["member_id"]]
            if with_instance:
                row.append(m.get("group_instance_id") or "")
            row += [m.get("client_host") or "", m.get("client_id") or "", len(tps)]
            line = fmt(pattern, row) + " "
            if verbose:
                if not tps:
                    line += MISSING
                else:
                    by_topic: dict[str, list[int]] = defaultdict(list)
                    for t, p in tps:
                        by_topic[t].append(p)
                    line += ", ".join(sorted(
                        "(" + ",".join(sorted(str(p) for p in ps)) + ")"
                        for ps in by_topic.values()))
            svc.write(line + "\n")


def _describe_state(svc: GroupService, descriptions: dict[str, dict]) -> None:
    brokers = {b.get("broker_id", b.get("node_id")): b
               for b in svc.admin.describe_cluster().get("brokers", [])}
    for group in sorted(descriptions):
        desc = descriptions[group]
        state = desc.get("group_state")
        if not _should_print(svc, group, state, 1):
            continue
        node = svc.admin._manager.run(svc.admin._find_coordinator_id, group)
        b = brokers.get(node, {})
        coordinator = f"{b.get('host')}:{b.get('port')}  ({node})"
        width = max(25, len(coordinator))
        pattern = [width, 25, 20, 15, 0]
        svc.write("\n" + fmt(pattern, ["GROUP", "COORDINATOR (ID)", "ASSIGNMENT-STRATEGY",
                                       "STATE", "#MEMBERS"]))
        svc.write("\n" + fmt(pattern, [group, coordinator, desc.get("protocol_data") or "",
                                       state, len(desc.get("members", []))]))
        svc.write("\n")


def _opt(v: OptionalT | None) -> OptionalT | str:
    return MISSING if v is None else v
