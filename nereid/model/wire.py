"""Annotations that shape how a message field looks on the wire and in JSON Schema.

The session's protocol Structs (`nereid.actors.protocol`) are also the MCP tools' params and
results, so their fields carry what the tool listing shows: `U64` for the contract's
non-negative integers and `param(...)` for a parameter's description and closed value set.
Decoding is unaffected by `param`; `U64` refuses negative numbers.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated

import msgspec

__all__ = ["U64", "param"]

U64 = Annotated[int, msgspec.Meta(ge=0)]
"""A non-negative integer (the contract's u64): schema `{"type": "integer", "minimum": 0}`."""


def param(description: str, *, choices: Sequence[str] | None = None) -> msgspec.Meta:
    """A parameter's description and, for a closed value set, its `enum` (schema only).

    Decoding is unchanged (the tool still checks the value and says what it expects), so a
    value the contract also accepts (e.g. `""` for "the default") keeps working.
    """
    extra = {"enum": list(choices)} if choices is not None else None
    return msgspec.Meta(description=description, extra_json_schema=extra)
