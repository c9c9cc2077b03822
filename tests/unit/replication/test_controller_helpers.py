"""The controller's helpers see it through ControllerOps only: none imports controller.py,
and every event they or the controller define is dispatched from the controller's table."""
from __future__ import annotations

import ast
from pathlib import Path

import kafpy.replication as replication
from kafpy.replication import controller_events as ce
from kafpy.replication.controller import KafkaController
from kafpy.replication.controller_ops import ControllerOps

HELPERS = ("leader_elections", "log_dir_events", "reassignment", "topic_deletion", "broker_requests",
           "controller_ops")


def _imports(path: Path) -> set[str]:
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return out


def test_no_helper_imports_the_controller():
    root = Path(replication.__path__[-1])
    for name in HELPERS:
        assert "kafpy.replication.controller" not in _imports(root / f"{name}.py"), name


def test_the_controller_offers_what_its_helpers_use():
    wanted = {n for n in dir(ControllerOps) if not n.startswith("_")} | set(ControllerOps.__annotations__)
    have = set(dir(KafkaController)) | set(KafkaController.__init__.__code__.co_names)
    assert wanted <= have, wanted - have


class _AnyHelper:
    def __getattr__(self, name: str) -> None:
        return None


def test_every_controller_event_has_a_handler_or_is_known_to_be_ignored():
    c = KafkaController.__new__(KafkaController)
    c.reassignments = c.topic_deletion = c.leader_elections = c.log_dir_events = c.broker_requests = _AnyHelper()
    handled = set(KafkaController._event_handlers(c))
    base = {ce.ControllerEvent, ce.RequestEvent, ce.BrokerRequestEvent, ce.ShutdownEventThread}
    not_sent_yet = {ce.IsrChangeNotification, ce.BrokerModifications}  # ZooKeeper-mode paths not taken
    defined = {v for v in vars(ce).values() if isinstance(v, type) and issubclass(v, ce.ControllerEvent)}
    assert defined - base - not_sent_yet <= handled, defined - base - not_sent_yet - handled
