"""`McpWorkspace`: a chaos agent as a real MCP client over Streamable HTTP.

Each workspace is one MCP session (one agent, with its own spotlight). JSON-RPC errors
come back as `MCPError` and are sorted by `classify_rpc_error`; a tool result flagged
`isError` or without `structuredContent` is `Broken` (Nereid always answers with
structured content or a JSON-RPC error).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError
from mcp_types import Implementation

from nereid.testing.workspace import Broken, Snapshot, classify_rpc_error

__all__ = ["McpWorkspace", "connect", "mcp_client", "open_workspaces"]


@asynccontextmanager
async def mcp_client(
    url: str, name: str, headers: dict[str, str] | None = None
) -> AsyncIterator[Client]:
    """A connected MCP client for `url` (Streamable HTTP), announcing itself as `name`.

    The SDK leaves an HTTP client it is given open; this one is closed on exit, with its
    connections.
    """
    async with create_mcp_http_client(headers=headers) as http:
        transport = streamable_http_client(url, http_client=http)
        async with Client(transport, client_info=Implementation(name=name, version="1")) as client:
            yield client


class McpWorkspace:
    """A `Workspace` over the MCP tools of one connected `Client`."""

    def __init__(self, client: Client) -> None:
        self.client = client

    async def call(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """Call `tool`; its structured result, or a `ChaosFailure`."""
        try:
            result = await self.client.call_tool(tool, arguments)
        except MCPError as error:
            raise classify_rpc_error(error.code, error.message, error.data) from error
        if result.is_error or not isinstance(result.structured_content, dict):
            raise Broken(f"{tool}: error result or no structured content: {result.content!r}")
        return result.structured_content

    async def create_flowchart(self, diagram_id: str, mermaid: str) -> int:
        reply = await self.call(
            "diagram.create_from_mermaid",
            {"mermaid": mermaid, "diagram_id": diagram_id, "make_active": False},
        )
        return int(reply["diagram"]["rev"]) if "diagram" in reply else 0

    async def create_walkthrough(self, walkthrough_id: str, title: str) -> int:
        await self.call("walkthrough.create", {"walkthrough_id": walkthrough_id, "title": title})
        return 0

    async def read_diagram(self, diagram_id: str) -> Snapshot:
        reply = await self.call("diagram.get_ast", {"diagram_id": diagram_id})
        nodes = reply["ast"].get("nodes")
        if not isinstance(nodes, list):
            raise Broken(f"diagram.get_ast {diagram_id}: no node list in {reply['ast']!r}")
        return Snapshot(rev=int(reply["rev"]), node_ids=frozenset(n["node_id"] for n in nodes))

    async def read_walkthrough(self, walkthrough_id: str) -> Snapshot:
        reply = await self.call("walkthrough.read", {"walkthrough_id": walkthrough_id})
        walkthrough = reply["walkthrough"]
        return Snapshot(
            rev=int(walkthrough["rev"]),
            node_ids=frozenset(n["node_id"] for n in walkthrough["nodes"]),
        )

    async def add_diagram_node(self, diagram_id: str, base_rev: int, node_id: str) -> int:
        op = {"type": "flow_add_node", "node_id": node_id, "label": "added by chaos"}
        reply = await self.call(
            "diagram.apply_ops", {"diagram_id": diagram_id, "base_rev": base_rev, "ops": [op]}
        )
        return int(reply["new_rev"])

    async def add_walkthrough_node(self, walkthrough_id: str, base_rev: int, node_id: str) -> int:
        op = {"type": "add_node", "node_id": node_id, "title": "chaos step"}
        reply = await self.call(
            "walkthrough.apply_ops",
            {"walkthrough_id": walkthrough_id, "base_rev": base_rev, "ops": [op]},
        )
        return int(reply["new_rev"])

    async def add_xref(self, xref_id: str, from_ref: str, to_ref: str) -> None:
        await self.call(
            "xref.add", {"xref_id": xref_id, "from": from_ref, "to": to_ref, "kind": "chaos"}
        )

    async def set_spotlight(self, object_ref: str) -> None:
        await self.call("attention.agent.set", {"object_ref": object_ref})


@asynccontextmanager
async def connect(
    url: str, name: str, headers: dict[str, str] | None = None
) -> AsyncIterator[McpWorkspace]:
    """One connected MCP session as a workspace (closed, and its agent ended, on exit)."""
    async with mcp_client(url, name, headers) as client:
        yield McpWorkspace(client)


@asynccontextmanager
async def open_workspaces(url: str, count: int) -> AsyncIterator[list[McpWorkspace]]:
    """`count` connected MCP sessions (agents) on `url`."""
    async with AsyncExitStack() as stack:
        yield [
            await stack.enter_async_context(connect(url, f"chaos-{k + 1}")) for k in range(count)
        ]
