"""`route.find`: routes between two objects across the whole session (queries.md §12, §16 D5).

The session route graph (directed; ↔ means an arc each way), rebuilt from a snapshot:

* flowchart: node A → node B for every edge A→B; A ↔ edge and B ↔ edge (so an edge is
  walked backwards only through its edge object);
* sequence: participant ↔ each message it sends or receives; message → next message in
  message order (forward only); block ↔ its sections; section ↔ each message it lists;
  parent block ↔ child block;
* every xref, whatever its status: from ↔ to (dangling endpoints are vertices too).

Nereid's additions (objects the reference model lacks, so reference-shaped sessions get the
reference's routes): subgraph ↔ each node it lists and parent ↔ child subgraph; note ↔ each
participant it is placed at; activation statement ↔ its participant. Without them an xref
to a subgraph or a note would be a dead end.

Routes are simple paths ordered by (hops, element-wise ref order), the first `limit` of
them; `lexicographic` re-sorts those by ref order alone. Bounded by default (decision 15):
`max_hops` defaults to DEFAULT_MAX_HOPS and one call tries at most EXPANSION_BUDGET partial
routes, then answers with the routes found so far (still in order, a prefix of the exact
answer). The search is ordered A*-style by the hop distance still needed (see find_routes),
which changes the work done but not the results.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Mapping
from typing import Annotated, Final

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
    Diagram,
    FlowchartAst,
    ObjectRef,
    SeqBlock,
    SequenceAst,
    StateAst,
    XRef,
)
from nereid.model.wire import U64, param
from nereid.query.graph import StepBudget, bfs_distances
from nereid.query.params import check_choice, check_count, check_param_ref
from nereid.query.results import RoutesResult
from nereid.query.scope import QueryScope
from nereid.query.sequence import message_order

__all__ = [
    "DEFAULT_MAX_HOPS",
    "EXPANSION_BUDGET",
    "RouteGraph",
    "RouteKey",
    "find_routes",
    "route_find",
]

#: Hop bound when the caller gives no `max_hops` (queries.md §16 D5).
DEFAULT_MAX_HOPS: Final = 32
#: Partial routes one call may create before it answers with what it found.
EXPANSION_BUDGET: Final = 200_000

#: A vertex: the structural ref order key `(diagram id, category, object id)`.
RouteKey = tuple[str, tuple[str, ...], str]


def _end_category(ast: FlowchartAst, end: str) -> tuple[str, ...]:
    return FLOW_SUBGRAPH if ast.end_kind(end) == "subgraph" else FLOW_NODE


class RouteGraph:
    """The session route graph; `arcs[v]` are v's out-neighbours in ref order.

    Sorted neighbour lists make the work done (and so what a budget cut keeps) the same in
    every run, whatever the string hash seed.
    """

    __slots__ = ("_building", "arcs")

    def __init__(self) -> None:
        self.arcs: dict[RouteKey, list[RouteKey]] = {}
        self._building: dict[RouteKey, set[RouteKey]] = {}

    @classmethod
    def build(cls, diagrams: Mapping[str, Diagram], xrefs: Iterable[XRef]) -> RouteGraph:
        graph = cls()
        for diagram_id, diagram in diagrams.items():
            if isinstance(diagram.ast, FlowchartAst):
                graph._add_flowchart(diagram_id, diagram.ast)
            elif isinstance(diagram.ast, StateAst):
                graph._add_state(diagram_id, diagram.ast)
            else:
                graph._add_sequence(diagram_id, diagram.ast)
        for xref in xrefs:
            graph._link(xref.from_ref.sort_key(), xref.to_ref.sort_key())
        graph.arcs = {vertex: sorted(targets) for vertex, targets in graph._building.items()}
        graph._building = {}
        return graph

    def _vertex(self, key: RouteKey) -> None:
        self._building.setdefault(key, set())

    def _arc(self, source: RouteKey, target: RouteKey) -> None:
        self._building.setdefault(source, set()).add(target)
        self._vertex(target)

    def _link(self, one: RouteKey, other: RouteKey) -> None:
        self._arc(one, other)
        self._arc(other, one)

    def _add_flowchart(self, diagram_id: str, ast: FlowchartAst) -> None:
        for node_id in ast.nodes:
            self._vertex((diagram_id, FLOW_NODE, node_id))
        for edge_id, edge in ast.edges.items():
            # An end is a node or a subgraph (spec decision 23): the arc joins that object.
            source = (diagram_id, _end_category(ast, edge.from_node_id), edge.from_node_id)
            target = (diagram_id, _end_category(ast, edge.to_node_id), edge.to_node_id)
            edge_key = (diagram_id, FLOW_EDGE, edge_id)
            self._arc(source, target)
            self._link(source, edge_key)
            self._link(target, edge_key)
        for subgraph_id, subgraph in ast.subgraphs.items():
            subgraph_key = (diagram_id, FLOW_SUBGRAPH, subgraph_id)
            self._vertex(subgraph_key)
            for node_id in subgraph.node_ids:
                self._link(subgraph_key, (diagram_id, FLOW_NODE, node_id))
            for child_id in subgraph.subgraph_ids:
                self._link(subgraph_key, (diagram_id, FLOW_SUBGRAPH, child_id))

    def _add_state(self, diagram_id: str, ast: StateAst) -> None:
        """States are vertices, transitions arcs (with their transition object between), and
        a composite is linked both ways with its children, like a subgraph's members."""
        for state_id, state in ast.states.items():
            key = (diagram_id, STATE_STATE, state_id)
            self._vertex(key)
            if state.parent is not None:
                self._link((diagram_id, STATE_STATE, state.parent), key)
        for transition_id, transition in ast.transitions.items():
            source = (diagram_id, STATE_STATE, transition.from_state_id)
            target = (diagram_id, STATE_STATE, transition.to_state_id)
            transition_key = (diagram_id, STATE_TRANSITION, transition_id)
            self._arc(source, target)
            self._link(source, transition_key)
            self._link(target, transition_key)

    def _add_sequence(self, diagram_id: str, ast: SequenceAst) -> None:
        for participant_id in ast.participants:
            self._vertex((diagram_id, SEQ_PARTICIPANT, participant_id))
        previous: RouteKey | None = None
        for message in message_order(ast):
            message_key = (diagram_id, SEQ_MESSAGE, message.message_id)
            self._vertex(message_key)
            if previous is not None:
                self._arc(previous, message_key)
            previous = message_key
            self._link((diagram_id, SEQ_PARTICIPANT, message.from_participant_id), message_key)
            self._link((diagram_id, SEQ_PARTICIPANT, message.to_participant_id), message_key)
        for note in ast.notes:
            note_key = (diagram_id, SEQ_NOTE, note.note_id)
            self._vertex(note_key)
            for participant_id in note.participant_ids:
                self._link(note_key, (diagram_id, SEQ_PARTICIPANT, participant_id))
        for activation in ast.activations:
            self._link(
                (diagram_id, SEQ_ACTIVATION, activation.activation_id),
                (diagram_id, SEQ_PARTICIPANT, activation.participant_id),
            )
        self._add_blocks(diagram_id, ast.blocks, None)

    def _add_blocks(
        self, diagram_id: str, blocks: tuple[SeqBlock, ...], parent: RouteKey | None
    ) -> None:
        for block in blocks:
            block_key = (diagram_id, SEQ_BLOCK, block.block_id)
            self._vertex(block_key)
            if parent is not None:
                self._link(parent, block_key)
            for section in block.sections:
                section_key = (diagram_id, SEQ_SECTION, section.section_id)
                self._link(block_key, section_key)
                for message_id in section.message_ids:
                    self._link(section_key, (diagram_id, SEQ_MESSAGE, message_id))
                for note_id in section.note_ids:
                    self._link(section_key, (diagram_id, SEQ_NOTE, note_id))
            self._add_blocks(diagram_id, block.blocks, block_key)


def find_routes(
    graph: RouteGraph,
    source: RouteKey,
    target: RouteKey,
    *,
    limit: int,
    max_hops: int,
    budget: StepBudget,
) -> list[tuple[RouteKey, ...]]:
    """The first `limit` simple routes source→target of at most `max_hops` hops.

    Best-first over partial routes keyed by (hops + hop distance still needed, route). That
    key never exceeds the key (hops, route) of any completion of the partial route, and
    never decreases along an extension, so complete routes leave the heap in exactly the
    result order of §12.2 while partial routes that cannot compete wait (A* ordering with
    the reference's tie-break).
    """
    if limit <= 0:
        return []
    if source == target:
        return [(source,)]
    reverse: dict[RouteKey, list[RouteKey]] = {}
    for vertex, neighbours in graph.arcs.items():
        for neighbour in neighbours:
            reverse.setdefault(neighbour, []).append(vertex)
    to_target = bfs_distances(reverse, target)
    shortest = to_target.get(source)
    if shortest is None or shortest > max_hops:
        return []
    routes: list[tuple[RouteKey, ...]] = []
    heap: list[tuple[int, tuple[RouteKey, ...]]] = [(shortest, (source,))]
    while heap:
        _, route = heapq.heappop(heap)
        last = route[-1]
        if last == target:
            routes.append(route)
            if len(routes) >= limit:
                break
            continue
        hops = len(route)  # hops of the route once extended by one more vertex
        for neighbour in graph.arcs.get(last, ()):
            remaining = to_target.get(neighbour)
            if remaining is None or hops + remaining > max_hops or neighbour in route:
                continue
            if not budget.spend():
                return routes
            heapq.heappush(heap, (hops + remaining, (*route, neighbour)))
    return routes


def _format(key: RouteKey) -> str:
    diagram_id, category, object_id = key
    return str(ObjectRef(diagram_id, category, object_id))


def route_find(
    scope: QueryScope,
    *,
    from_ref: Annotated[str, param("Object ref the route starts at.")],
    to_ref: Annotated[str, param("Object ref the route ends at.")],
    limit: Annotated[U64, param("Most routes to return.")] = 1,
    max_hops: Annotated[
        U64 | None, param("Longest route, in hops (absent: the default bound).")
    ] = None,
    ordering: Annotated[
        str | None,
        param("Route order (default fewest_hops).", choices=("fewest_hops", "lexicographic")),
    ] = None,
    graph: RouteGraph | None = None,
    expansion_budget: int = EXPANSION_BUDGET,
) -> RoutesResult:
    """`route.find` over `scope`'s diagrams and xrefs (or a prebuilt `graph` of them).

    Endpoints need not exist. `max_hops` None means DEFAULT_MAX_HOPS.
    """
    source = check_param_ref("from_ref", from_ref)
    target = check_param_ref("to_ref", to_ref)
    check_count("limit", limit)
    if max_hops is not None:
        check_count("max_hops", max_hops)
    if limit == 0:
        return RoutesResult(routes=[])
    order = "fewest_hops" if ordering in (None, "") else ordering
    check_choice("ordering", order, ("fewest_hops", "lexicographic"))
    if graph is None:
        graph = RouteGraph.build(scope.diagrams, scope.xrefs.values())
    routes = find_routes(
        graph,
        source.sort_key(),
        target.sort_key(),
        limit=limit,
        max_hops=DEFAULT_MAX_HOPS if max_hops is None else max_hops,
        budget=StepBudget(expansion_budget),
    )
    if order == "lexicographic":
        routes.sort()
    return RoutesResult(routes=[[_format(key) for key in route] for route in routes])
