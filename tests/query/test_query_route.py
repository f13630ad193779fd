"""route.find over the session graph (queries.md §12, §16 D5), with Nereid's additions."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nereid.errors import NereidError
from nereid.model import FlowSubgraph, SeqBlock, SeqNote, SeqSection
from nereid.query import RouteGraph, route_find
from nereid.query.graph import StepBudget
from nereid.query.route import find_routes
from tests.query.query_builders import flowchart, message, scope, sequence, xref

FLOW_A = "d:d-flow/flow/node/n:a"
FLOW_B = "d:d-flow/flow/node/n:b"
M1 = "d:d-seq/seq/message/m:1"
M2 = "d:d-seq/seq/message/m:2"


def _session_one(*extra_xrefs: tuple[str, str]):
    flow = flowchart("d-flow", [("n:a", "n:b")], edge_ids=["e:ab"])
    seq = sequence(
        "d-seq", [message("m:1", "p:a", "p:b", 1000), message("m:2", "p:a", "p:b", 2000)]
    )
    links = {"x:1": xref(FLOW_B, M1)}
    for index, (source, target) in enumerate(extra_xrefs, start=2):
        links[f"x:{index}"] = xref(source, target)
    return scope(flow, seq, xrefs=links)


def test_session_one_examples() -> None:
    session = _session_one()
    assert route_find(session, from_ref=FLOW_A, to_ref=M2).routes == [[FLOW_A, FLOW_B, M1, M2]]
    assert route_find(session, from_ref=FLOW_A, to_ref=M2, max_hops=2).routes == []
    session = _session_one((FLOW_A, M1))
    assert route_find(session, from_ref=FLOW_A, to_ref=M2, limit=2).routes == [
        [FLOW_A, M1, M2],
        [FLOW_A, FLOW_B, M1, M2],
    ]
    assert route_find(
        session, from_ref=FLOW_A, to_ref=M2, limit=2, ordering="lexicographic"
    ).routes == [[FLOW_A, FLOW_B, M1, M2], [FLOW_A, M1, M2]]


def test_session_two_examples() -> None:
    flow = flowchart(
        "flow",
        [("a", "b"), ("a", "c"), ("b", "d"), ("c", "d"), ("b", "c")],
        edge_ids=["e:ab", "e:ac", "e:bd", "e:cd", "e:bc"],
    )
    session = scope(flow)

    def ref(name: str) -> str:
        category = "edge" if name.startswith("e:") else "node"
        return f"d:flow/flow/{category}/{name}"

    def expand(routes: list[str]) -> list[list[str]]:
        return [[ref(name) for name in route.split()] for route in routes]

    fewest = [
        "a b d",
        "a c d",
        "a e:ab b d",
        "a e:ac c d",
        "a b e:bd d",
        "a b c d",
        "a c e:cd d",
    ]
    lexicographic = [
        "a e:ab b d",
        "a e:ac c d",
        "a b e:bd d",
        "a b c d",
        "a b d",
        "a c e:cd d",
        "a c d",
    ]
    args = {"from_ref": ref("a"), "to_ref": ref("d"), "limit": 10, "max_hops": 3}
    assert route_find(session, **args).routes == expand(fewest)
    assert route_find(session, **args, ordering="lexicographic").routes == expand(lexicographic)
    # An edge walks back to its endpoints through the edge object only.
    assert route_find(session, from_ref=ref("e:ab"), to_ref=ref("a")).routes == [
        [ref("e:ab"), ref("a")]
    ]
    assert route_find(session, from_ref=ref("b"), to_ref=ref("a")).routes == [
        [ref("b"), ref("e:ab"), ref("a")]
    ]


def test_cross_diagram_via_an_edge_and_sequence_structure() -> None:
    flow = flowchart("f", [("n:a", "n:b")], edge_ids=["e:ab"])
    alt = SeqBlock(
        block_id="b:1",
        kind="alt",
        sections=(SeqSection(section_id="s:1", kind="main", message_ids=("m:1",)),),
    )
    seq = sequence(
        "s",
        [message("m:1", "p:one", "p:two", 100), message("m:2", "p:one", "p:two", 200)],
        blocks=(alt,),
    )
    session = scope(flow, seq, xrefs={"x": xref("d:f/flow/edge/e:ab", "d:s/seq/participant/p:one")})
    assert route_find(
        session, from_ref="d:f/flow/node/n:a", to_ref="d:s/seq/message/m:2"
    ).routes == [
        [
            "d:f/flow/node/n:a",
            "d:f/flow/edge/e:ab",
            "d:s/seq/participant/p:one",
            "d:s/seq/message/m:2",
        ]
    ]
    # block → section → message is 2 hops; a later message reaches an earlier one only
    # through a participant or a section.
    assert route_find(
        session, from_ref="d:s/seq/block/b:1", to_ref="d:s/seq/message/m:1"
    ).routes == [["d:s/seq/block/b:1", "d:s/seq/section/s:1", "d:s/seq/message/m:1"]]
    back = route_find(session, from_ref="d:s/seq/message/m:2", to_ref="d:s/seq/message/m:1")
    assert back.routes == [
        ["d:s/seq/message/m:2", "d:s/seq/participant/p:one", "d:s/seq/message/m:1"]
    ]


def test_subgraphs_and_notes_connect_xrefs() -> None:
    flow = flowchart(
        "f",
        [("n:a", "n:b")],
        nodes=["n:c"],
        subgraphs={"sg:box": FlowSubgraph(mermaid_id="box", node_ids=("n:c",))},
    )
    note = SeqNote(
        note_id="note:1", placement="over", participant_ids=("p:x",), text="hi", order_key=1
    )
    seq = sequence("s", [message("m:1", "p:x", "p:y", 1000)], notes=(note,))
    session = scope(flow, seq, xrefs={"x": xref("d:f/flow/subgraph/sg:box", "d:s/seq/note/note:1")})
    assert route_find(
        session, from_ref="d:f/flow/node/n:c", to_ref="d:s/seq/message/m:1"
    ).routes == [
        [
            "d:f/flow/node/n:c",
            "d:f/flow/subgraph/sg:box",
            "d:s/seq/note/note:1",
            "d:s/seq/participant/p:x",
            "d:s/seq/message/m:1",
        ]
    ]


def test_special_cases_and_errors() -> None:
    session = _session_one()
    unknown = "d:nowhere/custom/thing"
    assert route_find(session, from_ref=unknown, to_ref=unknown, max_hops=0).routes == [[unknown]]
    assert route_find(session, from_ref=unknown, to_ref=FLOW_A).routes == []
    assert route_find(session, from_ref=FLOW_A, to_ref=FLOW_B, max_hops=0).routes == []
    # limit 0 answers before the ordering is checked.
    assert route_find(session, from_ref=FLOW_A, to_ref=M2, limit=0, ordering="bogus").routes == []
    assert route_find(session, from_ref=FLOW_A, to_ref=M2, ordering="").routes == [
        [FLOW_A, FLOW_B, M1, M2]
    ]
    with pytest.raises(NereidError) as info:
        route_find(session, from_ref="x", to_ref="also bad")
    assert (info.value.message, info.value.data) == (
        "invalid from_ref: object ref must start with 'd:'",
        {"from_ref": "x"},
    )
    with pytest.raises(NereidError) as info:
        route_find(session, from_ref=FLOW_A, to_ref="d:x")
    assert info.value.message == "invalid to_ref: object ref is missing category path"
    with pytest.raises(NereidError) as info:
        route_find(session, from_ref=FLOW_A, to_ref=M2, ordering="shortest")
    assert (info.value.message, info.value.data) == (
        "invalid ordering (expected fewest_hops|lexicographic)",
        {"ordering": "shortest"},
    )


def test_dangling_xref_endpoints_are_vertices() -> None:
    ghost = "d:gone/flow/node/n:ghost"
    session = scope(
        flowchart("f", [("n:a", "n:b")]),
        xrefs={"x:1": xref("d:f/flow/node/n:b", ghost), "x:2": xref(ghost, M1)},
    )
    assert route_find(session, from_ref="d:f/flow/node/n:a", to_ref=M1).routes == [
        ["d:f/flow/node/n:a", "d:f/flow/node/n:b", ghost, M1]
    ]


def test_default_hop_bound_and_budget_keep_search_bounded() -> None:
    # A long chain: the only route has 40 hops, beyond the default bound of 32.
    chain = flowchart("f", [(f"n{i}", f"n{i + 1}") for i in range(40)])
    session = scope(chain)
    ends = {"from_ref": "d:f/flow/node/n0", "to_ref": "d:f/flow/node/n40"}
    assert route_find(session, **ends).routes == []
    assert len(route_find(session, **ends, max_hops=40).routes[0]) == 41
    # A dense graph without the target reachable in time: the budget ends the search.
    names = [f"v{i}" for i in range(12)]
    dense = flowchart("f", [(a, b) for a in names for b in names if a != b], nodes=["t"])
    dense_scope = scope(dense, xrefs={"x": xref("d:f/flow/node/v11", "d:f/flow/node/t")})
    cut = route_find(
        dense_scope,
        from_ref="d:f/flow/node/v0",
        to_ref="d:f/flow/node/t",
        limit=10**6,
        expansion_budget=5_000,
    )
    full_prefix = route_find(
        dense_scope,
        from_ref="d:f/flow/node/v0",
        to_ref="d:f/flow/node/t",
        limit=len(cut.routes),
    )
    assert 0 < len(cut.routes)
    assert cut.routes == full_prefix.routes


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 5), st.integers(0, 5)), max_size=12),
    st.integers(0, 5),
    st.integers(0, 5),
    st.integers(1, 6),
)
def test_routes_match_brute_force(edges, source, target, max_hops) -> None:
    diagram = flowchart(
        "f", [(f"n{a}", f"n{b}") for a, b in edges], nodes=[f"n{i}" for i in range(6)]
    )
    graph = RouteGraph.build({"f": diagram}, [])
    start = ("f", ("flow", "node"), f"n{source}")
    goal = ("f", ("flow", "node"), f"n{target}")
    expected: list[tuple] = []

    def walk(path: tuple) -> None:
        if path[-1] == goal:
            expected.append(path)
            return
        if len(path) - 1 >= max_hops:
            return
        for nxt in graph.arcs.get(path[-1], ()):
            if nxt not in path:
                walk((*path, nxt))

    walk((start,))
    expected.sort(key=lambda p: (len(p), p))
    got = find_routes(graph, start, goal, limit=10**6, max_hops=max_hops, budget=StepBudget(10**9))
    assert got == expected
