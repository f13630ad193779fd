"""The one error type of the ops layer, with constructors for every failure the spec names.

`OpError` is pure data (code, message, data) so the MCP layer can map it without knowing the
ops: `invalid_params` -> -32602, `not_found` -> -32002, `conflict` and `invalid_request`
-> -32600. Messages are the contract's interface strings (mcp-tools.md §15.3, §16, §17);
`data` carries exactly the keys the contract lists (plus documented extensions).
"""

from __future__ import annotations

from typing import Any, Literal

__all__ = [
    "ErrorCode",
    "OpError",
    "already_exists",
    "invalid_object_id",
    "invalid_value",
    "kind_mismatch",
    "not_found",
]

ErrorCode = Literal["invalid_params", "not_found", "conflict", "invalid_request"]


class OpError(Exception):
    """An op, batch or history request was refused; nothing was changed.

    `code` is the error category, `message` the short interface string clients match on,
    `data` the JSON object sent along with it.
    """

    def __init__(self, code: ErrorCode, message: str, data: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.code: ErrorCode = code
        self.message = message
        self.data: dict[str, Any] = dict(data or {})

    def __repr__(self) -> str:
        return f"OpError({self.code!r}, {self.message!r}, {self.data!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, OpError):
            return NotImplemented
        return (self.code, self.message, self.data) == (other.code, other.message, other.data)

    __hash__ = None  # type: ignore[assignment]


def already_exists(kind: str, object_id: str) -> OpError:
    """`object already exists` (AlreadyExists); `kind` is e.g. `FlowNode`, `SeqMessage`."""
    return OpError(
        "invalid_params", "object already exists", {"kind": kind, "object_id": object_id}
    )


def not_found(kind: str, object_id: str) -> OpError:
    """`object not found` (NotFound) for a target or referenced object."""
    return OpError("not_found", "object not found", {"kind": kind, "object_id": object_id})


def kind_mismatch(diagram_kind: str, op_kind: str) -> OpError:
    """A `seq_*` op on a flowchart or a `flow_*` op on a sequence diagram."""
    return OpError(
        "invalid_params",
        "op kind mismatch for diagram kind",
        {"diagram_kind": diagram_kind, "op_kind": op_kind},
    )


def invalid_object_id(object_id: str, reason: str) -> OpError:
    """An id field of an op breaks the generic id rule (checked before the batch runs)."""
    return OpError("invalid_params", f"invalid object id: {reason}", {"object_id": object_id})


def invalid_value(field: str, value: Any, reason: str, **extra: Any) -> OpError:
    """A value that could not be written back as valid Mermaid (spec decision 9).

    Message `invalid <field>: <reason>`, data `{<field>: value, ...extra}`.
    """
    return OpError("invalid_params", f"invalid {field}: {reason}", {field: value, **extra})
