"""JSON Schemas for tool inputs and outputs, generated from the msgspec Structs.

msgspec describes a lone Struct as ``{"$ref": ..., "$defs": {...}}``; MCP wants a
root ``{"type": "object", ...}``. `struct_schema` inlines the root, keeps `$defs`
for nested Structs, makes every optional top-level parameter nullable (the
contract lets a client send `null` for "not provided", mcp-tools.md §0), and drops
what only clutters a tool listing (the root title, an empty `required`).
"""

from __future__ import annotations

import copy
import json
from typing import Annotated, Any, Final

import msgspec

__all__ = ["U64", "nullable", "struct_schema"]

U64 = Annotated[int, msgspec.Meta(ge=0)]
"""A non-negative integer (the contract's u64): schema `{"type": "integer", "minimum": 0}`."""

_REF_PREFIX: Final = "#/$defs/"


def nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` widened to also accept `null` (unchanged if it already does)."""
    if _accepts_null(schema):
        return schema
    widened = {k: v for k, v in schema.items() if k not in ("default", "description", "title")}
    result: dict[str, Any] = {
        k: v for k, v in schema.items() if k in ("default", "description", "title")
    }
    result["anyOf"] = [widened, {"type": "null"}]
    return result


def _accepts_null(schema: dict[str, Any]) -> bool:
    kind = schema.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind):
        return True
    return any(_accepts_null(option) for option in schema.get("anyOf", ()))


def struct_schema(
    struct_type: type[msgspec.Struct], *, nullable_optional: bool = True
) -> dict[str, Any]:
    """The JSON Schema of `struct_type` with the root inlined as an object schema.

    With `nullable_optional` (inputs) optional fields, those with a default, also
    accept `null`. Nested Structs stay in `$defs`; if some definition refers back to
    the root, its definition is kept there too. Returns a fresh dict.
    """
    generated = msgspec.json.schema(struct_type)
    defs: dict[str, Any] = copy.deepcopy(generated.get("$defs", {}))
    ref = generated.get("$ref")
    if not isinstance(ref, str) or not ref.startswith(_REF_PREFIX):
        raise TypeError(f"{struct_type.__name__} is not a msgspec Struct with an object schema")
    name = ref[len(_REF_PREFIX) :]
    root: dict[str, Any] = dict(defs[name])
    if json.dumps(defs).count(f'"{ref}"') == 0:
        del defs[name]
    root.pop("title", None)
    root.pop("description", None)
    if root.get("type") != "object":
        raise TypeError(f"{struct_type.__name__} does not describe a JSON object")
    properties: dict[str, Any] = root.setdefault("properties", {})
    required = set(root.get("required", ()))
    for key, value in list(properties.items()):
        if nullable_optional and key not in required:
            properties[key] = nullable(value)
    if not root.get("required"):
        root.pop("required", None)
    schema: dict[str, Any] = {"type": "object", **{k: v for k, v in root.items() if k != "type"}}
    if defs:
        schema["$defs"] = defs
    return schema
