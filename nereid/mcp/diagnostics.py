"""Diagnostic tools, not part of the 46-tool contract: registered only when asked for.

`nereid.ping` does no actor work: it answers who the caller is. It is the
benchmark's floor (the cost of the MCP layer alone) and lets tests see the
calling session's agent id.
"""

from __future__ import annotations

import msgspec

from .tools import READ_ONLY, NoParams, Tool, ToolCall, tool

__all__ = ["PING", "PingResult", "diagnostic_tools"]


class PingResult(msgspec.Struct, frozen=True, kw_only=True):
    """The caller as the endpoint sees it."""

    agent_id: str
    client_name: str | None


@tool(
    "nereid.ping",
    "Diagnostic no-op: returns the calling session's agent id and client name.",
    params=NoParams,
    result=PingResult,
    hints=READ_ONLY,
)
async def PING(call: ToolCall, params: NoParams) -> PingResult:
    return PingResult(agent_id=call.agent.agent_id, client_name=call.agent.client_name)


def diagnostic_tools() -> list[Tool[NoParams, PingResult]]:
    """The diagnostic tools, to add to a `ToolTable` (e.g. `nereid serve --diagnostics`)."""
    return [PING]
