"""A state diagram seen as a flowchart: one projection shared by the graph queries, the slice,
the route graph and the renderer, so state diagrams reuse the flowchart machinery.

States become nodes (same ids), composite states become subgraphs (same ids) holding their
children, transitions become edges (same ids); a floating note is a note-shaped node whose
links are dotted, and each concurrency region a dashed frame (as Mermaid draws them).
`FLOW_CATEGORY_TO_STATE` maps refs back. The graph queries leave floating notes out
(`notes=False`): they annotate the machine, they are not states of it.
For the graph queries (`implied_arcs=True`) the semantics of composites are added as arcs:
entering a composite enters its `[*]` start in every region, and its `[*]` ends lead on
along the composite's own outgoing transitions (so `flow.unreachable` sees through frames).
"""

from __future__ import annotations

from typing import Final

from nereid.model.flowchart import FlowchartAst, FlowEdge, FlowNode, FlowSubgraph
from nereid.model.refs import (
    FLOW_EDGE,
    FLOW_NODE,
    FLOW_NOTE,
    FLOW_SUBGRAPH,
    STATE_STATE,
    STATE_TRANSITION,
)
from nereid.model.state import PSEUDO_KINDS, StateAst, StateNode, mermaid_name, region_counts

__all__ = [
    "FLOW_CATEGORY_TO_STATE",
    "IMPLIED_PREFIX",
    "STATE_SHAPES",
    "REGION_MARK",
    "REGION_STYLE",
    "flow_category",
    "region_owner",
    "state_as_flowchart",
    "state_display_label",
]

#: The node shape each state kind is drawn with.
STATE_SHAPES: Final = {
    "state": "round",
    "start": "circle",
    "end": "double_circle",
    "choice": "diamond",
    "fork": "fork",
    "join": "fork",
    "note": "notch-rect",
}
#: The style of a concurrency region's frame: Mermaid draws regions dashed.
REGION_STYLE: Final = "stroke-dasharray: 5 5"
FLOW_CATEGORY_TO_STATE: Final[dict[tuple[str, ...], tuple[str, ...]]] = {
    FLOW_NODE: STATE_STATE,
    FLOW_SUBGRAPH: STATE_STATE,
    FLOW_EDGE: STATE_TRANSITION,
    FLOW_NOTE: ("state", "note"),
}
#: Joins a composite's id and a region number into the id of that region's frame (a `|`
#: is in no state id); `region_owner` maps it back to the composite.
REGION_MARK: Final = "|"
#: Edge ids of the implied arcs (never an object id: ids hold no `~`... they may, so the
#: prefix also holds a `/`-free marker no transition id of the parser has).
IMPLIED_PREFIX: Final = "~implied:"


#: The marks of the `[*]` start and end: Unicode, and the pure-ASCII fallback.
PSEUDO_MARKS: Final = {"start": "●", "end": "◉"}
ASCII_PSEUDO_MARKS: Final = {"start": "*", "end": "@"}


def state_display_label(state_id: str, state: StateNode, *, ascii: bool = False) -> str:
    """What a state box shows first: its name, else its first description, else its id."""
    if state.kind in PSEUDO_KINDS:
        return (ASCII_PSEUDO_MARKS if ascii else PSEUDO_MARKS)[state.kind]
    if state.kind in ("fork", "join"):
        return " "
    if state.kind == "choice":
        return state.label or " "
    if state.kind == "note":
        return state.label or mermaid_name(state_id)
    if state.label is not None:
        return state.label
    return state.descriptions[0] if state.descriptions else mermaid_name(state_id)


def region_owner(object_id: str) -> str:
    """The composite a projected object belongs to (itself, unless it is a region frame)."""
    return object_id.split(REGION_MARK, 1)[0]


def flow_category(ast: StateAst, category: tuple[str, ...], object_id: str) -> tuple[str, ...]:
    """The projection's category of a state ref (composites are subgraphs)."""
    if category == STATE_TRANSITION:
        return FLOW_EDGE
    state = ast.states.get(object_id)
    return FLOW_SUBGRAPH if state is not None and state.composite else FLOW_NODE


def state_as_flowchart(
    ast: StateAst, *, implied_arcs: bool = False, ascii: bool = False, notes: bool = True
) -> FlowchartAst:
    """The projection (see the module docstring); `notes=False` leaves floating notes and
    their links out (the graph queries)."""
    nodes: dict[str, FlowNode] = {}
    members: dict[str, list[str]] = {}
    children: dict[str, list[str]] = {}
    left_out = {s for s, state in ast.states.items() if not notes and state.kind == "note"}
    for state_id, state in ast.states.items():
        if state_id in left_out:
            continue
        if state.parent is not None:
            target = children if state.composite else members
            target.setdefault(state.parent, []).append(state_id)
        if state.composite:
            continue
        label = state_display_label(state_id, state, ascii=ascii)
        extra = state.descriptions[1:] if state.label is None else state.descriptions
        if extra and state.kind == "state":
            label = "\n".join((label, *extra))
        nodes[state_id] = FlowNode(
            mermaid_id=(
                f"pseudo_{state_id.replace(':', '_')}"
                if state.kind in PSEUDO_KINDS
                else mermaid_name(state_id)
            ),
            label=label,
            shape=STATE_SHAPES[state.kind],
            classes=state.classes,
            note="\n".join(note.text for note in state.notes) if state.notes else None,
        )
    subgraphs: dict[str, FlowSubgraph] = {}
    counts = region_counts(ast.states)
    for state_id, state in ast.states.items():
        if not state.composite:
            continue
        name = mermaid_name(state_id)
        inner_nodes = members.get(state_id, [])
        inner_subgraphs = children.get(state_id, [])
        regions: list[str] = []
        if counts.get(state_id, 1) > 1:
            # One untitled frame per concurrency region, inside the composite's frame.
            for region in range(counts[state_id]):
                region_id = f"{state_id}{REGION_MARK}{region}"
                regions.append(region_id)
                subgraphs[region_id] = FlowSubgraph(
                    mermaid_id=f"{name}_region{region + 1}",
                    title="",
                    style=REGION_STYLE,
                    direction=state.direction,
                    node_ids=tuple(n for n in inner_nodes if ast.states[n].region == region),
                    subgraph_ids=tuple(
                        c for c in inner_subgraphs if ast.states[c].region == region
                    ),
                )
            inner_nodes, inner_subgraphs = [], []
        subgraphs[state_id] = FlowSubgraph(
            mermaid_id=name,
            title=state.label or name,
            direction=state.direction,
            node_ids=tuple(inner_nodes),
            subgraph_ids=(*regions, *inner_subgraphs),
            classes=state.classes,
        )
    floating = {s for s, state in ast.states.items() if state.kind == "note"}
    edges = {
        transition_id: FlowEdge(
            from_node_id=transition.from_state_id,
            to_node_id=transition.to_state_id,
            label=transition.label,
            line="dotted"
            if floating & {transition.from_state_id, transition.to_state_id}
            else "solid",
        )
        for transition_id, transition in ast.transitions.items()
        if not left_out & {transition.from_state_id, transition.to_state_id}
    }
    if implied_arcs:
        edges.update(
            (arc_id, arc)
            for arc_id, arc in _implied(ast).items()
            if not left_out & {arc.from_node_id, arc.to_node_id}
        )
    return FlowchartAst(
        direction=ast.direction,
        nodes=nodes,
        edges=edges,
        subgraphs=subgraphs,
        class_defs=dict(ast.class_defs),
    )


def _implied(ast: StateAst) -> dict[str, FlowEdge]:
    outgoing: dict[str, list[str]] = {}
    for transition in ast.transitions.values():
        outgoing.setdefault(transition.from_state_id, []).append(transition.to_state_id)
    arcs: dict[str, FlowEdge] = {}
    for state_id, state in ast.states.items():
        if state.kind not in PSEUDO_KINDS or state.parent is None:
            continue
        if state.kind == "start":
            pairs = [(state.parent, state_id)]
        else:
            pairs = [(state_id, after) for after in outgoing.get(state.parent, ())]
        for source, target in pairs:
            arcs[f"{IMPLIED_PREFIX}{source}>{target}"] = FlowEdge(
                from_node_id=source, to_node_id=target
            )
    return arcs
