"""MCP over stdio: newline-delimited JSON-RPC on stdin/stdout, one client (`nereid --mcp`).

stdout carries protocol bytes only: the SDK's stdio transport takes over file
descriptor 1 for the protocol and points the process's own stdout at stderr, so a
stray `print` cannot corrupt the stream. Logs go to stderr.
"""

from __future__ import annotations

import trio
from mcp.server.runner import serve_loop
from mcp.server.stdio import stdio_server
from mcp.shared._stream_protocols import ReadStream, WriteStream
from mcp.shared.message import SessionMessage

from .endpoint import McpEndpoint
from .heap import settle_heap
from .unreadable import AnsweringReader

__all__ = ["serve_stdio", "serve_streams"]


async def serve_streams(
    endpoint: McpEndpoint,
    read_stream: ReadStream[SessionMessage | Exception],
    write_stream: WriteStream[SessionMessage],
    *,
    background: bool = True,
) -> None:
    """Serve one client session over a pair of message streams until the read side ends.

    The same path as stdio, without the process's file descriptors: tests and
    in-process clients use it with memory streams. `background` False: another
    transport of the same endpoint (HTTP) already runs its background work. Lines that
    are not a JSON-RPC message are answered here (-32700 / -32600, `unreadable`), not
    left unanswered.
    """
    read_stream = AnsweringReader(read_stream, write_stream)
    async with trio.open_nursery() as nursery:
        if background:
            await nursery.start(endpoint.run_background)
        server = endpoint.server
        async with server.lifespan(server) as lifespan_state:
            await serve_loop(server, read_stream, write_stream, lifespan_state=lifespan_state)
        nursery.cancel_scope.cancel(reason="client session ended")


async def serve_stdio(
    endpoint: McpEndpoint, *, background: bool = True, settle: bool = True
) -> None:
    """Serve `endpoint` to the one client on stdin/stdout until stdin closes.

    Returns normally at end of input (exit status 0); cancel to stop early. `settle`
    False: the caller runs `settle_heap` itself, later (once its session has loaded,
    so the handshake does not wait for a full collection).
    """
    if settle:
        settle_heap()
    async with stdio_server() as (read_stream, write_stream):
        await serve_streams(endpoint, read_stream, write_stream, background=background)
