"""The pure ops engine: op structs, all-or-nothing batches, deltas, revisions and diffs.

No I/O and no async: the diagram and walkthrough actors hold a `DiagramState` /
`WalkthroughState` and swap in the value `apply` returns. Every refusal is a
`nereid.errors.NereidError` (message, data; its class gives the JSON-RPC code). docs/ops.md lists the ops.
"""

from nereid.ops.apply import apply_checked, apply_ops
from nereid.ops.base import UNSET, UnsetType
from nereid.ops.decode import (
    FLOW_OPS,
    SEQ_OPS,
    STATE_OPS,
    DiagramOp,
    FlowOp,
    SeqOp,
    StateOp,
    WalkthroughOp,
    check_op_ids,
    convert_diagram_ops,
    convert_walkthrough_ops,
    decode_diagram_ops,
    decode_walkthrough_ops,
    ignored_fields,
)
from nereid.ops.delta import DIAGRAM_META, META_ID, Delta, ast_delta, object_signatures
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
from nereid.ops.history import HISTORY_LIMIT, Change, DiffResult, History, HistoryEntry
from nereid.ops.seq_ops import (
    SectionSpec,
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
from nereid.ops.state import ApplyOutcome, DiagramState, ast_digest, stat_digest
from nereid.ops.state_ops import StateRemove, StateSetState, StateSetTransition
from nereid.ops.walkthrough import (
    WalkthroughApplyOutcome,
    WalkthroughDelta,
    WalkthroughState,
    apply_walkthrough_ops,
    walkthrough_digest,
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
    "DIAGRAM_META", "FLOW_OPS", "HISTORY_LIMIT", "META_ID", "SEQ_OPS", "STATE_OPS", "UNSET", "ApplyOutcome",
    "Change", "Delta", "DiagramOp", "DiagramState", "DiffResult", "FlowAddEdge",
    "FlowAddNode", "FlowAddSubgraph", "FlowOp", "FlowRemoveClassDef", "FlowRemoveEdge",
    "FlowRemoveNode", "FlowRemoveSubgraph", "FlowSetClassDef", "FlowSetDefaultEdgeStyle",
    "FlowSetDirection", "FlowSetNodeClasses", "FlowSetNodeMermaidId", "FlowSetNodeNote",
    "FlowSetNodeStyle", "FlowSetSubgraphMembers", "FlowUpdateEdge", "FlowUpdateNode",
    "FlowUpdateSubgraph", "History", "HistoryEntry", "SectionSpec",
    "SeqAddActivation", "SeqAddBlock", "SeqAddMessage", "SeqAddNote", "SeqAddParticipant",
    "SeqAddSection", "SeqOp", "StateOp", "StateRemove", "StateSetState", "StateSetTransition", "SeqRemoveActivation", "SeqRemoveBlock", "SeqRemoveMessage",
    "SeqRemoveNote", "SeqRemoveParticipant", "SeqRemoveSection", "SeqSetAutonumber",
    "SeqSetParticipantNote", "SeqSetTitle", "SeqUpdateBlock", "SeqUpdateMessage",
    "SeqUpdateNote", "SeqUpdateParticipant", "SeqUpdateSection", "UnsetType",
    "WalkthroughAddEdge", "WalkthroughAddNode", "WalkthroughApplyOutcome", "WalkthroughDelta",
    "WalkthroughOp", "WalkthroughRemoveEdge", "WalkthroughRemoveNode", "WalkthroughSetTitle",
    "WalkthroughState", "WalkthroughUpdateEdge", "WalkthroughUpdateNode", "apply_checked",
    "apply_ops", "apply_walkthrough_ops", "ast_delta", "ast_digest", "check_op_ids",
    "convert_diagram_ops", "convert_walkthrough_ops", "decode_diagram_ops",
    "decode_walkthrough_ops", "ignored_fields", "object_signatures", "stat_digest", "walkthrough_digest",
]  # fmt: skip
