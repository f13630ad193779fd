"""Constructors for the refusals the ops layer raises, one per failure the spec names.

The ops raise `nereid.errors` types directly (`InvalidParams`, `ResourceNotFound`,
`Conflict`, `InvalidRequest`), so every layer above passes them through unchanged.
Messages are the contract's interface strings (mcp-tools.md §15.3, §16, §17); `data`
carries exactly the keys the contract lists (plus documented extensions).
"""

from __future__ import annotations

from typing import Any

from nereid.errors import InvalidParams, ResourceNotFound

__all__ = [
    "already_exists",
    "invalid_object_id",
    "invalid_value",
    "kind_mismatch",
    "not_found",
]


def already_exists(kind: str, object_id: str) -> InvalidParams:
    """`object already exists` (AlreadyExists); `kind` is e.g. `FlowNode`, `SeqMessage`."""
    return InvalidParams("object already exists", {"kind": kind, "object_id": object_id})


def not_found(kind: str, object_id: str) -> ResourceNotFound:
    """`object not found` (NotFound) for a target or referenced object."""
    return ResourceNotFound("object not found", {"kind": kind, "object_id": object_id})


def kind_mismatch(diagram_kind: str, op_kind: str) -> InvalidParams:
    """A `seq_*` op on a flowchart or a `flow_*` op on a sequence diagram."""
    return InvalidParams(
        "op kind mismatch for diagram kind", {"diagram_kind": diagram_kind, "op_kind": op_kind}
    )


def invalid_object_id(object_id: str, reason: str) -> InvalidParams:
    """An id field of an op breaks the generic id rule (checked before the batch runs)."""
    return InvalidParams(f"invalid object id: {reason}", {"object_id": object_id})


def invalid_value(field: str, value: Any, reason: str, **extra: Any) -> InvalidParams:
    """A value that could not be written back as valid Mermaid (spec decision 9).

    Message `invalid <field>: <reason>`, data `{<field>: value, ...extra}`.
    """
    return InvalidParams(f"invalid {field}: {reason}", {field: value, **extra})
