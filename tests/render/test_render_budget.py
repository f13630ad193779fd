"""The render work budget (nereid.render.budget): too-large drawings are refused, cheaply.

The measures are counted from the model or geometry before the work they predict, so the
diagrams that took tens of seconds and gigabytes are refused fast, and the same diagram
is always accepted or always refused.
"""

from __future__ import annotations

import pickle
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nereid.mermaid import parse_mermaid
from nereid.model.flowchart import FlowchartAst
from nereid.model.sequence import SequenceAst
from nereid.model.walkthrough import Walkthrough, WalkthroughEdge, WalkthroughNode
from nereid.render import (
    Canvas,
    RenderError,
    TooLargeToRender,
    render_flowchart,
    render_sequence,
    render_walkthrough,
)
from nereid.render.budget import MAX_CANVAS_CELLS, MAX_LAYOUT_ITEMS, MAX_LINE_CELLS
from nereid.testing.big_diagrams import dense_flowchart, flowchart, long_sequence


def _flow(text: str) -> FlowchartAst:
    ast = parse_mermaid(text)
    assert isinstance(ast, FlowchartAst)
    return ast


def test_dense_flowchart_is_refused_before_layout() -> None:
    # 200 nodes, 7 180 edges: 53 s and 6.4 GB before the budget.
    ast = _flow(dense_flowchart(200, 7180))
    with pytest.raises(TooLargeToRender) as info:
        render_flowchart(ast, "d")
    err = info.value
    assert err.measure == "layout items (nodes, edges, edge waypoints)"
    assert err.limit == MAX_LAYOUT_ITEMS and err.value > MAX_LAYOUT_ITEMS
    assert err.message == (
        f"too large to render: {err.value} layout items (nodes, edges, edge waypoints) "
        f"(limit {MAX_LAYOUT_ITEMS})"
    )
    assert isinstance(err, RenderError)


def test_many_long_lines_are_refused_before_drawing() -> None:
    # One node fanning out to 2600: each line runs across a 28 000-column drawing.
    ast = _flow("flowchart TD\n" + "\n".join(f"  s --> t{i}" for i in range(2600)) + "\n")
    with pytest.raises(TooLargeToRender) as info:
        render_flowchart(ast, "d")
    assert info.value.measure == "line cells"
    assert info.value.value > MAX_LINE_CELLS


def test_the_ten_thousand_node_benchmark_flowchart_is_within_budget() -> None:
    # Counted before layout, so this costs no drawing: the 10 000-node flowchart of the
    # benchmark (49 862 items drawn in full) must fit, the dense graph above must not.
    from nereid.render.flowchart.items import rank
    from nereid.render.flowchart.prepare import prepare
    from nereid.render.options import RenderOptions

    ranked = rank(prepare(_flow(flowchart(10_000)), RenderOptions(), {}))
    assert ranked.full_span is not None  # its long edges are drawn as stubs


def test_thousand_node_flowchart_is_within_budget() -> None:
    rendered = render_flowchart(_flow(flowchart(1000)), "d")
    assert rendered.width * rendered.height <= MAX_CANVAS_CELLS


def test_sequence_and_walkthrough_have_a_canvas_budget() -> None:
    ast = parse_mermaid(long_sequence(300, 20_000))
    assert isinstance(ast, SequenceAst)
    with pytest.raises(TooLargeToRender) as info:
        render_sequence(ast, "s")
    assert info.value.measure == "canvas cells" and info.value.value > MAX_CANVAS_CELLS
    nodes = tuple(WalkthroughNode(node_id=f"s{i}", title=f"step {i}") for i in range(1000))
    edges = tuple(
        WalkthroughEdge(from_node_id=f"s{i}", to_node_id=f"s{(i * 37) % 1000}", kind="next")
        for i in range(1000)
    )
    walk = Walkthrough(walkthrough_id="w", title="t", nodes=nodes, edges=edges)
    with pytest.raises(TooLargeToRender):
        render_walkthrough(walk)


def test_canvas_refuses_to_allocate_or_grow_past_the_budget() -> None:
    with pytest.raises(TooLargeToRender):
        Canvas(MAX_CANVAS_CELLS // 1000 + 1, 1000)
    canvas = Canvas(1000, 1000)
    with pytest.raises(TooLargeToRender):
        canvas.grow(1000, MAX_CANVAS_CELLS // 1000 + 1)
    assert (canvas.width, canvas.height) == (1000, 1000)


def test_refusal_survives_pickling_from_a_worker_process() -> None:
    err = TooLargeToRender("canvas cells", 5, 4)
    copy = pickle.loads(pickle.dumps(err))
    assert (copy.measure, copy.value, copy.limit, copy.message) == (
        "canvas cells",
        5,
        4,
        err.message,
    )


@settings(max_examples=25, deadline=None)
@given(
    nodes=st.integers(1, 60),
    edges=st.integers(0, 1500),
    seed=st.integers(0, 10**6),
)
def test_every_flowchart_renders_or_is_refused_the_same_way_twice(
    nodes: int, edges: int, seed: int
) -> None:
    ast = _flow(dense_flowchart(nodes, edges, seed))
    outcomes = []
    for _ in range(2):
        try:
            outcomes.append(render_flowchart(ast, "d").text)
        except TooLargeToRender as err:
            outcomes.append(err.message)
    assert outcomes[0] == outcomes[1]


def test_nereid_render_cli_reports_too_large(tmp_path) -> None:
    path = tmp_path / "dense.mmd"
    path.write_text(dense_flowchart(200, 7180), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "nereid", "render", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1
    assert done.stdout == ""
    assert f"{path}: too large to render: " in done.stderr
