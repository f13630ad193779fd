"""Real-session MCP helpers: a client wrapper that returns JSON or the JSON-RPC error, and
servers of a real session (stdio subprocess, in-process Streamable HTTP)."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import trio
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp_types import Implementation

from nereid.commands.session import open_mcp_session
from nereid.mcp import McpEndpoint, serve_http
from tests.mcp.mcp_testkit import memory_client

REPO = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class RpcError:
    code: int
    message: str
    data: Any


class Agent:
    """One MCP client session: `ok` returns structuredContent, `err` the JSON-RPC error."""

    def __init__(self, client: Client) -> None:
        self.client = client

    async def ok(self, tool: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
        result = await self.client.call_tool(tool, arguments or {})
        assert not result.is_error, (tool, result)
        assert result.structured_content is not None, tool
        return result.structured_content

    async def err(self, tool: str, arguments: dict[str, Any] | None = None) -> RpcError:
        with pytest.raises(MCPError) as caught:
            await self.client.call_tool(tool, arguments or {})
        error = caught.value.error
        return RpcError(error.code, error.message, error.data)


def stdio_client(*args: str, name: str = "stdio-agent") -> Client:
    """`python -m nereid <args>` as a subprocess, driven by the SDK's stdio client."""
    env = dict(os.environ)
    env.pop("NEREID_TRACE", None)
    parameters = StdioServerParameters(
        command=sys.executable, args=["-m", "nereid", *args], cwd=str(REPO), env=env
    )
    return Client(parameters, client_info=Implementation(name=name, version="1"))


@asynccontextmanager
async def http_session(
    folder: Path | None, *, demo: bool = False
) -> AsyncIterator[tuple[str, McpEndpoint]]:
    """A real session (folder or in-memory demo) served over HTTP on an ephemeral port."""
    async with open_mcp_session(folder, demo=demo, durable_writes=False) as parts:
        endpoint = McpEndpoint(
            parts.runtime, parts.tools, resources=parts.resources, hooks=parts.hooks
        )
        async with trio.open_nursery() as nursery:
            url = await nursery.start(
                lambda task_status: serve_http(endpoint, port=0, task_status=task_status)
            )
            yield url, endpoint
            nursery.cancel_scope.cancel()


@asynccontextmanager
async def memory_session(folder: Path | None, *, demo: bool = False) -> AsyncIterator[McpEndpoint]:
    """A real session's endpoint, for in-process clients (`mcp_testkit.memory_client`)."""
    async with open_mcp_session(folder, demo=demo, durable_writes=False) as parts:
        yield McpEndpoint(parts.runtime, parts.tools, resources=parts.resources, hooks=parts.hooks)


__all__ = [
    "REPO",
    "Agent",
    "RpcError",
    "http_session",
    "memory_client",
    "memory_session",
    "stdio_client",
]
