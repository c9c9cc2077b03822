"""The shared HTTP server on loopback (port 0): mounted routes only, no path escapes,
bounded bodies and bounded concurrency, as a component mounting routes on it sees it."""
from __future__ import annotations

import asyncio

import pytest
from aiohttp import web

from kafpy.web.access import BODY_KEY
from kafpy.web.listeners import HttpListener
from kafpy.web.server import MAX_CONCURRENT, HttpLimits, HttpServer, long_poll


async def _raw(port: int, request: bytes) -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(request)
    await writer.drain()
    data = await asyncio.wait_for(reader.read(65536), 10)
    writer.close()
    return data


def _status(response: bytes) -> int:
    return int(response.split(b" ", 2)[1])


async def _server(routes, limits: HttpLimits | None = None) -> HttpServer:
    server = HttpServer([HttpListener("http", "127.0.0.1", 0)], max_request_bytes=1024, limits=limits)
    server.mount(routes)
    await server.start()
    return server


def test_only_mounted_routes_answer_and_no_path_escapes():
    async def body():
        async def hello(request):
            return web.Response(text="hello")
        server = await _server([("GET", "/hello", hello)])
        port = server.bound_ports["http"]
        try:
            assert _status(await _raw(port, b"GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")) == 200
            for path in (b"/../etc/passwd", b"/hello/../hello", b"/%2e%2e/etc/passwd", b"//hello", b"/nothing",
                         b"/hello%2f..%2f"):
                assert _status(await _raw(port, b"GET " + path + b" HTTP/1.1\r\nHost: x\r\n\r\n")) == 404, path
            assert b"X-Content-Type-Options: nosniff" in await _raw(port, b"GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
        finally:
            await server.stop()
    asyncio.run(body())


def test_a_body_over_the_limit_is_refused():
    async def body():
        async def echo(request):
            return web.Response(body=await request.read())
        server = await _server([("POST", "/echo", echo)])
        port = server.bound_ports["http"]
        try:
            small = await _raw(port, b"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello")
            assert _status(small) == 200 and small.endswith(b"hello")
            big = b"x" * 2048
            refused = await _raw(port, b"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 2048\r\n\r\n" + big)
            assert _status(refused) == 413
        finally:
            await server.stop()
    asyncio.run(body())


def test_requests_over_the_concurrency_bound_are_answered_503():
    async def body():
        release = asyncio.Event()
        started = 0

        async def slow(request):
            nonlocal started
            started += 1
            await release.wait()
            return web.Response(text="done")
        # every request here comes from one address: its share is the whole
        server = await _server([("GET", "/slow", slow)], HttpLimits(per_principal=MAX_CONCURRENT))
        port = server.bound_ports["http"]
        try:
            held = [asyncio.ensure_future(_raw(port, b"GET /slow HTTP/1.1\r\nHost: x\r\n\r\n"))
                    for _ in range(MAX_CONCURRENT)]
            while started < MAX_CONCURRENT:
                await asyncio.sleep(0.01)
            assert _status(await _raw(port, b"GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")) == 503
            release.set()
            assert all(_status(r) == 200 for r in await asyncio.gather(*held))
        finally:
            await server.stop()
    asyncio.run(body())


def test_a_path_mounted_twice_is_refused():
    async def h(request):
        return web.Response()
    server = HttpServer([HttpListener("http", "127.0.0.1", 0)], max_request_bytes=1024)
    server.mount([("GET", "/x", h)])
    with pytest.raises(ValueError):
        server.mount([("GET", "/x", h)])


def test_a_slow_body_times_out_and_long_polls_have_their_own_budget():
    async def body():
        release = asyncio.Event()

        async def echo(request):
            return web.Response(body=request[BODY_KEY])

        async def poll(request):
            await release.wait()
            return web.Response(text="polled")
        limits = HttpLimits(per_principal=2, max_long_polls=4, long_polls_per_principal=1, body_read_timeout_s=0.5)
        server = await _server([("POST", "/echo", echo), ("GET", "/poll", long_poll(poll))], limits)
        port = server.bound_ports["http"]
        try:
            # a body that never arrives whole: 408 once the timeout passes, and the connection closed
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(b"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nab")
            answer = await asyncio.wait_for(reader.read(), 10)
            assert _status(answer) == 408 and b"Timed out reading the request body" in answer
            writer.close()
            # one long poll per client is held; the next is 429, and short requests still answer
            held = asyncio.ensure_future(_raw(port, b"GET /poll HTTP/1.1\r\nHost: x\r\n\r\n"))
            await asyncio.sleep(0.2)
            assert _status(await _raw(port, b"GET /poll HTTP/1.1\r\nHost: x\r\n\r\n")) == 429
            ok = await _raw(port, b"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello")
            assert _status(ok) == 200 and ok.endswith(b"hello")
            release.set()
            assert _status(await held) == 200
        finally:
            await server.stop()
    asyncio.run(body())
