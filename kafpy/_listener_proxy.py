"""A loopback TCP forwarder in front of a broker's listener, so a test can cut it.

`ListenerProxy` accepts clients on its own port (the one the broker advertises) and forwards
each connection to the broker's real listener. `cut()` drops every open connection with a
reset and resets new ones at once, as a broker whose listener went away would look to its
clients, while the broker process itself keeps running; `restore()` forwards again.

Who may call: kafpy.embedded only (`EmbeddedBroker(cuttable=True)`). One thread of the
calling process moves every byte, so it costs that process some CPU and the GIL while
clients talk to the broker: it is off by default and meant for failure tests, not for
throughput.
"""
from __future__ import annotations

import selectors
import socket
import struct
import threading

from kafpy._ports import LOOPBACK

_CHUNK = 256 * 1024


def _reset(sock: socket.socket) -> None:
    """Close with RST rather than FIN, so the peer sees 'connection reset' at once."""
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    except OSError:
        pass
    sock.close()


class ListenerProxy:
    """Keeps the listening socket, the open client/broker socket pairs and the cut flag; the
    forwarding thread alone touches the sockets (others ask it through a wake-up pipe)."""

    def __init__(self, target_port: int, port: int, host: str = LOOPBACK):
        self.target = (host, target_port)
        self.host = host
        self.port = port
        self._listener: socket.socket | None = None
        self._peers: dict[socket.socket, socket.socket] = {}
        self._cut = False
        self._stopping = False
        self._wake_r, self._wake_w = socket.socketpair()
        self._done = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def is_cut(self) -> bool:
        return self._cut

    def start(self) -> "ListenerProxy":
        """Bind the public port (OSError when taken) and start forwarding."""
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((self.host, self.port))
        listener.listen(128)
        self._listener = listener
        self._thread = threading.Thread(target=self._run, name=f"kafpy-proxy-{self.port}",
                                        daemon=True)
        self._thread.start()
        return self

    def cut(self) -> None:
        """Reset every open connection and every new one until `restore()`; returns once the
        open ones are gone."""
        self._cut = True
        self._ask()

    def restore(self) -> None:
        """Forward new connections again."""
        self._cut = False

    def close(self) -> None:
        """Stop forwarding, close every socket and the public port."""
        if self._thread is None:
            return
        self._stopping = True
        self._ask()
        self._thread.join(timeout=10)
        self._thread = None
        self._wake_r.close()
        self._wake_w.close()

    def _ask(self) -> None:
        if self._thread is None or not self._thread.is_alive():
            return
        self._done.clear()
        self._wake_w.send(b"x")
        self._done.wait(timeout=10)

    def _run(self) -> None:
        sel = selectors.DefaultSelector()
        assert self._listener is not None
        sel.register(self._listener, selectors.EVENT_READ)
        sel.register(self._wake_r, selectors.EVENT_READ)
        try:
            while not self._stopping:
                for key, _ in sel.select():
                    sock = key.fileobj
                    if sock is self._wake_r:
                        self._wake_r.recv(64)
                        if self._cut or self._stopping:
                            self._drop_all(sel)
                        self._done.set()
                    elif sock is self._listener:
                        self._accept(sel)
                    elif sock in self._peers:
                        self._pump(sel, sock)
        finally:
            self._drop_all(sel)
            self._listener.close()
            sel.close()
            self._done.set()

    def _accept(self, sel: selectors.BaseSelector) -> None:
        assert self._listener is not None
        client, _ = self._listener.accept()
        if self._cut:
            _reset(client)
            return
        try:
            upstream = socket.create_connection(self.target, timeout=5)
        except OSError:  # the broker is down: the client sees what it would see directly
            _reset(client)
            return
        for s in (client, upstream):
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            s.settimeout(30)
        self._peers[client] = upstream
        self._peers[upstream] = client
        sel.register(client, selectors.EVENT_READ)
        sel.register(upstream, selectors.EVENT_READ)

    def _pump(self, sel: selectors.BaseSelector, sock: socket.socket) -> None:
        other = self._peers[sock]
        try:
            data = sock.recv(_CHUNK)
            if data:
                other.sendall(data)  # blocking: Kafka's request/response keeps this short
                return
        except OSError:
            pass
        self._drop(sel, sock)

    def _drop(self, sel: selectors.BaseSelector, sock: socket.socket) -> None:
        other = self._peers.pop(sock, None)
        for s in (sock, other):
            if s is None:
                continue
            self._peers.pop(s, None)
            try:
                sel.unregister(s)
            except (KeyError, ValueError):
                pass
            _reset(s)

    def _drop_all(self, sel: selectors.BaseSelector) -> None:
        for sock in list(self._peers):
            self._drop(sel, sock)
