"""stdio: a real subprocess running `serve_stdio`, driven by the SDK's stdio client."""

from __future__ import annotations

import sys
from pathlib import Path

from mcp import Client, StdioServerParameters
from mcp_types import Implementation

REPO = Path(__file__).resolve().parents[2]


async def test_stdio_session_initializes_calls_tools_and_keeps_stdout_clean() -> None:
    parameters = StdioServerParameters(
        command=sys.executable, args=["-m", "tests.mcp.stdio_server"], cwd=REPO
    )
    client = Client(parameters, client_info=Implementation(name="stdio-test", version="1"))
    async with client:
        assert client.server_info is not None and client.server_info.name == "nereid"
        ping = await client.call_tool("nereid.ping", {})
        assert ping.structured_content == {"agent_id": "agent:1", "client_name": "stdio-test"}
        printed = await client.call_tool("test.print", {"text": "stray output"})
        assert printed.structured_content == {"printed": "stray output"}
        stat = await client.call_tool("diagram.stat", {"diagram_id": "login"})
        assert stat.structured_content is not None
        assert stat.structured_content["kind"] == "Sequence"
