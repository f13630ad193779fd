"""Stable ids across text imports (mermaid.md §6.3, session-folder.md §6.2, spec decision 6).

A fresh parse derives ids from the text (`n:<id>`, `e:0001`, ...). Objects that existed before
keep their old ids when the text still describes them: nodes and subgraphs by Mermaid id,
edges by fingerprint `(from, to, label)` in FIFO order, so moving or inserting lines keeps
every id. The hints come from the previous AST (`from_ast`) or from a side-car file.
An edge with a Mermaid v11 id (`A e1@--> B`) always has the object id `e:<id>`: the text names
it, so it needs no hint; its id is reserved before the fingerprint matching of the others (an
unnamed edge that matches a hint holding that id gets a fresh one).

Port fix: an edge's style always comes from the text (`linkStyle`). The reference replaced it
with the side-car's style, even a null one, which erased styles written in the text; and a
hint's style must not come back after the person deleted the `linkStyle` line either.

The flowchart half is below; the sequence half (`SeqIdHints`, `reconcile_sequence`) follows it.
"""

from __future__ import annotations

import re
from collections import deque
from typing import Final

import msgspec

from nereid.model.flowchart import (
    FlowchartAst,
    FlowEdge,
    FlowNode,
    FlowSubgraph,
    derived_mermaid_id,
    effective_mermaid_id,
)
from nereid.model.ids import IdError, check_id

__all__ = [
    "FlowEdgeHint",
    "FlowIdHints",
    "SeqIdHints",
    "reconcile_flowchart",
    "reconcile_sequence",
]

# ---- flowchart ------------------------------------------------------------------------------

_EDGE_NUMBER: Final = re.compile(r"e:(\d+)")


class FlowEdgeHint(msgspec.Struct, frozen=True):
    """One known edge: its stable id, fingerprint (from, to, label) and style."""

    edge_id: str
    from_node_id: str
    to_node_id: str
    label: str | None = None
    style: str | None = None


class FlowIdHints(msgspec.Struct, frozen=True, kw_only=True):
    """What a flowchart's stable ids are matched against (the side-car's flowchart part)."""

    by_mermaid_id: dict[str, str] = msgspec.field(default_factory=dict)
    edges: list[FlowEdgeHint] = msgspec.field(default_factory=list)
    notes: dict[str, str] = msgspec.field(default_factory=dict)
    subgraph_ids: dict[str, str] = msgspec.field(default_factory=dict)

    @classmethod
    def from_ast(cls, previous: FlowchartAst) -> FlowIdHints:
        """Hints that make a re-import of `previous`'s text keep all of its ids and notes.

        The side-car stores exactly these (`nereid.store.diagram_files.sidecar_for`): nodes
        by effective Mermaid id and subgraphs by Mermaid id (the first in id order wins on a
        duplicate), edges in map order, which is the order the exporter writes them.
        """
        by_mermaid_id: dict[str, str] = {}
        for node_id in sorted(previous.nodes):
            name = effective_mermaid_id(node_id, previous.nodes[node_id])
            if name is not None:
                by_mermaid_id.setdefault(name, node_id)
        subgraph_ids: dict[str, str] = {}
        for subgraph_id in sorted(previous.subgraphs):
            subgraph_ids.setdefault(previous.subgraphs[subgraph_id].mermaid_id, subgraph_id)
        return cls(
            by_mermaid_id=by_mermaid_id,
            edges=[
                FlowEdgeHint(edge_id, edge.from_node_id, edge.to_node_id, edge.label, edge.style)
                for edge_id, edge in previous.edges.items()
            ],
            notes={
                node_id: node.note
                for node_id, node in previous.nodes.items()
                if node.note is not None
            },
            subgraph_ids=subgraph_ids,
        )


def _valid(candidate: str) -> bool:
    try:
        check_id(candidate)
    except IdError:
        return False
    return True


def _assign(parsed: list[tuple[str, str]], mapping: dict[str, str]) -> dict[str, str]:
    """parsed (id, key) pairs → {parsed id: new id}, per session-folder.md §6.2."""
    assigned: set[str] = set()
    result: dict[str, str] = {}
    for parsed_id, key in parsed:
        candidate = mapping.get(key)
        if candidate is None or not _valid(candidate) or candidate in assigned:
            candidate = parsed_id
        if candidate in assigned:
            suffix = 1
            while f"{parsed_id}:reconcile:{suffix:04d}" in assigned:
                suffix += 1
            candidate = f"{parsed_id}:reconcile:{suffix:04d}"
        assigned.add(candidate)
        result[parsed_id] = candidate
    return result


def _reconcile_edges(edges: dict[str, FlowEdge], hints: list[FlowEdgeHint]) -> dict[str, FlowEdge]:
    named = {edge_id for edge_id, edge in edges.items() if edge.mermaid_id is not None}
    queues: dict[tuple[str, str, str | None], deque[FlowEdgeHint]] = {}
    for hint in hints:
        if hint.edge_id not in named:
            key = (hint.from_node_id, hint.to_node_id, hint.label)
            queues.setdefault(key, deque()).append(hint)
    taken = {hint.edge_id for hint in hints} | named
    numbers = [
        int(match.group(1))
        for edge_id in [*taken, *edges]
        if (match := _EDGE_NUMBER.fullmatch(edge_id)) is not None
    ]
    counter = max(numbers, default=0) + 1

    def fresh() -> str:
        nonlocal counter
        while f"e:{counter:04d}" in taken:
            counter += 1
        edge_id = f"e:{counter:04d}"
        taken.add(edge_id)
        return edge_id

    used: set[str] = set(named)
    result: dict[str, FlowEdge] = {}
    for edge_id, edge in edges.items():
        if edge_id in named:
            result[edge_id] = edge
            continue
        queue = queues.get((edge.from_node_id, edge.to_node_id, edge.label))
        if queue:
            hint = queue.popleft()
            target = hint.edge_id if hint.edge_id not in used else fresh()
        else:
            target = edge_id if edge_id not in taken and edge_id not in used else fresh()
        taken.add(target)
        used.add(target)
        result[target] = edge
    return result


def reconcile_flowchart(parsed: FlowchartAst, hints: FlowIdHints) -> FlowchartAst:
    """`parsed` with the stable ids of `hints` where objects match (nodes → edges → notes)."""
    node_map: dict[str, str] = {}
    if hints.by_mermaid_id:
        keyed = [(i, effective_mermaid_id(i, node)) for i, node in parsed.nodes.items()]
        node_map = _assign([(i, key) for i, key in keyed if key is not None], hints.by_mermaid_id)
    sg_map: dict[str, str] = {}
    if hints.subgraph_ids:
        sg_map = _assign(
            [(sg_id, sg.mermaid_id) for sg_id, sg in parsed.subgraphs.items()], hints.subgraph_ids
        )

    def node(node_id: str) -> str:
        return node_map.get(node_id, node_id)

    def sg(sg_id: str) -> str:
        return sg_map.get(sg_id, sg_id)

    nodes: dict[str, FlowNode] = {}
    for node_id, value in parsed.nodes.items():
        new_id = node(node_id)
        if new_id != node_id and value.mermaid_id is None:
            value = msgspec.structs.replace(value, mermaid_id=derived_mermaid_id(node_id))
        nodes[new_id] = value

    def end(end_id: str) -> str:
        """An edge end is a node or a subgraph (their parsed ids never coincide)."""
        return sg(end_id) if end_id in parsed.subgraphs else node(end_id)

    edges = {
        edge_id: msgspec.structs.replace(
            edge, from_node_id=end(edge.from_node_id), to_node_id=end(edge.to_node_id)
        )
        for edge_id, edge in parsed.edges.items()
    }
    if hints.edges:
        edges = _reconcile_edges(edges, hints.edges)
    subgraphs: dict[str, FlowSubgraph] = {
        sg(sg_id): msgspec.structs.replace(
            value,
            node_ids=tuple(node(n) for n in value.node_ids),
            subgraph_ids=tuple(sg(s) for s in value.subgraph_ids),
        )
        for sg_id, value in parsed.subgraphs.items()
    }
    for node_id, note in hints.notes.items():
        if node_id in nodes:
            nodes[node_id] = msgspec.structs.replace(nodes[node_id], note=note)
    return msgspec.structs.replace(parsed, nodes=nodes, edges=edges, subgraphs=subgraphs)


# ---- sequence -------------------------------------------------------------------------------
# The sequence half lives in `reconcile_sequence.py` (written with the sequence import); it is
# re-exported here so both halves are reachable from one module.

from nereid.mermaid.reconcile_sequence import SeqIdHints, reconcile_sequence  # noqa: E402
