"""The one error type every query raises: a refused request with the spec's code and text.

Queries are pure, so they cannot talk JSON-RPC; the MCP layer maps `code` to its number
(`jsonrpc_code`: invalid_params -32602, not_found -32002) and sends `message` and `data` as is.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, Literal

__all__ = ["JSONRPC_CODES", "QueryError", "QueryErrorCode", "invalid_params", "not_found"]

QueryErrorCode = Literal["invalid_params", "not_found"]

#: JSON-RPC error codes (mcp-tools.md §2.4) for each query error code.
JSONRPC_CODES: Final[dict[str, int]] = {"invalid_params": -32602, "not_found": -32002}


class QueryError(Exception):
    """A query refused its input: malformed (`invalid_params`) or naming nothing (`not_found`).

    `message` is the short interface string of the spec (clients match on it); `data` is the
    JSON object sent alongside, None when the spec sends none.
    """

    def __init__(
        self, code: QueryErrorCode, message: str, data: Mapping[str, Any] | None = None
    ) -> None:
        super().__init__(message)
        self.code: QueryErrorCode = code
        self.message = message
        self.data: dict[str, Any] | None = dict(data) if data is not None else None

    @property
    def jsonrpc_code(self) -> int:
        return JSONRPC_CODES[self.code]

    def __repr__(self) -> str:
        return f"QueryError({self.code!r}, {self.message!r}, {self.data!r})"


def invalid_params(message: str, data: Mapping[str, Any] | None = None) -> QueryError:
    """Malformed input (JSON-RPC -32602)."""
    return QueryError("invalid_params", message, data)


def not_found(message: str, data: Mapping[str, Any] | None = None) -> QueryError:
    """A well-formed id naming nothing that exists (JSON-RPC -32002)."""
    return QueryError("not_found", message, data)
