"""Queries over flowcharts whose edges end at subgraphs: a subgraph end is a vertex of its own
(spec decision 23; the meaning is documented in nereid/query/flow.py)."""

from __future__ import annotations

from nereid.mermaid.flowchart import parse_flowchart
from nereid.model import Diagram
from nereid.query import (
    QueryScope,
    flow_cycles,
    flow_dead_ends,
    flow_degrees,
    flow_paths,
    flow_reachable,
    flow_unreachable,
)
from nereid.query.objects import object_read
from nereid.query.route import route_find
from nereid.query.slice import diagram_get_slice
from tests.query.query_builders import scope

TEXT = """flowchart LR
subgraph core [Core]
  api --> svc
end
subgraph data
  db
end
subgraph idle
  lonely
end
gw --> core
core --> data
data --> audit
"""
N = "d:f/flow/node/"
S = "d:f/flow/subgraph/"


def session() -> QueryScope:
    ast = parse_flowchart(TEXT)
    return scope(Diagram(diagram_id="f", name="f", kind="flowchart", ast=ast))


def test_reachable_and_paths_walk_through_subgraph_vertices() -> None:
    reached = flow_reachable(session(), from_node_id="n:gw").nodes
    assert reached == [N + "n:audit", N + "n:gw", S + "sg:core", S + "sg:data"]
    assert flow_reachable(session(), from_node_id="sg:data", direction="in").nodes == [
        N + "n:gw", S + "sg:core", S + "sg:data"
    ]  # fmt: skip
    paths = flow_paths(session(), from_node_id="n:gw", to_node_id="n:audit").paths
    assert paths == [[N + "n:gw", S + "sg:core", S + "sg:data", N + "n:audit"]]


def test_degrees_dead_ends_unreachable_and_cycles_count_subgraph_vertices() -> None:
    degrees = {d.node_ref: (d.label, d.in_degree, d.out_degree)
               for d in flow_degrees(session(), top=20).nodes}  # fmt: skip
    assert degrees[S + "sg:core"] == ("Core", 1, 1)
    assert degrees[S + "sg:data"] == ("data", 1, 1)
    # A subgraph no edge touches is not a vertex.
    assert S + "sg:idle" not in degrees
    assert flow_dead_ends(session()).nodes == [
        N + "n:audit",
        N + "n:db",
        N + "n:lonely",
        N + "n:svc",
    ]
    unreachable = flow_unreachable(session(), start_node_id="n:gw").nodes
    assert S + "sg:core" not in unreachable and N + "n:api" in unreachable
    ast = parse_flowchart("flowchart\nsubgraph a\nx\nend\na --> b\nb --> a\n")
    looped = scope(Diagram(diagram_id="f", name="f", kind="flowchart", ast=ast))
    assert flow_cycles(looped).cycles == [[N + "n:b", S + "sg:a"]]


def test_slice_route_and_object_read_include_subgraph_ends() -> None:
    sliced = diagram_get_slice(session(), center_ref=S + "sg:data", depth=1)
    assert S + "sg:data" in sliced.objects and S + "sg:core" in sliced.objects
    assert N + "n:audit" in sliced.objects and N + "n:db" in sliced.objects
    assert "d:f/flow/edge/e:0003" in sliced.edges  # core --> data
    route = route_find(session(), from_ref=N + "n:gw", to_ref=N + "n:audit").routes[0]
    assert S + "sg:core" in route and S + "sg:data" in route
    edge = object_read(session(), object_refs=["d:f/flow/edge/e:0002"]).objects[0].object
    assert (edge.from_node_id, edge.to_node_id) == ("n:gw", "sg:core")  # type: ignore[union-attr]
