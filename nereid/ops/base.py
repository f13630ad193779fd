"""Shared pieces of the op structs: the tagged base classes and the "absent" marker.

Ops are frozen msgspec Structs tagged by `"type"` (mcp-tools.md §15, §16); unknown keys are
ignored and reported (decision 22). An optional field
is `UNSET` when the key was absent and `None` when it was sent as `null`; several ops treat the
two differently (docs/ops.md says which).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated, TypeAlias, TypeGuard, TypeVar

import msgspec
from msgspec import UNSET, UnsetType

__all__ = [
    "UNSET",
    "I64",
    "DiagramOpBase",
    "Maybe",
    "UnsetType",
    "WalkthroughOpBase",
    "given",
    "iter_object_ids",
]

T = TypeVar("T")

#: An optional field: absent (`UNSET`), explicit `null` (`None`) or a value.
Maybe: TypeAlias = T | None | UnsetType

#: Signed 64-bit integer (message / note / activation `order_key`).
I64 = Annotated[int, msgspec.Meta(ge=-(2**63), le=2**63 - 1)]


class DiagramOpBase(msgspec.Struct, tag_field="type", frozen=True, kw_only=True):
    """Base of every diagram op (`flow_*`, `seq_*`); each subclass sets an explicit tag.

    Unknown keys are ignored, as the contract says (decision 22); `ignored_fields` in
    `nereid.ops.decode` lists them so the result can show a typo.
    """


class WalkthroughOpBase(msgspec.Struct, tag_field="type", frozen=True, kw_only=True):
    """Base of every walkthrough op (`set_title`, `add_node`, ...); unknown keys are ignored."""


def given(value: T | None | UnsetType) -> TypeGuard[T]:
    """True when an optional field carries a value (neither absent nor null)."""
    return value is not None and value is not UNSET


def iter_object_ids(op: msgspec.Struct) -> Iterator[str]:
    """Every object id an op names: fields `*_id` (but not `mermaid_id`) and `*_ids` lists.

    Nested structs (e.g. the sections of `seq_add_block`) are searched too. These are the ids
    the MCP boundary validates before a batch runs (ops.md §6.3).
    """
    for name in op.__struct_fields__:
        value = getattr(op, name)
        if name.endswith("_id") and name != "mermaid_id":
            if isinstance(value, str):
                yield value
        elif name.endswith("_ids"):
            if isinstance(value, tuple):
                yield from (v for v in value if isinstance(v, str))
        elif isinstance(value, tuple):
            for item in value:
                if isinstance(item, msgspec.Struct):
                    yield from iter_object_ids(item)
