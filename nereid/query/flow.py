"""The flowchart queries `flow.*` (queries.md §1–§7 with the §16 changes).

The graph (spec decision 23): vertices are the node ids plus the ids of the subgraphs that
are an end of some edge (`A --> sg`): such a subgraph is a vertex of its own, reported as a
`flow/subgraph` ref, and is not joined to its members (an edge to a frame is an edge to the
group, not to a member). Subgraphs no edge touches are not vertices. Arcs are the edges whose
two ends exist (the parser and ops guarantee that; an inconsistent edge is ignored
everywhere). Successor and predecessor lists are distinct ids in ascending order; degrees
count every edge. Vertex lists come out in ref order: nodes (node-id order), then subgraphs.
Every `*_node_id` parameter accepts a subgraph id (`sg:…`) of a vertex as well.

State diagrams (spec decision 24) are queried through their flowchart projection
(`nereid.model.state_flow`): the vertices are the states (`state/state` refs, composites
and `[*]` pseudo-states included), the arcs the transitions, plus the implied arcs of each
composite (into its `[*]` starts; from its `[*]` ends along its own outgoing transitions);
`flow.degrees` counts the transitions only.
`*_node_id` parameters take state ids (`s:Paid`, `start`, `end:Active`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated, Final

from nereid.model import FLOW_NODE, FLOW_SUBGRAPH, STATE_STATE, Diagram, FlowchartAst, StateAst
from nereid.model.state_flow import state_as_flowchart
from nereid.model.wire import U64, param
from nereid.query.errors import not_found
from nereid.query.graph import (
    StepBudget,
    closure,
    shortest_simple_paths,
    strongly_connected_components,
)
from nereid.query.params import check_choice, check_count, check_param_id
from nereid.query.results import (
    CyclesResult,
    DegreesResult,
    NodeDegree,
    NodesResult,
    PathsResult,
)
from nereid.query.scope import QueryScope, flowchart_of, ref_prefix, resolve_diagram
from nereid.render.display import display_text

__all__ = [
    "PATHS_STEP_BUDGET",
    "FlowGraph",
    "flow_cycles",
    "flow_dead_ends",
    "flow_degrees",
    "flow_paths",
    "flow_reachable",
    "flow_unreachable",
]

#: Work cap of one `flow.paths` call (extensions tried + vertices copied into results).
#: Far above what a limit-10 query on a 1000-node diagram needs; stops hostile
#: `max_extra_hops` / `limit` combinations on dense graphs. Results stay a prefix of the
#: exact answer.
PATHS_STEP_BUDGET: Final = 1_000_000


class FlowGraph:
    """The directed graph of one flowchart, built once per query."""

    __slots__ = (
        "edge_pairs",
        "node_category",
        "node_ids",
        "predecessors",
        "subgraph_category",
        "subgraph_ids",
        "successors",
    )

    def __init__(
        self,
        ast: FlowchartAst,
        node_category: tuple[str, ...] = FLOW_NODE,
        subgraph_category: tuple[str, ...] = FLOW_SUBGRAPH,
    ) -> None:
        self.node_category = node_category
        self.subgraph_category = subgraph_category
        self.edge_pairs: list[tuple[str, str]] = [
            (edge.from_node_id, edge.to_node_id)
            for edge in ast.edges.values()
            if ast.end_kind(edge.from_node_id) and ast.end_kind(edge.to_node_id)
        ]
        ends = {end for pair in self.edge_pairs for end in pair}
        #: The subgraph vertices, in subgraph order.
        self.subgraph_ids: list[str] = [sg for sg in ast.subgraphs if sg in ends]
        #: Every vertex: nodes in node order, then the subgraph vertices.
        self.node_ids: list[str] = [*ast.nodes, *self.subgraph_ids]
        successors: dict[str, set[str]] = {node_id: set() for node_id in self.node_ids}
        predecessors: dict[str, set[str]] = {node_id: set() for node_id in self.node_ids}
        for source, target in self.edge_pairs:
            successors[source].add(target)
            predecessors[target].add(source)
        self.successors = {node: sorted(targets) for node, targets in successors.items()}
        self.predecessors = {node: sorted(sources) for node, sources in predecessors.items()}

    def has(self, vertex_id: str) -> bool:
        return vertex_id in self.successors

    def ref(self, diagram_id: str, vertex_id: str) -> str:
        """The vertex's ref: `flow/subgraph` for a subgraph vertex, else `flow/node`."""
        subgraph = vertex_id in self.subgraph_ids
        category = self.subgraph_category if subgraph else self.node_category
        return ref_prefix(diagram_id, category) + vertex_id

    def refs(self, diagram_id: str, vertex_ids: Iterable[str]) -> list[str]:
        """Vertex refs in ref order (nodes by id, then subgraphs by id)."""
        subgraphs = set(self.subgraph_ids) if self.subgraph_category != self.node_category else ()
        ordered = sorted(vertex_ids, key=lambda v: (v in subgraphs, v))
        return [self.ref(diagram_id, vertex_id) for vertex_id in ordered]


def vertex_label(ast: FlowchartAst, vertex_id: str) -> str:
    """A node's label, or a subgraph's title (its Mermaid id when it has none), as a reader
    sees it in the drawing (`display_text`: no markdown marks, entities decoded, `<br>` a
    line break), not as stored."""
    node = ast.nodes.get(vertex_id)
    if node is not None:
        return display_text(node.label)
    subgraph = ast.subgraphs[vertex_id]
    return display_text(subgraph.title or subgraph.mermaid_id)


def graph_of(diagram: Diagram, *, implied: bool = True) -> tuple[FlowGraph, FlowchartAst]:
    """The query graph of a flowchart, or of a state diagram (spec decision 24).

    A state diagram is queried through its flowchart projection (`state_as_flowchart` with
    the implied arcs of composites unless `implied` is False, as `flow.degrees` wants: it
    counts transitions); every vertex is a `state/state` ref, composites too; floating notes
    are no vertices.
    """
    if isinstance(diagram.ast, StateAst):
        ast = state_as_flowchart(diagram.ast, implied_arcs=implied, notes=False)
        return FlowGraph(ast, STATE_STATE, STATE_STATE), ast
    ast = flowchart_of(diagram)
    return FlowGraph(ast), ast


def ref_sort(ref: str) -> tuple[bool, str]:
    """Ref order inside one diagram's flow vertices: nodes before subgraphs, then by id."""
    return ("/flow/subgraph/" in ref, ref)


def flow_reachable(
    scope: QueryScope,
    *,
    from_node_id: Annotated[str, param("Node id to start from (not a ref).")],
    direction: Annotated[
        str,
        param(
            "out follows edges forward, in backward, both either way.",
            choices=("out", "in", "both"),
        ),
    ] = "out",
    diagram_id: str | None = None,
) -> NodesResult:
    """`flow.reachable`: the out-closure, in-closure, or their union (`both`), start included.

    An unknown start node is `not_found` "from node not found" (§16 D2).
    """
    check_choice("direction", direction, ("out", "in", "both"))
    check_param_id("from_node_id", from_node_id)
    diagram = resolve_diagram(scope, diagram_id)
    graph, _ast = graph_of(diagram)
    if not graph.has(from_node_id):
        raise not_found(
            "from node not found",
            {"diagram_id": diagram.diagram_id, "from_node_id": from_node_id},
        )
    reached: set[str] = set()
    if direction in ("out", "both"):
        reached |= closure(graph.successors, [from_node_id])
    if direction in ("in", "both"):
        reached |= closure(graph.predecessors, [from_node_id])
    return NodesResult(nodes=graph.refs(diagram.diagram_id, reached))


def flow_paths(
    scope: QueryScope,
    *,
    from_node_id: str,
    to_node_id: str,
    limit: Annotated[U64, param("Most paths to return (shortest first).")] = 10,
    max_extra_hops: Annotated[
        U64, param("Also return paths up to this many hops longer than the shortest.")
    ] = 0,
    diagram_id: str | None = None,
    step_budget: int = PATHS_STEP_BUDGET,
) -> PathsResult:
    """`flow.paths`: simple paths of at most shortest + `max_extra_hops` hops.

    Ordered by hop count, then by node-id sequence; the first `limit`. Bounded by
    `step_budget` (see PATHS_STEP_BUDGET).
    """
    check_param_id("from_node_id", from_node_id)
    check_param_id("to_node_id", to_node_id)
    check_count("limit", limit)
    check_count("max_extra_hops", max_extra_hops)
    diagram = resolve_diagram(scope, diagram_id)
    graph, _ast = graph_of(diagram)
    if not graph.has(from_node_id):
        raise not_found(
            "from node not found",
            {"diagram_id": diagram.diagram_id, "from_node_id": from_node_id},
        )
    if not graph.has(to_node_id):
        raise not_found(
            "to node not found", {"diagram_id": diagram.diagram_id, "to_node_id": to_node_id}
        )
    paths = shortest_simple_paths(
        graph.successors,
        from_node_id,
        to_node_id,
        limit=limit,
        max_extra_hops=max_extra_hops,
        budget=StepBudget(step_budget),
    )
    return PathsResult(
        paths=[[graph.ref(diagram.diagram_id, vertex) for vertex in path] for path in paths]
    )


def flow_cycles(scope: QueryScope, *, diagram_id: str | None = None) -> CyclesResult:
    """`flow.cycles`: every strongly connected component that holds a cycle.

    That is every component of two or more nodes, and every single node with a self-loop
    (decision 2: cycles are legal). Members in node-id order; components in lexicographic
    order of those lists.
    """
    diagram = resolve_diagram(scope, diagram_id)
    graph, _ast = graph_of(diagram)
    cyclic = [
        graph.refs(diagram.diagram_id, component)
        for component in strongly_connected_components(graph.node_ids, graph.successors)
        if len(component) > 1 or component[0] in graph.successors[component[0]]
    ]
    cyclic.sort()
    return CyclesResult(cycles=cyclic)


def flow_dead_ends(scope: QueryScope, *, diagram_id: str | None = None) -> NodesResult:
    """`flow.dead_ends`: nodes without successors (a self-loop is a successor)."""
    diagram = resolve_diagram(scope, diagram_id)
    graph, _ast = graph_of(diagram)
    return NodesResult(
        nodes=graph.refs(
            diagram.diagram_id, (node for node, nexts in graph.successors.items() if not nexts)
        )
    )


def flow_degrees(
    scope: QueryScope,
    *,
    top: Annotated[U64, param("How many nodes to return, highest score first.")] = 10,
    sort_by: Annotated[
        str | None,
        param(
            "Score: out-degree (default), in-degree or their total.", choices=("out", "in", "total")
        ),
    ] = None,
    diagram_id: str | None = None,
) -> DegreesResult:
    """`flow.degrees`: fan-in/fan-out, by score descending then node ref; the first `top`.

    `top == 0` answers `[]` before anything else is checked (the contract's order).
    """
    check_count("top", top)
    if top == 0:
        return DegreesResult(nodes=[])
    score_by = "out" if sort_by in (None, "") else sort_by
    check_choice("sort_by", score_by, ("out", "in", "total"))
    diagram = resolve_diagram(scope, diagram_id)
    graph, ast = graph_of(diagram, implied=False)
    in_degree = dict.fromkeys(graph.node_ids, 0)
    out_degree = dict.fromkeys(graph.node_ids, 0)
    for source, target in graph.edge_pairs:
        out_degree[source] += 1
        in_degree[target] += 1

    def score(node_id: str) -> int:
        if score_by == "in":
            return in_degree[node_id]
        if score_by == "out":
            return out_degree[node_id]
        return in_degree[node_id] + out_degree[node_id]

    refs = {vertex: graph.ref(diagram.diagram_id, vertex) for vertex in graph.node_ids}
    ranked = sorted(graph.node_ids, key=lambda vertex: (-score(vertex), ref_sort(refs[vertex])))
    return DegreesResult(
        nodes=[
            NodeDegree(
                node_ref=refs[node_id],
                label=vertex_label(ast, node_id),
                in_degree=in_degree[node_id],
                out_degree=out_degree[node_id],
            )
            for node_id in ranked[:top]
        ]
    )


def flow_unreachable(
    scope: QueryScope,
    *,
    start_node_id: Annotated[
        str | None,
        param("Node id the search starts from; absent: every node without incoming edges."),
    ] = None,
    diagram_id: str | None = None,
) -> NodesResult:
    """`flow.unreachable`: nodes no walk from the start(s) reaches.

    Starts: the given node (unknown → `not_found` "start node not found", §16 D2), else every
    node without incoming edges (a self-loop is incoming), else — when every node has one —
    all nodes, so nothing is unreachable. A state diagram with a top-level `[*]` starts
    there: a state the machine can never enter is unreachable even without incoming arcs.
    """
    if start_node_id is not None:
        check_param_id("start_node_id", start_node_id)
    diagram = resolve_diagram(scope, diagram_id)
    graph, _ast = graph_of(diagram)
    if start_node_id is not None:
        if not graph.has(start_node_id):
            raise not_found(
                "start node not found",
                {"diagram_id": diagram.diagram_id, "start_node_id": start_node_id},
            )
        starts = [start_node_id]
    elif isinstance(diagram.ast, StateAst) and graph.has("start"):
        starts = ["start"]  # a state machine starts at its top-level [*]
    else:
        targets = {target for _, target in graph.edge_pairs}
        starts = [node for node in graph.node_ids if node not in targets] or graph.node_ids
    reached = closure(graph.successors, starts)
    return NodesResult(
        nodes=graph.refs(diagram.diagram_id, (n for n in graph.node_ids if n not in reached))
    )
