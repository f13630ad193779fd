"""A diagram: id, display name, kind, AST and revision (model.md §4), plus ref resolution."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Literal

import msgspec

from nereid.model.flowchart import FlowchartAst
from nereid.model.refs import (
    FLOW_EDGE,
    FLOW_NODE,
    FLOW_SUBGRAPH,
    SEQ_ACTIVATION,
    SEQ_BLOCK,
    SEQ_MESSAGE,
    SEQ_NOTE,
    SEQ_PARTICIPANT,
    SEQ_SECTION,
    STATE_STATE,
    STATE_TRANSITION,
    ObjectRef,
)
from nereid.model.sequence import SeqBlock, SequenceAst
from nereid.model.state import StateAst

__all__ = [
    "Ast",
    "Diagram",
    "DiagramKind",
    "ast_kind",
    "empty_ast",
    "iter_blocks",
    "object_exists",
    "object_ids",
    "ref_exists",
]

DiagramKind = Literal["flowchart", "sequence", "state"]
Ast = FlowchartAst | SequenceAst | StateAst


class Diagram(msgspec.Struct, frozen=True, kw_only=True):
    diagram_id: str
    name: str
    kind: DiagramKind
    ast: Ast
    rev: int = 0


def ast_kind(ast: Ast) -> DiagramKind:
    if isinstance(ast, FlowchartAst):
        return "flowchart"
    return "state" if isinstance(ast, StateAst) else "sequence"


def empty_ast(kind: DiagramKind) -> Ast:
    """A diagram of `kind` with nothing in it (a listed diagram whose file did not load)."""
    if kind == "sequence":
        return SequenceAst()
    return StateAst() if kind == "state" else FlowchartAst()


def iter_blocks(blocks: tuple[SeqBlock, ...]) -> Iterator[SeqBlock]:
    """Every block of a tree, pre-order (document order of the opening lines)."""
    for block in blocks:
        yield block
        yield from iter_blocks(block.blocks)


def object_ids(ast: Ast, category: tuple[str, ...]) -> set[str]:
    """The ids of every object of one category in an AST (empty for foreign categories)."""
    if isinstance(ast, FlowchartAst):
        if category == FLOW_NODE:
            return set(ast.nodes)
        if category == FLOW_EDGE:
            return set(ast.edges)
        if category == FLOW_SUBGRAPH:
            return set(ast.subgraphs)
        return set()
    if isinstance(ast, StateAst):
        if category == STATE_STATE:
            return set(ast.states)
        if category == STATE_TRANSITION:
            return set(ast.transitions)
        return set()
    if category == SEQ_PARTICIPANT:
        return set(ast.participants)
    if category == SEQ_MESSAGE:
        return {m.message_id for m in ast.messages}
    if category == SEQ_NOTE:
        return {n.note_id for n in ast.notes}
    if category == SEQ_ACTIVATION:
        return {a.activation_id for a in ast.activations}
    if category == SEQ_BLOCK:
        return {b.block_id for b in iter_blocks(ast.blocks)}
    if category == SEQ_SECTION:
        return {s.section_id for b in iter_blocks(ast.blocks) for s in b.sections}
    return set()


def object_exists(diagram: Diagram, ref: ObjectRef) -> bool:
    """The existence rule of model.md §3.4 for one diagram (the caller matched the diagram id)."""
    if ref.diagram_id != diagram.diagram_id:
        return False
    ast = diagram.ast
    if isinstance(ast, FlowchartAst):
        if ref.category == FLOW_NODE:
            return ref.object_id in ast.nodes
        if ref.category == FLOW_EDGE:
            return ref.object_id in ast.edges
        if ref.category == FLOW_SUBGRAPH:
            return ref.object_id in ast.subgraphs
        return False
    if isinstance(ast, StateAst):
        if ref.category == STATE_STATE:
            return ref.object_id in ast.states
        if ref.category == STATE_TRANSITION:
            return ref.object_id in ast.transitions
        return False
    if ref.category == SEQ_PARTICIPANT:
        return ref.object_id in ast.participants
    return ref.object_id in object_ids(ast, ref.category)


def ref_exists(diagrams: Mapping[str, Diagram], ref: ObjectRef) -> bool:
    """The existence rule (model.md §3.4): the diagram exists and holds that object."""
    diagram = diagrams.get(ref.diagram_id)
    return diagram is not None and object_exists(diagram, ref)
