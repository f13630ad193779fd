"""The op unions, their decoders, and the id check the MCP boundary runs before a batch.

One module-level Decoder per union (JSON bytes); `convert_*` takes already-parsed JSON (the
MCP layer's arguments). Malformed input is refused as `invalid_params`
`failed to deserialize parameters: <msgspec's reason>` (mcp-tools.md §14.1 step 1).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from typing import Any, Final

import msgspec
from msgspec import inspect as mi

from nereid.errors import InvalidParams, NereidError
from nereid.model import IdError, check_id
from nereid.ops.base import DiagramOpBase, iter_object_ids
from nereid.ops.errors import invalid_object_id
from nereid.ops.flow_ops import (
    FlowAddEdge,
    FlowAddNode,
    FlowAddSubgraph,
    FlowRemoveClassDef,
    FlowRemoveEdge,
    FlowRemoveNode,
    FlowRemoveSubgraph,
    FlowSetClassDef,
    FlowSetDefaultEdgeStyle,
    FlowSetDirection,
    FlowSetNodeClasses,
    FlowSetNodeMermaidId,
    FlowSetNodeNote,
    FlowSetNodeStyle,
    FlowSetSubgraphMembers,
    FlowUpdateEdge,
    FlowUpdateNode,
    FlowUpdateSubgraph,
)
from nereid.ops.seq_ops import (
    SeqAddActivation,
    SeqAddBlock,
    SeqAddMessage,
    SeqAddNote,
    SeqAddParticipant,
    SeqAddSection,
    SeqRemoveActivation,
    SeqRemoveBlock,
    SeqRemoveMessage,
    SeqRemoveNote,
    SeqRemoveParticipant,
    SeqRemoveSection,
    SeqSetAutonumber,
    SeqSetParticipantNote,
    SeqSetTitle,
    SeqUpdateBlock,
    SeqUpdateMessage,
    SeqUpdateNote,
    SeqUpdateParticipant,
    SeqUpdateSection,
)
from nereid.ops.state_ops import StateRemove, StateSetState, StateSetTransition
from nereid.ops.walkthrough_ops import (
    WalkthroughAddEdge,
    WalkthroughAddNode,
    WalkthroughRemoveEdge,
    WalkthroughRemoveNode,
    WalkthroughSetTitle,
    WalkthroughUpdateEdge,
    WalkthroughUpdateNode,
)

__all__ = [
    "DiagramOp",
    "FLOW_OPS",
    "FlowOp",
    "SEQ_OPS",
    "SeqOp",
    "STATE_OPS",
    "StateOp",
    "WalkthroughOp",
    "check_op_ids",
    "convert_diagram_ops",
    "convert_walkthrough_ops",
    "decode_diagram_ops",
    "decode_walkthrough_ops",
    "ignored_fields",
]

FlowOp = (
    FlowAddNode
    | FlowUpdateNode
    | FlowSetNodeMermaidId
    | FlowSetNodeNote
    | FlowRemoveNode
    | FlowAddEdge
    | FlowUpdateEdge
    | FlowRemoveEdge
    | FlowSetDirection
    | FlowAddSubgraph
    | FlowUpdateSubgraph
    | FlowSetSubgraphMembers
    | FlowRemoveSubgraph
    | FlowSetNodeClasses
    | FlowSetNodeStyle
    | FlowSetClassDef
    | FlowRemoveClassDef
    | FlowSetDefaultEdgeStyle
)
SeqOp = (
    SeqAddParticipant
    | SeqUpdateParticipant
    | SeqSetParticipantNote
    | SeqRemoveParticipant
    | SeqAddMessage
    | SeqUpdateMessage
    | SeqRemoveMessage
    | SeqAddNote
    | SeqUpdateNote
    | SeqRemoveNote
    | SeqAddActivation
    | SeqRemoveActivation
    | SeqSetAutonumber
    | SeqSetTitle
    | SeqAddBlock
    | SeqUpdateBlock
    | SeqRemoveBlock
    | SeqAddSection
    | SeqUpdateSection
    | SeqRemoveSection
)
StateOp = StateSetState | StateSetTransition | StateRemove
DiagramOp = FlowOp | SeqOp | StateOp
WalkthroughOp = (
    WalkthroughSetTitle
    | WalkthroughAddNode
    | WalkthroughUpdateNode
    | WalkthroughRemoveNode
    | WalkthroughAddEdge
    | WalkthroughUpdateEdge
    | WalkthroughRemoveEdge
)

#: Op classes by family (for docs, schemas and kind checks).
FLOW_OPS: Final[tuple[type[DiagramOpBase], ...]] = FlowOp.__args__
SEQ_OPS: Final[tuple[type[DiagramOpBase], ...]] = SeqOp.__args__
STATE_OPS: Final[tuple[type[DiagramOpBase], ...]] = StateOp.__args__

_DIAGRAM_DECODER: Final = msgspec.json.Decoder(list[DiagramOp])
_WALKTHROUGH_DECODER: Final = msgspec.json.Decoder(list[WalkthroughOp])


def _malformed(err: Exception) -> NereidError:
    return InvalidParams(f"failed to deserialize parameters: {err}")


def decode_diagram_ops(data: bytes | str) -> list[DiagramOp]:
    """Decode a JSON array of diagram ops; raise NereidError for malformed input."""
    try:
        return _DIAGRAM_DECODER.decode(data)
    except msgspec.ValidationError as err:
        raise _malformed(err) from None
    except msgspec.DecodeError as err:
        raise _malformed(err) from None


def convert_diagram_ops(obj: Any) -> list[DiagramOp]:
    """Convert parsed JSON (a list of dicts) into diagram ops; raise NereidError when malformed."""
    try:
        return msgspec.convert(obj, list[DiagramOp])
    except msgspec.ValidationError as err:
        raise _malformed(err) from None


def decode_walkthrough_ops(data: bytes | str) -> list[WalkthroughOp]:
    """Decode a JSON array of walkthrough ops; raise NereidError for malformed input."""
    try:
        return _WALKTHROUGH_DECODER.decode(data)
    except msgspec.ValidationError as err:
        raise _malformed(err) from None
    except msgspec.DecodeError as err:
        raise _malformed(err) from None


def convert_walkthrough_ops(obj: Any) -> list[WalkthroughOp]:
    """Convert parsed JSON into walkthrough ops; raise NereidError when malformed."""
    try:
        return msgspec.convert(obj, list[WalkthroughOp])
    except msgspec.ValidationError as err:
        raise _malformed(err) from None


def check_op_ids(ops: Iterable[DiagramOp]) -> None:
    """Validate every object id of every op with the generic id rule (ops.md §6.3).

    Raises `invalid object id: <reason>` for the first bad id, before anything else runs.
    """
    for op in ops:
        for object_id in iter_object_ids(op):
            try:
                check_id(object_id)
            except IdError as err:
                raise invalid_object_id(object_id, err.message) from None


def ignored_fields(raw_ops: Any, union: Any, *, path: str = "ops") -> list[str]:
    """The keys of `raw_ops` (parsed JSON, before decoding) that no op of `union` has.

    Decoding ignores them (decision 22); this names each one by its path, e.g.
    `ops[2].colour` or `ops[0].sections[1].hedaer`, in document order. Values that do not
    decode at all are not looked into (decoding refuses them anyway).
    """
    found: list[str] = []
    _unknown(raw_ops, _list_info(union), path, found)
    return found


@cache
def _list_info(union: Any) -> mi.Type:
    return mi.type_info(list[union])


_SEQUENCES: Final = (mi.ListType, mi.VarTupleType)


def _unknown(value: Any, info: mi.Type, path: str, found: list[str]) -> None:
    """Append to `found` the paths of `value`'s keys that `info` has no field for."""
    if isinstance(value, list):
        if isinstance(info, _SEQUENCES):
            for index, item in enumerate(value):
                _unknown(item, info.item_type, f"{path}[{index}]", found)
        return
    if not isinstance(value, dict):
        return  # a scalar holds no keys
    if isinstance(info, mi.UnionType):
        struct = _struct_for(value, info)
        if struct is None:
            return
        info = struct
    if isinstance(info, mi.StructType):
        known = _fields_of(info)
        for key, item in value.items():
            if key == info.tag_field:
                continue
            field = known.get(key)
            if field is None:
                found.append(f"{path}.{key}")
            elif isinstance(item, list | dict):
                _unknown(item, field.type, f"{path}.{key}", found)


_Members = tuple[
    mi.UnionType, dict[str, dict[Any, tuple[int, mi.StructType]]], mi.StructType | None
]
_unions: dict[int, _Members] = {}
_structs: dict[int, tuple[mi.StructType, dict[str, mi.Field]]] = {}


def _fields_of(info: mi.StructType) -> dict[str, mi.Field]:
    """A Struct's fields by encoded name (made once per type: asked for every op)."""
    held = _structs.get(id(info))
    if held is None or held[0] is not info:
        held = _structs[id(info)] = (info, {f.encode_name: f for f in info.fields})
    return held[1]


def _struct_for(value: dict[str, Any], info: mi.UnionType) -> mi.StructType | None:
    """The union member a JSON object decodes as: the first whose tag it has, else the
    only untagged Struct member (the members by tag are found once per union)."""
    held = _unions.get(id(info))
    if held is None or held[0] is not info:
        structs = [t for t in info.types if isinstance(t, mi.StructType)]
        by_tag: dict[str, dict[Any, tuple[int, mi.StructType]]] = {}
        for index, struct in enumerate(structs):
            if struct.tag_field is not None:
                by_tag.setdefault(struct.tag_field, {}).setdefault(struct.tag, (index, struct))
        untagged = [t for t in structs if t.tag_field is None]
        held = _unions[id(info)] = (info, by_tag, untagged[0] if len(untagged) == 1 else None)
    _, by_tag, fallback = held
    best: tuple[int, mi.StructType] | None = None
    for field, members in by_tag.items():
        if field not in value:
            continue
        try:
            found = members.get(value[field])
        except TypeError:  # an unhashable value (a list, an object) is no member's tag
            continue
        if found is not None and (best is None or found[0] < best[0]):
            best = found
    return fallback if best is None else best[1]
