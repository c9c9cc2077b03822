"""Fault schedules drawn from a seed, and the Injector that applies them to a Cluster.

A schedule names roles, not brokers ("the leader of partition 1", "the controller"), so the
same seed gives the same schedule on every run; which broker plays the role is read from
Metadata when the fault starts and recorded in the History. Faults may overlap (the next one
can start before the previous one healed) but never hit a broker twice at once."""
from __future__ import annotations

import errno
import os
import random
import signal
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable

from tests.support import wire
from tests.support.process import ProcessFailed

from .cluster import Cluster
from .history import History
from .regressions import KINDS_FOUND_WITH, OPEN, REGRESSIONS

# kind -> (shortest, longest) duration in multiples of the ZooKeeper session timeout
DURATIONS = {
    "kill_leader": (0.3, 1.0),
    "kill_follower": (0.3, 1.0),
    "kill_controller": (0.3, 1.0),
    "pause": (1.3, 1.7),  # SIGSTOP past the session timeout, then SIGCONT
    "isolate_peers": (1.2, 1.8),  # cut from the other brokers, both ways
    "isolate_peers_oneway": (1.2, 1.8),  # only what it sends to them is dropped
    "isolate_zk": (1.2, 1.8),
    "isolate_zk_oneway": (1.2, 1.8),
    "isolate_all": (1.2, 1.8),  # from peers and ZooKeeper; clients still reach it
    "kill_zookeeper": (0.5, 1.2),
    "disk_full": (0.8, 1.5),  # its log disk filled up
    "slow_disk": (1.2, 2.0),  # a leader's log disk throttled (disks.Limits), past the session timeout
}
KINDS = sorted(DURATIONS)
ZOOKEEPER_KINDS = ("isolate_zk", "isolate_zk_oneway", "kill_zookeeper")  # no ZooKeeper in KRaft mode
# rng.choice over a longer list draws other kinds for the same seed: a kept seed (regressions.py)
# draws from the list it was found with, named in KIND_LISTS
KINDS_BEFORE_SLOW_DISK = [k for k in KINDS if k != "slow_disk"]
KIND_LISTS = {"all": KINDS, "before_slow_disk": KINDS_BEFORE_SLOW_DISK}
FILLER = "chaos-filler.bin"
# Why a restarted broker may exit on its own, in its output: start it again (see _restart)
RETRYABLE = ("BrokerIdInUseError", "Connection time-out")
# what a broker logs when it halts because every log dir failed (a full disk), as Kafka does
HALTED_ON_FAILED_DIRS = "Shutdown broker because all log dirs"
RESTART_LIMIT_S = 90.0


@dataclass(frozen=True)
class Fault:
    kind: str
    at: float  # seconds after the fault phase starts
    duration: float
    pick: float  # in [0, 1): which partition / which broker when the role leaves a choice


def schedule(seed: int, session_timeout_s: float, count: int | None = None,
             kinds: list[str] | None = None) -> list[Fault]:
    """1 to 3 faults (``count`` if given), each starting 0.5 s to its predecessor's duration
    plus 2 s after it, so about half of them overlap."""
    rng = random.Random(seed)
    kinds = kinds or KINDS
    out, at = [], rng.uniform(0.0, 1.0)
    for _ in range(count or rng.randint(1, 3)):
        kind = rng.choice(kinds)
        lo, hi = DURATIONS[kind]
        duration = round(rng.uniform(lo, hi) * session_timeout_s, 2)
        out.append(Fault(kind, round(at, 2), duration, rng.random()))
        at += rng.uniform(0.5, duration + 2.0)
    return out


def kinds_for(seed: int) -> list[str]:
    """The kinds seed ``seed`` draws from: a kept seed (in REGRESSIONS or OPEN) the list it
    was found with (before slow_disk unless KINDS_FOUND_WITH says otherwise), so that its
    schedule stays what it was; any other seed every kind."""
    if seed in REGRESSIONS or seed in OPEN:
        return KIND_LISTS[KINDS_FOUND_WITH.get(seed, "before_slow_disk")]
    return KINDS


def kraft_kinds(kinds: list[str]) -> list[str]:
    """``kinds`` without those that need ZooKeeper: a KRaft run's (its isolate_all cuts a
    node from the others, which are its controllers too)."""
    return [k for k in kinds if k not in ZOOKEEPER_KINDS]


class Injector:
    """Applies a schedule: ``run(faults)`` returns once every fault has healed."""

    def __init__(self, cluster: Cluster, history: History, topic: str, partitions: int) -> None:
        self.cluster, self.history = cluster, history
        self.topic, self.partitions = topic, partitions
        self.busy: set[int] = set()  # brokers under a fault now
        self.injected: list[str] = []  # kinds actually applied
        self.restarts: list[threading.Thread] = []  # broker restarts under way
        self.disk_full: dict[int, int] = {}  # broker id -> its output mark when its disk filled
        self.errors: list[BaseException] = []  # raised by a restart thread

    def run(self, faults: list[Fault]) -> None:
        steps = sorted([(f.at, 0, i) for i, f in enumerate(faults)] +
                       [(f.at + f.duration, 1, i) for i, f in enumerate(faults)])
        undo: dict[int, Callable[[], object]] = {}
        start = time.monotonic()
        for at, is_heal, i in steps:
            time.sleep(max(0.0, start + at - time.monotonic()))
            self.note_crashes()
            if is_heal:
                if i in undo:
                    undo.pop(i)()
            else:
                heal = self.inject(faults[i])
                if heal is not None:
                    undo[i] = heal
        for t in self.restarts:
            t.join()
        self.note_crashes()
        if self.errors:
            raise self.errors[0]

    def note_crashes(self) -> None:
        for broker_id, code in self.cluster.unexpected_exits():
            mark = self.disk_full.get(broker_id)
            if mark is not None and HALTED_ON_FAILED_DIRS in self.cluster.brokers[broker_id].output_since(mark):
                # Kafka's answer to its only log dir failing: the broker halts; its disk heal
                # starts it again, as an operator would once space is freed
                self.history.record("halted", broker=broker_id, code=code, reason=HALTED_ON_FAILED_DIRS)
            else:
                self.history.record("crash", broker=broker_id, code=code)
            self.cluster.expected_down.add(broker_id)  # report once

    # ------------------------------------------------------------------ roles
    def _role(self, fault: Fault) -> int | None:
        """The broker id the fault targets, or None when the role is vacant or busy."""
        kind = fault.kind
        if kind == "kill_zookeeper":
            return -1
        md = self.cluster.metadata([self.topic])
        free = [i for i in range(self.cluster.n) if i not in self.busy]
        if kind == "kill_controller":
            controller = self.cluster.active_controller()  # KRaft: the quorum's leader
            choice = [controller] if controller is not None else []
        elif kind in ("kill_leader", "kill_follower", "slow_disk"):
            if md is None:
                return None
            parts = self.cluster.partitions(md, self.topic)
            p = parts.get(int(fault.pick * self.partitions))
            if p is None or p.leader_id < 0:
                return None
            choice = [p.leader_id] if kind in ("kill_leader", "slow_disk") else \
                [r for r in sorted(p.replica_nodes) if r != p.leader_id]
        else:
            choice = list(range(self.cluster.n))
        choice = [c for c in choice if c in free]
        if not choice:
            return None
        return choice[int(fault.pick * 7919) % len(choice)]

    def inject(self, fault: Fault):
        """Apply ``fault``; returns the function that heals it (None when skipped)."""
        target = self._role(fault)
        if target is None:
            self.history.record("fault_skipped", **_fields(fault))
            return None
        self.history.record("fault", target=target, **_fields(fault))
        self.injected.append(fault.kind)
        heal = getattr(self, f"_{fault.kind.split('_')[0]}")(fault.kind, target)
        if target >= 0:
            self.busy.add(target)

        def undo() -> None:
            try:
                heal()
            except Exception as e:  # noqa: BLE001 - re-raised by run()
                self.errors.append(e)
            finally:
                self.busy.discard(target)
                self.history.record("heal", fault=fault.kind, target=target)
        if (fault.kind.startswith("kill_") or fault.kind == "disk_full") and target >= 0:
            # A broker restart (after a kill, or a halt on a full disk) may have to wait for ZooKeeper (healed by a later step of the
            # schedule) and for its old session to expire: it must not hold the schedule up.
            def undo_in_background() -> None:
                t = threading.Thread(target=undo, name=f"restart-broker-{target}", daemon=True)
                self.restarts.append(t)
                t.start()
            return undo_in_background
        return undo

    # ------------------------------------------------------------------ fault kinds
    def _kill(self, kind: str, target: int):
        c = self.cluster
        if target < 0:
            zk = c.zk
            assert zk is not None, "the cluster is not started"
            zk.kill()
            return lambda: zk.start()
        c.expected_down.add(target)
        c.brokers[target].kill()
        return lambda: self._restart(target)

    def _restart(self, target: int) -> None:
        """Start broker ``target`` again; done once it is registered in ZooKeeper by the new
        process. As Kafka does, a broker exits when the ephemeral node of its previous life is
        still there (its session not expired yet: ZooKeeper was restarted meanwhile, and
        sessions survive that) or when ZooKeeper does not answer in time; what a supervisor
        does then is done here: start it again, until the old session has expired. Any other
        exit is a crash."""
        c, b = self.cluster, self.cluster.brokers[target]
        deadline = time.monotonic() + RESTART_LIMIT_S
        while True:
            since_ms, mark = int(time.time() * 1000), b.output_mark()
            try:
                b.start()
                c.wait(lambda: not b.running or c.registered_since(target, since_ms), 60,
                       f"broker {target} registered in ZooKeeper")
            except ProcessFailed:
                pass
            if b.running:
                break
            output = b.output_since(mark)
            if not any(reason in output for reason in RETRYABLE):
                assert b.proc is not None
                self.history.record("crash", broker=target, code=b.proc.returncode, when="restart",
                                    log=output[-1500:])
                return  # stays in expected_down: reported once, here
            if time.monotonic() > deadline:
                raise TimeoutError(f"broker {target} not registered again within {RESTART_LIMIT_S:.0f}s")
            self.history.record("restart_retry", broker=target,
                                reason=next(r for r in RETRYABLE if r in output))
            time.sleep(1.0)
        c.expected_down.discard(target)

    def _pause(self, kind: str, target: int):
        b = self.cluster.brokers[target]
        b.signal(signal.SIGSTOP)
        return lambda: b.signal(signal.SIGCONT)

    def _isolate(self, kind: str, target: int):
        net, node = self.cluster.net, f"b{target}"
        peers = [f"b{i}" for i in range(self.cluster.n) if i != target]
        if kind in ("isolate_zk", "isolate_zk_oneway"):
            peers = ["zk"]
        elif kind == "isolate_all" and self.cluster.zk is not None:
            peers.append("zk")  # KRaft: its peers are its controllers too
        pairs = net.cut(node, peers, both_ways=not kind.endswith("oneway"))
        return lambda: net.uncut(pairs)

    def _disk(self, kind: str, target: int):
        b = self.cluster.brokers[target]
        path = Path(b.log_dir) / FILLER
        self.disk_full[target] = b.output_mark()
        fill(path)

        def heal() -> None:
            path.unlink(missing_ok=True)
            self.note_crashes()
            self.disk_full.pop(target, None)
            if target in self.cluster.expected_down and not b.running:
                self._restart(target)   # it halted on the full disk: started again, space freed
        return heal

    def _slow(self, kind: str, target: int):
        b = self.cluster.brokers[target]
        self.cluster.slow_down_disk(target)
        probe = Responsiveness(b.host, b.port)
        probe.start()

        def heal() -> None:
            # the broker may have died meanwhile: heal_disk only moves back what still runs
            throttled = self.cluster.heal_disk(target)
            self.history.record("disk_healed", broker=target, throttled_ios=throttled, **probe.finish())
        return heal


class Responsiveness(threading.Thread):
    """ApiVersions to one broker every 0.2 s until ``finish()``: the slowest answer and the
    unanswered count, so that an event loop stalled on a slow disk shows in the history."""

    def __init__(self, host: str, port: int) -> None:
        super().__init__(name=f"probe-{host}", daemon=True)
        self.host, self.port = host, port
        self.done = threading.Event()
        self.slowest, self.probes, self.unanswered = 0.0, 0, 0

    def run(self) -> None:
        while not self.done.wait(0.2):
            started = time.monotonic()
            self.probes += 1
            try:
                wire.api_versions(self.host, self.port, timeout=5.0)
            except Exception:  # noqa: BLE001 - no answer in 5 s (or a closed socket)
                self.unanswered += 1
                continue
            self.slowest = max(self.slowest, time.monotonic() - started)

    def finish(self) -> dict:
        self.done.set()
        self.join()
        return {"probes": self.probes, "unanswered": self.unanswered,
                "slowest_api_versions_ms": round(self.slowest * 1000, 1)}


def _fields(fault: Fault) -> dict:
    d = asdict(fault)
    d["fault"] = d.pop("kind")
    return d


def fill(path: Path, chunk: int = 1 << 20) -> int:
    """Write zeros to ``path`` until the file system is full; the bytes written."""
    block, written = b"\0" * chunk, 0
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        while True:
            try:
                written += os.write(fd, block)
            except OSError as e:
                if e.errno != errno.ENOSPC:
                    raise
                if len(block) == 1:
                    return written
                block = block[: len(block) // 16]  # fill the last pages too
    finally:
        os.close(fd)
