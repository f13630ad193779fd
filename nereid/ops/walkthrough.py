"""Walkthrough ops (ops.md §12-13, mcp-tools.md §8.6, §16): apply, deltas, history, diff.

Checks run inside the loop, op by op, in the contract's order. Deltas are the net effect of
the batch (spec decision 7), over the pseudo-refs `w:<id>/meta`, `w:<id>/node/<node>` and
`w:<id>/edge/<from>/<to>/<kind>` (model.md §3.5), in string order.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, assert_never

import msgspec

from nereid.errors import InvalidParams, NereidError, ResourceNotFound
from nereid.model import (
    IdError,
    ObjectRef,
    ObjectRefError,
    Walkthrough,
    WalkthroughEdge,
    WalkthroughNode,
    check_id,
    parse_ref,
)
from nereid.ops.base import UNSET, given
from nereid.ops.decode import WalkthroughOp
from nereid.ops.history import DiffResult, History, HistoryEntry, bump
from nereid.ops.state import ast_digest, conflict
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
    "WalkthroughApplyOutcome",
    "WalkthroughDelta",
    "WalkthroughState",
    "apply_walkthrough_ops",
    "walkthrough_digest",
]

replace = msgspec.structs.replace
EdgeKey = tuple[str, str, str]
_Key = tuple[str, ...]  # ("meta",), ("node", id) or ("edge", from, to, kind)


class WalkthroughDelta(msgspec.Struct, frozen=True, kw_only=True):
    """Pseudo-refs added, removed and updated by one batch, each list in string order."""

    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    updated: tuple[str, ...] = ()

    def is_empty(self) -> bool:
        return not (self.added or self.removed or self.updated)

    def to_json(self) -> dict[str, list[str]]:
        return {
            "added": list(self.added),
            "removed": list(self.removed),
            "updated": list(self.updated),
        }


def _node_id_error(node_id: str) -> NereidError | None:
    try:
        check_id(node_id)
    except IdError as err:
        return InvalidParams(f"invalid node_id: {err.message}", {"node_id": node_id})
    return None


def _check_node_id(node_id: str) -> None:
    error = _node_id_error(node_id)
    if error is not None:
        raise error


def _parse_refs(refs: tuple[str, ...]) -> tuple[ObjectRef, ...]:
    parsed = []
    for text in refs:
        try:
            parsed.append(parse_ref(text))
        except ObjectRefError as err:
            raise InvalidParams(
                f"invalid object_ref: {err.message}", {"object_ref": text}
            ) from None
    return tuple(parsed)


class _Draft:
    def __init__(self, walkthrough: Walkthrough) -> None:
        self.base = walkthrough
        self.wid = walkthrough.walkthrough_id
        self.title = walkthrough.title
        self.nodes = {n.node_id: n for n in walkthrough.nodes}
        self.edges: dict[EdgeKey, WalkthroughEdge] = {
            (e.from_node_id, e.to_node_id, e.kind): e for e in walkthrough.edges
        }
        self.touched: set[_Key] = set()

    def finish(self) -> Walkthrough:
        return replace(
            self.base,
            title=self.title,
            nodes=tuple(self.nodes.values()),
            edges=tuple(self.edges.values()),
        )

    def _node(self, node_id: str) -> WalkthroughNode:
        _check_node_id(node_id)
        node = self.nodes.get(node_id)
        if node is None:
            raise ResourceNotFound(
                "walkthrough node not found",
                {"walkthrough_id": self.wid, "node_id": node_id},
            )
        return node

    def _edge_key(self, from_id: str, to_id: str, kind: str) -> EdgeKey:
        if kind == "" or "/" in kind:
            raise InvalidParams(
                "invalid edge kind (must be non-empty and not contain '/')",
                {"kind": kind},
            )
        _check_node_id(from_id)
        _check_node_id(to_id)
        return (from_id, to_id, kind)

    def _edge_data(self, key: EdgeKey) -> dict[str, Any]:
        return {
            "walkthrough_id": self.wid,
            "from_node_id": key[0],
            "to_node_id": key[1],
            "kind": key[2],
        }

    def _existing_edge(self, key: EdgeKey) -> WalkthroughEdge:
        edge = self.edges.get(key)
        if edge is None:
            raise ResourceNotFound("walkthrough edge not found", self._edge_data(key))
        return edge

    def apply(self, op: WalkthroughOp) -> None:
        match op:
            case WalkthroughSetTitle():
                self.title = op.title
                self.touched.add(("meta",))
            case WalkthroughAddNode():
                _check_node_id(op.node_id)
                if op.node_id in self.nodes:
                    raise InvalidParams(
                        "node_id already exists",
                        {"walkthrough_id": self.wid, "node_id": op.node_id},
                    )
                self.nodes[op.node_id] = WalkthroughNode(
                    node_id=op.node_id,
                    title=op.title,
                    body_md=op.body_md,
                    refs=_parse_refs(op.refs or ()),
                    tags=op.tags or (),
                    status=op.status,
                )
                self.touched.add(("node", op.node_id))
            case WalkthroughUpdateNode():
                node = self._node(op.node_id)
                if given(op.title):
                    node = replace(node, title=op.title)
                if op.body_md is not UNSET:
                    node = replace(node, body_md=op.body_md)
                if op.refs is not UNSET:
                    node = replace(node, refs=_parse_refs(op.refs or ()))
                if op.tags is not UNSET:
                    node = replace(node, tags=op.tags or ())
                if op.status is not UNSET:
                    node = replace(node, status=op.status)
                self.nodes[op.node_id] = node
                self.touched.add(("node", op.node_id))
            case WalkthroughRemoveNode():
                self._node(op.node_id)
                for key, edge in list(self.edges.items()):
                    if op.node_id in (edge.from_node_id, edge.to_node_id):
                        del self.edges[key]
                        self.touched.add(("edge", *key))
                del self.nodes[op.node_id]
                self.touched.add(("node", op.node_id))
            case WalkthroughAddEdge():
                key = self._edge_key(op.from_node_id, op.to_node_id, op.kind)
                self._node(op.from_node_id)
                self._node(op.to_node_id)
                if key in self.edges:
                    raise InvalidParams("edge already exists", self._edge_data(key))
                self.edges[key] = WalkthroughEdge(
                    from_node_id=key[0], to_node_id=key[1], kind=key[2], label=op.label
                )
                self.touched.add(("edge", *key))
            case WalkthroughUpdateEdge():
                key = self._edge_key(op.from_node_id, op.to_node_id, op.kind)
                edge = self._existing_edge(key)
                if op.label is not UNSET:
                    self.edges[key] = replace(edge, label=op.label)
                self.touched.add(("edge", *key))
            case WalkthroughRemoveEdge():
                key = self._edge_key(op.from_node_id, op.to_node_id, op.kind)
                self._existing_edge(key)
                del self.edges[key]
                self.touched.add(("edge", *key))
            case _:
                assert_never(op)


def _lookup(walkthrough: Walkthrough, key: _Key) -> object:
    if key[0] == "meta":
        return walkthrough.title
    if key[0] == "node":
        return next((n for n in walkthrough.nodes if n.node_id == key[1]), None)
    return next(
        (e for e in walkthrough.edges if (e.from_node_id, e.to_node_id, e.kind) == key[1:]), None
    )


def _pseudo_ref(wid: str, key: _Key) -> str:
    return "/".join((f"w:{wid}", *key))


def walkthrough_delta(
    before: Walkthrough, after: Walkthrough, touched: set[_Key]
) -> WalkthroughDelta:
    """Net delta over the touched keys (present only after: added, only before: removed,
    changed: updated)."""
    added, removed, updated = [], [], []
    for key in touched:
        was, now = _lookup(before, key), _lookup(after, key)
        ref = _pseudo_ref(before.walkthrough_id, key)
        if key == ("meta",):
            if was != now:
                updated.append(ref)
        elif was is None and now is not None:
            added.append(ref)
        elif now is None and was is not None:
            removed.append(ref)
        elif was is not None and was != now:
            updated.append(ref)
    return WalkthroughDelta(
        added=tuple(sorted(added)), removed=tuple(sorted(removed)), updated=tuple(sorted(updated))
    )


def apply_walkthrough_ops(
    walkthrough: Walkthrough, ops: Sequence[WalkthroughOp]
) -> tuple[Walkthrough, WalkthroughDelta]:
    """Apply `ops` in order, all-or-nothing; the result keeps the input's `rev`.

    Raises NereidError on the first failing op; the input is never changed.
    """
    if not ops:
        return walkthrough, WalkthroughDelta()
    draft = _Draft(walkthrough)
    for op in ops:
        draft.apply(op)
    new = draft.finish()
    return new, walkthrough_delta(walkthrough, new, draft.touched)


def walkthrough_digest(walkthrough: Walkthrough) -> dict[str, Any]:
    """The `walkthrough.stat` digest: `{rev, counts: {nodes, edges}}`."""
    return {
        "rev": walkthrough.rev,
        "counts": {"nodes": len(walkthrough.nodes), "edges": len(walkthrough.edges)},
    }


class WalkthroughApplyOutcome(msgspec.Struct, frozen=True, kw_only=True):
    new_rev: int
    applied: int
    delta: WalkthroughDelta
    walkthrough: Walkthrough

    def to_json(self) -> dict[str, Any]:
        return {"new_rev": self.new_rev, "applied": self.applied, "delta": self.delta.to_json()}


class WalkthroughState(msgspec.Struct, frozen=True, kw_only=True):
    """A walkthrough (its `rev` is the state's revision) with its history window."""

    walkthrough: Walkthrough
    history: History = msgspec.field(default_factory=History)

    @property
    def rev(self) -> int:
        return self.walkthrough.rev

    def propose(self, base_rev: int, ops: Sequence[WalkthroughOp]) -> WalkthroughApplyOutcome:
        """What `apply` would do, without committing. Raises NereidError."""
        if base_rev != self.rev:
            raise conflict(
                base_rev,
                self.rev,
                "walkthrough.stat",
                walkthrough_digest(self.walkthrough),
                ast_digest(self.walkthrough),
            )
        new, delta = apply_walkthrough_ops(self.walkthrough, ops)
        new_rev = bump(self.rev) if ops else self.rev
        return WalkthroughApplyOutcome(
            new_rev=new_rev, applied=len(ops), delta=delta, walkthrough=replace(new, rev=new_rev)
        )

    def apply(
        self, base_rev: int, ops: Sequence[WalkthroughOp]
    ) -> tuple[WalkthroughState, WalkthroughApplyOutcome]:
        """Apply a batch (all-or-nothing); an empty batch changes nothing. Raises NereidError."""
        outcome = self.propose(base_rev, ops)
        if not ops:
            return self, outcome
        entry = HistoryEntry(
            from_rev=self.rev,
            to_rev=outcome.new_rev,
            added=outcome.delta.added,
            removed=outcome.delta.removed,
            updated=outcome.delta.updated,
        )
        state = WalkthroughState(walkthrough=outcome.walkthrough, history=self.history.push(entry))
        return state, outcome

    def replace(self, walkthrough: Walkthrough) -> tuple[WalkthroughState, WalkthroughDelta]:
        """Take a whole new content (an external edit of its file; id and rev are ours);
        bump `rev` only if something changed."""
        current = self.walkthrough
        incoming = msgspec.structs.replace(
            walkthrough, walkthrough_id=current.walkthrough_id, rev=current.rev
        )
        if incoming == current:
            return self, WalkthroughDelta()
        touched: set[_Key] = {("meta",)}
        for version in (current, incoming):
            touched |= {("node", n.node_id) for n in version.nodes}
            touched |= {("edge", e.from_node_id, e.to_node_id, e.kind) for e in version.edges}
        after = msgspec.structs.replace(incoming, rev=bump(self.rev))
        delta = walkthrough_delta(current, after, touched)
        entry = HistoryEntry(
            from_rev=self.rev,
            to_rev=after.rev,
            added=delta.added,
            removed=delta.removed,
            updated=delta.updated,
        )
        return WalkthroughState(walkthrough=after, history=self.history.push(entry)), delta

    def diff(self, since_rev: int) -> DiffResult:
        return self.history.diff(since_rev, self.rev, "walkthrough.read")
