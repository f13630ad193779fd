"""A stdio ↔ Streamable HTTP bridge: `nereid --mcp DIR` joining the folder owner's session.

An agent host launches `nereid --mcp DIR`; when another Nereid already owns DIR (spec
decision 19), this process does not open the folder itself but relays the host's
JSON-RPC messages, unchanged, to the owner's HTTP endpoint and the owner's messages
(responses, `resources/updated`, …) back to stdout. The owner sees one HTTP MCP session:
the host's agent is its own agent there, with its own spotlight shown in the TUI.

- Requests are answered in any order; notifications pass both ways. A line that is not a
  JSON-RPC message is answered by the bridge (-32700 / -32600, `unreadable`).
- After `initialize` the negotiated protocol version is stamped on every message, as an
  SDK client session would (the `MCP-Protocol-Version` header).
- At stdin EOF the bridge waits (bounded) for the answers still owed, then closes the
  HTTP session (DELETE), so the owner drops the agent's spotlight.
- `stop` (an event) ends the bridge early: the caller sets it when the owner went away.
"""

from __future__ import annotations

import logging
import sys
from typing import Final

import trio
from mcp.client.streamable_http import streamable_http_client
from mcp.server.stdio import stdio_server
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared._stream_protocols import ReadStream, WriteStream
from mcp.shared.message import ClientMessageMetadata, SessionMessage
from mcp_types import JSONRPCError, JSONRPCRequest, JSONRPCResponse, RequestId

from .unreadable import AnsweringReader

__all__ = ["bridge_stdio", "bridge_streams"]

log = logging.getLogger(__name__)

_PROTOCOL_HEADER: Final = "mcp-protocol-version"
#: Seconds the bridge waits at stdin EOF for answers it still owes the client.
_DRAIN_TIMEOUT: Final = 10.0


class _Relay:
    """What travels between the two pumps: unanswered request ids, the negotiated version."""

    def __init__(self) -> None:
        self.pending: set[RequestId] = set()
        self.initialize_id: RequestId | None = None
        self.protocol_version: str | None = None
        self.drained = trio.Event()

    def answered(self, request_id: RequestId) -> None:
        self.pending.discard(request_id)
        if not self.pending:
            self.drained.set()


async def _upstream(
    client: ReadStream[SessionMessage | Exception],
    server: WriteStream[SessionMessage],
    relay: _Relay,
) -> None:
    """Client → owner until the client's stream ends."""
    async for item in client:
        if isinstance(item, Exception):
            first_line = str(item).splitlines()[0] if str(item) else type(item).__name__
            print(
                f"nereid: bridge: unreadable message from the client: {first_line}", file=sys.stderr
            )
            continue
        message = item.message
        if isinstance(message, JSONRPCRequest):
            relay.pending.add(message.id)
            relay.drained = trio.Event()
            if message.method == "initialize":
                relay.initialize_id = message.id
        metadata = None
        if relay.protocol_version is not None and not (
            isinstance(message, JSONRPCRequest) and message.method == "initialize"
        ):
            metadata = ClientMessageMetadata(headers={_PROTOCOL_HEADER: relay.protocol_version})
        await server.send(SessionMessage(message, metadata=metadata))


async def _downstream(
    server: ReadStream[SessionMessage | Exception],
    client: WriteStream[SessionMessage],
    relay: _Relay,
) -> None:
    """Owner → client until the owner's stream ends."""
    async for item in server:
        if isinstance(item, Exception):
            print(f"nereid: bridge: the session owner's endpoint failed: {item}", file=sys.stderr)
            continue
        message = item.message
        if isinstance(message, JSONRPCResponse | JSONRPCError):
            if isinstance(message, JSONRPCResponse) and message.id == relay.initialize_id:
                version = message.result.get("protocolVersion")
                relay.protocol_version = version if isinstance(version, str) else None
            await client.send(SessionMessage(message))
            if message.id is not None:
                relay.answered(message.id)
            continue
        await client.send(SessionMessage(message))


async def bridge_streams(
    url: str,
    client_read: ReadStream[SessionMessage | Exception],
    client_write: WriteStream[SessionMessage],
    *,
    token: str | None = None,
    stop: trio.Event | None = None,
) -> None:
    """Relay one client's message streams to the MCP endpoint at `url` until the client ends."""
    headers = {"Authorization": f"Bearer {token}"} if token else None
    # Lines that are not JSON-RPC are answered here, as the owner's own stdio would.
    client_read = AnsweringReader(client_read, client_write)
    relay = _Relay()
    relay.drained.set()
    # The SDK leaves a client it is given open: ours is closed here, with its connections.
    async with (
        create_mcp_http_client(headers=headers) as http,
        streamable_http_client(url, http_client=http) as (server_read, server_write),
    ):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_downstream, server_read, client_write, relay)
            if stop is not None:

                async def stop_when_told() -> None:
                    await stop.wait()
                    nursery.cancel_scope.cancel(reason="the session owner went away")

                nursery.start_soon(stop_when_told)
            await _upstream(client_read, server_write, relay)
            with trio.move_on_after(_DRAIN_TIMEOUT):
                await relay.drained.wait()
            nursery.cancel_scope.cancel(reason="the client closed its side")
    await client_write.aclose()  # ends the stdio writer, so the transport can close


async def bridge_stdio(
    url: str, *, token: str | None = None, stop: trio.Event | None = None
) -> None:
    """`bridge_streams` on this process's stdin/stdout (stdout carries protocol bytes only)."""
    async with stdio_server() as (client_read, client_write):
        await bridge_streams(url, client_read, client_write, token=token, stop=stop)
