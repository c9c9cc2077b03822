"""Network namespaces for a fault run: one namespace per node (ZooKeeper, each broker), each
joined by a veth pair to a bridge in the root namespace, which holds the address the clients
use. A partition is a set of blackhole routes inside a node's namespace (this machine has no
iptables): a route to a peer drops what the node sends to it, so a cut "one way" drops one
direction of packets (TCP then stalls both ways, as with a real one-way loss), "both ways"
puts the routes on both sides.

Everything is named ``kfz<tag>...`` where ``tag`` is this process's id in hex, so several runs
can share a machine; ``sweep_stale()`` removes what a run whose process is gone left behind.
Only root may call this (``ip netns`` needs CAP_NET_ADMIN)."""
from __future__ import annotations

import os
import re
import subprocess

PREFIX = "kfz"


def ip(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(["ip", *args], capture_output=True, text=True, check=check)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def sweep_stale() -> None:
    """Delete namespaces and bridges of runs whose process no longer exists."""
    for line in ip("netns", "list", check=False).stdout.splitlines():
        m = re.match(rf"({PREFIX}([0-9a-f]+)-\S+)", line)
        if m and not _pid_alive(int(m.group(2), 16)):
            ip("netns", "del", m.group(1), check=False)
    for line in ip("-o", "link", "show", "type", "bridge", check=False).stdout.splitlines():
        m = re.search(rf"\d+: ({PREFIX}([0-9a-f]+)br)[:@]", line)
        if m and not _pid_alive(int(m.group(2), 16)):
            ip("link", "del", m.group(1), check=False)


class Network:
    """The bridge, the namespaces and the cuts of one run. Addresses are 10.233.N.0/24 with
    N drawn from the tag; the root namespace (clients) is .1, nodes .10 upwards."""

    def __init__(self) -> None:
        self.tag = f"{os.getpid():x}"
        self.subnet = f"10.233.{os.getpid() % 200 + 20}"
        self.bridge = f"{PREFIX}{self.tag}br"
        self.client_address = f"{self.subnet}.1"
        self.nodes: dict[str, str] = {}  # node name -> address
        self.cuts: set[tuple[str, str]] = set()  # (node, address it cannot send to)
        self._up = False

    def up(self) -> "Network":
        sweep_stale()
        ip("link", "add", self.bridge, "type", "bridge")
        self._up = True
        ip("addr", "add", f"{self.client_address}/24", "dev", self.bridge)
        ip("link", "set", self.bridge, "up")
        return self

    def namespace(self, node: str) -> str:
        return f"{PREFIX}{self.tag}-{node}"

    def add_node(self, node: str) -> str:
        """A namespace for ``node`` with loopback and one address on the bridge."""
        ns, index = self.namespace(node), len(self.nodes)
        host_end, ns_end = f"{PREFIX}{self.tag}h{index}", f"{PREFIX}{self.tag}n{index}"
        address = f"{self.subnet}.{10 + index}"
        ip("netns", "add", ns)
        self.nodes[node] = address
        ip("link", "add", host_end, "type", "veth", "peer", "name", ns_end)
        ip("link", "set", ns_end, "netns", ns)
        ip("link", "set", host_end, "master", self.bridge)
        ip("link", "set", host_end, "up")
        ip("-n", ns, "link", "set", "lo", "up")
        ip("-n", ns, "addr", "add", f"{address}/24", "dev", ns_end)
        ip("-n", ns, "link", "set", ns_end, "up")
        return address

    def exec_prefix(self, node: str) -> tuple[str, ...]:
        return ("ip", "netns", "exec", self.namespace(node))

    def cut(self, node: str, peers: list[str], both_ways: bool) -> list[tuple[str, str]]:
        """``node`` stops reaching ``peers`` (and, ``both_ways``, they stop reaching it).
        Returns the (node, address) routes added, for ``uncut``."""
        pairs = [(node, self.nodes[p]) for p in peers]
        if both_ways:
            pairs += [(p, self.nodes[node]) for p in peers]
        added = [pair for pair in pairs if pair not in self.cuts]
        for pair in added:
            ip("-n", self.namespace(pair[0]), "route", "add", "blackhole", f"{pair[1]}/32")
            self.cuts.add(pair)
        return added

    def uncut(self, pairs: list[tuple[str, str]]) -> None:
        for pair in pairs:
            if pair in self.cuts:
                ip("-n", self.namespace(pair[0]), "route", "del", "blackhole", f"{pair[1]}/32",
                   check=False)
                self.cuts.discard(pair)

    def heal(self) -> None:
        """Remove every cut."""
        self.uncut(sorted(self.cuts))

    def down(self) -> None:
        """Delete every namespace (their veth pairs go with them) and the bridge."""
        for node in list(self.nodes):
            ip("netns", "del", self.namespace(node), check=False)
        self.nodes.clear()
        self.cuts.clear()
        if self._up:
            ip("link", "del", self.bridge, check=False)
            self._up = False
