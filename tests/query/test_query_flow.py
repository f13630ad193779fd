"""flow.* on hand-checked graphs (queries.md §2–§7, §16) and graph properties (hypothesis)."""

from __future__ import annotations

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nereid.errors import NereidError
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
from nereid.query.graph import StepBudget, shortest_simple_paths
from nereid.render.display import display_text
from tests.query.query_builders import flowchart, message, node_ids, scope, sequence

# queries.md §2: a→b, b→c, a→d, d→c, c→e, b→d, x→y, y→x, z→z, isolated f.
SPEC_EDGES = [
    ("a", "b"),
    ("b", "c"),
    ("a", "d"),
    ("d", "c"),
    ("c", "e"),
    ("b", "d"),
    ("x", "y"),
    ("y", "x"),
    ("z", "z"),
]
SPEC = scope(flowchart("g", SPEC_EDGES, nodes=["f"]))


@pytest.mark.parametrize(
    ("start", "direction", "expected"),
    [
        ("a", "out", "a b c d e"),
        ("c", "in", "a b c d"),
        ("c", "both", "a b c d e"),
        ("f", "out", "f"),
        ("z", "both", "z"),
        ("x", "out", "x y"),
    ],
)
def test_reachable_spec_examples(start: str, direction: str, expected: str) -> None:
    result = flow_reachable(SPEC, from_node_id=start, direction=direction)
    assert node_ids(result.nodes) == expected.split()
    assert result.nodes[0] == f"d:g/flow/node/{expected.split()[0]}"


def test_reachable_both_is_a_union_not_the_component() -> None:
    # b's sibling d (reachable only via a, up then down) is excluded.
    diagram = scope(flowchart("g", [("a", "b"), ("a", "d")]))
    assert node_ids(flow_reachable(diagram, from_node_id="b", direction="both").nodes) == [
        "a",
        "b",
    ]


def test_reachable_errors_in_spec_order() -> None:
    with pytest.raises(NereidError) as info:
        flow_reachable(SPEC, from_node_id="", direction="sideways")
    assert (info.value.category, info.value.message) == (
        "invalid_params",
        "invalid direction (expected out|in|both)",
    )
    assert info.value.data == {"direction": "sideways"}
    with pytest.raises(NereidError) as info:
        flow_reachable(SPEC, from_node_id="a/b", diagram_id="nope")
    assert info.value.message == "invalid from_node_id: id must not contain '/'"
    with pytest.raises(NereidError) as info:
        flow_reachable(SPEC, from_node_id="a", diagram_id="nope")
    assert (info.value.category, info.value.message, info.value.data) == (
        "not_found",
        "diagram not found",
        {"diagram_id": "nope"},
    )
    with pytest.raises(NereidError) as info:
        flow_reachable(SPEC, from_node_id="q")
    # §16 D2: an unknown start node is not_found, not an empty list.
    assert (info.value.category, info.value.message, info.value.data) == (
        "not_found",
        "from node not found",
        {"diagram_id": "g", "from_node_id": "q"},
    )


def test_diagram_resolution() -> None:
    seq = sequence("s", [message("m:1", "p:a", "p:b", 1000)])
    both = scope(flowchart("g", [("a", "b")]), seq, active="s")
    with pytest.raises(NereidError) as info:
        flow_dead_ends(both)
    assert (info.value.message, info.value.data) == (
        "diagram is not a flowchart",
        {"diagram_id": "s", "diagram_kind": "Sequence"},
    )
    assert node_ids(flow_dead_ends(both, diagram_id="g").nodes) == ["b"]
    with pytest.raises(NereidError) as info:
        flow_dead_ends(QueryScope(diagrams=both.diagrams))
    assert info.value.message == "diagram_id is required (no active diagram)"
    with pytest.raises(NereidError) as info:
        flow_dead_ends(both, diagram_id="")
    assert (info.value.message, info.value.data) == (
        "invalid diagram_id: id must not be empty",
        {"diagram_id": ""},
    )


@pytest.mark.parametrize(
    ("source", "target", "extra", "expected"),
    [
        ("a", "c", 0, ["a b c", "a d c"]),
        ("a", "c", 1, ["a b c", "a d c", "a b d c"]),
        ("a", "e", 5, ["a b c e", "a d c e", "a b d c e"]),
        ("d", "a", 3, []),
        ("a", "a", 0, ["a"]),
        ("x", "y", 4, ["x y"]),
        ("z", "z", 2, ["z"]),
    ],
)
def test_paths_spec_examples(source: str, target: str, extra: int, expected: list[str]) -> None:
    result = flow_paths(SPEC, from_node_id=source, to_node_id=target, max_extra_hops=extra)
    assert [node_ids(path) for path in result.paths] == [p.split() for p in expected]


def test_paths_limit_and_errors() -> None:
    paths = flow_paths(SPEC, from_node_id="a", to_node_id="c", max_extra_hops=1, limit=2)
    assert len(paths.paths) == 2
    assert flow_paths(SPEC, from_node_id="a", to_node_id="c", limit=0).paths == []
    with pytest.raises(NereidError) as info:
        flow_paths(SPEC, from_node_id="q", to_node_id="c", limit=0)
    assert (info.value.category, info.value.message) == ("not_found", "from node not found")
    with pytest.raises(NereidError) as info:
        flow_paths(SPEC, from_node_id="a", to_node_id="q")
    assert (info.value.message, info.value.data) == (
        "to node not found",
        {"diagram_id": "g", "to_node_id": "q"},
    )


def test_paths_parallel_edges_do_not_duplicate_paths() -> None:
    graph = scope(flowchart("g", [("a", "b"), ("a", "b"), ("b", "c"), ("b", "c")]))
    assert len(flow_paths(graph, from_node_id="a", to_node_id="c").paths) == 1


def test_paths_target_only_at_the_end() -> None:
    # a→t→b→t: a path may not pass through t and come back to it.
    graph = scope(flowchart("g", [("a", "t"), ("t", "b"), ("b", "t"), ("a", "b")]))
    result = flow_paths(graph, from_node_id="a", to_node_id="t", max_extra_hops=5)
    assert [node_ids(path) for path in result.paths] == [["a", "t"], ["a", "b", "t"]]


def test_paths_budget_returns_a_prefix_of_the_answer() -> None:
    # A complete graph on 9 nodes has a huge number of simple paths.
    names = [f"v{i}" for i in range(9)]
    edges = [(a, b) for a in names for b in names if a != b]
    graph = scope(flowchart("g", edges))
    full = flow_paths(graph, from_node_id="v0", to_node_id="v8", limit=50, max_extra_hops=7)
    cut = flow_paths(
        graph,
        from_node_id="v0",
        to_node_id="v8",
        limit=50,
        max_extra_hops=7,
        step_budget=40,
    )
    assert len(full.paths) == 50
    assert 0 < len(cut.paths) < 50
    assert cut.paths == full.paths[: len(cut.paths)]


def test_cycles_scc_with_self_loops() -> None:
    result = flow_cycles(SPEC)
    assert [node_ids(c) for c in result.cycles] == [["x", "y"], ["z"]]
    figure_eight = scope(flowchart("g", [("a", "b"), ("b", "a"), ("b", "c"), ("c", "b")]))
    assert [node_ids(c) for c in flow_cycles(figure_eight).cycles] == [["a", "b", "c"]]
    assert flow_cycles(scope(flowchart("g", [("a", "b"), ("a", "b")]))).cycles == []


def test_dead_ends() -> None:
    assert node_ids(flow_dead_ends(SPEC).nodes) == ["e", "f"]


def test_unreachable() -> None:
    graph = scope(flowchart("g", [("a", "b"), ("b", "c"), ("x", "y"), ("y", "x")]))
    assert node_ids(flow_unreachable(graph).nodes) == ["x", "y"]
    assert node_ids(flow_unreachable(graph, start_node_id="b").nodes) == ["a", "x", "y"]
    # Only self-loops / cycles: every node has in-degree > 0, so every node is a start.
    loops = scope(flowchart("g", [("z", "z"), ("x", "y"), ("y", "x")]))
    assert flow_unreachable(loops).nodes == []
    with pytest.raises(NereidError) as info:
        flow_unreachable(graph, start_node_id="q")
    assert (info.value.category, info.value.message, info.value.data) == (
        "not_found",
        "start node not found",
        {"diagram_id": "g", "start_node_id": "q"},
    )


DEGREE_GRAPH = scope(flowchart("g", [("a", "b"), ("a", "c"), ("a", "d"), ("c", "b"), ("d", "b")]))


@pytest.mark.parametrize(
    ("sort_by", "top", "expected"),
    [
        ("out", 2, [("a", 0, 3), ("c", 1, 1)]),
        ("", 2, [("a", 0, 3), ("c", 1, 1)]),
        ("in", 3, [("b", 3, 0), ("c", 1, 1), ("d", 1, 1)]),
        ("total", 3, [("a", 0, 3), ("b", 3, 0), ("c", 1, 1)]),
    ],
)
def test_degrees_spec_examples(sort_by: str, top: int, expected: list[tuple]) -> None:
    result = flow_degrees(DEGREE_GRAPH, top=top, sort_by=sort_by)
    assert [(node_ids([n.node_ref])[0], n.in_degree, n.out_degree) for n in result.nodes] == (
        expected
    )
    assert result.nodes[0].label == expected[0][0].upper()


def test_degrees_top_zero_first_and_json_shape() -> None:
    assert flow_degrees(DEGREE_GRAPH, top=0, sort_by="bogus", diagram_id="nope").nodes == []
    with pytest.raises(NereidError) as info:
        flow_degrees(DEGREE_GRAPH, sort_by="bogus", diagram_id="nope")
    assert info.value.message == "invalid sort_by (expected out|in|total)"
    loops = scope(flowchart("g", [("z", "z"), ("z", "y"), ("z", "y")]))
    encoded = msgspec.json.encode(flow_degrees(loops, top=1))
    assert encoded == (
        b'{"nodes":[{"node_ref":"d:g/flow/node/z","label":"Z","in_degree":1,"out_degree":3}]}'
    )


# --- properties -----------------------------------------------------------------------

NODES = [f"n{i}" for i in range(7)]
edge_lists = st.lists(st.tuples(st.sampled_from(NODES), st.sampled_from(NODES)), max_size=20)


def _graph(edges: list[tuple[str, str]]):
    return scope(flowchart("g", edges, nodes=NODES))


@settings(max_examples=150, deadline=None)
@given(edge_lists, st.sampled_from(NODES), st.sampled_from(NODES), st.integers(0, 3))
def test_paths_are_simple_ordered_and_inside_reachable(edges, source, target, extra) -> None:
    graph = _graph(edges)
    reachable = set(flow_reachable(graph, from_node_id=source).nodes)
    paths = flow_paths(
        graph, from_node_id=source, to_node_id=target, limit=1000, max_extra_hops=extra
    ).paths
    succ = {(f"d:g/flow/node/{a}", f"d:g/flow/node/{b}") for a, b in edges}
    for path in paths:
        assert set(path) <= reachable
        assert path[0].endswith(f"/{source}") and path[-1].endswith(f"/{target}")
        assert len(set(path)) == len(path)
        assert all((a, b) in succ for a, b in zip(path, path[1:], strict=False))
    keys = [(len(p), node_ids(p)) for p in paths]
    assert keys == sorted(keys)
    if paths:
        assert len(paths[-1]) - len(paths[0]) <= extra
    elif source != target:
        assert f"d:g/flow/node/{target}" not in reachable


@settings(max_examples=100, deadline=None)
@given(edge_lists, st.sampled_from(NODES), st.sampled_from(NODES), st.integers(0, 3))
def test_paths_match_brute_force(edges, source, target, extra) -> None:
    succ: dict[str, list[str]] = {n: sorted({b for a, b in edges if a == n}) for n in NODES}
    expected: list[list[str]] = []

    def walk(path: list[str]) -> None:
        if path[-1] == target:
            expected.append(list(path))
            return
        for nxt in succ[path[-1]]:
            if nxt not in path:
                walk([*path, nxt])

    walk([source])
    if expected:
        shortest = min(len(p) for p in expected)
        expected = sorted(
            (p for p in expected if len(p) <= shortest + extra), key=lambda p: (len(p), p)
        )
    got = shortest_simple_paths(
        succ, source, target, limit=10_000, max_extra_hops=extra, budget=StepBudget(10**9)
    )
    assert got == expected


@settings(max_examples=150, deadline=None)
@given(edge_lists)
def test_cycles_are_real_strongly_connected_cycles(edges) -> None:
    graph = _graph(edges)
    cycles = [node_ids(c) for c in flow_cycles(graph).cycles]
    assert cycles == sorted(cycles)
    seen: set[str] = set()
    for members in cycles:
        assert members == sorted(members)
        assert not seen & set(members)
        seen |= set(members)
        if len(members) == 1:
            assert (members[0], members[0]) in edges
        for node in members:
            reach = set(node_ids(flow_reachable(graph, from_node_id=node).nodes))
            back = set(node_ids(flow_reachable(graph, from_node_id=node, direction="in").nodes))
            assert set(members) <= reach & back
    # Every node on a cycle (mutually reachable with another node, or self-looped) is reported.
    for node in NODES:
        reach = set(node_ids(flow_reachable(graph, from_node_id=node).nodes))
        back = set(node_ids(flow_reachable(graph, from_node_id=node, direction="in").nodes))
        if (reach & back) - {node} or (node, node) in edges:
            assert node in seen


@settings(max_examples=150, deadline=None)
@given(edge_lists)
def test_degrees_sum_to_edge_count_and_dead_ends_agree(edges) -> None:
    graph = _graph(edges)
    nodes = flow_degrees(graph, top=100, sort_by="total").nodes
    assert len(nodes) == len(NODES)
    assert sum(n.in_degree for n in nodes) == len(edges)
    assert sum(n.out_degree for n in nodes) == len(edges)
    dead = {n.node_ref for n in nodes if n.out_degree == 0}
    assert set(flow_dead_ends(graph).nodes) == dead
    unreachable = set(flow_unreachable(graph).nodes)
    roots = {n.node_ref for n in nodes if n.in_degree == 0}
    assert not unreachable & roots


def test_degrees_label_is_the_text_a_reader_sees() -> None:
    """`flow.degrees` reports labels as drawn: markdown marks and backticks dropped,
    entity codes decoded, `<br>` a line break, icons as `:name:`; subgraph titles too."""
    text = """flowchart LR
    a["`**Order** _service_`"] --> b["say #quot;hi#quot; #9829;"]
    a --> c["two<br/>lines"]
    a --> d["fa:fa-user User"]
    b --> e[plain]
    subgraph grp ["`Grp #amp; _co_`"]
      e
    end
    c --> grp
    """
    ast = parse_flowchart(text)
    graph = scope(Diagram(diagram_id="g", name="g", kind="flowchart", ast=ast))
    result = flow_degrees(graph, top=10, sort_by="total")
    labels = {n.node_ref.rsplit("/", 1)[1]: n.label for n in result.nodes}
    assert labels == {
        "n:a": "Order service",
        "n:b": 'say "hi" ♥',
        "n:c": "two\nlines",
        "n:d": ":user: User",
        "n:e": "plain",
        "sg:grp": "Grp & co",
    }
    for node in result.nodes:
        vertex = node.node_ref.rsplit("/", 1)[1]
        stored = ast.nodes[vertex].label if vertex in ast.nodes else ast.subgraphs[vertex].title
        assert node.label == display_text(stored or vertex)
        assert (node.label != stored) == (vertex != "n:e")
