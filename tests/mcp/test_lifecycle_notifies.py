"""Lifecycle tools tell a TUI to re-read: each successful create/open/delete bumps `ui_session_rev`.

The endpoint serves the whole catalog on the real session actors (memory only, the demo
session); a TUI is simulated by attaching it to `attention`.
"""

from __future__ import annotations

from typing import Any

from nereid.actors.protocol import AttachUi
from nereid.actors.tree import open_session
from nereid.mcp import McpEndpoint
from nereid.mcp.catalog import AgentSessionHooks, all_tools
from nereid.store.demo import load_demo_session
from tests.mcp.mcp_testkit import memory_client
from tests.mcp.tools_testkit import error_of, structured


async def _session_rev(client: Any) -> int:
    context = (await structured(client, "diagram.list"))["context"]
    rev: int = context["ui_session_rev"]
    return rev


async def test_each_lifecycle_tool_bumps_ui_session_rev_once() -> None:
    async with open_session(load_demo_session(), files=None, durable=False) as handle:
        endpoint = McpEndpoint(handle.runtime, all_tools(), hooks=AgentSessionHooks(handle))
        async with memory_client(endpoint) as client:
            await handle.attention.call(AttachUi())
            calls: list[tuple[str, dict[str, Any]]] = [
                (
                    "diagram.create_from_mermaid",
                    {"mermaid": "flowchart TD\n a --> b\n", "diagram_id": "fresh"},
                ),
                ("diagram.open", {"diagram_id": "index"}),
                ("diagram.delete", {"diagram_id": "fresh"}),
                ("walkthrough.create", {"walkthrough_id": "wt-new", "title": "New"}),
                ("walkthrough.open", {"walkthrough_id": "wt-new"}),
                ("walkthrough.delete", {"walkthrough_id": "wt-new"}),
            ]
            for name, arguments in calls:
                before = await _session_rev(client)
                await structured(client, name, arguments)
                assert await _session_rev(client) == before + 1, name
            # A refused call changes nothing, so it tells the TUI nothing either.
            before = await _session_rev(client)
            await error_of(client, "diagram.delete", {"diagram_id": "fresh"})
            assert await _session_rev(client) == before
