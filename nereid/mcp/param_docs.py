"""Descriptions of the parameters many tools share, written once (a small, clear context).

`Tool` gives every input property without a description of its own the text here (the
optional wording when the parameter may be left out). A parameter whose meaning is particular
to one tool carries its own `param(...)` in its params Struct instead; a test checks that every
parameter of every tool ends up described.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

__all__ = ["OPTIONAL_PARAM_DOCS", "PARAM_DOCS", "describe_params"]

PARAM_DOCS: Final[Mapping[str, str]] = {
    "diagram_id": "Diagram id.",
    "walkthrough_id": "Walkthrough id.",
    "object_ref": "Object ref, e.g. d:<diagram>/flow/node/<id>.",
    "object_refs": "Object refs (d:<diagram>/<category path>/<id>).",
    "base_rev": "The rev your ops are based on (from *.stat); a stale one is a conflict.",
    "since_rev": "The rev to diff from (what you last read).",
    "node_id": "Node id.",
    "from_node_id": "Start node id (not a ref).",
    "to_node_id": "End node id (not a ref).",
    "xref_id": "Cross-reference id.",
    "enabled": "true to switch on, false to switch off.",
}
"""Shared parameter descriptions (required wording)."""

OPTIONAL_PARAM_DOCS: Final[Mapping[str, str]] = {
    "diagram_id": "Diagram id; default: the active diagram.",
}
"""Wording for a shared parameter that may be left out, where it differs."""


def describe_params(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` (an input schema) with shared descriptions filled in where missing."""
    required = set(schema.get("required", ()))
    properties = schema.get("properties", {})
    for name, prop in properties.items():
        if "description" in prop:
            continue
        text = (OPTIONAL_PARAM_DOCS.get(name) if name not in required else None) or PARAM_DOCS.get(
            name
        )
        if text is not None:
            properties[name] = {"description": text, **prop}
    return schema
