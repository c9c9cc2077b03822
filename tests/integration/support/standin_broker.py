"""A stand-in for `python -m kafpy.broker`, used only to test the broker fixture's mechanics.

Accepts the same command line, answers ApiVersions v0 (one entry: key 18, 0..3) on the
`listeners` port, records its arguments in `<log.dirs>/standin-args.txt`, exits 0 on SIGTERM.
"""
from __future__ import annotations

import signal
import socket
import struct
import sys
import threading
from pathlib import Path


def main(argv: list[str]) -> int:
    overrides = dict(a.split("=", 1) for a in argv[argv.index("--override") + 1::2])
    port = int(overrides["listeners"].rsplit(":", 1)[1])
    log_dir = Path(overrides["log.dirs"])
    log_dir.mkdir(parents=True, exist_ok=True)
    with open(log_dir / "standin-args.txt", "a") as f:
        f.write(" ".join(argv) + "\n")
    srv = socket.create_server(("127.0.0.1", port), reuse_port=False)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    print(f"standin broker listening on {port}", flush=True)
    srv.settimeout(0.2)
    while not stop.is_set():
        try:
            conn, _ = srv.accept()
        except (TimeoutError, socket.timeout):
            continue
        with conn:
            conn.settimeout(2)
            size = struct.unpack(">i", conn.recv(4))[0]
            req = b""
            while len(req) < size:
                req += conn.recv(size - len(req))
            corr = struct.unpack_from(">i", req, 4)[0]
            body = struct.pack(">ihi", corr, 0, 1) + struct.pack(">hhh", 18, 0, 3)
            conn.sendall(struct.pack(">i", len(body)) + body)
    print("standin broker stopped", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
