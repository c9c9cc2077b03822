"""kafka-consumer-groups --reset-offsets: the scope (--all-topics, --topic t[:p,...],
--from-file), the eight scenarios, the range check against the log's start and end, --execute
or --dry-run, and the plan printed as a table or exported as CSV.

Who may call it: scripts.kafka_consumer_groups.
"""
from __future__ import annotations

import datetime as dt
import re
import sys
from collections import defaultdict

from kafpy.scripts.consumer_group.options import SCENARIOS
from kafpy.scripts.consumer_group.service import (GroupService, UsageError, earliest, fmt, java_exception,
                                            latest, parse_topic_args, str_order, tp_order)


def parse_datetime(text: str) -> int:
    """Kafka's Utils.getDateTime: 'YYYY-MM-DDTHH:mm:SS[.sss][zone]', local time when no
    zone is given. Returns epoch milliseconds."""
    s = text.strip()
    m = re.fullmatch(r"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(\.\d{1,3})?(Z|[+-]\d{2}:?\d{2})?", s)
    if not m:
        raise ValueError(f"Unparseable date: \"{text}\"")
    base = dt.datetime.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S")
    millis = int((m.group(2) or ".0")[1:].ljust(3, "0"))
    zone = m.group(3)
    if zone:
        if zone == "Z":
            tz = dt.timezone.utc
        else:
            z = zone.replace(":", "")
            sign = 1 if z[0] == "+" else -1
            tz = dt.timezone(sign * dt.timedelta(hours=int(z[1:3]), minutes=int(z[3:5])))
        base = base.replace(tzinfo=tz)
    else:
        base = base.astimezone()
    return int(base.timestamp()) * 1000 + millis


def parse_duration_ms(text: str) -> int:
    """ISO-8601 duration as java.time.Duration.parse accepts it: PnDTnHnMn.nS."""
    m = re.fullmatch(r"([-+]?)P(?:([-+]?\d+)D)?(?:T(?:([-+]?\d+)H)?(?:([-+]?\d+)M)?"
                     r"(?:([-+]?\d+)(?:[.,](\d{0,9}))?S)?)?", text.strip(), re.IGNORECASE)
    if not m or text.strip().upper() in ("P", "PT") or text.strip().upper().endswith("T"):
        raise ValueError(f"Text cannot be parsed to a Duration: {text}")
    days, hours, mins, secs = (int(g) if g else 0 for g in m.group(2, 3, 4, 5))
    frac = int((m.group(6) or "0").ljust(3, "0")[:3])
    total = ((days * 24 + hours) * 60 + mins) * 60_000 + secs * 1000 + (frac if secs >= 0 else -frac)
    return -total if m.group(1) == "-" else total


def reset_offsets(svc: GroupService) -> dict[str, dict[tuple[str, int], int]]:
    groups = svc.group_ids()
    descriptions = svc.admin.describe_groups(groups) if groups else {}
    result: dict[str, dict[tuple[str, int], int]] = {}
    for group in groups:
        state = descriptions.get(group, {}).get("group_state")
        if state in ("Empty", "Dead"):
            tps = _partitions_to_reset(svc, group)
            prepared = _prepare(svc, group, tps)
            if svc.o.has("execute") and not svc.o.has("dry-run"):
                _commit(svc, group, prepared)
            result[group] = prepared
        else:
            svc.print_error(f"Assignments can only be reset if the group '{group}' is "
                            f"inactive, but the current state is {state}.")
            result[group] = {}
    return result


def _partitions_to_reset(svc: GroupService, group: str) -> list[tuple[str, int]]:
    if svc.o.has("all-topics"):
        return sorted(svc.committed(group))
    if svc.o.has("topic"):
        return parse_topic_args(svc.o.values_of("topic"), svc.describe_partitions)
    if not svc.o.has("from-file"):
        raise UsageError("One of the reset scopes should be defined: --all-topics, --topic.")
    return []


def _check_range(svc: GroupService, requested: dict[tuple[str, int], int]) -> dict[tuple[str, int], int]:
    tps = list(requested)
    starts = svc.log_offsets(tps, earliest())
    ends = svc.log_offsets(tps, latest())
    out = {}
    for tp, off in requested.items():
        end, start = ends.get(tp), starts.get(tp)
        name = f"{tp[0]}-{tp[1]}"
        if end is not None and off > end:
            sys.stderr.write(f"WARN New offset ({off}) is higher than latest offset for topic "
                             f"partition {name}. Value will be set to {end}\n")
            out[tp] = end
        elif start is not None and off < start:
            sys.stderr.write(f"WARN New offset ({off}) is lower than earliest offset for topic "
                             f"partition {name}. Value will be set to {start}\n")
            out[tp] = start
        else:
            out[tp] = off
    return out


def _by_timestamp(svc: GroupService, tps: list[tuple[str, int]], ts: int) -> dict[tuple[str, int], int]:
    found = svc.log_offsets(tps, ts)
    out = {tp: off for tp, off in found.items() if off is not None and off >= 0}
    missing = [tp for tp in tps if tp not in out]
    for tp in tp_order(missing):
        svc.write(f"\nWarn: Partition {tp[1]} from topic {tp[0]} is empty. Falling back to "
                  "latest known offset.\n")
    out.update(svc.log_offsets(missing, latest()))
    return out


def _prepare(svc: GroupService, group: str, tps: list[tuple[str, int]]) -> dict[tuple[str, int], int]:
    o = svc.o
    if o.has("to-offset"):
        return _check_range(svc, {tp: o.value_of("to-offset") for tp in tps})
    if o.has("to-earliest"):
        return svc.log_offsets(tps, earliest())
    if o.has("to-latest"):
        return svc.log_offsets(tps, latest())
    if o.has("shift-by"):
        current = svc.committed(group)
        requested = {}
        for tp in tps:
            if tp not in current:
                raise UsageError(f"Cannot shift offset for partition {tp[0]}-{tp[1]} since "
                                 "there is no current committed offset")
            requested[tp] = current[tp] + o.value_of("shift-by")
        return _check_range(svc, requested)
    if o.has("to-datetime"):
        return _by_timestamp(svc, tps, parse_datetime(o.value_of("to-datetime")))
    if o.has("by-duration"):
        ts = int(svc.clock() * 1000) - parse_duration_ms(o.value_of("by-duration"))
        return _by_timestamp(svc, tps, ts)
    if o.has("from-file"):
        plan = _plan_from_file(svc)
        if group not in plan:
            svc.print_error(f"No reset plan for group {group} found")
            return {}
        return _check_range(svc, plan[group])
    if o.has("to-current"):
        current = svc.committed(group)
        out = {tp: current[tp] for tp in tps if tp in current}
        out.update(svc.log_offsets([tp for tp in tps if tp not in current], latest()))
        return out
    raise UsageError("Option '[reset-offsets]' requires one of the following scenarios: "
                     "[" + ", ".join(SCENARIOS) + "]")


def _plan_from_file(svc: GroupService) -> dict[str, dict[tuple[str, int], int]]:
    with open(svc.o.value_of("from-file"), encoding="utf-8") as fh:
        lines = [ln.strip() for ln in fh.read().split("\n") if ln.strip()]
    single = len(svc.o.values_of("group")) == 1
    plan: dict[str, dict[tuple[str, int], int]] = defaultdict(dict)
    for ln in lines:
        cells = ln.split(",")
        if single and len(cells) == 3:
            plan[svc.o.value_of("group")][(cells[0], int(cells[1]))] = int(cells[2])
        elif len(cells) == 4:
            plan[cells[0]][(cells[1], int(cells[2]))] = int(cells[3])
        else:
            raise ValueError(f"Invalid CSV line: {ln}")
    return plan


def _commit(svc: GroupService, group: str, offsets: dict[tuple[str, int], int]) -> None:
    from kafka import TopicPartition
    from kafka.structs import OffsetAndMetadata

    if not offsets:
        return
    res = svc.admin.alter_group_offsets(
        group, {TopicPartition(t, p): OffsetAndMetadata(off, "", None)
                for (t, p), off in offsets.items()})
    for tp, err in (res or {}).items():
        if getattr(err, "errno", 0):
            raise RuntimeError(f"org.apache.kafka.common.errors.{java_exception(err.__name__)}: "
                               f"{getattr(err, 'description', err.__name__)}")


def print_reset(svc: GroupService, result: dict[str, dict[tuple[str, int], int]]) -> None:
    if svc.o.has("export"):
        single = len(svc.o.values_of("group")) == 1
        lines = []
        for group in str_order(list(result)):
            offsets = result[group]
            for t, p in tp_order(list(offsets)):
                off = offsets[(t, p)]
                lines.append(f"{t},{p},{off}" if single else f"{group},{t},{p},{off}")
        svc.write("".join(ln + "\n" for ln in lines) + "\n")
        return
    pattern = [30, 30, 10, 15]
    if result:
        svc.write("\n" + fmt(pattern, ["GROUP", "TOPIC", "PARTITION", "NEW-OFFSET"]))
    for group in str_order(list(result)):
        offsets = result[group]
        for t, p in tp_order(list(offsets)):
            svc.write("\n" + fmt(pattern, [group, t, p, offsets[(t, p)]]))
    svc.write("\n")
