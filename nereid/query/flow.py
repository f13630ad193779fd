"""The flowchart queries `flow.*` (queries.md §1–§7 with the §16 changes).

The graph: vertices are the node ids; arcs are the edges whose two endpoints are nodes
(the parser and ops guarantee that; an inconsistent edge is ignored everywhere). Successor
and predecessor lists are distinct ids in ascending order; degrees count every edge.
Node lists come out in ref order, which within one diagram is node-id order.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from nereid.model import FLOW_NODE, FlowchartAst
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

    __slots__ = ("edge_pairs", "node_ids", "predecessors", "successors")

    def __init__(self, ast: FlowchartAst) -> None:
        self.node_ids: list[str] = list(ast.nodes)
        self.edge_pairs: list[tuple[str, str]] = [
            (edge.from_node_id, edge.to_node_id)
            for edge in ast.edges.values()
            if edge.from_node_id in ast.nodes and edge.to_node_id in ast.nodes
        ]
        successors: dict[str, set[str]] = {node_id: set() for node_id in self.node_ids}
        predecessors: dict[str, set[str]] = {node_id: set() for node_id in self.node_ids}
        for source, target in self.edge_pairs:
            successors[source].add(target)
            predecessors[target].add(source)
        self.successors = {node: sorted(targets) for node, targets in successors.items()}
        self.predecessors = {node: sorted(sources) for node, sources in predecessors.items()}


def _node_refs(diagram_id: str, node_ids: Iterable[str]) -> list[str]:
    """Node refs in ref order (one diagram, one category: node-id order)."""
    prefix = ref_prefix(diagram_id, FLOW_NODE)
    return [prefix + node_id for node_id in sorted(node_ids)]


def flow_reachable(
    scope: QueryScope,
    *,
    from_node_id: str,
    direction: str = "out",
    diagram_id: str | None = None,
) -> NodesResult:
    """`flow.reachable`: the out-closure, in-closure, or their union (`both`), start included.

    An unknown start node is `not_found` "from node not found" (§16 D2).
    """
    check_choice("direction", direction, ("out", "in", "both"))
    check_param_id("from_node_id", from_node_id)
    diagram = resolve_diagram(scope, diagram_id)
    ast = flowchart_of(diagram)
    if from_node_id not in ast.nodes:
        raise not_found(
            "from node not found",
            {"diagram_id": diagram.diagram_id, "from_node_id": from_node_id},
        )
    graph = FlowGraph(ast)
    reached: set[str] = set()
    if direction in ("out", "both"):
        reached |= closure(graph.successors, [from_node_id])
    if direction in ("in", "both"):
        reached |= closure(graph.predecessors, [from_node_id])
    return NodesResult(nodes=_node_refs(diagram.diagram_id, reached))


def flow_paths(
    scope: QueryScope,
    *,
    from_node_id: str,
    to_node_id: str,
    limit: int = 10,
    max_extra_hops: int = 0,
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
    ast = flowchart_of(diagram)
    if from_node_id not in ast.nodes:
        raise not_found(
            "from node not found",
            {"diagram_id": diagram.diagram_id, "from_node_id": from_node_id},
        )
    if to_node_id not in ast.nodes:
        raise not_found(
            "to node not found", {"diagram_id": diagram.diagram_id, "to_node_id": to_node_id}
        )
    graph = FlowGraph(ast)
    paths = shortest_simple_paths(
        graph.successors,
        from_node_id,
        to_node_id,
        limit=limit,
        max_extra_hops=max_extra_hops,
        budget=StepBudget(step_budget),
    )
    prefix = ref_prefix(diagram.diagram_id, FLOW_NODE)
    return PathsResult(paths=[[prefix + node_id for node_id in path] for path in paths])


def flow_cycles(scope: QueryScope, *, diagram_id: str | None = None) -> CyclesResult:
    """`flow.cycles`: every strongly connected component that holds a cycle.

    That is every component of two or more nodes, and every single node with a self-loop
    (decision 2: cycles are legal). Members in node-id order; components in lexicographic
    order of those lists.
    """
    diagram = resolve_diagram(scope, diagram_id)
    graph = FlowGraph(flowchart_of(diagram))
    cyclic = [
        sorted(component)
        for component in strongly_connected_components(graph.node_ids, graph.successors)
        if len(component) > 1 or component[0] in graph.successors[component[0]]
    ]
    cyclic.sort()
    return CyclesResult(cycles=[_node_refs(diagram.diagram_id, component) for component in cyclic])


def flow_dead_ends(scope: QueryScope, *, diagram_id: str | None = None) -> NodesResult:
    """`flow.dead_ends`: nodes without successors (a self-loop is a successor)."""
    diagram = resolve_diagram(scope, diagram_id)
    graph = FlowGraph(flowchart_of(diagram))
    return NodesResult(
        nodes=_node_refs(
            diagram.diagram_id, (node for node, nexts in graph.successors.items() if not nexts)
        )
    )


def flow_degrees(
    scope: QueryScope,
    *,
    top: int = 10,
    sort_by: str | None = "out",
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
    ast = flowchart_of(diagram)
    graph = FlowGraph(ast)
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

    ranked = sorted(graph.node_ids, key=lambda node_id: (-score(node_id), node_id))[:top]
    return DegreesResult(
        nodes=[
            NodeDegree(
                node_ref=ref_prefix(diagram.diagram_id, FLOW_NODE) + node_id,
                label=ast.nodes[node_id].label,
                in_degree=in_degree[node_id],
                out_degree=out_degree[node_id],
            )
            for node_id in ranked
        ]
    )


def flow_unreachable(
    scope: QueryScope,
    *,
    start_node_id: str | None = None,
    diagram_id: str | None = None,
) -> NodesResult:
    """`flow.unreachable`: nodes no walk from the start(s) reaches.

    Starts: the given node (unknown → `not_found` "start node not found", §16 D2), else every
    node without incoming edges (a self-loop is incoming), else — when every node has one —
    all nodes, so nothing is unreachable.
    """
    if start_node_id is not None:
        check_param_id("start_node_id", start_node_id)
    diagram = resolve_diagram(scope, diagram_id)
    ast = flowchart_of(diagram)
    graph = FlowGraph(ast)
    if start_node_id is not None:
        if start_node_id not in ast.nodes:
            raise not_found(
                "start node not found",
                {"diagram_id": diagram.diagram_id, "start_node_id": start_node_id},
            )
        starts = [start_node_id]
    else:
        targets = {target for _, target in graph.edge_pairs}
        starts = [node for node in graph.node_ids if node not in targets] or graph.node_ids
    reached = closure(graph.successors, starts)
    return NodesResult(
        nodes=_node_refs(diagram.diagram_id, (n for n in graph.node_ids if n not in reached))
    )
