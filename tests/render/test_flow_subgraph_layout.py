"""Subgraphs in the flowchart layout (issue 15, issue 17 point 7): edges to and from frames
stop on the border and keep their labels outside, edges to empty subgraphs are drawn, a
subgraph's own direction is honoured when no edge crosses its frame, and subgraphs that
depend on each other follow each other along the rank direction."""

from __future__ import annotations

import textwrap

from hypothesis import given, settings
from hypothesis import strategies as st

from nereid.mermaid import parse_mermaid
from nereid.model.flowchart import FlowchartAst, FlowEdge, FlowNode, FlowSubgraph
from nereid.model.refs import FLOW_EDGE, FLOW_SUBGRAPH
from nereid.render import RenderOptions, render_flowchart
from nereid.render.flowchart.geometry import Geometry
from nereid.render.flowchart.layout import layout_flowchart
from nereid.render.flowchart.quality import edge_cells
from tests.render.quality_checks import frames_off_boxes, labels_apart

DIRECTIONS = ["TD", "BT", "LR", "RL"]


def _flow(source: str) -> FlowchartAst:
    ast = parse_mermaid(textwrap.dedent(source).strip() + "\n")
    assert isinstance(ast, FlowchartAst)
    return ast


@st.composite
def clustered(draw: st.DrawFn) -> FlowchartAst:
    """Up to four subgraphs (nested or side by side, some empty, some with a direction) and
    edges whose ends are nodes or subgraphs, cycles included."""
    count = draw(st.integers(1, 6))
    nodes = {f"n:N{i}": FlowNode(label=f"N{i}") for i in range(count)}
    sub_count = draw(st.integers(1, 4))
    owner = [draw(st.integers(-1, sub_count - 1)) for _ in range(count)]
    parent = [-1] + [draw(st.integers(-1, s - 1)) for s in range(1, sub_count)]
    subgraphs = {
        f"sg:S{s}": FlowSubgraph(
            mermaid_id=f"S{s}",
            title=draw(st.sampled_from([None, "Group", "A longer group title"])),
            direction=draw(st.sampled_from([None, None, *DIRECTIONS])),
            node_ids=tuple(f"n:N{i}" for i in range(count) if owner[i] == s),
            subgraph_ids=tuple(f"sg:S{c}" for c in range(sub_count) if parent[c] == s),
        )
        for s in range(sub_count)
    }
    ends = [*nodes, *subgraphs]
    edges = {}
    for k in range(draw(st.integers(1, 7))):
        a, b = draw(st.sampled_from(ends)), draw(st.sampled_from(ends))
        edges[f"e:{k:04d}"] = FlowEdge(
            from_node_id=a,
            to_node_id=b,
            label=draw(st.none() | st.sampled_from(["calls", "a longer label"])),
            line=draw(st.sampled_from(["solid", "dotted", "thick"])),
            length=draw(st.sampled_from([1, 1, 2])),
        )
    direction = draw(st.sampled_from(DIRECTIONS))
    return FlowchartAst(direction=direction, nodes=nodes, edges=edges, subgraphs=subgraphs)


def _inside(cell: tuple[int, int], rect: tuple[int, int, int, int]) -> bool:
    top, left, bottom, right = rect
    return top < cell[0] < bottom and left < cell[1] < right


def _nested(ast: FlowchartAst, end: str, other: str) -> bool:
    """The ends are one, or one holds the other (the edge then stays inside a frame)."""
    if end == other or _contains(ast, end, other):
        return True
    return other in ast.subgraphs and _contains(ast, other, end)


def _contains(ast: FlowchartAst, subgraph_id: str, end: str) -> bool:
    stack, seen = [subgraph_id], set()
    while stack:
        current = stack.pop()
        if current in seen:
            continue
        seen.add(current)
        sub = ast.subgraphs[current]
        if end in sub.node_ids or end in sub.subgraph_ids:
            return True
        stack.extend(sub.subgraph_ids)
    return False


@settings(max_examples=80, deadline=None)
@given(clustered())
def test_edges_to_frames_stop_at_the_border(ast: FlowchartAst) -> None:
    geometry = layout_flowchart(ast, RenderOptions())
    rendered = render_flowchart(ast, "d", RenderOptions())
    assert render_flowchart(ast, "d", RenderOptions()).text == rendered.text
    frames = {frame.subgraph_id: frame.rect for frame in geometry.frames}
    assert set(frames) == set(ast.subgraphs)
    drawn = {draw.edge_id: draw for draw in geometry.edges}
    assert set(drawn) == set(ast.edges), "every edge is drawn, to empty subgraphs too"
    for edge_id, edge in ast.edges.items():
        assert any(r.category == FLOW_EDGE and r.object_id == edge_id for r in rendered.spans)
        draw = drawn[edge_id]
        for end, other in (
            (edge.to_node_id, edge.from_node_id),
            (edge.from_node_id, edge.to_node_id),
        ):
            if end not in ast.subgraphs or _nested(ast, end, other):
                continue
            rect = frames[end]
            cells = _cells(draw.pieces)
            assert not any(_inside(c, rect) for c in cells), f"{edge_id} runs into {end}"
            for row, col, _, _ in draw.heads:
                assert not _inside((row, col), rect), f"{edge_id}'s head is inside {end}"
            for label in draw.labels:
                assert not _inside((label.row, label.col), rect), f"{edge_id}'s label in {end}"
    assert {r.object_id for r in rendered.spans if r.category == FLOW_SUBGRAPH} == set(
        ast.subgraphs
    )
    _no_edge_through_a_box(geometry)
    frames_off_boxes(geometry)
    labels_apart(geometry)


def _cells(pieces: list[list[tuple[int, int]]]) -> set[tuple[int, int]]:
    out: set[tuple[int, int]] = set()
    for piece in pieces:
        for (r0, c0), (r1, c1) in zip(piece, piece[1:], strict=False):
            for r in range(min(r0, r1), max(r0, r1) + 1):
                for c in range(min(c0, c1), max(c0, c1) + 1):
                    out.add((r, c))
    return out


def _no_edge_through_a_box(geometry: Geometry) -> None:
    lines = edge_cells(geometry)
    for node in geometry.nodes:
        top, left, bottom, right = node.rect
        inside = {(r, c) for r in range(top + 1, bottom) for c in range(left + 1, right)}
        assert not lines & inside, f"an edge runs through {node.node_id}"


def test_an_edge_to_an_empty_subgraph_is_drawn_to_its_frame() -> None:
    ast = _flow(
        """
        flowchart TD
            a --> empty
            subgraph empty [Nothing yet]
            end
            empty -->|later| b
        """
    )
    geometry = layout_flowchart(ast, RenderOptions())
    frame = next(f for f in geometry.frames if f.subgraph_id == "sg:empty")
    top, _, bottom, _ = frame.rect
    by_id = {d.edge_id: d for d in geometry.edges}
    into, out = (by_id[e] for e in ast.edges)
    assert into.heads and into.heads[0][0] == top - 1  # the arrow right above the frame
    assert out.pieces[0][0][0] == bottom  # leaves from the bottom border
    assert [n.node_id for n in geometry.nodes] == ["n:a", "n:b"]  # no stand-in drawn


def test_dependent_subgraphs_follow_each_other_along_the_rank_direction() -> None:
    for direction in DIRECTIONS:
        ast = _flow(
            f"""
            flowchart {direction}
                gw --> core
                subgraph core [Core]
                    api --> svc
                end
                subgraph data
                    db
                    cache
                end
                core --> data
            """
        )
        frames = {f.subgraph_id: f.rect for f in layout_flowchart(ast, RenderOptions()).frames}
        core, data = frames["sg:core"], frames["sg:data"]
        after = {
            "TD": data[0] > core[2],
            "BT": data[2] < core[0],
            "LR": data[1] > core[3],
            "RL": data[3] < core[1],
        }
        assert after[direction], (direction, core, data)


def test_a_closed_subgraph_keeps_its_own_direction() -> None:
    ast = _flow(
        """
        flowchart TD
            subgraph pipeline [Build]
                direction LR
                checkout --> compile --> test
            end
            dev --> pipeline
            pipeline --> registry
        """
    )
    geometry = layout_flowchart(ast, RenderOptions())
    rows = {n.node_id: n.rect[0] for n in geometry.nodes}
    assert rows["n:checkout"] == rows["n:compile"] == rows["n:test"]
    cols = {n.node_id: n.rect[1] for n in geometry.nodes}
    assert cols["n:checkout"] < cols["n:compile"] < cols["n:test"]
    frame = next(f for f in geometry.frames if f.subgraph_id == "sg:pipeline")
    assert rows["n:dev"] < frame.rect[0] and rows["n:registry"] > frame.rect[2]


def test_a_crossed_subgraph_takes_the_parent_direction() -> None:
    ast = _flow(
        """
        flowchart TD
            subgraph pipeline [Build]
                direction LR
                checkout --> compile
            end
            dev --> checkout
        """
    )
    rows = {n.node_id: n.rect[0] for n in layout_flowchart(ast, RenderOptions()).nodes}
    assert rows["n:checkout"] < rows["n:compile"]  # TD inside: an edge crosses the frame


def test_nested_directions_alternate() -> None:
    ast = _flow(
        """
        flowchart LR
            subgraph outer
                direction TB
                subgraph inner
                    direction LR
                    a --> b
                end
                c --> d
            end
            x --> outer
        """
    )
    geometry = layout_flowchart(ast, RenderOptions())
    box = {n.node_id: n.rect for n in geometry.nodes}
    assert box["n:a"][0] == box["n:b"][0] and box["n:a"][1] < box["n:b"][1]  # inner: LR
    assert box["n:c"][0] < box["n:d"][0]  # outer: TB
    frames = {f.subgraph_id: f.rect for f in geometry.frames}
    o, i = frames["sg:outer"], frames["sg:inner"]
    assert o[0] < i[0] and o[1] < i[1] and i[2] < o[2] and i[3] < o[3]
    _no_edge_through_a_box(geometry)
