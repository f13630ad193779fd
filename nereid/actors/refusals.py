"""Turning pure-layer refusals into `nereid.errors` types, and the shared parameter checks.

The pure layers refuse with plain data (`OpError`, `QueryError`, `MermaidError`, `IdError`,
`ObjectRefError`); the session actors raise `nereid.errors` types so the runtime sends them
back as typed errors and the MCP layer gets its JSON-RPC code from the type
(`to_jsonrpc()`). Message and data are kept exactly as the pure layer wrote them.
"""

from __future__ import annotations

from typing import Any

from nereid.errors import (
    Conflict,
    InvalidParams,
    InvalidRequest,
    NereidError,
    ResourceNotFound,
)
from nereid.mermaid import MermaidError
from nereid.model import IdError, ObjectRef, ObjectRefError, check_id, parse_ref
from nereid.ops import OpError
from nereid.query.errors import QueryError

__all__ = [
    "check_id_param",
    "from_mermaid_error",
    "from_op_error",
    "from_query_error",
    "parse_ref_param",
]


def from_op_error(error: OpError) -> NereidError:
    """`invalid_params` → InvalidParams, `not_found` → ResourceNotFound, `conflict` →
    Conflict (data kept exactly: base_rev, current_rev, snapshot_tool, digest, ast_digest),
    `invalid_request` → InvalidRequest."""
    data: dict[str, Any] = dict(error.data)
    match error.code:
        case "invalid_params":
            return InvalidParams(error.message, data=data)
        case "not_found":
            return ResourceNotFound(error.message, data=data)
        case "conflict":
            conflict = Conflict(
                base_rev=int(data.get("base_rev", -1)),
                current_rev=int(data.get("current_rev", -1)),
                digest=data.get("digest"),
                snapshot_tool=data.get("snapshot_tool"),
            )
            conflict.message = error.message
            conflict.data = data
            return conflict
        case "invalid_request":
            return InvalidRequest(error.message, data=data)
    raise AssertionError(f"unknown OpError code {error.code!r}")  # pragma: no cover


def from_query_error(error: QueryError) -> NereidError:
    """`invalid_params` → InvalidParams, `not_found` → ResourceNotFound (data kept)."""
    if error.code == "not_found":
        return ResourceNotFound(error.message, data=error.data)
    return InvalidParams(error.message, data=error.data)


def from_mermaid_error(error: MermaidError, kind: str | None) -> InvalidParams:
    """A parse failure: `cannot parse Mermaid <kind> diagram: <reason>` (mcp-tools.md §5.2),
    or the kind-detection message itself; data says where (`line`, `column`, `text`,
    `expected`, `error_kind`) — our addition, the contract sends none."""
    message = (
        error.message if kind is None else f"cannot parse Mermaid {kind} diagram: {error.message}"
    )
    data: dict[str, Any] = {"error_kind": error.kind}
    for key in ("line", "column", "text", "expected"):
        value = getattr(error, key)
        if value is not None:
            data[key] = value
    return InvalidParams(message, data=data)


def check_id_param(param: str, value: str) -> str:
    """A plain id parameter: `invalid <param>: <reason>`, data `{param: value}` (§3.6)."""
    try:
        return check_id(value)
    except IdError as err:
        raise InvalidParams(f"invalid {param}: {err.message}", data={param: value}) from None


def parse_ref_param(param: str, text: str) -> ObjectRef:
    """An ObjectRef parameter: `invalid <param>: <reason>`, data `{param: text}` (§3.6).

    For clients (MCP handlers, TUI) that hold refs as text: messages carry `ObjectRef`s.
    """
    try:
        return parse_ref(text)
    except ObjectRefError as err:
        raise InvalidParams(f"invalid {param}: {err.message}", data={param: text}) from None
