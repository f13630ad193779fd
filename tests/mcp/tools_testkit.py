"""The real session actors on the demo session behind an endpoint with the group C/E-H tools.

`demo_endpoint()` opens the actor tree (memory only, `--mcp --demo` style) on the shipped
demo session plus the hand-made flowchart `g` (x ⇄ y, z → z: a cycle and a self-loop),
and an `McpEndpoint` serving `tools_collab`, `tools_xref` and `tools_queries`, whose
session hooks (the catalog's) drop an agent's spotlight when its session ends. `error_of`
calls a tool that must fail and returns the JSON-RPC error.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import msgspec
import pytest
from mcp.shared.exceptions import MCPError

from nereid.actors.protocol import CreateDiagramFromMermaid
from nereid.actors.tree import SessionHandle, open_session
from nereid.mcp import McpEndpoint, ToolTable, tools_collab, tools_queries, tools_xref
from nereid.mcp.catalog import AgentSessionHooks
from nereid.store.demo import load_demo_session

__all__ = [
    "CYCLES_MERMAID",
    "demo_endpoint",
    "error_of",
    "my_tools",
    "structured",
]

CYCLES_MERMAID = "flowchart TD\n    x[X] --> y[Y]\n    y --> x\n    z[Z] --> z\n    x --> w[W]\n"


def my_tools() -> ToolTable:
    return ToolTable([*tools_collab.TOOLS, *tools_xref.TOOLS, *tools_queries.TOOLS])


@asynccontextmanager
async def demo_endpoint(
    *, no_active: bool = False
) -> AsyncIterator[tuple[SessionHandle, McpEndpoint]]:
    """`no_active`: the session starts without an active diagram."""
    session = load_demo_session()
    if no_active:
        session = msgspec.structs.replace(session, active_diagram_id=None)
    async with open_session(session, files=None, durable=False) as handle:
        await handle.session.call(
            CreateDiagramFromMermaid(
                mermaid=CYCLES_MERMAID, diagram_id="g", name="Cycles", make_active=False
            )
        )
        endpoint = McpEndpoint(handle.runtime, my_tools(), hooks=AgentSessionHooks(handle))
        yield handle, endpoint


async def error_of(client: Any, name: str, arguments: dict[str, Any] | None = None) -> MCPError:
    with pytest.raises(MCPError) as caught:
        await client.call_tool(name, arguments or {})
    return caught.value


async def structured(client: Any, name: str, arguments: dict[str, Any] | None = None) -> Any:
    """The structured result of a successful call, checked against its text item."""
    result = await client.call_tool(name, arguments or {})
    assert result.is_error is False
    text = result.content[0].text
    assert json.loads(text) == result.structured_content
    return result.structured_content
