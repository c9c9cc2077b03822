"""The HTTP stack's figures: import time and memory of the server library, and requests/s
for a small GET over keep-alive connections, for aiohttp (what kafpy uses) and the standard
library's ThreadingHTTPServer (the no-dependency alternative).

    python -m bench.http_stack [--seconds 5] [--connections 8]

Each server runs in a child process (as it would in the broker); the client is an asyncio
loop in this process, sending one request at a time per connection. On a shared machine
the figures move by +-15 %; compare them side by side in one run.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import time

SERVERS = {
    "aiohttp": """
import asyncio, sys
from aiohttp import web
async def ok(request):
    return web.Response(text="ok\\n")
async def main():
    app = web.Application()
    app.router.add_get("/small", ok)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    print(site._server.sockets[0].getsockname()[1], flush=True)
    await asyncio.Event().wait()
try:
    import uvloop; uvloop.install()
except ImportError:
    pass
asyncio.run(main())
""",
    "http.server": """
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_GET(self):
        self.send_response(200); self.send_header("Content-Length", "3"); self.end_headers(); self.wfile.write(b"ok\\n")
    def log_message(self, *a): pass
s = ThreadingHTTPServer(("127.0.0.1", 0), H)
print(s.server_address[1], flush=True)
s.serve_forever()
""",
}
IMPORTS = {"aiohttp": "import aiohttp.web", "http.server": "import http.server",
           "prometheus_client": "import prometheus_client"}


def import_cost(stmt: str) -> tuple[float, ...]:
    """(ms, MiB of RSS) an import adds to a fresh interpreter (median of 5)."""
    code = ("import time, resource; r0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss; t = time.perf_counter(); "
            f"{stmt}; print((time.perf_counter() - t) * 1000, (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - r0) / 1024)")
    runs = sorted(tuple(map(float, subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                                  check=True).stdout.split())) for _ in range(5))
    return runs[2]


async def load(port: int, seconds: float, connections: int) -> int:
    request = b"GET /small HTTP/1.1\r\nHost: x\r\n\r\n"
    done = 0
    end = time.monotonic() + seconds

    async def one() -> None:
        nonlocal done
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        while time.monotonic() < end:
            writer.write(request)
            head = await reader.readuntil(b"\r\n\r\n")
            length = int(head.lower().split(b"content-length:")[1].split(b"\r\n")[0])
            await reader.readexactly(length)
            done += 1
        writer.close()
    await asyncio.gather(*(one() for _ in range(connections)))
    return done


def rss_mib(pid: int) -> float:
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=5)
    ap.add_argument("--connections", type=int, default=8)
    args = ap.parse_args(argv)
    print(f"{'import':<20}{'ms':>8}{'RSS MiB':>10}")
    for name, stmt in IMPORTS.items():
        ms, mib = import_cost(stmt)
        print(f"{name:<20}{ms:>8.1f}{mib:>10.1f}")
    print(f"\n{'server':<14}{'requests/s':>12}{'server RSS MiB':>16}")
    for name, code in SERVERS.items():
        proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
        try:
            assert proc.stdout is not None
            port = int(proc.stdout.readline())
            n = asyncio.run(load(port, args.seconds, args.connections))
            print(f"{name:<14}{n / args.seconds:>12.0f}{rss_mib(proc.pid):>16.1f}")
        finally:
            proc.kill()
            proc.wait()
    print(f"\n(on {os.cpu_count()} cores, {args.connections} keep-alive connections, one request in flight each)")


if __name__ == "__main__":
    main()
