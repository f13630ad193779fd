"""Deltas: the net effect of a batch as sorted lists of added / removed / updated refs.

A batch records which objects it touched; the delta compares each touched object before and
after the batch (spec decision 7): present only after -> added, only before -> removed, in
both with a different value -> updated, unchanged -> nothing. So add-then-remove in one batch
reports nothing, and remove-then-re-add an equal object reports nothing too.

Diagram-level settings (flowchart direction, classDefs, default link style; sequence title,
autonumber and participant boxes; state header, direction, classDefs, accTitle/accDescr) have no ObjectRef category in the contract; they are
reported as the pseudo-object `d:<diagram>/diagram/meta` (docs/ops.md).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

import msgspec

from nereid.model import (
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
    Ast,
    FlowchartAst,
    ObjectRef,
    SequenceAst,
    StateAst,
    iter_blocks,
)

__all__ = [
    "DIAGRAM_META",
    "META_ID",
    "META_KEY",
    "Delta",
    "ObjectKey",
    "all_object_keys",
    "ast_delta",
    "net_delta",
    "object_signatures",
]

#: Category of the diagram-level settings pseudo-object; its object id is `META_ID`.
DIAGRAM_META: Final = ("diagram",)
META_ID: Final = "meta"
META_KEY: Final = (DIAGRAM_META, META_ID)

ObjectKey = tuple[tuple[str, ...], str]


class Delta(msgspec.Struct, frozen=True, kw_only=True):
    """Refs added, removed and updated by one batch; each list in canonical ref order."""

    added: tuple[ObjectRef, ...] = ()
    removed: tuple[ObjectRef, ...] = ()
    updated: tuple[ObjectRef, ...] = ()

    def is_empty(self) -> bool:
        return not (self.added or self.removed or self.updated)

    def to_json(self) -> dict[str, list[str]]:
        """The contract's `delta` object: `{added, removed, updated}` as ref strings."""
        return {
            "added": [str(r) for r in self.added],
            "removed": [str(r) for r in self.removed],
            "updated": [str(r) for r in self.updated],
        }


class _Index:
    """Lazy id -> value lookups for the parts of an AST that are not id-keyed maps."""

    def __init__(self, ast: Ast) -> None:
        self.ast = ast
        self._maps: dict[tuple[str, ...], dict[str, Any]] = {}

    def get(self, key: ObjectKey) -> Any:
        category, object_id = key
        ast = self.ast
        if isinstance(ast, FlowchartAst):
            if category == FLOW_NODE:
                return ast.nodes.get(object_id)
            if category == FLOW_EDGE:
                return ast.edges.get(object_id)
            if category == FLOW_SUBGRAPH:
                return ast.subgraphs.get(object_id)
            if key == META_KEY:
                return (ast.direction, tuple(ast.class_defs.items()), ast.default_edge_style)
            return None
        if isinstance(ast, StateAst):
            if category == STATE_STATE:
                return ast.states.get(object_id)
            if category == STATE_TRANSITION:
                return ast.transitions.get(object_id)
            if key == META_KEY:
                return (
                    ast.header,
                    ast.direction,
                    tuple(ast.class_defs.items()),
                    ast.acc_title,
                    ast.acc_descr,
                    ast.front_matter,
                    ast.directives,
                    ast.hide_empty_description,
                    ast.scale,
                )
            return None
        if category == SEQ_PARTICIPANT:
            return ast.participants.get(object_id)
        if key == META_KEY:
            return (ast.autonumber, ast.title, ast.boxes)
        table = self._maps.get(category)
        if table is None:
            table = self._maps[category] = _sequence_table(ast, category)
        return table.get(object_id)


def _sequence_table(ast: SequenceAst, category: tuple[str, ...]) -> dict[str, Any]:
    if category == SEQ_MESSAGE:
        return {m.message_id: m for m in ast.messages}
    if category == SEQ_NOTE:
        return {n.note_id: n for n in ast.notes}
    if category == SEQ_ACTIVATION:
        return {a.activation_id: a for a in ast.activations}
    if category == SEQ_BLOCK:
        # A block's own value: sections and children by id (their content is theirs).
        return {
            b.block_id: (
                b.kind,
                b.header,
                tuple(s.section_id for s in b.sections),
                tuple(c.block_id for c in b.blocks),
            )
            for b in iter_blocks(ast.blocks)
        }
    if category == SEQ_SECTION:
        return {s.section_id: s for b in iter_blocks(ast.blocks) for s in b.sections}
    return {}


def _sorted_refs(diagram_id: str, keys: Iterable[ObjectKey]) -> tuple[ObjectRef, ...]:
    refs = [ObjectRef(diagram_id=diagram_id, category=c, object_id=i) for c, i in keys]
    return tuple(sorted(refs, key=ObjectRef.sort_key))


def net_delta(diagram_id: str, before: Ast, after: Ast, touched: Iterable[ObjectKey]) -> Delta:
    """The net delta of a batch that touched `touched` (see module docstring)."""
    old, new = _Index(before), _Index(after)
    added: list[ObjectKey] = []
    removed: list[ObjectKey] = []
    updated: list[ObjectKey] = []
    for key in set(touched):
        was, now = old.get(key), new.get(key)
        if was is None and now is None:
            continue
        if was is None:
            added.append(key)
        elif now is None:
            removed.append(key)
        elif was is not now and was != now:
            updated.append(key)
    return Delta(
        added=_sorted_refs(diagram_id, added),
        removed=_sorted_refs(diagram_id, removed),
        updated=_sorted_refs(diagram_id, updated),
    )


def all_object_keys(ast: Ast) -> set[ObjectKey]:
    """Every object of an AST as (category, id), the meta pseudo-object included."""
    keys: set[ObjectKey] = {META_KEY}
    if isinstance(ast, FlowchartAst):
        keys.update((FLOW_NODE, i) for i in ast.nodes)
        keys.update((FLOW_EDGE, i) for i in ast.edges)
        keys.update((FLOW_SUBGRAPH, i) for i in ast.subgraphs)
        return keys
    if isinstance(ast, StateAst):
        keys.update((STATE_STATE, i) for i in ast.states)
        keys.update((STATE_TRANSITION, i) for i in ast.transitions)
        return keys
    keys.update((SEQ_PARTICIPANT, i) for i in ast.participants)
    for category in (SEQ_MESSAGE, SEQ_NOTE, SEQ_ACTIVATION, SEQ_BLOCK, SEQ_SECTION):
        keys.update((category, i) for i in _sequence_table(ast, category))
    return keys


def object_signatures(ast: Ast) -> dict[ObjectKey, Any]:
    """Every object's comparable value; two ASTs differ in an object iff these differ."""
    index = _Index(ast)
    return {key: index.get(key) for key in all_object_keys(ast)}


def ast_delta(diagram_id: str, before: Ast, after: Ast) -> Delta:
    """The delta between two whole ASTs (e.g. after an external edit)."""
    return net_delta(diagram_id, before, after, all_object_keys(before) | all_object_keys(after))
