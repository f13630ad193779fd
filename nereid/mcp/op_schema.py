"""The compact JSON Schema of an op array: one object schema for every op type, not a union.

The generated schema of `list[DiagramOp]` is a `oneOf` of 38 Structs (20 KB), sent twice
(`diagram.apply_ops`, `diagram.propose_ops`) to every host's context. Instead, `ops_schema`
describes an op as one object: `type` is an `enum` of the op types, whose description lists
each type's fields (`?` = optional), and `properties` holds every field name once, typed and
described. `diagram.propose_ops` points at `diagram.apply_ops`' schema instead of repeating it.

Validation stays strict: the server decodes every op against its own Struct (a missing or
mistyped field is -32602 with the path); the schema only tells the model what to send. Keys
no op has are ignored and listed in the result's `ignored_fields` (decision 22).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

from msgspec import inspect as mi

from nereid.model import BLOCK_KINDS, DIRECTIONS, PARTICIPANT_ROLES
from nereid.model.sequence import ARROW_KINDS
from nereid.model.shapes import ATTRIBUTE_SHAPES, SHAPES
from nereid.model.state import STATE_KINDS

__all__ = [
    "DIAGRAM_OP_ENUMS",
    "DIAGRAM_OP_FIELDS",
    "WALKTHROUGH_OP_FIELDS",
    "ops_schema",
    "same_ops_as",
    "schema_size",
]

_ORDER_KEY: Final = (
    "Timeline position (64-bit): messages, notes and activations sort by (order_key, id); "
    "imported items get 1000, 2000, ... (see diagram.get_ast), so 1500 goes between those."
)

DIAGRAM_OP_FIELDS: Final[Mapping[str, str]] = {
    "node_id": "Flowchart node id.",
    "label": "Label text (one line, no double quote).",
    "shape": "Node shape by model name (Mermaid v11 aliases such as cyl are accepted too); "
    "absent or null: rect.",
    "mermaid_id": "The id written in the Mermaid text; flow_set_node_mermaid_id: null resets "
    "it to the derived one.",
    "note": "Inline note text; absent or null clears it.",
    "edge_id": "Flowchart edge id.",
    "from_node_id": "Start node of the edge.",
    "to_node_id": "End node of the edge.",
    "connector": "Mermaid link token, e.g. -->, ---, -.->, ==>, <-->, o--o, x--x, --->; "
    "absent, null or empty: -->.",
    "style": "CSS-like Mermaid style text, e.g. fill:#f9f,stroke:#333.",
    "direction": "Diagram, subgraph or composite direction.",
    "subgraph_id": "Subgraph id.",
    "title": "Subgraph title, or the sequence title (seq_set_title).",
    "parent_subgraph_id": "Subgraph to nest the new one in; absent or null: top level.",
    "node_ids": "Member node ids, in order.",
    "subgraph_ids": "Child subgraph ids, in order; absent or null keeps them.",
    "classes": "Class names (class / :::); [] clears them.",
    "name": "classDef name.",
    "participant_id": "Sequence participant id.",
    "mermaid_name": "The participant's name in the Mermaid text (an identifier).",
    "alias": "Display text (participant X as <alias>).",
    "role": "Participant type; absent or null: a plain participant.",
    "message_id": "Sequence message id.",
    "from_participant_id": "Sender participant id.",
    "to_participant_id": "Receiver participant id.",
    "kind": "seq messages: sync, async or return; seq_add_block: the block kind.",
    "text": "Message or note text (one line).",
    "order_key": _ORDER_KEY,
    "arrow": "Mermaid arrow token matching kind: "
    + " ".join(ARROW_KINDS)
    + ", optionally followed by + or - (activate / deactivate the receiver); absent: the "
    "kind's canonical arrow.",
    "note_id": "Note id.",
    "placement": "Where the note goes relative to its participants.",
    "participant_ids": "Participants the note is attached to: 1, or 1-2 for over.",
    "activation_id": "Activation id.",
    "active": "true: activate, false: deactivate.",
    "enabled": "Whether messages are numbered (autonumber).",
    "start": "First autonumber value (absent: 1).",
    "step": "Autonumber increment (absent: 1).",
    "block_id": "Sequence block id.",
    "sections": "The block's sections in order: {section_id, message_ids, note_ids?, header?}; the "
    "first is the main one, later ones else / and / option by kind.",
    "header": "Block or section header text; null clears it.",
    "parent_block_id": "Block to nest in; null: top level; absent: the innermost block "
    "holding all its messages.",
    "section_id": "Block section id.",
    "message_ids": "Member message ids of the section, in timeline order.",
    "note_ids": "Member note ids of the section.",
    "state_id": "s:<id>; [*] is start/end, start:<C>/end:<C> in s:C.",
    "descriptions": "State text lines.",
    "parent_id": "Composite to move into; null: top.",
    "region": "Region (--) in parent, from 0.",
    "notes": "[{text, side: left of|right of}]; [] clears.",
    "transition_id": "Transition id.",
}
"""Every diagram-op field, described once (docs/ops.md has the full rules)."""

WALKTHROUGH_OP_FIELDS: Final[Mapping[str, str]] = {
    "title": "Walkthrough title (set_title) or node title.",
    "node_id": "Walkthrough node id.",
    "body_md": "Node body in Markdown; update_node: null clears it.",
    "refs": "Object refs the node points at (d:<diagram>/...); update_node: null empties.",
    "tags": "Free tags; update_node: null empties.",
    "status": "Free status word of the node; update_node: null clears it.",
    "from_node_id": "Edge start node.",
    "to_node_id": "Edge end node.",
    "kind": "Edge kind (free word); with the endpoints it identifies the edge.",
    "label": "Edge label; update_edge: null clears it.",
}
"""Every walkthrough-op field, described once."""

DIAGRAM_OP_ENUMS: Final[Mapping[str, list[str]]] = {
    "shape": sorted(SHAPES - frozenset(ATTRIBUTE_SHAPES)),
    "direction": list(DIRECTIONS),
    "role": list(PARTICIPANT_ROLES),
    "kind": ["sync", "async", "return", *BLOCK_KINDS, *STATE_KINDS],
}
"""Closed value sets the op Structs hold as plain strings (the apply step checks them)."""


def _value_schema(info: mi.Type) -> dict[str, Any]:
    """A small schema of one field's type: nullable unions, strings, ints, lists, structs."""
    if isinstance(info, mi.UnionType):
        options = [t for t in info.types if not isinstance(t, mi.NoneType)]
        if len(options) == 1:
            return _value_schema(options[0])
        raise TypeError(f"op field union {info} has no compact schema")
    if isinstance(info, mi.StrType):
        return {"type": "string"}
    if isinstance(info, mi.BoolType):
        return {"type": "boolean"}
    if isinstance(info, mi.IntType):
        schema: dict[str, Any] = {"type": "integer"}
        if info.ge is not None and info.ge >= 0:
            schema["minimum"] = info.ge
        return schema
    if isinstance(info, mi.LiteralType):
        return {"type": "string", "enum": sorted(str(v) for v in info.values)}
    if isinstance(info, mi.ListType | mi.VarTupleType):
        return {"type": "array", "items": _value_schema(info.item_type)}
    if isinstance(info, mi.StructType):
        return {
            "type": "object",
            "properties": {f.encode_name: _value_schema(f.type) for f in info.fields},
            "required": [f.encode_name for f in info.fields if f.required],
        }
    raise TypeError(f"op field type {info} has no compact schema")


def _merge(name: str, known: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """One schema for a field name several ops use: string enums are united."""
    if known == new:
        return known
    kinds = {known.get("type"), new.get("type")}
    if kinds == {"string"}:
        values = sorted(set(known.get("enum", ())) | set(new.get("enum", ())))
        if "enum" in known and "enum" in new:
            return {"type": "string", "enum": values}
        return {"type": "string"}
    raise TypeError(f"op field {name!r} has incompatible types: {known} / {new}")


def ops_schema(
    union: Any,
    fields: Mapping[str, str],
    *,
    summary: str,
    enums: Mapping[str, list[str]] | None = None,
) -> dict[str, Any]:
    """The compact schema of `list[union]` (see the module docstring)."""
    members: list[mi.StructType] = []
    for member in union.__args__:
        info = mi.type_info(member)
        assert isinstance(info, mi.StructType) and info.tag is not None
        members.append(info)
    properties: dict[str, Any] = {}
    signatures: list[str] = []
    for info in members:
        names = []
        for field in info.fields:
            schema = _value_schema(field.type)
            if enums is not None and field.encode_name in enums:
                schema = {"type": "string", "enum": list(enums[field.encode_name])}
            known = properties.get(field.encode_name)
            properties[field.encode_name] = (
                schema if known is None else _merge(field.encode_name, known, schema)
            )
            names.append(field.encode_name + ("" if field.required else "?"))
        signatures.append(f"{info.tag}({', '.join(names)})")
    missing = sorted(set(properties) - set(fields))
    if missing:
        raise ValueError(f"op fields without a description: {', '.join(missing)}")
    described = {
        name: {**schema, "description": fields[name]} for name, schema in properties.items()
    }
    op_type = {
        "type": "string",
        "enum": [str(info.tag) for info in members],
        "description": "The op; its fields (? = optional): " + "; ".join(signatures) + ".",
    }
    return {
        "type": "array",
        "description": summary,
        "items": {
            "type": "object",
            "properties": {"type": op_type, **described},
            "required": ["type"],
        },
    }


def same_ops_as(tool_name: str) -> dict[str, Any]:
    """The op-array schema of a tool that takes exactly the ops `tool_name` describes."""
    return {
        "type": "array",
        "description": f"The same ops as {tool_name} takes (its schema lists every op type "
        "and field).",
        "items": {"type": "object", "properties": {"type": {"type": "string"}}},
    }


def schema_size(schema: Mapping[str, Any]) -> int:
    """Bytes of `schema` as compact JSON (what a host puts in the model's context)."""
    return len(json.dumps(schema, separators=(",", ":")))
