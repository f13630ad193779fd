"""Which nodes and edges carry an explicit Mermaid id, kept per flowchart AST across ops.

The batch-end check of a flowchart batch needs every owner of the Mermaid ids the batch
touched. Scanning all nodes and edges for explicit ids made each op O(size): 7 ms per
one-node batch at 20 000 nodes, the bulk of `apply_ops`' latency on big diagrams. The
index (explicit id -> owners) is built once per AST that has none and then moved to each
new AST, updated for the objects the batch touched, so a batch costs what it touched.
Moving means the base AST loses it (a later batch on that base, a dry run or a rolled
back rev, builds it again once). Indexes are kept for the last few ASTs (`_KEEP`),
holding the AST itself so an id() can never name another one.

An id's owners are a tuple (nearly always of one owner), not a set: every node an op adds
carries an explicit id, so the index holds one entry per node, and a set per entry is a
container the garbage collector walks in every full collection (20 000 of them at 20 000
nodes), where a tuple of strings is untracked after its first collection.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Mapping
from typing import Final, TypeAlias

from nereid.model import FlowchartAst, FlowEdge, FlowNode

__all__ = ["NameIndex", "explicit_names", "remember_names"]

Owner: TypeAlias = tuple[str, str]
"""`("node_id", id)` or `("edge_id", id)`."""
NameIndex: TypeAlias = dict[str, tuple[Owner, ...]]

_KEEP: Final = 8
_cache: OrderedDict[int, tuple[FlowchartAst, NameIndex]] = OrderedDict()


def _build(ast: FlowchartAst) -> NameIndex:
    found: NameIndex = {}
    for node_id, node in ast.nodes.items():
        if node.mermaid_id is not None:
            _add(found, node.mermaid_id, ("node_id", node_id))
    for edge_id, edge in ast.edges.items():
        if edge.mermaid_id is not None:
            _add(found, edge.mermaid_id, ("edge_id", edge_id))
    return found


def _add(index: NameIndex, name: str, owner: Owner) -> None:
    owners = index.get(name, ())
    if owner not in owners:
        index[name] = (*owners, owner)


def _discard(index: NameIndex, name: str, owner: Owner) -> None:
    owners = tuple(o for o in index.get(name, ()) if o != owner)
    if owners:
        index[name] = owners
    else:
        index.pop(name, None)


def explicit_names(ast: FlowchartAst) -> NameIndex:
    """Explicit Mermaid id -> the nodes and edges that carry it (read-only for callers)."""
    held = _cache.get(id(ast))
    if held is not None and held[0] is ast:
        _cache.move_to_end(id(ast))
        return held[1]
    index = _build(ast)
    _keep(ast, index)
    return index


def remember_names(
    base: FlowchartAst,
    new: FlowchartAst,
    nodes: Iterable[str],
    edges: Iterable[str],
) -> NameIndex:
    """Move `base`'s index to `new`, updated for the `nodes` / `edges` that changed."""
    index = explicit_names(base)
    _cache.pop(id(base), None)

    def move(kind: str, key: str, before: str | None, after: str | None) -> None:
        if before == after:
            return
        owner = (kind, key)
        if before is not None:
            _discard(index, before, owner)
        if after is not None:
            _add(index, after, owner)

    for node_id in nodes:
        move("node_id", node_id, _name(base.nodes, node_id), _name(new.nodes, node_id))
    for edge_id in edges:
        move("edge_id", edge_id, _name(base.edges, edge_id), _name(new.edges, edge_id))
    _keep(new, index)
    return index


def _name(objects: Mapping[str, FlowNode] | Mapping[str, FlowEdge], key: str) -> str | None:
    found = objects.get(key)
    return None if found is None else found.mermaid_id


def _keep(ast: FlowchartAst, index: NameIndex) -> None:
    _cache[id(ast)] = (ast, index)
    _cache.move_to_end(id(ast))
    while len(_cache) > _KEEP:
        _cache.popitem(last=False)
