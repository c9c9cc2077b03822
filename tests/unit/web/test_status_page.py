"""The status page's charts (a scale on each sparkline) and consumer lag (a partition the
group never committed shows "-" and is not summed)."""
import re
import struct
from types import SimpleNamespace as NS

from kafpy.coordinator.group.classic.group import GroupState
from kafpy.protocol import messages as M
from kafpy.protocol.codec import encode_data
from kafpy.web.status_page import StatusPage, sparkline


def _assignment(parts: list[tuple[str, int]]) -> bytes:
    A = M.ConsumerProtocolAssignment
    topics: dict[str, list[int]] = {}
    for t, p in parts:
        topics.setdefault(t, []).append(p)
    tps = [A.TopicPartition(topic=t, partitions=ps) for t, ps in topics.items()]
    return struct.pack(">h", 0) + encode_data(A(assigned_partitions=tps, user_data=None), 0)


def test_a_sparkline_carries_its_peak_zero_and_time_axis():
    svg = sparkline([0.0, 1500.0, 300.0], "msg/s")
    assert re.search(r"<text class=\"peak\"[^>]*>1.5k</text>", svg)
    assert ">0</text>" in svg and ">now</text>" in svg and "-5 min" in svg
    assert "<title>peak 1.5k msg/s</title>" in svg
    assert "<path d=\"M34," in svg    # the axes
    # the peak sits at the top of the plot, 0 on the x axis
    ys = [float(p.split(",")[1]) for p in re.search(r'points="([^"]*)"', svg).group(1).split()]
    assert min(ys) == 4.0 and max(ys) == 46.0


def _page(groups: dict) -> StatusPage:
    ends = {("t", 0): 100, ("t", 1): 50, ("t", 2): 70}
    rm = NS(get_partition=lambda t, p: NS(log=object(), high_watermark=ends[(t, p)]) if (t, p) in ends else None)
    broker = NS(server=None, loop=None, replica_manager=rm, group_coordinator=NS(coordinator=NS(groups=groups)))
    return StatusPage(broker)


def test_partitions_without_a_committed_offset_show_a_dash_and_are_not_summed():
    member = NS(protocol_type="consumer", assignment=_assignment([("t", 0), ("t", 1), ("t", 2)]))
    groups = {"half": NS(state=GroupState.STABLE, members={"m": member}, offsets={("t", 0): NS(offset=40)}),
              "fresh": NS(state=GroupState.STABLE, members={"m": member}, offsets={})}
    html = _page(groups)._groups(lambda kind, name: True)
    half = re.search(r"<tr id='group-half'>.*?</tr>", html).group(0)
    assert "<td class='lag'>60 <span class='muted'>(+2 without a committed offset)</span></td>" in half
    fresh = re.search(r"<tr id='group-fresh'>.*?</tr>", html).group(0)
    assert "<td class='lag'>-</td>" in fresh
    rows = re.findall(r"<tr><td>(\w+)</td><td>t</td><td>(\d)</td><td>([\d-]+)</td><td>(\d+)</td>"
                      r"<td class='lag'>([\d-]+)</td></tr>", html)
    assert ("half", "0", "40", "100", "60") in rows
    assert ("half", "1", "-", "50", "-") in rows
    assert ("fresh", "2", "-", "70", "-") in rows


def test_groups_and_topics_the_caller_may_not_describe_are_not_listed():
    member = NS(protocol_type="consumer", assignment=_assignment([("t", 0)]))
    groups = {"open": NS(state=GroupState.STABLE, members={"m": member}, offsets={("t", 0): NS(offset=40)}),
              "closed": NS(state=GroupState.STABLE, members={"m": member}, offsets={})}
    html = _page(groups)._groups(lambda kind, name: kind == "GROUP" and name == "open")
    assert "group-open" in html and "closed" not in html
    assert "<td>t</td>" not in html   # topic t is not DESCRIBE-able: its partitions are left out
