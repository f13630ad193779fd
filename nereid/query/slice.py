"""`diagram.get_slice`: the deterministic neighbourhood of one object (queries.md §13).

Breadth-first over an undirected graph of one diagram, up to a hop budget R (`depth`, else
`radius`, else 1); starts are at distance 0 and a vertex at distance R is kept but not
expanded. Results are split into `objects` and `edges` (flow edges / messages), each in ref
order, then filtered by category.

Flowchart: vertices are nodes, linked by every edge (edges cost no hop); `edges` are the
edges whose two endpoints were reached. Sequence: participant ↔ message (sender and
receiver), block ↔ section, section ↔ listed message, parent ↔ child block; messages go to
`edges`, the rest to `objects`.

Nereid's additions, for objects the reference model lacks: a `flow/subgraph` center starts
from every node inside it (nested subgraphs included) and lists itself in `objects`; in a
sequence diagram a note is linked to each participant it is placed at and an activation
statement to its participant, and either can be the center (`objects` holds them).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated

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
    FlowchartAst,
    ObjectRef,
    SeqBlock,
    SequenceAst,
    StateAst,
    iter_blocks,
)
from nereid.model.state_flow import (
    FLOW_CATEGORY_TO_STATE,
    flow_category,
    region_owner,
    state_as_flowchart,
)
from nereid.model.wire import U64, param
from nereid.query.errors import invalid_params, not_found
from nereid.query.graph import within_hops
from nereid.query.params import check_count, check_param_id, check_param_ref
from nereid.query.results import SliceResult
from nereid.query.scope import QueryScope

__all__ = ["SliceFilters", "diagram_get_slice"]

SliceKey = tuple[tuple[str, ...], str]  # (category, object id) inside one diagram


class SliceFilters(msgspec.Struct, frozen=True, kw_only=True):
    """Category filters: entries are trimmed, empty ones dropped; empty means no constraint."""

    include_categories: list[str] | None = None
    exclude_categories: list[str] | None = None


def diagram_get_slice(
    scope: QueryScope,
    *,
    center_ref: Annotated[str, param("Object ref at the centre of the slice.")],
    diagram_id: str | None = None,
    depth: Annotated[U64 | None, param("Hops to include (overrides radius).")] = None,
    radius: Annotated[
        U64 | None, param("Hops to include when depth is absent (default 1).")
    ] = None,
    filters: Annotated[
        SliceFilters | None,
        param(
            "{include_categories, exclude_categories}: lists of ref categories (e.g. node, edge, message)."
        ),
    ] = None,
) -> SliceResult:
    """`diagram.get_slice` around `center_ref`, in the center's diagram (never the active one)."""
    if diagram_id is not None:
        check_param_id("diagram_id", diagram_id)
    center = check_param_ref("center_ref", center_ref)
    if diagram_id is not None and diagram_id != center.diagram_id:
        raise invalid_params(
            "center_ref diagram_id does not match diagram_id",
            {"diagram_id": diagram_id, "center_ref_diagram_id": center.diagram_id},
        )
    for name, value in (("depth", depth), ("radius", radius)):
        if value is not None:
            check_count(name, value)
    hops = depth if depth is not None else radius if radius is not None else 1
    diagram = scope.diagrams.get(center.diagram_id)
    if diagram is None:
        raise not_found("diagram not found", {"diagram_id": center.diagram_id})
    if isinstance(diagram.ast, FlowchartAst):
        objects, edges = _flowchart_slice(diagram.ast, center, center_ref, hops)
    elif isinstance(diagram.ast, StateAst):
        objects, edges = _state_slice(diagram.ast, center, center_ref, hops)
    else:
        objects, edges = _sequence_slice(diagram.ast, center, center_ref, hops)
    keep = _category_filter(filters)
    return SliceResult(
        objects=_refs(center.diagram_id, objects, keep),
        edges=_refs(center.diagram_id, edges, keep),
    )


def _refs(diagram_id: str, keys: Iterable[SliceKey], keep: _Keep) -> list[str]:
    return [
        str(ObjectRef(diagram_id, category, object_id))
        for category, object_id in sorted(keys)
        if keep(category)
    ]


class _Keep:
    """The category predicate of the filters."""

    __slots__ = ("exclude", "include")

    def __init__(self, include: set[str], exclude: set[str]) -> None:
        self.include = include
        self.exclude = exclude

    def __call__(self, category: tuple[str, ...]) -> bool:
        name = "/".join(category)
        if self.include and name not in self.include:
            return False
        return name not in self.exclude


def _category_filter(filters: SliceFilters | None) -> _Keep:
    def clean(entries: list[str] | None) -> set[str]:
        return {entry.strip() for entry in entries or () if entry.strip()}

    if filters is None:
        return _Keep(set(), set())
    return _Keep(clean(filters.include_categories), clean(filters.exclude_categories))


def _missing(what: str, key: str, diagram_id: str, object_id: str) -> Exception:
    return not_found(f"{what} not found", {"diagram_id": diagram_id, key: object_id})


def _flowchart_slice(
    ast: FlowchartAst, center: ObjectRef, center_ref: str, hops: int
) -> tuple[set[SliceKey], set[SliceKey]]:
    # Vertices are nodes and subgraphs (an edge may end at a frame, spec decision 23).
    neighbours: dict[str, set[str]] = {vertex: set() for vertex in (*ast.nodes, *ast.subgraphs)}
    for edge in ast.edges.values():
        if edge.from_node_id in neighbours and edge.to_node_id in neighbours:
            neighbours[edge.from_node_id].add(edge.to_node_id)
            neighbours[edge.to_node_id].add(edge.from_node_id)
    extra: set[SliceKey] = set()
    object_id = center.object_id
    if center.category == FLOW_NODE:
        if object_id not in ast.nodes:
            raise _missing("flow node", "node_id", center.diagram_id, object_id)
        starts = [object_id]
    elif center.category == FLOW_EDGE:
        center_edge = ast.edges.get(object_id)
        if center_edge is None:
            raise _missing("flow edge", "edge_id", center.diagram_id, object_id)
        ends = (center_edge.from_node_id, center_edge.to_node_id)
        starts = [end for end in ends if end in neighbours]
    elif center.category == FLOW_SUBGRAPH:
        if object_id not in ast.subgraphs:
            raise _missing("flow subgraph", "subgraph_id", center.diagram_id, object_id)
        starts = [object_id, *(n for n in _subgraph_nodes(ast, object_id) if n in ast.nodes)]
    else:
        raise invalid_params("center_ref is not a flowchart object", {"center_ref": center_ref})
    reached = within_hops(neighbours, starts, hops)
    edges: set[SliceKey] = {
        (FLOW_EDGE, edge_id)
        for edge_id, edge in ast.edges.items()
        if edge.from_node_id in reached and edge.to_node_id in reached
    }
    objects: set[SliceKey] = {
        (FLOW_SUBGRAPH if vertex in ast.subgraphs else FLOW_NODE, vertex) for vertex in reached
    }
    return objects | extra, edges


def _state_slice(
    ast: StateAst, center: ObjectRef, center_ref: str, hops: int
) -> tuple[set[SliceKey], set[SliceKey]]:
    """A state diagram's slice: the flowchart slice of its projection, refs mapped back."""
    if center.category not in (STATE_STATE, STATE_TRANSITION):
        raise invalid_params("center_ref is not a state diagram object", {"center_ref": center_ref})
    exists = ast.states if center.category == STATE_STATE else ast.transitions
    if center.object_id not in exists:
        what = "state" if center.category == STATE_STATE else "state transition"
        raise _missing(what, "object_id", center.diagram_id, center.object_id)
    flow_center = ObjectRef(
        center.diagram_id, flow_category(ast, center.category, center.object_id), center.object_id
    )
    objects, edges = _flowchart_slice(state_as_flowchart(ast), flow_center, center_ref, hops)

    def back(keys: set[SliceKey]) -> set[SliceKey]:
        return {
            (FLOW_CATEGORY_TO_STATE[category], region_owner(object_id))
            for category, object_id in keys
        }

    return back(objects), back(edges)


def _subgraph_nodes(ast: FlowchartAst, subgraph_id: str) -> list[str]:
    """The nodes of a subgraph and of every subgraph nested in it (each subgraph once)."""
    nodes: list[str] = []
    seen: set[str] = set()
    pending = [subgraph_id]
    while pending:
        current = pending.pop()
        subgraph = ast.subgraphs.get(current)
        if current in seen or subgraph is None:
            continue
        seen.add(current)
        nodes.extend(subgraph.node_ids)
        pending.extend(subgraph.subgraph_ids)
    return nodes


def _sequence_graph(ast: SequenceAst) -> dict[SliceKey, set[SliceKey]]:
    links: dict[SliceKey, set[SliceKey]] = {}

    def link(one: SliceKey, other: SliceKey) -> None:
        links.setdefault(one, set()).add(other)
        links.setdefault(other, set()).add(one)

    for message in ast.messages:
        message_key = (SEQ_MESSAGE, message.message_id)
        link(message_key, (SEQ_PARTICIPANT, message.from_participant_id))
        link(message_key, (SEQ_PARTICIPANT, message.to_participant_id))
    for note in ast.notes:
        for participant_id in note.participant_ids:
            link((SEQ_NOTE, note.note_id), (SEQ_PARTICIPANT, participant_id))
    for activation in ast.activations:
        link(
            (SEQ_ACTIVATION, activation.activation_id), (SEQ_PARTICIPANT, activation.participant_id)
        )

    def add_blocks(blocks: tuple[SeqBlock, ...], parent: SliceKey | None) -> None:
        for block in blocks:
            block_key = (SEQ_BLOCK, block.block_id)
            if parent is not None:
                link(parent, block_key)
            for section in block.sections:
                section_key = (SEQ_SECTION, section.section_id)
                link(block_key, section_key)
                for message_id in section.message_ids:
                    link(section_key, (SEQ_MESSAGE, message_id))
                for note_id in section.note_ids:
                    link(section_key, (SEQ_NOTE, note_id))
            add_blocks(block.blocks, block_key)

    add_blocks(ast.blocks, None)
    return links


def _sequence_slice(
    ast: SequenceAst, center: ObjectRef, center_ref: str, hops: int
) -> tuple[set[SliceKey], set[SliceKey]]:
    object_id = center.object_id
    diagram_id = center.diagram_id
    starts: list[SliceKey] = [(center.category, object_id)]
    if center.category == SEQ_PARTICIPANT:
        if object_id not in ast.participants:
            raise _missing("seq participant", "participant_id", diagram_id, object_id)
    elif center.category == SEQ_MESSAGE:
        message = next((m for m in ast.messages if m.message_id == object_id), None)
        if message is None:
            raise _missing("seq message", "message_id", diagram_id, object_id)
        starts += [
            (SEQ_PARTICIPANT, message.from_participant_id),
            (SEQ_PARTICIPANT, message.to_participant_id),
        ]
    elif center.category == SEQ_BLOCK:
        if all(block.block_id != object_id for block in iter_blocks(ast.blocks)):
            raise _missing("seq block", "block_id", diagram_id, object_id)
    elif center.category == SEQ_SECTION:
        sections = (s for block in iter_blocks(ast.blocks) for s in block.sections)
        if all(section.section_id != object_id for section in sections):
            raise _missing("seq section", "section_id", diagram_id, object_id)
    elif center.category == SEQ_NOTE:
        if all(note.note_id != object_id for note in ast.notes):
            raise _missing("seq note", "note_id", diagram_id, object_id)
    elif center.category == SEQ_ACTIVATION:
        if all(act.activation_id != object_id for act in ast.activations):
            raise _missing("seq activation", "activation_id", diagram_id, object_id)
    else:
        raise invalid_params(
            "center_ref is not a sequence diagram object", {"center_ref": center_ref}
        )
    reached = within_hops(_sequence_graph(ast), starts, hops)
    edges = {key for key in reached if key[0] == SEQ_MESSAGE}
    return reached - edges, edges
