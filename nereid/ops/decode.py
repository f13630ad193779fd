"""The op unions, their decoders, and the id check the MCP boundary runs before a batch.

One module-level Decoder per union (JSON bytes); `convert_*` takes already-parsed JSON (the
MCP layer's arguments). Malformed input is refused as `invalid_params`
`failed to deserialize parameters: <msgspec's reason>` (mcp-tools.md §14.1 step 1).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

import msgspec

from nereid.model import IdError, check_id
from nereid.ops.base import DiagramOpBase, iter_object_ids
from nereid.ops.errors import OpError, invalid_object_id
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
    "WalkthroughOp",
    "check_op_ids",
    "convert_diagram_ops",
    "convert_walkthrough_ops",
    "decode_diagram_ops",
    "decode_walkthrough_ops",
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
DiagramOp = FlowOp | SeqOp
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

_DIAGRAM_DECODER: Final = msgspec.json.Decoder(list[DiagramOp])
_WALKTHROUGH_DECODER: Final = msgspec.json.Decoder(list[WalkthroughOp])


def _malformed(err: Exception) -> OpError:
    return OpError("invalid_params", f"failed to deserialize parameters: {err}")


def decode_diagram_ops(data: bytes | str) -> list[DiagramOp]:
    """Decode a JSON array of diagram ops; raise OpError for malformed input."""
    try:
        return _DIAGRAM_DECODER.decode(data)
    except msgspec.ValidationError as err:
        raise _malformed(err) from None
    except msgspec.DecodeError as err:
        raise _malformed(err) from None


def convert_diagram_ops(obj: Any) -> list[DiagramOp]:
    """Convert parsed JSON (a list of dicts) into diagram ops; raise OpError when malformed."""
    try:
        return msgspec.convert(obj, list[DiagramOp])
    except msgspec.ValidationError as err:
        raise _malformed(err) from None


def decode_walkthrough_ops(data: bytes | str) -> list[WalkthroughOp]:
    """Decode a JSON array of walkthrough ops; raise OpError for malformed input."""
    try:
        return _WALKTHROUGH_DECODER.decode(data)
    except msgspec.ValidationError as err:
        raise _malformed(err) from None
    except msgspec.DecodeError as err:
        raise _malformed(err) from None


def convert_walkthrough_ops(obj: Any) -> list[WalkthroughOp]:
    """Convert parsed JSON into walkthrough ops; raise OpError when malformed."""
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
