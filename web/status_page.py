"""The status page (``GET /``): the cluster at a glance as this broker sees it. Brokers (up,
or down when a partition names a broker that is not registered), the controller, topics
with their partitions, leaders and ISR (under-replicated and offline ones highlighted and
listed first), the consumer groups this broker coordinates with their lag, and small
throughput charts of the last minutes as inline SVG.

Read-only, plain HTML and CSS, no script: it reloads itself every few seconds with a meta
refresh. Who may call it: the broker's HTTP server (``broker.http_routes``). The page is
built on the event loop from the metadata cache, so one page costs one walk of the
partitions; past ``MAX_PARTITION_ROWS`` rows the rest are counted, not listed. With an
authorizer, the page shows only the topics and groups the caller may DESCRIBE (as Kafka's
Metadata and ListGroups answer), counts included.
"""
from __future__ import annotations

import asyncio
import time
from collections import deque
from html import escape
from typing import TYPE_CHECKING, Callable, Protocol

from aiohttp import web

from kafpy.metrics.broker_view import BrokerView
from kafpy.metrics.lag import group_partitions, local_end_offset
from kafpy.web.access import may

if TYPE_CHECKING:
    from kafpy.metrics.observer import RequestObserver
    from kafpy.replication.metadata_cache import MetadataCache
    from kafpy.web.metrics_endpoint import MetricsEndpoint

MAX_PARTITION_ROWS = 1000
SAMPLE_INTERVAL_S = 5.0
SAMPLES = 60            # five minutes of throughput
REFRESH_S = 5

STYLE = """
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}
h1{font-size:1.4em;margin:0 0 .3em}h2{font-size:1.1em;margin:1.4em 0 .4em}
table{border-collapse:collapse;margin:.3em 0}td,th{border:1px solid #ccc;padding:.2em .6em;text-align:left}
th{background:#f3f3f3}.down,.offline{background:#f8d7da}.urp{background:#fff3cd}.up{background:#d4edda}
.charts{display:flex;gap:1.5em;flex-wrap:wrap}.chart{border:1px solid #ddd;padding:.4em}
.muted{color:#777}
"""



class BrokerIdentity(Protocol):
    @property
    def broker_id(self) -> int: ...


class StatusBroker(BrokerView, Protocol):
    """The broker as the page reads it: what a scrape reads, its id and its mode."""

    @property
    def config(self) -> BrokerIdentity: ...

    @property
    def zk_mode(self) -> bool: ...

class ThroughputHistory:
    """The broker's messages-in, bytes-in and bytes-out totals sampled every
    ``SAMPLE_INTERVAL_S``; the page charts their per-second rates."""

    def __init__(self, observer: RequestObserver | None, loop: asyncio.AbstractEventLoop) -> None:
        self.observer = observer
        self.loop = loop
        self.samples: deque[tuple[float, int, int, int]] = deque(maxlen=SAMPLES + 1)
        self._handle: asyncio.TimerHandle | None = None

    def start(self) -> None:
        self._sample()

    def stop(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None

    def _sample(self) -> None:
        if self.observer is not None:
            t = self.observer.topics.total
            self.samples.append((time.monotonic(), t.messages_in, t.bytes_in, t.bytes_out))
        self._handle = self.loop.call_later(SAMPLE_INTERVAL_S, self._sample)

    def rates(self, index: int) -> list[float]:
        """Per-second rate of sample field ``index`` (1 messages in, 2 bytes in, 3 bytes out)."""
        s = list(self.samples)
        return [max(b[index] - a[index], 0) / max(b[0] - a[0], 1e-9) for a, b in zip(s, s[1:])]


def sparkline(values: list[float], unit: str = "", width: int = 240, height: int = 60) -> str:
    """An inline SVG polyline of ``values`` over a time axis, with its scale written on it:
    the peak at the top of the y axis, 0 at its foot, the window's start and "now" under
    the x axis (empty chart before two samples)."""
    top = max(values) if values else 0.0
    left, bottom = 34, height - 14          # the axes' corner
    plot_w, plot_h = width - left - 2, bottom - 4
    if len(values) < 2:
        points = ""
    else:
        step = plot_w / (SAMPLES - 1)
        start = left + plot_w - step * (len(values) - 1)
        points = " ".join(f"{start + i * step:.1f},{bottom - (v / top * plot_h if top else 0):.1f}"
                          for i, v in enumerate(values))
    minutes = int(SAMPLES * SAMPLE_INTERVAL_S / 60)
    peak = _human(top) if values else "-"
    return (f'<svg width="{width}" height="{height}" viewBox="0 0 {width} {height}" role="img">'
            f'<rect width="{width}" height="{height}" fill="#fafafa"/>'
            f'<path d="M{left},4 V{bottom} H{width - 2}" fill="none" stroke="#999" stroke-width="1"/>'
            f'<text class="peak" x="{left - 3}" y="12" font-size="10" text-anchor="end" fill="#555">{peak}</text>'
            f'<text x="{left - 3}" y="{bottom}" font-size="10" text-anchor="end" fill="#555">0</text>'
            f'<text x="{left}" y="{height - 2}" font-size="10" fill="#555">-{minutes} min</text>'
            f'<text x="{width - 2}" y="{height - 2}" font-size="10" text-anchor="end" fill="#555">now</text>'
            f'<title>peak {peak} {escape(unit)}</title>'
            f'<polyline fill="none" stroke="#2a6fdb" stroke-width="1.5" points="{points}"/></svg>')


def _human(v: float) -> str:
    for unit in ("", "k", "M", "G"):
        if abs(v) < 1000:
            return f"{v:.1f}{unit}"
        v /= 1000
    return f"{v:.1f}T"


class StatusPage:
    """Renders the page from ``broker``'s metadata cache, cluster controller and group
    coordinator; keeps the throughput history."""

    def __init__(self, broker: StatusBroker, metrics: MetricsEndpoint | None = None) -> None:
        self.broker = broker
        observer = broker.server.observer if broker.server is not None else None
        self.history = ThroughputHistory(observer, broker.loop)

    def routes(self) -> list:
        return [("GET", "/", self.handle), ("GET", "/status", self.handle)]

    def start(self) -> None:
        self.history.start()

    def stop(self) -> None:
        self.history.stop()

    async def handle(self, request: web.Request) -> web.Response:
        return web.Response(text=self.render(lambda rt, name: may(request, rt, name, "DESCRIBE")),
                            content_type="text/html", charset="utf-8")

    @property
    def _cache(self) -> MetadataCache:
        cache = self.broker.metadata_cache
        assert cache is not None, "the page is served once the broker has started"
        return cache

    # ---------------------------------------------------------------- the page
    def render(self, visible: Callable[[str, str], bool] = lambda rt, name: True) -> str:
        """The page, with the topics and groups ``visible(resource type, name)`` lets through."""
        b = self.broker
        cache = self._cache
        parts = [f"<!DOCTYPE html><html><head><meta charset='utf-8'><meta http-equiv='refresh' content='{REFRESH_S}'>"
                 f"<title>kafpy cluster {escape(cache.cluster_id)}</title><style>{STYLE}</style></head><body>",
                 f"<h1>Cluster {escape(cache.cluster_id)}</h1>",
                 f"<p class='muted'>As broker {b.config.broker_id} sees it at "
                 f"{time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime())} UTC; reloads every {REFRESH_S} s.</p>"]
        parts.append(self._brokers())
        parts.append(self._throughput())
        topics, partitions = self._topics(visible)
        parts.append(topics)
        parts.append(self._groups(visible))
        parts.append(partitions)
        parts.append("</body></html>")
        return "".join(parts)

    def _brokers(self) -> str:
        cache = self._cache
        live = {br.node_id: br for br in cache.brokers()}
        known = set(live)
        for t in cache.topics().values():
            for p in t.partitions.values():
                known.update(p.replicas)
        controller = cache.controller_id if self.broker.zk_mode else self.broker.config.broker_id
        rows = []
        for node in sorted(known):
            br = live.get(node)
            state = "up" if br is not None else "down"
            address = f"{br.host}:{br.port}" if br is not None else ""
            rack = (br.rack or "") if br is not None else ""
            role = "controller" if node == controller else ""
            rows.append(f"<tr id='broker-{node}' class='{state}'><td>{node}</td><td class='state'>{state}</td>"
                        f"<td>{escape(address)}</td><td>{escape(rack)}</td><td>{role}</td></tr>")
        down = len(known) - len(live.keys() & known)
        return (f"<h2>Brokers</h2><p>Controller: <span id='controller'>{controller}</span>; "
                f"<span id='brokers-up'>{len(live)}</span> up, <span id='brokers-down'>{down}</span> down</p>"
                "<table id='brokers'><tr><th>id</th><th>state</th><th>address</th><th>rack</th><th>role</th></tr>"
                + "".join(rows) + "</table>")

    def _throughput(self) -> str:
        h = self.history
        charts = []
        for index, title, unit in ((1, "Messages in", "msg/s"), (2, "Bytes in", "B/s"), (3, "Bytes out", "B/s")):
            rates = h.rates(index)
            now = _human(rates[-1]) if rates else "-"
            peak = _human(max(rates)) if rates else "-"
            charts.append(f"<div class='chart'><div>{title}: <b>{now}</b> {unit}, peak {peak} <span class='muted'>"
                          f"(last {int(SAMPLES * SAMPLE_INTERVAL_S / 60)} min, this broker)</span></div>"
                          f"{sparkline(rates, unit)}</div>")
        return "<h2>Throughput</h2><div class='charts'>" + "".join(charts) + "</div>"

    def _topics(self, visible: Callable[[str, str], bool]) -> tuple[str, str]:
        """The topics' summary, and the partitions table (under-replicated and offline first)."""
        cache = self._cache
        live = {br.node_id for br in cache.brokers()}
        summary: list[str] = []
        urp_rows: list[str] = []
        rows: list[str] = []
        urp_total = offline_total = 0
        names = [n for n in cache.topics() if visible("TOPIC", n)]
        for name in sorted(names, key=lambda n: (n.startswith("__"), n)):   # internal topics last
            t = cache.topics()[name]
            urp = offline = 0
            for index in sorted(t.partitions):
                p = t.partitions[index]
                is_offline = p.leader < 0 or p.leader not in live
                is_urp = not is_offline and len(p.isr) < len(p.replicas)
                urp += is_urp
                offline += is_offline
                cls = "offline" if is_offline else "urp" if is_urp else ""
                row = (f"<tr class='{cls}'><td>{escape(name)}</td><td>{index}</td>"
                       f"<td>{p.leader if not is_offline else 'none'}</td>"
                       f"<td>{','.join(map(str, p.replicas))}</td><td>{','.join(map(str, p.isr))}</td></tr>")
                (urp_rows if cls else rows).append(row)
            urp_total += urp
            offline_total += offline
            cls = "offline" if offline else "urp" if urp else ""
            summary.append(f"<tr class='{cls}'><td>{escape(name)}</td><td>{len(t.partitions)}</td>"
                           f"<td>{t.replication_factor}</td><td>{urp}</td><td>{offline}</td></tr>")
        listed = (urp_rows + rows)[:MAX_PARTITION_ROWS]
        more = len(urp_rows) + len(rows) - len(listed)
        return ("<h2>Topics</h2>"
                f"<p>Under-replicated partitions: <span id='urp-count'>{urp_total}</span>; "
                f"offline: <span id='offline-count'>{offline_total}</span></p>"
                "<table id='topics'><tr><th>topic</th><th>partitions</th><th>replication factor</th>"
                "<th>under-replicated</th><th>offline</th></tr>" + "".join(summary) + "</table>",
                "<h2>Partitions</h2><table id='partitions'><tr><th>topic</th><th>partition</th><th>leader</th>"
                "<th>replicas</th><th>ISR</th></tr>" + "".join(listed) + "</table>"
                + (f"<p class='muted'>{more} more partitions not listed.</p>" if more else ""))

    def _groups(self, visible: Callable[[str, str], bool]) -> str:
        """The groups the caller may DESCRIBE with their lag, then each group's partitions of
        topics the caller may DESCRIBE: a partition the group never committed an offset for
        shows "-" (as kafka-consumer-groups.sh does) and is left out of the group's sum, which
        then says how many it leaves out."""
        b = self.broker
        gc = b.group_coordinator
        if gc is None:
            return ""
        groups = gc.coordinator.groups
        rm = b.replica_manager
        assert rm is not None, "the page is served once the broker has started"
        end = local_end_offset(rm)
        rows: list[str] = []
        partition_rows: list[str] = []
        for gid in sorted(g for g in groups if visible("GROUP", g)):
            g = groups[gid]
            parts = [p for p in group_partitions(g, end) if visible("TOPIC", p.topic)]
            known = [p.lag for p in parts if p.lag is not None]
            unknown = len(parts) - len(known)
            lag = str(sum(known)) if known else "-"
            if known and unknown:
                lag += f" <span class='muted'>(+{unknown} without a committed offset)</span>"
            rows.append(f"<tr id='group-{escape(gid)}'><td>{escape(gid)}</td><td>{escape(g.state.value)}</td>"
                        f"<td>{len(g.members)}</td><td class='lag'>{lag}</td></tr>")
            for p in parts:
                if len(partition_rows) < MAX_PARTITION_ROWS:
                    partition_rows.append(
                        f"<tr><td>{escape(gid)}</td><td>{escape(p.topic)}</td><td>{p.partition}</td>"
                        f"<td>{_or_dash(p.committed)}</td><td>{_or_dash(p.end_offset)}</td>"
                        f"<td class='lag'>{_or_dash(p.lag)}</td></tr>")
        return ("<h2>Consumer groups</h2><p class='muted'>The groups this broker coordinates; "
                "lag against its replicas' high watermarks (\"-\": no committed offset, or no replica here).</p>"
                "<table id='groups'><tr><th>group</th><th>state</th><th>members</th><th>lag</th></tr>"
                + "".join(rows) + "</table>"
                "<table id='group-partitions'><tr><th>group</th><th>topic</th><th>partition</th>"
                "<th>committed offset</th><th>end offset</th><th>lag</th></tr>" + "".join(partition_rows) + "</table>")


def _or_dash(v: int | None) -> str:
    return "-" if v is None else str(v)
