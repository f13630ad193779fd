"""Probing a live server with generated tool arguments, and judging its answers.

`probe` calls one tool as an MCP client and records what came back; `judge` says what is
wrong with that answer, if anything:

- never an internal error (-32603) and never an error without a message;
- an error code is one the contract uses for input problems (-32602 invalid params,
  -32600 invalid request, -32002 not found);
- arguments that break the input schema at `key` are refused with -32602, and the message
  names `key` (says what was wrong, where);
- no call outlives `deadline` seconds (the caller enforces it and records `hung`).
"""

from __future__ import annotations

from typing import Any

import msgspec
from mcp import Client
from mcp.shared.exceptions import MCPError

__all__ = ["INPUT_ERROR_CODES", "Probe", "judge", "probe"]

INPUT_ERROR_CODES = frozenset({-32602, -32600, -32002})


class Probe(msgspec.Struct, kw_only=True):
    """One call and its outcome. `broken_key`: where the arguments break the schema."""

    tool: str
    arguments: dict[str, Any]
    broken_key: str | None = None
    ok: bool = False
    code: int | None = None
    message: str = ""
    hung: bool = False

    def describe(self) -> str:
        shown = msgspec.json.encode(self.arguments).decode()
        if len(shown) > 300:
            shown = shown[:300] + "…"
        return f"{self.tool}({shown})"


async def probe(
    client: Client, tool: str, arguments: dict[str, Any], broken_key: str | None
) -> Probe:
    """Call `tool` once; the outcome as a `Probe` (errors are recorded, not raised)."""
    result = Probe(tool=tool, arguments=arguments, broken_key=broken_key)
    try:
        reply = await client.call_tool(tool, arguments)
    except MCPError as error:
        result.code = error.code
        result.message = error.message
        return result
    result.ok = not reply.is_error and isinstance(reply.structured_content, dict)
    if not result.ok:
        result.message = f"error result or no structured content: {reply.content!r}"[:300]
    return result


def judge(result: Probe) -> str | None:
    """What is wrong with this outcome, or None if it is what the contract asks."""
    where = result.describe()
    if result.hung:
        return f"{where}: no answer before the deadline"
    if result.ok:
        if result.broken_key is not None:
            return f"{where}: accepted arguments that break the schema at {result.broken_key!r}"
        return None
    if result.code is None:
        return f"{where}: {result.message}"
    if not result.message.strip():
        return f"{where}: error {result.code} without a message"
    if result.code not in INPUT_ERROR_CODES:
        return f"{where}: error {result.code} {result.message!r} (expected an input error)"
    if result.broken_key is not None:
        if result.code != -32602:
            return f"{where}: {result.code} {result.message!r}, expected -32602 for a schema break"
        if result.broken_key not in result.message:
            return f"{where}: {result.message!r} does not name {result.broken_key!r}"
    return None
