"""A diagram's revisioned state: AST, rev and history window, with apply / propose / diff.

An immutable value: `apply` returns a new state (the owning actor swaps it in). Order of
checks as in mcp-tools.md §14.1: ids of every op, then `base_rev`, then the ops. Decision 7:
an empty batch changes nothing and keeps `rev`; every other successful batch bumps it by 1.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

import msgspec

from nereid.errors import Conflict, InvalidParams, NereidError
from nereid.model import Ast, FlowchartAst, ObjectRef, StateAst
from nereid.ops.apply import apply_checked
from nereid.ops.decode import DiagramOp, check_op_ids
from nereid.ops.delta import Delta, ast_delta
from nereid.ops.history import DiffResult, History, HistoryEntry, bump

__all__ = ["ApplyOutcome", "DiagramState", "ast_digest", "conflict", "stat_digest"]


def _ref_parts(value: object) -> dict[str, object]:
    """A walkthrough's ref as the object its digest has always hashed (the hash is unchanged
    since refs became their text on the wire)."""
    if isinstance(value, ObjectRef):
        return {
            "diagram_id": value.diagram_id,
            "category": value.category,
            "object_id": value.object_id,
        }
    raise NotImplementedError(f"Encoding objects of type {type(value).__name__} is unsupported")


_ENCODER = msgspec.json.Encoder(enc_hook=_ref_parts)


def ast_digest(value: msgspec.Struct) -> str:
    """A short content hash (16 hex chars of blake2b over the msgspec JSON encoding)."""
    return hashlib.blake2b(_ENCODER.encode(value), digest_size=8).hexdigest()


def stat_digest(ast: Ast, rev: int) -> dict[str, Any]:
    """The `diagram.stat` payload without context: `{rev, counts, key_names}` (§13.1)."""
    if isinstance(ast, FlowchartAst):
        counts = {
            "participants": 0,
            "messages": 0,
            "nodes": len(ast.nodes),
            "edges": len(ast.edges),
        }
        key_names = [ast.nodes[i].label for i in sorted(ast.nodes)]
    elif isinstance(ast, StateAst):
        # A state diagram's states and transitions count as nodes and edges.
        counts = {
            "participants": 0,
            "messages": 0,
            "nodes": len(ast.states),
            "edges": len(ast.transitions),
        }
        key_names = [
            state.label or state_id[2:] if state.kind == "state" else state_id
            for state_id, state in sorted(ast.states.items())
        ]
    else:
        counts = {
            "participants": len(ast.participants),
            "messages": len(ast.messages),
            "nodes": 0,
            "edges": 0,
        }
        key_names = [p.alias or p.mermaid_name for _, p in sorted(ast.participants.items())]
    return {"rev": rev, "counts": counts, "key_names": key_names}


def conflict(
    base_rev: int, current_rev: int, snapshot_tool: str, digest: dict[str, Any], content: str
) -> NereidError:
    """`conflict: stale base_rev` with what a client needs to rebase.

    Data: `{base_rev, current_rev, snapshot_tool, digest, ast_digest}`; `ast_digest` (a
    content hash) is our addition, the rest is the contract's.
    """
    return Conflict(
        "conflict: stale base_rev",
        {
            "base_rev": base_rev,
            "current_rev": current_rev,
            "snapshot_tool": snapshot_tool,
            "digest": digest,
            "ast_digest": content,
        },
    )


class ApplyOutcome(msgspec.Struct, frozen=True, kw_only=True):
    """What apply (or propose) reports: the contract's `{new_rev, applied, delta}` + the AST."""

    new_rev: int
    applied: int
    delta: Delta
    ast: Ast

    def to_json(self) -> dict[str, Any]:
        return {"new_rev": self.new_rev, "applied": self.applied, "delta": self.delta.to_json()}


class DiagramState(msgspec.Struct, frozen=True, kw_only=True):
    """One diagram's AST at revision `rev`, with the deltas of its recent revisions."""

    diagram_id: str
    ast: Ast
    rev: int = 0
    history: History = msgspec.field(default_factory=History)

    def digest(self) -> dict[str, Any]:
        return stat_digest(self.ast, self.rev)

    def propose(self, base_rev: int, ops: Sequence[DiagramOp]) -> ApplyOutcome:
        """What `apply` would do, without committing anything. Raises NereidError."""
        check_op_ids(ops)
        if base_rev != self.rev:
            raise conflict(base_rev, self.rev, "diagram.stat", self.digest(), ast_digest(self.ast))
        new_ast, delta = apply_checked(self.ast, ops, diagram_id=self.diagram_id)
        new_rev = bump(self.rev) if ops else self.rev
        return ApplyOutcome(new_rev=new_rev, applied=len(ops), delta=delta, ast=new_ast)

    def apply(self, base_rev: int, ops: Sequence[DiagramOp]) -> tuple[DiagramState, ApplyOutcome]:
        """Apply a batch; return the new state and the outcome. Raises NereidError (no change)."""
        outcome = self.propose(base_rev, ops)
        if not ops:
            return self, outcome
        return self._commit(outcome.ast, outcome.new_rev, outcome.delta), outcome

    def replace_ast(self, ast: Ast) -> tuple[DiagramState, Delta]:
        """Take a whole new AST (an external edit); bump `rev` only if something changed."""
        if type(ast) is not type(self.ast):
            raise InvalidParams(
                "op kind mismatch for diagram kind",
                {"diagram_kind": _kind_name(self.ast), "op_kind": _kind_name(ast)},
            )
        if ast == self.ast:
            return self, Delta()
        delta = ast_delta(self.diagram_id, self.ast, ast)
        return self._commit(ast, bump(self.rev), delta), delta

    def diff(self, since_rev: int) -> DiffResult:
        """Changes since `since_rev` (mcp-tools.md §17.3). Raises NereidError."""
        return self.history.diff(since_rev, self.rev, "diagram.read")

    def _commit(self, ast: Ast, new_rev: int, delta: Delta) -> DiagramState:
        entry = HistoryEntry(
            from_rev=self.rev,
            to_rev=new_rev,
            added=tuple(str(r) for r in delta.added),
            removed=tuple(str(r) for r in delta.removed),
            updated=tuple(str(r) for r in delta.updated),
        )
        return msgspec.structs.replace(self, ast=ast, rev=new_rev, history=self.history.push(entry))


def _kind_name(ast: Ast) -> str:
    if isinstance(ast, FlowchartAst):
        return "Flowchart"
    return "State" if isinstance(ast, StateAst) else "Sequence"
