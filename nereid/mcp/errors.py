"""Every failure a tool call can end in, as the JSON-RPC error the client gets.

Tool failures are JSON-RPC errors, never `isError` results (mcp-tools.md §2.4):

- `nereid.errors.NereidError` (raised by the pure layers, the actors and the runtime)
  -> its own `to_jsonrpc()` (the code from the one table `nereid.errors.JSONRPC_CODES`);
- a `msgspec.ValidationError` while decoding arguments -> -32602
  `failed to deserialize parameters: <detail naming the path>` (§2.1);
- anything else is a bug: -32603 `internal error` (the traceback goes to the log,
  never to the client).

`MCPError` is how the MCP SDK lets a handler answer with a JSON-RPC error.
"""

from __future__ import annotations

from typing import Any, Final

import msgspec
from mcp.shared.exceptions import MCPError

from nereid.errors import INTERNAL_ERROR, INVALID_PARAMS, NereidError

__all__ = [
    "DESERIALIZE_PREFIX",
    "INTERNAL_ERROR_MESSAGE",
    "deserialize_error",
    "expected_error",
    "internal_error",
    "tool_not_found",
]

DESERIALIZE_PREFIX: Final = "failed to deserialize parameters: "
INTERNAL_ERROR_MESSAGE: Final = "internal error"


def _mcp_error(code: int, message: str, data: Any) -> MCPError:
    return MCPError(code=code, message=message, data=data)


def deserialize_error(error: msgspec.ValidationError) -> MCPError:
    """-32602 for arguments that do not fit the tool's parameters (no data)."""
    return _mcp_error(INVALID_PARAMS, f"{DESERIALIZE_PREFIX}{error}", None)


def tool_not_found(name: str) -> MCPError:
    """-32602 `tool not found` (mcp-tools.md §1.3), naming the tool in data."""
    return _mcp_error(INVALID_PARAMS, "tool not found", {"tool": name})


def internal_error(correlation_id: str | None = None) -> MCPError:
    """-32603 for a bug; data carries the correlation id to find it in the trace log."""
    data = {"correlation_id": correlation_id} if correlation_id is not None else None
    return _mcp_error(INTERNAL_ERROR, INTERNAL_ERROR_MESSAGE, data)


def expected_error(error: BaseException) -> MCPError | None:
    """The JSON-RPC error for an expected failure, or None if `error` is a bug."""
    if isinstance(error, MCPError):
        return error
    if isinstance(error, NereidError):
        body = error.to_jsonrpc()
        return _mcp_error(body["code"], body["message"], body.get("data"))
    if isinstance(error, msgspec.ValidationError):
        return deserialize_error(error)
    return None
