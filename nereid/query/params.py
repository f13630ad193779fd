"""Checks of tool parameters, with the exact error texts and data of mcp-tools.md §3.6.

The MCP layer's schemas already reject wrong JSON types; these checks cover what a schema
cannot say (id syntax, enumerations where `""` has a meaning, refs) and repeat the
non-negative rule so a direct caller gets the same refusal.
"""

from __future__ import annotations

from collections.abc import Sequence

from nereid.errors import invalid_param
from nereid.model import IdError, ObjectRef, ObjectRefError, check_id, parse_ref
from nereid.query.errors import invalid_params

__all__ = ["check_choice", "check_count", "check_param_id", "check_param_ref"]


def check_param_id(name: str, value: str, *, as_object_id: bool = False) -> str:
    """A plain id parameter: `invalid <name>: <reason>`, data `{name: value}`.

    With `as_object_id` the refusal is the spec's generic `invalid object id: <reason>` with
    data `{"object_id": value}` (how `seq.trace` reports `from_message_id`).
    """
    try:
        return check_id(value)
    except IdError as err:
        if as_object_id:
            raise invalid_params(
                f"invalid object id: {err.message}", {"object_id": value}
            ) from None
        raise invalid_param(name, err.message, value) from None


def check_param_ref(name: str, value: str) -> ObjectRef:
    """An ObjectRef parameter: `invalid <name>: <reason>`, data `{name: value}`."""
    try:
        return parse_ref(value)
    except ObjectRefError as err:
        raise invalid_param(name, err.message, value) from None


def check_choice(name: str, value: str, allowed: Sequence[str]) -> str:
    """An enumerated string: `invalid <name> (expected a|b|c)`, data `{name: value}`."""
    if value not in allowed:
        raise invalid_params(f"invalid {name} (expected {'|'.join(allowed)})", {name: value})
    return value


def check_count(name: str, value: int) -> int:
    """A u64 parameter: a non-negative int (bool is not an int here)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise invalid_params(
            f"failed to deserialize parameters: {name} must be a non-negative integer",
        )
    return value
