"""Long edges of big flowcharts drawn as two labelled stubs (nereid.render.flowchart.stubs).

The rule is a function of the edges' spans alone (a property test), small diagrams never get
stubs, and a stubbed edge is still drawn: both ends with their arrowheads, each connector
naming the other end, all of it in the edge's span.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from nereid.mermaid import parse_mermaid
from nereid.model.flowchart import FlowchartAst
from nereid.model.refs import FLOW_EDGE, ObjectRef
from nereid.render import RenderOptions, render_flowchart, slice_cells
from nereid.render.flowchart.items import rank
from nereid.render.flowchart.prepare import prepare
from nereid.render.flowchart.stubs import FULL_ROUTE_WAYPOINTS, MIN_STUB_SPAN, stub_span
from nereid.testing.big_diagrams import flowchart


def _waypoints(spans: list[int], longest: int) -> int:
    return sum(span - 1 for span in spans if 1 < span <= longest)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 400), max_size=120))
def test_the_rule_keeps_the_longest_spans_that_fit_the_waypoint_budget(spans: list[int]) -> None:
    longest = stub_span(spans)
    total = _waypoints(spans, 1 << 30)
    if longest is None:
        assert total <= FULL_ROUTE_WAYPOINTS
        return
    assert total > FULL_ROUTE_WAYPOINTS
    # Past the threshold the budget shrinks as the diagram grows: half at twice the threshold.
    goal = FULL_ROUTE_WAYPOINTS * FULL_ROUTE_WAYPOINTS // total
    assert goal < FULL_ROUTE_WAYPOINTS
    assert longest >= MIN_STUB_SPAN - 1
    assert any(span > longest for span in spans)
    # Within budget, unless only the shortest spans (never stubbed) are left; and one
    # more span length drawn in full would not have fit.
    assert longest == MIN_STUB_SPAN - 1 or _waypoints(spans, longest) <= goal
    assert _waypoints(spans, longest + 1) > goal or not any(span == longest + 1 for span in spans)


def test_the_budget_past_the_threshold_is_continuous_and_shrinks() -> None:
    # Just past the threshold nearly all of it is drawn in full; far past it, far less.
    just_past = [2] * (FULL_ROUTE_WAYPOINTS - 5) + [8]
    assert stub_span(just_past) == 7  # only the one longest edge is cut
    far_past = [2] * FULL_ROUTE_WAYPOINTS + [6] * FULL_ROUTE_WAYPOINTS
    assert stub_span(far_past) == MIN_STUB_SPAN - 1  # 1/6 of the waypoints: the 2-spans


def _ast(text: str) -> FlowchartAst:
    ast = parse_mermaid(text)
    assert isinstance(ast, FlowchartAst)
    return ast


def test_a_thousand_node_flowchart_draws_every_edge_in_full() -> None:
    ranked = rank(prepare(_ast(flowchart(1000)), RenderOptions(), {}))
    assert ranked.full_span is None


def _chain_with_long_edges() -> str:
    # A 400-node chain (one layer per node) and edges jumping most of it: 10 × ~370
    # waypoints is over the budget, so the jumps become stubs.
    lines = ["flowchart TD"]
    lines += [f"  c{i}[Step {i}] --> c{i + 1}[Step {i + 1}]" for i in range(399)]
    lines += [f"  c{i} -->|jump {i}| c{i + 370}" for i in range(10, 20)]
    return "\n".join(lines) + "\n"


def test_long_edges_past_the_budget_are_drawn_as_named_stubs() -> None:
    ast = _ast(_chain_with_long_edges())
    rendered = render_flowchart(ast, "d")
    ranked = rank(prepare(ast, RenderOptions(), {}))
    assert ranked.full_span is not None
    for edge_id, edge in ast.edges.items():
        spans = rendered.spans[ObjectRef("d", FLOW_EDGE, edge_id)]
        text = "".join(slice_cells(rendered.lines[s.row], s.col_start, s.col_end) for s in spans)
        source = ast.nodes[edge.from_node_id].label
        target = ast.nodes[edge.to_node_id].label
        if edge.label and edge.label.startswith("jump"):
            # Both connectors, each naming the other end, and the label: all the edge's
            # (spans hold the text's words, not the blanks between them).
            for words in (f"to {target}", f"from {source}", edge.label):
                assert words.replace(" ", "") in text
            assert f"to {target}" in rendered.text and f"from {source}" in rendered.text
        assert "▼" in text or "▲" in text  # its arrowhead, at its target


def test_stubs_are_drawn_the_same_way_every_time() -> None:
    ast = _ast(_chain_with_long_edges())
    assert render_flowchart(ast, "d").text == render_flowchart(ast, "d").text
