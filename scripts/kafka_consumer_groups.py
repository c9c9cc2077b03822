"""kafka-consumer-groups: list, describe (offsets, members, state), delete groups, reset
and delete committed offsets, with the flags, checks and column layout of Apache Kafka's
ConsumerGroupCommand (the 4.x output, which fixed 3.9's lost newlines and HashMap row
order). Built on kafka-python's admin client (FindCoordinator, DescribeGroups, ListGroups,
OffsetFetch, ListOffsets, OffsetCommit, DeleteGroups, OffsetDelete).

This module is the entry point; the options and each family of actions live in
scripts.consumer_group.
"""
from __future__ import annotations

import sys
from typing import TextIO

from kafpy.scripts._cli import UsageExit, debug_traceback, tool_main
from kafpy.scripts._clients import AdminFactory, admin_client
from kafpy.scripts.consumer_group import delete, describe, reset_offsets
from kafpy.scripts.consumer_group.options import build_parser, check_args
from kafpy.scripts.consumer_group.service import GroupService, UsageError


def run(args: list[str], admin_factory: AdminFactory | None = None,
        out: TextIO | None = None) -> int:
    out = out or sys.stdout
    p = build_parser()
    o = p.parse_or_usage(args)
    check_args(p, o, args)
    try:
        with admin_client(o.value_of("bootstrap-server"), o.value_of("command-config"),
                          admin_factory) as admin:
            service = GroupService(admin, o, out)
            if o.has("list"):
                service.list()
            elif o.has("describe"):
                describe.describe(service)
            elif o.has("delete"):
                delete.delete(service)
            elif o.has("reset-offsets"):
                reset_offsets.print_reset(service, reset_offsets.reset_offsets(service))
            else:
                delete.delete_offsets(service)
        return 0
    except (UsageError, ValueError) as e:
        out.flush()
        p.usage_and_exit(str(e))
    except (UsageExit, BrokenPipeError):
        raise
    except Exception as e:  # noqa: BLE001 - the tool's top level: printed as Kafka's tool prints it
        out.write(f"\nError: Executing consumer group command failed due to {e}\n")
        out.flush()
        debug_traceback()
        return 1


def main(argv: list[str] | None = None) -> int:
    """Console-script entry point (also ``python -m`` this module)."""
    return tool_main(run, argv)


if __name__ == "__main__":
    sys.exit(main())
