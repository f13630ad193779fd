"""Constructors for the refusals queries raise (`nereid.errors` types, raised as they are).

Queries are pure, so they say nothing of JSON-RPC: the error's class names its category
(`InvalidParams` -32602, `ResourceNotFound` -32002, mapped in `nereid.errors`) and the
MCP layer sends `message` and `data` as they are.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from nereid.errors import InvalidParams, ResourceNotFound

__all__ = ["invalid_params", "not_found"]


def invalid_params(message: str, data: Mapping[str, Any] | None = None) -> InvalidParams:
    """Malformed input (JSON-RPC -32602)."""
    return InvalidParams(message, data)


def not_found(message: str, data: Mapping[str, Any] | None = None) -> ResourceNotFound:
    """A well-formed id naming nothing that exists (JSON-RPC -32002)."""
    return ResourceNotFound(message, data)
