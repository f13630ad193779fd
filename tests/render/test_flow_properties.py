"""Properties of flowchart renders over generated graphs (cycles, self-loops, subgraphs,
every direction and line style): boxes never overlap, edges never enter a box, labels stay
readable, heads are drawn at their node, spans cover exactly what was drawn, output is
deterministic."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nereid.mermaid import parse_mermaid
from nereid.model.flowchart import FlowchartAst, FlowEdge, FlowNode, FlowSubgraph
from nereid.model.refs import FLOW_EDGE, FLOW_NODE, FLOW_SUBGRAPH, ObjectRef
from nereid.render import Rendered, RenderOptions, render_flowchart, slice_cells

SHAPES = ["rect", "round", "stadium", "diamond", "hexagon", "circle", "subroutine",
          "cylindrical", "parallelogram", "trapezoid_alt", "asymmetric", "double_circle",
          "icon", "image", "doc"]  # fmt: skip
HEAD_GLYPHS = set("▶◀▲▼○✕")
LABELS = ["go", "yes", "no", "a longer edge label", "x"]


@st.composite
def flowcharts(draw: st.DrawFn) -> FlowchartAst:
    count = draw(st.integers(1, 7))
    nodes = {
        f"n:N{i}": FlowNode(
            label=draw(st.sampled_from(["A", "Node", "a label that wraps over lines", "日本"])),
            shape=draw(st.sampled_from(SHAPES)),
        )
        for i in range(count)
    }
    edges = {}
    for k in range(draw(st.integers(0, 9))):
        src, dst = draw(st.integers(0, count - 1)), draw(st.integers(0, count - 1))
        line = draw(st.sampled_from(["solid", "dotted", "thick", "invisible"]))
        head_end = (
            "none"
            if line == "invisible"
            else draw(st.sampled_from(["arrow", "arrow", "none", "circle", "cross"]))
        )
        head_start = "none" if head_end == "none" else draw(st.sampled_from(["none", "arrow"]))
        edges[f"e:{k + 1:04d}"] = FlowEdge(
            from_node_id=f"n:N{src}",
            to_node_id=f"n:N{dst}",
            label=draw(st.none() | st.sampled_from(LABELS)),
            line=line,
            head_start=head_start,
            head_end=head_end,
            length=draw(st.sampled_from([1, 1, 2])),
        )
    subgraphs = {}
    if count > 1 and draw(st.booleans()):
        members = draw(st.lists(st.integers(0, count - 1), min_size=1, max_size=3, unique=True))
        inner = members[:1] if len(members) > 1 and draw(st.booleans()) else []
        if inner:
            subgraphs["sg:inner"] = FlowSubgraph(
                mermaid_id="inner", title="Inner", node_ids=(f"n:N{inner[0]}",)
            )
        subgraphs["sg:outer"] = FlowSubgraph(
            mermaid_id="outer",
            title="Outer group",
            node_ids=tuple(f"n:N{m}" for m in members if m not in inner),
            subgraph_ids=("sg:inner",) if inner else (),
        )
    direction = draw(st.sampled_from(["TD", "BT", "LR", "RL"]))
    return FlowchartAst(direction=direction, nodes=nodes, edges=edges, subgraphs=subgraphs)


def _render(ast: FlowchartAst, ascii: bool = False) -> Rendered:
    return render_flowchart(ast, "d", RenderOptions(ascii=ascii))


def _cell(rendered: Rendered, row: int, col: int) -> str:
    if row >= len(rendered.lines):
        return " "
    return slice_cells(rendered.lines[row], col, col) or " "


def _rects(rendered: Rendered) -> dict[str, tuple[int, int, int, int]]:
    rects = {}
    for ref, spans in rendered.spans.items():
        if ref.category == FLOW_NODE:
            rects[ref.object_id] = (
                min(s.row for s in spans),
                min(s.col_start for s in spans),
                max(s.row for s in spans),
                max(s.col_end for s in spans),
            )
    return rects


@settings(max_examples=120, deadline=None)
@given(flowcharts())
def test_flow_render_properties(ast: FlowchartAst) -> None:
    _check(ast)


def test_a_dogleg_at_the_drawings_edge_stays_on_the_canvas() -> None:
    """Two edges swapping rows next to the bottom row of an LR drawing: the dogleg once took
    the row below the last one and the drawing failed (`CanvasError: out of bounds`)."""
    text = (
        "flowchart LR\nN0[A]\nN1[A]\nN2[A]\nN3[A]\nN0 --> N3\nN1 ---|go| N2\n"
        "N0 --> N1\nN1 ----|go| N3\nN0 --> N2\n"
    )
    ast = parse_mermaid(text)
    assert isinstance(ast, FlowchartAst)
    _check(ast)


@pytest.mark.parametrize("size", [10, 30, 100])
@pytest.mark.parametrize("direction", ["TD", "LR"])
def test_corpus_shaped_graphs(size: int, direction: str) -> None:
    """Graphs shaped like the benchmark corpus (shared/bench/gen_corpus.py): full of cycles."""
    rnd = random.Random(7)
    nodes = {f"n:n{i}": FlowNode(label=f"Node {i}") for i in range(size)}
    edges = {}
    for i in range(size):
        edges[f"e:{len(edges) + 1:04d}"] = FlowEdge(
            from_node_id=f"n:n{i}", to_node_id=f"n:n{(i * 7 + 1) % size}"
        )
        if i % 3 == 0:
            edges[f"e:{len(edges) + 1:04d}"] = FlowEdge(
                from_node_id=f"n:n{i}", to_node_id=f"n:n{rnd.randrange(size)}", label=f"label {i}"
            )
    _check(FlowchartAst(direction=direction, nodes=nodes, edges=edges))


def _check(ast: FlowchartAst) -> None:
    rendered = _render(ast)
    assert rendered == _render(ast), "rendering must be deterministic"
    assert rendered.text == "\n".join(rendered.lines)
    rects = _rects(rendered)
    assert set(rects) == set(ast.nodes), "every node is drawn"

    # Boxes never overlap, and each node's span is exactly its full rectangle.
    boxes = sorted(rects.items())
    for i, (a, (t1, l1, b1, r1)) in enumerate(boxes):
        for b, (t2, l2, b2, r2) in boxes[i + 1 :]:
            assert b1 < t2 or b2 < t1 or r1 < l2 or r2 < l1, f"boxes {a} and {b} overlap"
    for node_id, (top, left, bottom, right) in rects.items():
        spans = rendered.spans[_ref(FLOW_NODE, node_id)]
        assert [tuple(s) for s in spans] == [(r, left, right) for r in range(top, bottom + 1)]
        # The label is fully visible inside its box.
        inside = " ".join(
            slice_cells(rendered.lines[r], left, right) for r in range(top, bottom + 1)
        )
        for word in ast.nodes[node_id].label.split():
            assert word in inside, f"label word {word!r} of {node_id} not visible"

    interiors = [(t + 1, lf + 1, b - 1, r - 1) for t, lf, b, r in rects.values()]
    for edge_id, edge in ast.edges.items():
        ref = _ref(FLOW_EDGE, edge_id)
        spans = rendered.spans.get(ref, ())
        cells = {(s.row, c) for s in spans for c in range(s.col_start, s.col_end + 1)}
        # Edges never run through a box (its border is where they attach).
        for row, col in cells:
            for top, left, bottom, right in interiors:
                assert not (top <= row <= bottom and left <= col <= right), (
                    f"edge {edge_id} enters a box at {(row, col)}"
                )
            assert _cell(rendered, row, col) != " ", f"edge {edge_id} span covers a blank cell"
        text = "\n".join(slice_cells(rendered.lines[s.row], s.col_start, s.col_end) for s in spans)
        if edge.label:
            for word in edge.label.split():
                assert word in text, f"edge label word {word!r} of {edge_id} not visible"
        # Every headed end shows its head glyph right next to its node.
        for head, node_id in (
            (edge.head_end, edge.to_node_id),
            (edge.head_start, edge.from_node_id),
        ):
            if head == "none":
                continue
            top, left, bottom, right = rects[node_id]
            around = {
                (r, c)
                for r, c in cells
                if (top - 1 <= r <= bottom + 1 and left - 1 <= c <= right + 1)
                and not (top <= r <= bottom and left <= c <= right)
            }
            glyphs = {_cell(rendered, r, c) for r, c in around}
            assert glyphs & HEAD_GLYPHS, f"edge {edge_id} has no head at {node_id}"

    # Two edges only share a cell where they cross.
    owners: dict[tuple[int, int], str] = {}
    for ref, spans in rendered.spans.items():
        if ref.category != FLOW_EDGE:
            continue
        for s in spans:
            for col in range(s.col_start, s.col_end + 1):
                other = owners.setdefault((s.row, col), ref.object_id)
                if other != ref.object_id:
                    assert _cell(rendered, s.row, col) == "┼", (
                        f"edges {other} and {ref.object_id} overlap at {(s.row, col)}"
                    )

    for sub_id in ast.subgraphs:
        spans = rendered.spans[_ref(FLOW_SUBGRAPH, sub_id)]
        for s in spans:
            for col in range(s.col_start, s.col_end + 1):
                assert _cell(rendered, s.row, col) != " "


@settings(max_examples=40, deadline=None)
@given(flowcharts())
def test_flow_ascii_is_pure_ascii(ast: FlowchartAst) -> None:
    ascii_ast = FlowchartAst(
        direction=ast.direction,
        nodes={k: FlowNode(label="Node", shape=v.shape) for k, v in ast.nodes.items()},
        edges={
            k: FlowEdge(
                from_node_id=e.from_node_id,
                to_node_id=e.to_node_id,
                line=e.line,
                head_start=e.head_start,
                head_end=e.head_end,
            )
            for k, e in ast.edges.items()
        },  # fmt: skip
        subgraphs=ast.subgraphs,
    )
    assert _render(ascii_ast, ascii=True).text.isascii()


def _ref(category: tuple[str, ...], object_id: str) -> ObjectRef:
    return ObjectRef("d", category, object_id)
