"""The shared parameter checks: an id or ref given as text, refused naming the parameter.

The pure layers raise `nereid.errors` types themselves; only `IdError` and
`ObjectRefError` (the model's value checks, which do not know which parameter held the
value) are turned into `InvalidParams` here, with the parameter in message and data.
"""

from __future__ import annotations

from nereid.errors import InvalidParams
from nereid.model import IdError, ObjectRef, ObjectRefError, check_id, parse_ref

__all__ = ["check_id_param", "parse_ref_param"]


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
