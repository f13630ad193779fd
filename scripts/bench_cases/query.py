"""Query-layer speed: flow.* on a 1000-node flowchart, route.find across 20 diagrams.

The flowchart has the shape of `shared/bench/gen_corpus.py`'s flow(1000) (`n{i} --> n{(i*7+1)%n}`
plus a labelled edge every 3rd node to a seeded random node), built directly as model structs.
The route session has 10 flowcharts of 50 nodes and 10 sequence diagrams of 50 messages (an
`alt` block every 10 messages) linked by 200 seeded random xrefs. Each table's baseline is a
plain breadth-first reachability on the same graph, measured in the same run, so the ratios
say how much more than "touch every vertex once" each query costs.
"""

from __future__ import annotations

import argparse
import random

from nereid.model import (
    FLOW_NODE,
    SEQ_MESSAGE,
    SEQ_PARTICIPANT,
    Diagram,
    FlowchartAst,
    FlowEdge,
    FlowNode,
    ObjectRef,
    SeqBlock,
    SeqMessage,
    SeqParticipant,
    SeqSection,
    SequenceAst,
    XRef,
)
from nereid.query import (
    EXPANSION_BUDGET,
    QueryScope,
    RouteGraph,
    flow_cycles,
    flow_degrees,
    flow_paths,
    flow_reachable,
    route_find,
)
from nereid.query.graph import bfs_distances, closure

from ._common import print_table, time_sync

DESCRIPTION = "Queries: flow.paths/cycles/degrees on 1000 nodes, route.find over 20 diagrams"


def flowchart(diagram_id: str, n: int, seed: int = 7) -> Diagram:
    """gen_corpus.flow(n) as an AST: node ids `n:n{i}`, edges `e:NNNN` in text order."""
    rnd = random.Random(seed)
    nodes: dict[str, FlowNode] = {}
    edges: dict[str, FlowEdge] = {}

    def add_edge(source: int, target: int, label: str | None = None) -> None:
        for index in (source, target):
            nodes.setdefault(f"n:n{index}", FlowNode(label=f"Node {index}"))
        edges[f"e:{len(edges) + 1:04d}"] = FlowEdge(
            from_node_id=f"n:n{source}", to_node_id=f"n:n{target}", label=label
        )

    for i in range(n):
        add_edge(i, (i * 7 + 1) % n)
        if i % 3 == 0:
            add_edge(i, rnd.randrange(n), f"label {i}")
    ast = FlowchartAst(direction="TD", nodes=nodes, edges=edges)
    return Diagram(diagram_id=diagram_id, name=diagram_id, kind="flowchart", ast=ast)


def sequence(diagram_id: str, n: int) -> Diagram:
    """gen_corpus.seq(n) as an AST: a message between neighbours, an alt every 10 messages."""
    names = ["Alice", "Bob", "Carol", "Dave"]
    messages: list[SeqMessage] = []
    blocks: list[SeqBlock] = []

    def add(source: str, target: str, text: str) -> str:
        message_id = f"m:{len(messages) + 1:04d}"
        messages.append(
            SeqMessage(
                message_id=message_id,
                from_participant_id=f"p:{source}",
                to_participant_id=f"p:{target}",
                kind="sync",
                text=text,
                order_key=1000 * (len(messages) + 1),
            )
        )
        return message_id

    for i in range(n):
        a, b = names[i % 4], names[(i + 1) % 4]
        add(a, b, f"message {i}")
        if i % 10 == 0:
            yes, no = add(b, a, f"yes {i}"), add(a, b, f"no {i}")
            block = f"b:{len(blocks):04d}"
            blocks.append(
                SeqBlock(
                    block_id=block,
                    kind="alt",
                    header="ok",
                    sections=(
                        SeqSection(
                            section_id=f"sec:{block[2:]}:00", kind="main", message_ids=(yes,)
                        ),
                        SeqSection(
                            section_id=f"sec:{block[2:]}:01", kind="else", message_ids=(no,)
                        ),
                    ),
                )
            )
    ast = SequenceAst(
        participants={f"p:{name}": SeqParticipant(mermaid_name=name) for name in names},
        messages=tuple(messages),
        blocks=tuple(blocks),
    )
    return Diagram(diagram_id=diagram_id, name=diagram_id, kind="sequence", ast=ast)


def route_session(seed: int = 11) -> QueryScope:
    """10 flowcharts + 10 sequence diagrams, 200 random xrefs between their objects."""
    diagrams = [flowchart(f"flow{i:02d}", 50, seed=i) for i in range(10)]
    diagrams += [sequence(f"seq{i:02d}", 50) for i in range(10)]
    objects: list[ObjectRef] = []
    for diagram in diagrams:
        if isinstance(diagram.ast, FlowchartAst):
            objects += [ObjectRef(diagram.diagram_id, FLOW_NODE, n) for n in diagram.ast.nodes]
        else:
            objects += [
                ObjectRef(diagram.diagram_id, SEQ_PARTICIPANT, p) for p in diagram.ast.participants
            ]
            objects += [
                ObjectRef(diagram.diagram_id, SEQ_MESSAGE, m.message_id)
                for m in diagram.ast.messages
            ]
    rnd = random.Random(seed)
    xrefs = {
        f"x:{i:03d}": XRef(from_ref=rnd.choice(objects), to_ref=rnd.choice(objects), kind="rel")
        for i in range(200)
    }
    return QueryScope(
        diagrams={d.diagram_id: d for d in diagrams}, xrefs=xrefs, active_diagram_id="flow00"
    )


def _flow_table(runs: int) -> None:
    diagram = flowchart("big", 1000)
    scope = QueryScope(diagrams={"big": diagram}, active_diagram_id="big")
    ast = diagram.ast
    assert isinstance(ast, FlowchartAst)
    adjacency: dict[str, list[str]] = {node: [] for node in ast.nodes}
    for edge in ast.edges.values():
        adjacency[edge.from_node_id].append(edge.to_node_id)
    distances = bfs_distances(adjacency, "n:n0")
    target = max(distances, key=lambda node: (distances[node], node))
    print(
        f"flowchart: {len(adjacency)} nodes, {len(ast.edges)} edges; "
        f"paths n:n0 -> {target} ({distances[target]} hops)"
    )
    paths = flow_paths(scope, from_node_id="n:n0", to_node_id=target, limit=10)
    paths2 = flow_paths(scope, from_node_id="n:n0", to_node_id=target, limit=10, max_extra_hops=2)
    print(
        f"  flow.paths found {len(paths.paths)} (extra 0), {len(paths2.paths)} (extra 2); "
        f"flow.cycles found {len(flow_cycles(scope).cycles)} component(s)"
    )
    # Hostile input: every simple path of a complete graph on 14 nodes, no useful limits.
    names = [f"v{i}" for i in range(14)]
    dense_edges = {
        f"e:{a}-{b}": FlowEdge(from_node_id=a, to_node_id=b) for a in names for b in names if a != b
    }
    dense_ast = FlowchartAst(nodes={n: FlowNode(label=n) for n in names}, edges=dense_edges)
    dense = QueryScope(
        diagrams={"k14": Diagram(diagram_id="k14", name="k14", kind="flowchart", ast=dense_ast)},
        active_diagram_id="k14",
    )
    rows = [
        ("BFS reachability (baseline)", time_sync(lambda: closure(adjacency, ["n:n0"]), runs=runs)),
        (
            "flow.reachable n0",
            time_sync(lambda: flow_reachable(scope, from_node_id="n:n0"), runs=runs),
        ),
        (
            "flow.paths limit 10",
            time_sync(
                lambda: flow_paths(scope, from_node_id="n:n0", to_node_id=target, limit=10),
                runs=runs,
            ),
        ),
        (
            "flow.paths limit 10 extra 2",
            time_sync(
                lambda: flow_paths(
                    scope, from_node_id="n:n0", to_node_id=target, limit=10, max_extra_hops=2
                ),
                runs=runs,
            ),
        ),
        ("flow.cycles", time_sync(lambda: flow_cycles(scope), runs=runs)),
        ("flow.degrees top 10", time_sync(lambda: flow_degrees(scope), runs=runs)),
        (
            "flow.paths on K14, no limits (budget-bound)",
            time_sync(
                lambda: flow_paths(
                    dense, from_node_id="v0", to_node_id="v13", limit=10**9, max_extra_hops=99
                ),
                runs=max(1, runs // 3),
            ),
        ),
    ]
    print_table("flow.* on flow(1000)", rows, baseline="BFS reachability (baseline)")


def _route_table(runs: int) -> None:
    scope = route_session()
    graph = RouteGraph.build(scope.diagrams, scope.xrefs.values())
    arcs = sum(len(targets) for targets in graph.arcs.values())
    source = "d:flow00/flow/node/n:n0"
    target = "d:seq09/seq/message/m:0030"
    start = ("flow00", FLOW_NODE, "n:n0")
    found = route_find(scope, from_ref=source, to_ref=target, graph=graph).routes
    many = route_find(scope, from_ref=source, to_ref=target, limit=10, graph=graph).routes
    bounded = route_find(scope, from_ref=source, to_ref=target, limit=10**5, graph=graph).routes
    print(
        f"route session: {len(scope.diagrams)} diagrams, {len(scope.xrefs)} xrefs, "
        f"{len(graph.arcs)} vertices, {arcs} arcs; {source} -> {target}: "
        f"{len(found[0]) - 1 if found else '-'} hops, {len(many)} route(s) with limit 10, "
        f"{len(bounded)} with limit 100000 (expansion budget {EXPANSION_BUDGET})"
    )
    rows = [
        (
            "BFS over the route graph (baseline)",
            time_sync(lambda: closure(graph.arcs, [start]), runs=runs),
        ),
        (
            "RouteGraph.build",
            time_sync(lambda: RouteGraph.build(scope.diagrams, scope.xrefs.values()), runs=runs),
        ),
        (
            "route.find limit 1 (graph built)",
            time_sync(lambda: route_find(scope, from_ref=source, to_ref=target), runs=runs),
        ),
        (
            "route.find limit 1 (prebuilt)",
            time_sync(
                lambda: route_find(scope, from_ref=source, to_ref=target, graph=graph), runs=runs
            ),
        ),
        (
            "route.find limit 10 (prebuilt)",
            time_sync(
                lambda: route_find(scope, from_ref=source, to_ref=target, limit=10, graph=graph),
                runs=runs,
            ),
        ),
        (
            "route.find limit 100000 (budget-bound)",
            time_sync(
                lambda: route_find(scope, from_ref=source, to_ref=target, limit=10**5, graph=graph),
                runs=max(1, runs // 3),
            ),
        ),
    ]
    print_table(
        "route.find over 20 diagrams / 200 xrefs",
        rows,
        baseline="BFS over the route graph (baseline)",
    )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="scripts/bench query", description=__doc__)
    parser.add_argument("--runs", type=int, default=7, help="runs per measurement (default 7)")
    args = parser.parse_args(argv)
    _flow_table(args.runs)
    print()
    _route_table(args.runs)
    return 0
