"""stdio: a real subprocess running `serve_stdio`, driven by the SDK's stdio client."""

from __future__ import annotations

import sys
from pathlib import Path

from mcp import Client, StdioServerParameters
from mcp_types import Implementation

SCRIPT = Path(__file__).resolve().parent / "stdio_server.py"


async def test_stdio_session_initializes_calls_tools_and_keeps_stdout_clean() -> None:
    parameters = StdioServerParameters(command=sys.executable, args=[str(SCRIPT)])
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
