"""HTTP transport edges with real sockets: stalled bodies and headers, Host/Origin parsing.

A client that sends its headers and then stalls gets 408 and is disconnected after the body
timeout; beyond `max_body_reads` stalled bodies the oldest are cut short; a connection that never
finishes its headers is closed after the header timeout. Meanwhile a real MCP client is
served as usual. Host and Origin are parsed as host and port, so look-alikes are refused.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx2
import pytest
import trio
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import Implementation

from nereid.mcp import serve_http
from nereid.mcp.host_policy import LOOPBACK_NAMES, HostPolicy
from nereid.runtime import open_runtime
from tests.mcp.mcp_testkit import make_endpoint, spawn_diagrams

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-03-26",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"},
    },
}
JSON_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@asynccontextmanager
async def serving(**options: Any) -> AsyncIterator[str]:
    async with open_runtime() as runtime:
        await spawn_diagrams(runtime)
        endpoint = make_endpoint(runtime, None)
        async with trio.open_nursery() as nursery:
            url = await nursery.start(
                lambda task_status: serve_http(endpoint, port=0, task_status=task_status, **options)
            )
            yield url
            nursery.cancel_scope.cancel()


def _port(url: str) -> int:
    return int(url.rsplit(":", 1)[1].split("/")[0])


async def _stalled_post(port: int, stream: trio.SocketStream | None = None) -> trio.SocketStream:
    """A POST that promises 100 body bytes and sends one (on `stream`, else a new one)."""
    if stream is None:
        stream = await trio.open_tcp_stream("127.0.0.1", port)
    head = (
        f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
        "Accept: application/json, text/event-stream\r\nContent-Length: 100\r\n\r\n{"
    )
    await stream.send_all(head.encode())
    return stream


async def _until_closed(stream: trio.SocketStream) -> bytes:
    """Everything the server sends until it closes the connection."""
    received = b""
    while chunk := await stream.receive_some(65536):
        received += chunk
    return received


async def test_stalled_bodies_time_out_and_are_capped_while_others_are_served() -> None:
    async with serving(body_timeout=3.0, max_body_reads=4) as url:
        port = _port(url)
        stalled = [await _stalled_post(port) for _ in range(10)]
        answers: list[bytes] = [b""] * len(stalled)

        async def drain(index: int) -> None:
            answers[index] = await _until_closed(stalled[index])

        with trio.fail_after(20):  # a hang guard, not a timing assertion
            async with trio.open_nursery() as nursery:
                for index in range(len(stalled)):
                    nursery.start_soon(drain, index)
                # A real agent is served while the stalled connections are open.
                client = Client(
                    streamable_http_client(url), client_info=Implementation(name="ok", version="1")
                )
                async with client:
                    listing = await client.call_tool("diagram.list", {})
                    assert listing.structured_content is not None
        statuses = sorted(answer.split(b"\r\n", 1)[0] for answer in answers)
        # Every stalled one is answered 408 and disconnected (timed out or cut short).
        assert statuses == [b"HTTP/1.1 408 "] * len(stalled), statuses
        for stream in stalled:
            await stream.aclose()


async def test_connection_that_never_finishes_its_headers_is_closed() -> None:
    async with serving(header_timeout=0.5) as url:
        stream = await trio.open_tcp_stream("127.0.0.1", _port(url))
        await stream.send_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        with trio.fail_after(20):
            assert await _until_closed(stream) == b""
        await stream.aclose()


async def _closed_by_server(stream: trio.SocketStream) -> bool:
    """Whether the server closed `stream` (EOF or reset) within a moment."""
    with trio.move_on_after(0.3):
        try:
            return await _until_closed(stream) == b""
        except trio.BrokenResourceError:
            return True
    return False


async def test_connections_are_capped_idle_ones_make_room_busy_ones_are_never_cut() -> None:
    """At most `max_connections` are open: each new connection closes the oldest idle one
    (a flood of silent connections churns among itself), a client connected before keeps
    being served, and when every slot is in the middle of a request a new connection gets
    503 and is closed at once."""
    cap = 12
    async with serving(max_connections=cap, header_timeout=60.0, body_timeout=60.0) as url:
        port = _port(url)
        client = Client(
            streamable_http_client(url), client_info=Implementation(name="ok", version="1")
        )
        async with client:
            await client.call_tool("diagram.list", {})
            with trio.fail_after(60):  # a hang guard, not a timing assertion
                silent = [await trio.open_tcp_stream("127.0.0.1", port) for _ in range(40)]
                await trio.sleep(0.5)
                still_open = [s for s in silent if not await _closed_by_server(s)]
                assert len(still_open) < cap, len(still_open)  # never more than the cap
                assert silent[-1] in still_open  # the newest got in: the oldest made room
                listing = await client.call_tool("diagram.list", {})  # and this one works
                assert listing.structured_content is not None
                # Fill the slots with requests in progress (bodies that stall) until a
                # new connection finds nothing idle to close: it gets 503, at once.
                stalled: list[trio.SocketStream] = []
                answer = b""
                while not answer and len(stalled) <= cap:
                    stream = await trio.open_tcp_stream("127.0.0.1", port)
                    with trio.move_on_after(0.3):  # a refusal comes before any request
                        answer = await _until_closed(stream)
                    if answer:
                        extra = stream
                    else:
                        await _stalled_post(port, stream)
                        await trio.sleep(0.2)  # the server has read its headers: busy now
                        stalled.append(stream)
                assert answer.startswith(b"HTTP/1.1 503 ") and b"Retry-After: 1" in answer
                assert len(stalled) < cap  # the client's event stream holds a slot too
                assert not any([await _closed_by_server(s) for s in stalled])  # none was cut
            for stream in [*silent, *stalled, extra]:
                await stream.aclose()


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ({"Host": "localhost:evil.com"}, 421),
        ({"Host": "127.0.0.1:80@evil.com"}, 421),
        ({"Host": "localhost.evil.com"}, 421),
        ({"Host": "127.0.0.1:99999"}, 421),
        ({"Origin": "http://localhost:evil.com"}, 403),
        ({"Origin": "http://127.0.0.1:80@evil.com"}, 403),
        ({"Origin": "null"}, 403),
        ({"Origin": "http://localhost:3000/path"}, 403),
        ({"Host": "LOCALHOST:8080"}, 200),
        ({"Host": "[::1]:8080", "Origin": "https://[::1]:3000"}, 200),
        ({"Origin": "http://127.0.0.1"}, 200),
    ],
)
async def test_host_and_origin_are_parsed(headers: dict[str, str], status: int) -> None:
    async with serving() as url:
        async with httpx2.AsyncClient() as raw:
            response = await raw.post(url, json=INITIALIZE, headers={**JSON_HEADERS, **headers})
            assert response.status_code == status, response.text


_ANY_TEXT = st.text(
    alphabet=st.sampled_from("0123456789abcdefxyz.:@/[]_- %#?\\\x00\u00e9"), max_size=12
)


@settings(max_examples=200, deadline=None)
@given(name=st.sampled_from([*LOOPBACK_NAMES, "example.org"]), tail=_ANY_TEXT)
def test_only_a_port_may_follow_an_allowed_name(name: str, tail: str) -> None:
    policy = HostPolicy(["example.org"])
    host = f"[{name}]" if ":" in name else name
    accepted = policy.allows_host(f"{host}:{tail}")
    assert accepted == _is_port(tail)
    assert policy.allows_origin(f"http://{host}:{tail}") == accepted
    if name in ("localhost", "example.org"):  # (an IP literal may go on: 127.0.0.10)
        glued = policy.allows_host(f"{host}{tail}")
        assert glued == (tail == "" or (tail[0] == ":" and _is_port(tail[1:])))


def _is_port(text: str) -> bool:
    return text.isascii() and text.isdigit() and 1 <= int(text) <= 65535


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=40))
def test_anything_with_user_info_or_a_path_is_refused(text: str) -> None:
    policy = HostPolicy()
    for value in (f"localhost@{text}", f"127.0.0.1:80@{text}", f"localhost/{text}"):
        assert not policy.allows_host(value)
        assert not policy.allows_origin(f"http://{value}")
