"""`apply_ops`: run one batch of diagram ops on an AST, all-or-nothing (ops.md §3).

Pure: the input AST is never mutated (drafts copy the maps they change); the first failing
op raises NereidError and nothing of the batch survives.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final, Protocol

from nereid.model import Ast, FlowchartAst, SequenceAst, StateAst
from nereid.ops.apply_flow import FlowDraft
from nereid.ops.apply_seq import SeqDraft
from nereid.ops.apply_state import SHARED_FLOW_OPS, StateDraft
from nereid.ops.base import DiagramOpBase
from nereid.ops.decode import (
    FLOW_OPS,
    SEQ_OPS,
    STATE_OPS,
    DiagramOp,
    check_op_ids,
)
from nereid.ops.delta import Delta, ObjectKey, net_delta
from nereid.ops.errors import kind_mismatch

__all__ = ["apply_checked", "apply_ops"]


def apply_ops(ast: Ast, ops: Sequence[DiagramOp], *, diagram_id: str) -> tuple[Ast, Delta]:
    """Apply `ops` in order to `ast`; return the new AST and the batch's net delta.

    Validates every op's ids first, then runs the ops; raises NereidError on the first failure.
    An empty batch returns `ast` itself and an empty delta.
    """
    check_op_ids(ops)
    return apply_checked(ast, ops, diagram_id=diagram_id)


class _Draft(Protocol):
    """What every kind's draft offers: ops in, the finished AST and the touched keys out."""

    touched: set[ObjectKey]

    def apply(self, op: Any) -> None: ...

    def finish(self) -> Ast: ...


#: Per AST type: its draft, the op types it takes, and its name in a kind-mismatch error.
_KINDS: Final[dict[type, tuple[Callable[[Any], _Draft], tuple[type[DiagramOpBase], ...], str]]] = {
    FlowchartAst: (FlowDraft, FLOW_OPS, "Flowchart"),
    StateAst: (StateDraft, (*STATE_OPS, *SHARED_FLOW_OPS), "State"),
    SequenceAst: (SeqDraft, SEQ_OPS, "Sequence"),
}


def apply_checked(ast: Ast, ops: Sequence[DiagramOp], *, diagram_id: str) -> tuple[Ast, Delta]:
    """`apply_ops` without the up-front id check (the caller ran `check_op_ids`)."""
    if not ops:
        return ast, Delta()
    make, accepted, kind = _KINDS[type(ast)]
    draft = make(ast)
    for op in ops:
        if not isinstance(op, accepted):
            raise kind_mismatch(kind, _family(op))
        draft.apply(op)
    new = draft.finish()
    return new, net_delta(diagram_id, ast, new, draft.touched)


def _family(op: DiagramOp) -> str:
    """`Flow`, `Seq` or `State`: the op family named in a kind-mismatch error."""
    if isinstance(op, FLOW_OPS):
        return "Flow"
    return "State" if isinstance(op, STATE_OPS) else "Seq"
