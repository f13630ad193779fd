"""A stdio MCP server process for tests: the stand-in actors behind `serve_stdio`.

Run as `python -m tests.mcp.stdio_server` from the repository root. It adds `test.print`, a tool that
writes to stdout and stderr, to show that stray output cannot reach the protocol.
"""

from __future__ import annotations

import logging
import sys

import msgspec
import trio

from nereid.mcp import READ_ONLY, McpEndpoint, ToolCall, serve_stdio, tool
from nereid.runtime import open_runtime
from tests.mcp.mcp_testkit import ActorDiagramResources, spawn_diagrams, tool_table


class PrintParams(msgspec.Struct, frozen=True, kw_only=True):
    text: str


class PrintResult(msgspec.Struct, frozen=True, kw_only=True):
    printed: str


@tool(
    "test.print",
    "Print text to stdout and stderr (test only).",
    params=PrintParams,
    result=PrintResult,
    hints=READ_ONLY,
)
async def print_tool(call: ToolCall, params: PrintParams) -> PrintResult:
    print(params.text)
    print(params.text, file=sys.stderr)
    sys.stdout.flush()
    return PrintResult(printed=params.text)


async def main() -> None:
    async with open_runtime() as runtime:
        await spawn_diagrams(runtime)
        table = tool_table()
        table.add(print_tool)
        endpoint = McpEndpoint(runtime, table, resources=ActorDiagramResources(runtime))
        await serve_stdio(endpoint)


if __name__ == "__main__":
    logging.basicConfig(stream=sys.stderr, level=logging.INFO)
    trio.run(main)
