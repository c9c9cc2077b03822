"""kafka-consumer-groups --delete (whole groups) and --delete-offsets (a group's committed
offsets for some topics), with Kafka's messages and status table.

Who may call it: scripts.kafka_consumer_groups.
"""
from __future__ import annotations

import re

from kafpy.scripts.consumer_group.service import GroupService, fmt, java_exception, parse_topic_args, str_order


def delete(svc: GroupService) -> None:
    groups = svc.group_ids()
    results = svc.admin.delete_groups(groups) if groups else {}
    ok = str_order([g for g, r in results.items() if r == "OK"])
    failed = {g: r for g, r in results.items() if r != "OK"}
    if not failed:
        svc.write(f"Deletion of requested consumer groups ('{', '.join(ok)}') was successful.\n")
    else:
        svc.print_error("Deletion of some consumer groups failed:")
        for g, err in failed.items():
            svc.write(f"* Group '{g}' could not be deleted due to: java.util.concurrent."
                      f"ExecutionException: org.apache.kafka.common.errors."
                      f"{java_exception(err)}: {error_description(err)}\n")
        if ok:
            svc.write("\nThese consumer groups were deleted successfully: '"
                      + "'".join(ok) + "', '\n")


def delete_offsets(svc: GroupService) -> None:
    from kafka import TopicPartition

    group = svc.o.value_of("group")
    topics = svc.o.values_of("topic")
    results: dict[tuple[str, int], str | None] = {}
    tps: list[tuple[str, int]] = []
    for arg in topics:
        if ":" in arg:
            tps.extend(parse_topic_args([arg], svc.describe_partitions))
        else:
            try:
                tps.extend(svc.describe_partitions([arg]))
            except RuntimeError as e:
                results[(arg, -1)] = str(e)
    top_error = "NONE"
    try:
        res = svc.admin.delete_group_offsets(group, [TopicPartition(t, p) for t, p in tps])
        for tp, err in (res or {}).items():
            errno = getattr(err, "errno", 0)
            results[(tp.topic, tp.partition)] = (None if not errno else
                                                 f"org.apache.kafka.common.errors.{java_exception(err.__name__)}: "
                                                 f"{getattr(err, 'description', '')}")
    except Exception as e:  # noqa: BLE001 - a group-level error code
        top_error = error_constant(type(e).__name__)
        for tp in tps:
            results.setdefault(tp, f"{type(e).__name__}: {e}")
    messages = {
        "NONE": None,
        "INVALID_GROUP_ID": f"'{group}' is not valid.",
        "GROUP_ID_NOT_FOUND": f"'{group}' does not exist.",
        "GROUP_AUTHORIZATION_FAILED": f"Access to '{group}' is not authorized.",
        "NON_EMPTY_GROUP": f"Deleting offsets of a consumer group '{group}' is forbidden if "
                           "the group is not empty.",
    }
    if top_error == "NONE" and not any(results.values()):
        svc.write(f"Request succeeded for deleting offsets from group {group}.\n")
    elif message := messages.get(top_error):
        svc.print_error(message)
    elif top_error in ("NONE", "GROUP_SUBSCRIBED_TO_TOPIC", "TOPIC_AUTHORIZATION_FAILED",
                       "UNKNOWN_TOPIC_OR_PARTITION"):
        svc.print_error("Encounter some partition level error, see the follow-up details:")
    else:
        svc.print_error(f"Encounter some unknown error: {top_error}")
    pattern = [max([15] + [len(t) for t, _ in results]), 10, 15]
    svc.write("\n" + fmt(pattern, ["TOPIC", "PARTITION", "STATUS"]))
    for (t, p), err in sorted(results.items(), key=lambda kv: kv[0][0] + str(kv[0][1])):
        svc.write("\n" + fmt(pattern, [t, p if p >= 0 else "Not Provided",
                                       "Successful" if err is None else f"Error: :{err}"]))
    svc.write("\n")


def error_constant(class_name: str) -> str:
    """kafka-python error class name -> Kafka's Errors constant (GroupIdNotFoundError ->
    GROUP_ID_NOT_FOUND)."""
    base = class_name[:-5] if class_name.endswith("Error") else class_name
    return re.sub(r"(?<!^)(?=[A-Z])", "_", base).upper()


def error_description(err: str | type[BaseException]) -> str:
    import kafka.errors as Errors

    cls = getattr(Errors, err, None) if isinstance(err, str) else err
    return getattr(cls, "description", "") or str(err)
