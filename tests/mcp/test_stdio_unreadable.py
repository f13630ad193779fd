"""stdio with a real `nereid --mcp --demo` subprocess: unreadable lines get an answer.

A line that is not JSON, or JSON holding a lone surrogate, gets -32700 (with the line's id
when one can still be read, else null); JSON that is not a JSON-RPC message gets -32600.
The session goes on serving afterwards.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import trio

REPO = Path(__file__).resolve().parents[2]
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": "init",
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-03-26",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"},
    },
}


class Lines:
    """Newline-delimited JSON over a subprocess's pipes."""

    def __init__(self, process: trio.Process) -> None:
        assert process.stdin is not None and process.stdout is not None
        self.process = process
        self.buffer = b""

    async def send(self, line: bytes) -> None:
        assert self.process.stdin is not None
        await self.process.stdin.send_all(line + b"\n")

    async def receive(self) -> Any:
        assert self.process.stdout is not None
        while b"\n" not in self.buffer:
            chunk = await self.process.stdout.receive_some(65536)
            assert chunk, "the server closed stdout"
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        return json.loads(line)


@pytest.mark.parametrize(
    ("line", "code", "request_id"),
    [
        (b"hello", -32700, None),
        (b'{"jsonrpc": "2.0", "id": 5, "method": "ping"', -32700, None),
        (b'{"jsonrpc":"2.0","id":5,"method":"ping","params":{"x":"\\ud800"}}', -32700, 5),
        (b'{"jsonrpc":"2.0","id":"\\udc00","method":"ping"}', -32700, None),
        (b'{"id": 7}', -32600, 7),
        (b"[1, 2]", -32600, None),
    ],
)
async def test_unreadable_line_gets_an_answer(line: bytes, code: int, request_id: Any) -> None:
    env = {**os.environ, "NEREID_TRACE": ""}
    env.pop("NEREID_TRACE")
    process = await trio.lowlevel.open_process(
        [sys.executable, "-m", "nereid", "--mcp", "--demo"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        cwd=str(REPO),
        env=env,
    )
    try:
        lines = Lines(process)
        with trio.fail_after(60):  # a hang guard: before the fix the reply never came
            await lines.send(line)
            reply = await lines.receive()
            assert reply["jsonrpc"] == "2.0"
            assert reply["id"] == request_id
            assert reply["error"]["code"] == code
            # The session still works.
            await lines.send(json.dumps(INITIALIZE).encode())
            initialized = await lines.receive()
            assert initialized["id"] == "init" and "result" in initialized
    finally:
        process.kill()
        await process.wait()


async def test_the_bridge_answers_unreadable_lines_too() -> None:
    """`nereid --mcp DIR` on an owned folder relays to the owner: its reader answers too."""
    import mcp_types
    from mcp.shared._context_streams import create_context_streams
    from mcp.shared.message import SessionMessage

    from nereid.mcp.bridge import bridge_streams
    from tests.mcp.session_kit import http_session

    async with http_session(None, demo=True) as (url, _):
        to_bridge, client_read = create_context_streams[SessionMessage | Exception](4)
        client_write, from_bridge = create_context_streams[SessionMessage](4)
        try:
            mcp_types.jsonrpc_message_adapter.validate_json("hello", by_name=False)
        except Exception as error:  # the SDK's stdio reader hands this on for a bad line
            unreadable = error
        with trio.fail_after(30):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(bridge_streams, url, client_read, client_write)
                await to_bridge.send(unreadable)
                reply = await from_bridge.receive()
                await to_bridge.aclose()
        assert isinstance(reply.message, mcp_types.JSONRPCError)
        assert reply.message.id is None and reply.message.error.code == -32700
