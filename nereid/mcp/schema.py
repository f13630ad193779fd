"""JSON Schemas for tool inputs and outputs, generated from the msgspec Structs.

msgspec describes a lone Struct as ``{"$ref": ..., "$defs": {...}}``; MCP wants a
root ``{"type": "object", ...}``, and the strictest hosts cannot resolve references at
all. `struct_schema` inlines every definition, makes every optional top-level parameter
nullable (the contract lets a client send `null` for "not provided", mcp-tools.md §0),
and drops what only clutters a tool listing (titles, an empty `required`).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from typing import Any, Final, cast, final

import msgspec

from nereid.model.refs import ref_schema_hook
from nereid.model.wire import U64, param

__all__ = [
    "U64",
    "SchemaBatch",
    "compact_output",
    "nullable",
    "omittable",
    "param",
    "struct_schema",
]

_REF_PREFIX: Final = "#/$defs/"


def nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` widened to also accept `null` (unchanged if it already does)."""
    if _accepts_null(schema):
        return schema
    widened = {k: v for k, v in schema.items() if k not in ("default", "description", "title")}
    result: dict[str, Any] = {
        k: v
        for k, v in schema.items()
        if k in ("description", "title") or (k == "default" and v is not None)
    }
    result["anyOf"] = [widened, {"type": "null"}]
    return result


def _accepts_null(schema: dict[str, Any]) -> bool:
    kind = schema.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind):
        return True
    return any(_accepts_null(option) for option in schema.get("anyOf", ()))


@final
class SchemaBatch:
    """msgspec's schema components of many Structs at once: the definitions they share (ops,
    refs, results) are generated once, not once per tool (start-up, issue 18)."""

    def __init__(self, types: Iterable[type[msgspec.Struct]]) -> None:
        unique = list(dict.fromkeys(types))
        schemas, self.defs = msgspec.json.schema_components(unique, schema_hook=ref_schema_hook)
        self.refs: dict[type[msgspec.Struct], Any] = {
            struct_type: schema.get("$ref")
            for struct_type, schema in zip(unique, schemas, strict=True)
        }

    def generated(self, struct_type: type[msgspec.Struct]) -> dict[str, Any]:
        """What `msgspec.json.schema(struct_type)` gives, from the batch when it is in it."""
        ref = self.refs.get(struct_type)
        if ref is None:
            return _schema(struct_type)
        return {"$ref": ref, "$defs": self.defs}


def _schema(struct_type: type[msgspec.Struct]) -> dict[str, Any]:
    """msgspec's JSON Schema of `struct_type` (an ObjectRef is a string: `ref_schema_hook`)."""
    return msgspec.json.schema(struct_type, schema_hook=ref_schema_hook)


def struct_schema(
    struct_type: type[msgspec.Struct],
    *,
    nullable_optional: bool = True,
    overrides: Mapping[str, dict[str, Any]] | None = None,
    batch: SchemaBatch | None = None,
) -> dict[str, Any]:
    """The JSON Schema of `struct_type` as one self-contained object schema.

    Every `$ref` is inlined (hosts such as Copilot CLI, Gemini and VS Code cannot resolve
    `$defs`), titles are dropped, and with `nullable_optional` (inputs) optional fields,
    those with a default, also accept `null`. `overrides` replaces the schema of the named
    top-level properties (e.g. the compact op array). A recursive type keeps `$defs` for the
    definitions that recur. `batch`: the definitions already generated with others'. Returns
    a fresh dict (the definitions are read, never changed).
    """
    generated = batch.generated(struct_type) if batch is not None else _schema(struct_type)
    defs: dict[str, Any] = generated.get("$defs", {})
    ref = generated.get("$ref")
    if not isinstance(ref, str) or not ref.startswith(_REF_PREFIX):
        raise TypeError(f"{struct_type.__name__} is not a msgspec Struct with an object schema")
    root_name = ref[len(_REF_PREFIX) :]
    root: dict[str, Any] = dict(defs[root_name])
    root.pop("title", None)
    root.pop("description", None)
    if root.get("type") != "object":
        raise TypeError(f"{struct_type.__name__} does not describe a JSON object")
    properties: dict[str, Any] = dict(root.get("properties", {}))
    root["properties"] = properties
    for key, replacement in (overrides or {}).items():
        if key not in properties:
            raise KeyError(f"{struct_type.__name__} has no field {key!r} to override")
        properties[key] = copy.deepcopy(replacement)
    required = set(root.get("required", ()))
    for key, value in list(properties.items()):
        if nullable_optional and key not in required:
            value = nullable(value)
        if "default" in value and value["default"] is None:  # absent means null anyway
            value = {k: v for k, v in value.items() if k != "default"}
        properties[key] = value
    if not root.get("required"):
        root.pop("required", None)
    schema: dict[str, Any] = {"type": "object", **{k: v for k, v in root.items() if k != "type"}}
    recurring: dict[str, Any] = {}
    inlined = _inline(schema, defs, (root_name,), recurring)
    if recurring:
        inlined["$defs"] = recurring
    return cast(dict[str, Any], inlined)


def _inline(
    node: Any, defs: dict[str, Any], stack: tuple[str, ...], recurring: dict[str, Any]
) -> Any:
    """`node` with every `$ref` replaced by its definition (titles dropped)."""
    if isinstance(node, list):
        return [_inline(item, defs, stack, recurring) for item in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith(_REF_PREFIX):
        name = ref[len(_REF_PREFIX) :]
        if name in stack:  # a recursive type: keep this definition by reference
            if name not in recurring:
                recurring[name] = {}
                recurring[name] = _inline(defs[name], defs, (), recurring)
            return dict(node)
        target = _inline(defs[name], defs, (*stack, name), recurring)
        extra = {k: v for k, v in node.items() if k != "$ref"}
        return {**target, **extra}
    out: dict[str, Any] = {}
    for key, value in node.items():
        if (
            key == "title"
            or (key == "default" and value is None)
            or (key == "required" and not value)
        ):
            continue
        if key == "properties" and isinstance(value, dict):
            out[key] = {name: _inline(sub, defs, stack, recurring) for name, sub in value.items()}
        else:
            out[key] = _inline(value, defs, stack, recurring)
    return out


def omittable(schema: dict[str, Any]) -> dict[str, Any]:
    """An input schema whose optional parameters are simply not required, without a `null`.

    The endpoint treats `null` as "not provided" for every optional parameter, so the null
    branch only repeats what `required` already says; without it the listing is smaller and
    fits hosts that handle `anyOf` poorly. Returns a fresh dict.
    """
    required = set(schema.get("required", ()))
    properties = {
        name: prop if name in required else _without_null(prop)
        for name, prop in schema.get("properties", {}).items()
    }
    return {**schema, "properties": properties}


def _without_null(prop: dict[str, Any]) -> dict[str, Any]:
    options = prop.get("anyOf")
    if not isinstance(options, list) or {"type": "null"} not in options:
        return prop
    rest = [option for option in options if option != {"type": "null"}]
    outer = {k: v for k, v in prop.items() if k != "anyOf"}
    if len(rest) == 1 and isinstance(rest[0], dict):
        return {**rest[0], **outer}
    return {**outer, "anyOf": rest}


_OUTPUT_DEPTH: Final = 0
"""Object levels an output schema spells out below the root (0: the result's own keys,
each with its type)."""


def compact_output(schema: dict[str, Any]) -> dict[str, Any]:
    """A short output schema: what every host sends along with each tool, kept small.

    Results are JSON the server builds itself, so their schema only needs to say what comes
    back: `T | null` becomes `"type": [T, "null"]`, defaults and developer docstrings go, and
    below `_OUTPUT_DEPTH` object levels a value is described by its type alone. Anything
    valid under the full schema is valid under this one.
    """
    return cast(dict[str, Any], _compact(schema, 0))


def _compact(node: Any, depth: int) -> Any:
    if not isinstance(node, dict):
        return node
    options = node.get("anyOf")
    if isinstance(options, list) and len(options) == 2 and {"type": "null"} in options:
        (other,) = [option for option in options if option != {"type": "null"}]
        kind = other.get("type") if isinstance(other, dict) else None
        if isinstance(kind, str):
            merged = {**_compact(other, depth), "type": [kind, "null"]}
            if "enum" in merged:
                merged["enum"] = [*merged["enum"], None]
            return merged
    if depth > _OUTPUT_DEPTH:
        return {key: node[key] for key in ("type", "enum") if key in node}
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in ("default", "description", "$defs", "minimum") or (
            key == "required" and not value
        ):
            continue
        if key == "properties":
            out[key] = {name: _compact(sub, depth + 1) for name, sub in value.items()}
        elif key in ("items", "additionalProperties"):
            out[key] = _compact(value, depth)
        elif key in ("anyOf", "oneOf"):
            out[key] = [_compact(option, depth) for option in value]
        else:
            out[key] = value
    return out
