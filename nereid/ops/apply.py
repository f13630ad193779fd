"""`apply_ops`: run one batch of diagram ops on an AST, all-or-nothing (ops.md §3).

Pure: the input AST is never mutated (drafts copy the maps they change); the first failing
op raises NereidError and nothing of the batch survives.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from nereid.model import Ast, FlowchartAst, StateAst
from nereid.ops.apply_flow import FlowDraft
from nereid.ops.apply_seq import SeqDraft
from nereid.ops.apply_state import SHARED_FLOW_OPS, StateDraft
from nereid.ops.decode import (
    FLOW_OPS,
    SEQ_OPS,
    STATE_OPS,
    DiagramOp,
    FlowOp,
    SeqOp,
    StateOp,
    check_op_ids,
)
from nereid.ops.delta import Delta, net_delta
from nereid.ops.errors import kind_mismatch

__all__ = ["apply_checked", "apply_ops"]


def apply_ops(ast: Ast, ops: Sequence[DiagramOp], *, diagram_id: str) -> tuple[Ast, Delta]:
    """Apply `ops` in order to `ast`; return the new AST and the batch's net delta.

    Validates every op's ids first, then runs the ops; raises NereidError on the first failure.
    An empty batch returns `ast` itself and an empty delta.
    """
    check_op_ids(ops)
    return apply_checked(ast, ops, diagram_id=diagram_id)


def apply_checked(ast: Ast, ops: Sequence[DiagramOp], *, diagram_id: str) -> tuple[Ast, Delta]:
    """`apply_ops` without the up-front id check (the caller ran `check_op_ids`)."""
    if not ops:
        return ast, Delta()
    new: Ast
    if isinstance(ast, FlowchartAst):
        flow = FlowDraft(ast)
        for op in ops:
            if not isinstance(op, FLOW_OPS):
                raise kind_mismatch("Flowchart", _family(op))
            flow.apply(cast(FlowOp, op))
        new = flow.finish()
        touched = flow.touched
    elif isinstance(ast, StateAst):
        draft = StateDraft(ast)
        for op in ops:
            if isinstance(op, SHARED_FLOW_OPS):
                draft.apply(op)
                continue
            if not isinstance(op, STATE_OPS):
                raise kind_mismatch("State", _family(op))
            draft.apply(cast(StateOp, op))
        new = draft.finish()
        touched = draft.touched
    else:
        seq = SeqDraft(ast)
        for op in ops:
            if not isinstance(op, SEQ_OPS):
                raise kind_mismatch("Sequence", _family(op))
            seq.apply(cast(SeqOp, op))
        new = seq.finish()
        touched = seq.touched
    return new, net_delta(diagram_id, ast, new, touched)


def _family(op: DiagramOp) -> str:
    """`Flow`, `Seq` or `State`: the op family named in a kind-mismatch error."""
    if isinstance(op, FLOW_OPS):
        return "Flow"
    return "State" if isinstance(op, STATE_OPS) else "Seq"
